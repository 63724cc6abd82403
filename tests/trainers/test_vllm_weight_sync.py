"""Weight sync into vLLM's real CPU engine: after a push the next rollout has the new weights.

Run by ``make test-vllm`` (marker ``vllm``; also ``slow``, so the default suite skips it).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from vllm_support import require_vllm

from agentgym import PolicyError
from agentgym.policies import SamplingParams
from agentgym.policies.chat import ChatFormat
from agentgym.policies.vllm_check import LOGPROB_TOL, hf_logprobs, max_diff
from agentgym.trainers.weight_sync import WeightSync

pytestmark = [pytest.mark.vllm, pytest.mark.slow]


@pytest.fixture(scope="module")
def policy() -> Iterator[Any]:
    """One engine for the module."""
    require_vllm()
    from agentgym.policies.vllm_engine import VLLMPolicy

    p = VLLMPolicy("smollm2-135m")
    yield p
    p.close()


def perturbed(path: str, seed: int) -> Any:
    """The model of ``path`` with noise on every attention and MLP matrix (a 'trained' copy)."""
    import torch
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(path).eval()
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "layers." in name and p.dim() == 2:
                p.add_(torch.randn(p.shape, generator=gen) * 0.02)
    return model


def greedy(policy: Any, prompt: list[int]) -> Any:
    return policy.generate([], sampling=SamplingParams(max_tokens=8, temperature=0.0),
                           prompt_token_ids=prompt)


def test_push_reaches_the_engine_and_the_next_rollout_has_the_new_weights(
        policy: Any, tmp_path: Path) -> None:
    from transformers import AutoModelForCausalLM

    prompt = ChatFormat(policy.tokenizer).prompt_ids([{"role": "user", "content": "Say hi."}])
    old_model = AutoModelForCausalLM.from_pretrained(policy.model_path).eval()
    before = greedy(policy, prompt)
    assert max_diff(before.logprobs, hf_logprobs(old_model, prompt, before.token_ids)) < LOGPROB_TOL

    new_model = perturbed(policy.model_path, seed=1)
    sync = WeightSync(policy, tmp_path / "weights")
    version = policy.version
    sync.push(new_model, policy.tokenizer)
    assert policy.version == version + 1
    after = greedy(policy, prompt)
    assert after.policy_version == version + 1
    new_ref = hf_logprobs(new_model, prompt, after.token_ids)
    old_ref = hf_logprobs(old_model, prompt, after.token_ids)
    assert max_diff(after.logprobs, new_ref) < LOGPROB_TOL  # the new weights, to fp32 noise
    assert max_diff(after.logprobs, old_ref) > 20 * LOGPROB_TOL  # and not the old ones

    sync.push(old_model, policy.tokenizer)  # back again: the module's other tests see the base
    again = greedy(policy, prompt)
    assert again.token_ids == before.token_ids and policy.version == version + 2


def test_a_folder_without_weights_is_a_policy_error_and_keeps_the_version(
        policy: Any, tmp_path: Path) -> None:
    version = policy.version
    with pytest.raises(PolicyError, match="safetensors"):
        policy.reload_weights(str(tmp_path))
    assert policy.version == version
    prompt = ChatFormat(policy.tokenizer).prompt_ids([{"role": "user", "content": "Hi"}])
    assert len(greedy(policy, prompt).token_ids) > 0  # the engine still serves


def test_a_push_that_changes_the_tied_embeddings_reaches_the_engine(
        policy: Any, tmp_path: Path) -> None:
    """SmolLM2's ``lm_head`` is tied to the embedding: vLLM's CPU reload used to keep the head's
    packed copy of the old embedding (|diff| 1.8); the worker rebuilds it after the reload."""
    import torch
    from transformers import AutoModelForCausalLM

    prompt = ChatFormat(policy.tokenizer).prompt_ids([{"role": "user", "content": "Say hi."}])
    model = AutoModelForCausalLM.from_pretrained(policy.model_path).eval()
    with torch.no_grad():
        emb = model.get_input_embeddings().weight  # tied with lm_head in SmolLM2
        emb.add_(torch.randn(emb.shape, generator=torch.Generator().manual_seed(0)) * 0.02)
    try:
        WeightSync(policy, tmp_path / "weights").push(model, policy.tokenizer)
        after = greedy(policy, prompt)
        assert max_diff(after.logprobs, hf_logprobs(model, prompt, after.token_ids)) < LOGPROB_TOL
    finally:
        base = AutoModelForCausalLM.from_pretrained(policy.model_path)
        WeightSync(policy, tmp_path / "base").push(base, policy.tokenizer)
