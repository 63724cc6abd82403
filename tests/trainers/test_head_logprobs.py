"""Log-probs from hidden states and the LM head in chunks: exact against the full-logits path."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from agentgym.trainers.batch import collate
from agentgym.trainers.head_logprobs import head_logprobs, head_parts
from agentgym.trainers.tiny import tiny_llama
from agentgym.trainers.update import forward_logprobs


def _traj(ids, mask, prompt):
    return SimpleNamespace(token_ids=ids, loss_mask=mask, logprobs=[-1.0] * len(ids),
                           prompt_ids=prompt)


TRAJS = [_traj([1, 2, 3, 40, 50, 60], [0, 0, 0, 1, 1, 1], [1, 2, 3]),
         _traj([1, 2, 3, 70, 80], [0, 0, 0, 1, 1], [1, 2, 3]),
         _traj([9, 8, 7, 6, 5, 4, 3], [0, 0, 1, 1, 0, 1, 1], [9, 8])]


@pytest.mark.parametrize("temperature", [1.0, 0.7])
def test_head_logprobs_equal_log_softmax_with_gradients(temperature, monkeypatch):
    import agentgym.trainers.head_logprobs as hl

    monkeypatch.setattr(hl, "CHUNK_ELEMENTS", 3 * 13)  # three tokens a chunk: many chunks
    torch.manual_seed(0)
    hidden = torch.randn(4, 5, 6, dtype=torch.float64).float().requires_grad_()
    weight = torch.randn(13, 6).requires_grad_()
    targets = torch.randint(0, 13, (4, 5))
    scale = torch.randn(4, 5)
    logp, entropy = head_logprobs(hidden, weight, targets, temperature, with_entropy=True)
    (logp * scale).sum().backward()
    got = (hidden.grad.clone(), weight.grad.clone())
    hidden.grad = weight.grad = None
    logits = hidden @ weight.T / temperature  # (4, 5, 13)
    ref = torch.log_softmax(logits, -1).gather(-1, targets[..., None])[..., 0]
    (ref * scale).sum().backward()
    torch.testing.assert_close(logp, ref, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(got[0], hidden.grad, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(got[1], weight.grad, atol=1e-5, rtol=1e-5)
    p = torch.softmax(logits.detach(), -1)
    torch.testing.assert_close(entropy, -(p * p.log()).sum(-1), atol=1e-5, rtol=1e-5)
    with pytest.raises(ValueError, match="temperature"):
        head_logprobs(hidden, weight, targets, 0.0)


def _grads(model):
    return torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None])


@pytest.mark.parametrize("share", [False, True])
def test_chunked_path_equals_full_logits_on_a_model(share, monkeypatch):
    import agentgym.trainers.head_logprobs as hl

    monkeypatch.setattr(hl, "CHUNK_ELEMENTS", 4 * 259)  # four tokens a chunk
    batch = collate(TRAJS, torch.tensor([1.0, -0.5, 0.25]), pad_id=0, loss_agg="token_mean",
                    share_prompt=share)
    out = {}
    for path in ("full", "chunked"):
        model, _ = tiny_llama()
        mb = next(batch.micro_batches(3 if not share else 2))
        logp, entropy = forward_logprobs(model, mb, 0.8, with_entropy=True, path=path)
        (logp * mb.mask).sum().backward()
        out[path] = (logp.detach(), entropy, _grads(model))
    assert head_parts(model) is not None
    for a, b in zip(out["full"], out["chunked"], strict=True):
        torch.testing.assert_close(a, b, atol=2e-5, rtol=2e-5)


def test_a_model_whose_logits_are_not_norm_times_head_keeps_the_full_path():
    """A head that scales its output fails the one-time check: auto falls back to the logits."""
    batch = collate(TRAJS, torch.tensor([1.0, -0.5, 0.25]), pad_id=0, loss_agg="token_mean")
    mb = next(batch.micro_batches(3))
    model, _ = tiny_llama()
    model.lm_head.register_forward_hook(lambda _m, _a, out: out * 2.0)
    auto, _ = forward_logprobs(model, mb, 1.0)
    assert head_parts(model) is None  # remembered: never tried again
    full, _ = forward_logprobs(model, mb, 1.0, path="full")
    torch.testing.assert_close(auto, full)
    with pytest.raises(ValueError, match="full"):
        forward_logprobs(model, mb, 1.0, path="chunked")
    with pytest.raises(ValueError, match="fused needs a CUDA GPU"):  # fp32 here, and no CUDA
        forward_logprobs(model, mb, 1.0, path="fused")


def test_chunked_path_equals_full_on_smollm2():
    """SmolLM2-135M's real weights (bundled GGUF): log-probs and gradients agree."""
    from agentgym import MissingExtra
    from agentgym.models import load_model_and_tokenizer

    try:
        model, tok = load_model_and_tokenizer("smollm2-135m", device="cpu")
    except MissingExtra as e:  # a GPU machine the weights did not travel to
        pytest.skip(str(e))
    model.train()
    prompt = tok.encode("What is 12 + 30? Answer with a number.")
    answers = [tok.encode(" 42"), tok.encode(" The answer is 41.")]
    trajs = [_traj(prompt + a, [0] * len(prompt) + [1] * len(a), prompt) for a in answers]
    batch = collate(trajs, torch.tensor([1.0, -1.0]), pad_id=0, loss_agg="token_mean")
    mb = next(batch.micro_batches(2))
    out = {}
    for path in ("full", "chunked"):
        model.zero_grad(set_to_none=True)
        logp, entropy = forward_logprobs(model, mb, 1.0, with_entropy=True, path=path)
        (logp * mb.mask * mb.advantages[:, None]).sum().backward()
        out[path] = (logp.detach(), entropy, model.lm_head.weight.grad.clone(),
                     model.model.layers[0].mlp.up_proj.weight.grad.clone())
    for a, b in zip(out["full"], out["chunked"], strict=True):
        torch.testing.assert_close(a, b, atol=1e-4, rtol=1e-4)
