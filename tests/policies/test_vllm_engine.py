"""The ``vllm:`` policy on vLLM's real CPU build: exact tokens, log-probs against HF, seeds, stops.

Run by ``make test-vllm`` (marker ``vllm``; also ``slow``, so the default suite skips it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from vllm_support import require_vllm

from agentgym import PolicyError
from agentgym.policies import SamplingParams
from agentgym.policies.chat import ChatFormat
from agentgym.policies.vllm_check import LOGPROB_TOL, hf_logprobs, max_diff

pytestmark = [pytest.mark.vllm, pytest.mark.slow]




@pytest.fixture(scope="module")
def policy() -> Iterator[Any]:
    """One engine for the module (start-up is the expensive part)."""
    require_vllm()
    from agentgym.policies.vllm_engine import VLLMPolicy

    p = VLLMPolicy("smollm2-135m")
    yield p
    p.close()


@pytest.fixture(scope="module")
def hf_model(policy: Any) -> Any:
    """The same weights in transformers (the project's environment)."""
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(policy.model_path).eval()


def _prompt(policy: Any, text: str, tools: list[dict[str, Any]] | None = None) -> list[int]:
    return ChatFormat(policy.tokenizer).prompt_ids([{"role": "user", "content": text}], tools)


def _batch(policy: Any, prompts: list[list[int]], sampling: list[SamplingParams]) -> list[Any]:
    async def go() -> list[Any]:
        return list(await asyncio.gather(*(
            policy.agenerate([], sampling=s, prompt_token_ids=p)
            for p, s in zip(prompts, sampling, strict=True))))

    return asyncio.run(go())


def test_batched_samples_carry_hf_log_probs(policy: Any, hf_model: Any) -> None:
    """Eight concurrent requests at T=0.7: each token's log-prob is HF's log_softmax(logits/T)."""
    prompts = [_prompt(policy, f"Compute {a} + {a + 1}.") for a in range(8)]
    sampling = [SamplingParams(max_tokens=12, temperature=0.7, seed=100 + i) for i in range(8)]
    gens = _batch(policy, prompts, sampling)
    for prompt, gen in zip(prompts, gens, strict=True):
        assert gen.prompt_token_ids == prompt
        assert 0 < len(gen.token_ids) <= 12 and len(gen.logprobs) == len(gen.token_ids)
        assert policy.tokenizer.decode(gen.token_ids, skip_special_tokens=True) == gen.text
        ref = hf_logprobs(hf_model, prompt, gen.token_ids, temperature=0.7)
        assert max_diff(gen.logprobs, ref) < LOGPROB_TOL


def test_multi_turn_ids_are_continued_exactly(policy: Any, hf_model: Any) -> None:
    """Turn 2's prompt is turn 1's ids + its reply + the tool result: vLLM continues those ids."""
    tools = [{"type": "function", "function": {"name": "add", "description": "Add two numbers",
              "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}}}]
    first = _prompt(policy, "Add 2 and 3 with the tool.", tools)
    g1 = policy.generate([], sampling=SamplingParams(max_tokens=16, temperature=0.0),
                         prompt_token_ids=first)
    follow = policy.tokenizer.encode("<|im_end|>\n<|im_start|>user\nresult: 5<|im_end|>\n"
                                     "<|im_start|>assistant\n", add_special_tokens=False)
    second = first + g1.token_ids + follow
    g2 = policy.generate([], sampling=SamplingParams(max_tokens=8, temperature=1.0, seed=3),
                         prompt_token_ids=second)
    assert g2.prompt_token_ids == second
    assert max_diff(g2.logprobs, hf_logprobs(hf_model, second, g2.token_ids)) < LOGPROB_TOL


def test_seeded_sampling_is_reproducible(policy: Any) -> None:
    prompt = _prompt(policy, "Write a word.")
    runs = [_batch(policy, [prompt] * 3, [SamplingParams(max_tokens=10, temperature=1.0,
                                                         seed=s) for s in (1, 1, 2)])
            for _ in range(2)]
    assert runs[0][0].token_ids == runs[0][1].token_ids == runs[1][0].token_ids
    assert runs[0][2].token_ids == runs[1][2].token_ids
    others = [_batch(policy, [prompt], [SamplingParams(max_tokens=10, seed=s)])[0].token_ids
              for s in range(3, 8)]
    assert any(o != runs[0][0].token_ids for o in others)  # the seed, not a fixed stream


def test_seeded_requests_beyond_one_steps_token_budget_are_sampled(policy: Any) -> None:
    """An asynchronous run keeps ~200 episodes in flight: their prompts together exceed the
    engine's per-step token budget (4096), which vLLM would meet by prefilling a prompt in
    chunks and rewinding the seeded generator of the unfinished one, which the CPU generator
    cannot do ("CPU Generator does not use offset": the whole batch failed). Every request
    comes back, and a seed still gives the same tokens as the request alone."""
    prompts = [_prompt(policy, f"Add {i} and {i + 7}, then explain the sum in two sentences.")
               for i in range(200)]
    assert sum(map(len, prompts)) > 2 * 4096
    sampling = [SamplingParams(max_tokens=6, temperature=1.0, seed=1000 + i) for i in range(200)]
    outs = _batch(policy, prompts, sampling)
    assert all(len(o.token_ids) > 0 and o.logprobs for o in outs)
    alone = _batch(policy, [prompts[137]], [sampling[137]])[0]
    assert alone.token_ids == outs[137].token_ids


def test_max_tokens_and_stop_strings_are_honoured(policy: Any) -> None:
    prompt = _prompt(policy, "Count from 1 to 20, separated by spaces.")
    greedy = SamplingParams(max_tokens=24, temperature=0.0)
    full = policy.generate([], sampling=greedy, prompt_token_ids=prompt)
    short = policy.generate([], sampling=greedy.with_(max_tokens=3), prompt_token_ids=prompt)
    assert len(short.token_ids) == 3 and short.finish_reason == "length"
    assert short.token_ids == full.token_ids[:3]
    stop = full.text.strip()[len(full.text.strip()) // 2:][:2]
    assert stop
    cut = policy.generate([], sampling=greedy.with_(stop=(stop,)), prompt_token_ids=prompt)
    assert cut.finish_reason == "stop" and stop not in cut.text
    assert full.text.startswith(cut.text) and len(cut.text) < len(full.text)


def test_bad_requests_are_policy_errors_and_the_engine_goes_on(policy: Any) -> None:
    with pytest.raises(PolicyError):
        policy.generate([], sampling=SamplingParams(max_tokens=0), prompt_token_ids=[1, 2])
    with pytest.raises(PolicyError, match="vllm"):  # an id past the vocabulary
        policy.generate([], sampling=SamplingParams(max_tokens=2),
                        prompt_token_ids=[10**9])
    ok = policy.generate([], sampling=SamplingParams(max_tokens=2, temperature=0.0),
                         prompt_token_ids=_prompt(policy, "Hi"))
    assert len(ok.token_ids) == 2
