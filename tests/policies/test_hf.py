"""The transformers policy on a tiny random Llama: batching, padding, log-probs, weight updates."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from agentgym.policies import FakeTokenizer, SamplingParams  # noqa: E402
from agentgym.policies.hf import HFPolicy  # noqa: E402


def tiny_model() -> object:
    """A 2-layer Llama over the fake tokenizer's 259 ids (random weights, seeded)."""
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=259, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=1024,
        bos_token_id=256, eos_token_id=257, pad_token_id=258,
    )
    return transformers.LlamaForCausalLM(config).eval()


PROMPTS = [list(b"hello there"), list(b"a much longer prompt than the first one"), list(b"x")]


def _forward_logprobs(model: object, prompt: list[int], gen: list[int], temp: float) -> list[float]:
    ids = torch.tensor([prompt + gen])
    with torch.no_grad():
        logits = model(ids).logits[0].float()  # (T, V)
    logp = torch.log_softmax(logits / temp, dim=-1)
    return [float(logp[len(prompt) + i - 1, t]) for i, t in enumerate(gen)]


async def test_concurrent_requests_share_a_batch_and_match_solo_decoding() -> None:
    policy = HFPolicy(tiny_model(), FakeTokenizer(), batch_wait_ms=20)
    greedy = SamplingParams(max_tokens=6, temperature=0.0)
    together = await asyncio.gather(*(
        policy.agenerate([], sampling=greedy, prompt_token_ids=p) for p in PROMPTS))
    assert policy.batches == [3]
    for prompt, gen in zip(PROMPTS, together, strict=True):
        solo = await policy.agenerate([], sampling=greedy, prompt_token_ids=prompt)
        assert solo.token_ids == gen.token_ids  # left padding does not change the result
        assert gen.logprobs == pytest.approx(solo.logprobs, abs=1e-5)
        assert gen.logprobs == pytest.approx(
            _forward_logprobs(policy.model, prompt, gen.token_ids, 1.0), abs=1e-4)
        assert gen.finish_reason in ("stop", "length") and gen.policy_version == 0
    await policy.aclose()


async def test_sampled_logprobs_use_the_temperature_and_seeds_repeat() -> None:
    policy = HFPolicy(tiny_model(), FakeTokenizer())
    sampling = SamplingParams(max_tokens=8, temperature=0.7, seed=11)
    a = await policy.agenerate([], sampling=sampling, prompt_token_ids=PROMPTS[0])
    b, _ = await asyncio.gather(  # same seed, now batched with another request
        policy.agenerate([], sampling=sampling, prompt_token_ids=PROMPTS[0]),
        policy.agenerate([], sampling=sampling.with_(seed=12), prompt_token_ids=PROMPTS[1]),
    )
    assert a.token_ids == b.token_ids
    assert a.logprobs == pytest.approx(
        _forward_logprobs(policy.model, PROMPTS[0], a.token_ids, 0.7), abs=1e-4)
    await policy.aclose()


class _UpdateMidTurn(HFPolicy):
    """Applies a weight update right before the 4th decode step of the first request."""

    steps = 0

    @contextlib.contextmanager
    def _weights(self) -> Iterator[int]:
        self.steps += 1
        if self.steps == 4:
            new = {k: v + 0.01 for k, v in self.model.state_dict().items()}
            self.load_state_dict(new)
        with super()._weights() as version:
            yield version


async def test_weight_updates_bump_the_version_per_token() -> None:
    policy = _UpdateMidTurn(tiny_model(), FakeTokenizer())
    sampling = SamplingParams(max_tokens=6, temperature=0.0)
    gen = await policy.agenerate([], sampling=sampling, prompt_token_ids=PROMPTS[0])
    assert gen.token_versions() == [0, 0, 0, 1, 1, 1] and policy.version == 1
    with policy.updating_weights() as module:
        assert module is policy.model
    after = await policy.agenerate([], sampling=sampling, prompt_token_ids=PROMPTS[0])
    assert after.policy_version == 2 and after.versions is None
    await policy.aclose()


def test_sync_twin_and_templating_without_ids() -> None:
    policy = HFPolicy(tiny_model(), FakeTokenizer())
    gen = policy.generate([{"role": "user", "content": "hi"}],
                          sampling=SamplingParams(max_tokens=3, temperature=0.0))
    assert len(gen.token_ids) <= 3
    assert gen.prompt_token_ids == FakeTokenizer().apply_chat_template(
        [{"role": "user", "content": "hi"}], tokenize=True, add_generation_prompt=True)


def test_a_closed_policy_leaves_no_pending_batcher_behind(caplog: pytest.LogCaptureFixture) -> None:
    """A frozen opponent dropped from a self-play pool is closed between two runs of the loop
    that drove it; its batcher must not be destroyed pending ("Task was destroyed but it is
    pending!") when the policy is collected."""
    import gc
    import logging

    runner = asyncio.Runner()  # a loop that outlives the run, as an engine's does
    try:
        policy = HFPolicy(tiny_model(), FakeTokenizer())
        greedy = SamplingParams(max_tokens=2, temperature=0.0)
        runner.run(policy.agenerate([], sampling=greedy, prompt_token_ids=PROMPTS[2]))
        batcher = policy._batcher
        assert batcher is not None and not batcher.done()  # idle, waiting for the next request
        policy.close()  # between runs: the loop is not running
        with caplog.at_level(logging.ERROR, logger="asyncio"):
            del policy, batcher
            gc.collect()
            runner.run(asyncio.sleep(0))  # the loop's next run settles the cancel
            gc.collect()
        assert "destroyed but it is pending" not in caplog.text
    finally:
        runner.close()
