"""The GPU code paths, checked on the CPU: device moves, fp32 log-probs from bf16 logits, batched
hashed sampling, sync-free decoding, mixed precision and the share-prompt choice.

The first CUDA update once crashed because the collated batch stayed on the host; these tests
put the model on the ``meta`` device (a second device every machine has) so that any tensor the
trainer forgets to move fails here the same way.
"""

from __future__ import annotations

import math
from contextlib import nullcontext
from types import SimpleNamespace

import pytest
import torch

from agentgym.policies.hf_decode import DecodeRequest, _sample, decode_batch, hashed_uniform
from agentgym.trainers.batch import collate
from agentgym.trainers.logprobs import chunked_entropy, selective_logprobs
from agentgym.trainers.update import forward_logprobs


def _traj(ids, mask, lps, prompt=None):
    return SimpleNamespace(token_ids=ids, loss_mask=mask, logprobs=lps, prompt_ids=prompt or [])


TRAJS = [
    _traj([1, 2, 3, 4, 5], [0, 0, 1, 1, 0], [0, 0, -0.5, -0.25, 0]),
    _traj([1, 2, 3], [0, 1, 1], [0, -1.0, -2.0]),
    _traj([7, 8, 9, 10], [0, 0, 0, 1], [0, 0, 0, -3.0]),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("temperature", [1.0, 0.7])
def test_selective_logprobs_match_log_softmax_with_gradients(dtype, temperature, monkeypatch):
    import agentgym.trainers.logprobs as lp

    monkeypatch.setattr(lp, "CHUNK_ELEMENTS", 3 * 5 * 11)  # force several row chunks
    torch.manual_seed(0)
    logits = (torch.randn(7, 5, 11) * 3).to(dtype).requires_grad_()
    targets = torch.randint(0, 11, (7, 5))
    weights = torch.randn(7, 5)
    got = selective_logprobs(logits, targets, temperature)
    (got * weights).sum().backward()
    grad_got = logits.grad.clone()
    logits.grad = None
    ref = torch.log_softmax(logits.float() / temperature, -1).gather(-1, targets[..., None])[..., 0]
    (ref * weights).sum().backward()
    assert got.dtype == torch.float32
    torch.testing.assert_close(got, ref, atol=1e-5, rtol=1e-5)
    tol = 1e-5 if dtype == torch.float32 else 1e-2
    torch.testing.assert_close(grad_got.float(), logits.grad.float(), atol=tol, rtol=tol)
    assert grad_got.dtype == dtype
    ent = chunked_entropy(logits.detach(), temperature)
    p = torch.softmax(logits.detach().float() / temperature, -1)
    torch.testing.assert_close(ent, -(p * p.log()).sum(-1), atol=1e-5, rtol=1e-5)


def test_hashed_uniform_is_per_row_and_uniform():
    seeds = torch.tensor([3, 99, 3])
    u = hashed_uniform(seeds, step=5, vocab=50_000)
    assert u.shape == (3, 50_000) and float(u.min()) > 0 and float(u.max()) < 1
    assert torch.equal(u[0], u[2])  # same seed and step -> same noise, whatever the batch
    assert not torch.equal(u[0], u[1])
    assert not torch.equal(u[0], hashed_uniform(torch.tensor([3]), step=6, vocab=50_000)[0])
    assert abs(float(u.mean()) - 0.5) < 0.01
    hist = torch.histc(u[1], bins=10, min=0, max=1) / u.shape[1]
    assert float((hist - 0.1).abs().max()) < 0.01


def test_gumbel_sampling_follows_the_distribution():
    """The batched GPU sampler draws tokens with the softmax's frequencies."""
    logits = torch.log(torch.tensor([0.5, 0.3, 0.15, 0.05]))
    rows = 4000
    scaled = logits.expand(rows, -1)
    seeds = torch.arange(rows)
    counts = torch.bincount(_sample(scaled, seeds, 0, None), minlength=4).float() / rows
    torch.testing.assert_close(counts, logits.exp(), atol=0.03, rtol=0)
    masked = scaled.clone()
    masked[:, 0] = float("-inf")  # a filtered token is never drawn
    assert 0 not in _sample(masked, seeds, 1, None).tolist()


def _decode(model, requests, **kw):
    return decode_batch(model, requests, temperature=kw.pop("temperature", 1.0), eos_ids={258},
                        pad_id=0, weights=lambda: nullcontext(7), **kw)


def test_decode_checks_the_host_rarely_and_gives_the_same_tokens():
    from agentgym.trainers.tiny import tiny_llama

    model, _ = tiny_llama()
    model.eval()
    reqs = [DecodeRequest([1, 2, 3], 9, seed=1), DecodeRequest([5, 6], 4, seed=2),
            DecodeRequest([7], 0, seed=3)]
    every = _decode(model, reqs, check_every=1)
    rare = _decode(model, reqs, check_every=8)
    assert [r.token_ids for r in every] == [r.token_ids for r in rare]
    assert [len(r.token_ids) for r in every] == [9, 4, 0]
    assert every[0].versions == [7] * 9 and every[2].finish_reason == "length"
    alone = _decode(model, [reqs[1]])
    assert alone[0].token_ids == every[1].token_ids  # independent of the batch's other rows
    with torch.no_grad():  # the recorded log-prob is log_softmax(logits / T) of the drawn token
        ids = torch.tensor([[1, 2, 3, *every[0].token_ids]])
        ref = torch.log_softmax(model(ids).logits[0, 2:-1].float(), -1)
        ref = ref.gather(-1, ids[0, 3:, None])[:, 0]
    torch.testing.assert_close(torch.tensor(every[0].logprobs), ref, atol=1e-4, rtol=1e-4)


def test_decode_under_autocast_runs():
    from agentgym.trainers.tiny import tiny_llama

    model, _ = tiny_llama()
    out = _decode(model, [DecodeRequest([1, 2], 5, seed=0)], autocast=torch.bfloat16,
                  temperature=0.0)
    assert len(out[0].token_ids) == 5 and all(math.isfinite(x) for x in out[0].logprobs)


class _BagLM(torch.nn.Module):
    """A causal LM with transformers' call signature whose ops all run on the meta device."""

    def __init__(self, vocab: int = 16, hidden: int = 8) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, hidden)
        self.head = torch.nn.Linear(hidden, vocab)

    def forward(self, input_ids, attention_mask=None, logits_to_keep=0, **_):
        h = self.embed(input_ids).cumsum(1)  # (B, L, H): position t sees tokens <= t
        if attention_mask is not None:
            h = h * attention_mask[..., None]
        logits = self.head(h[:, -logits_to_keep:] if logits_to_keep else h)
        return SimpleNamespace(logits=logits, past_key_values=None)


@pytest.mark.parametrize("share", [False, True])
def test_update_moves_the_micro_batch_to_the_model_device(share):
    """A model on another device than the collated batch (the first CUDA crash)."""
    from agentgym.trainers.config import TrainConfig
    from agentgym.trainers.losses import ppo_clip_loss
    from agentgym.trainers.update import policy_update

    model = _BagLM().to("meta")
    trajs = [_traj([1, 2, 3, 4, 5], [0, 0, 1, 1, 1], [0] * 5, prompt=[1, 2, 3]),
             _traj([1, 2, 3, 6, 7], [0, 0, 1, 1, 1], [0] * 5, prompt=[1, 2, 3])]
    batch = collate(trajs, torch.tensor([1.0, -1.0]), pad_id=0, loss_agg="token_mean",
                    share_prompt=share)
    mb = next(batch.micro_batches(2))
    assert mb.input_ids.device.type == "cpu" and mb.trained_from == 1
    logp, entropy = forward_logprobs(model, mb, 1.0, with_entropy=True)
    assert logp.device.type == "meta" and logp.shape == (2, 4)
    assert entropy is not None and entropy.shape == (2, 4)
    seen = []
    model.register_forward_pre_hook(lambda m, a, kw: seen.append(kw["input_ids"].device.type),
                                    with_kwargs=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(RuntimeError, match="meta"):  # only reading the metrics back fails
        policy_update(model, batch, TrainConfig(micro_batch_size=1), ppo_clip_loss, optimizer)
    assert seen and set(seen) == {"meta"}
    assert model.head.weight.grad is not None and model.head.weight.grad.device.type == "meta"


def test_trainer_resolves_share_prompt_and_precision(monkeypatch):
    from agentgym.trainers.config import load_config
    from agentgym.trainers.grpo import GRPOTrainer
    from agentgym.trainers.modeling import autocast_dtype, pick_dtype

    cpu, gpu = torch.device("cpu"), torch.device("cuda", 0)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: True)
    assert pick_dtype("auto", gpu) == torch.float32  # fp32 master weights ...
    assert autocast_dtype("auto", gpu) == torch.bfloat16  # ... with bf16 matrix products
    assert autocast_dtype("auto", cpu) is None and autocast_dtype("bfloat16", gpu) is None
    cases = [("auto", cpu, False, True), ("auto", gpu, False, False), ("true", gpu, False, True),
             ("false", cpu, False, False), ("true", cpu, True, False)]
    for value, device, ckpt, want in cases:
        trainer = GRPOTrainer(load_config(None, [f"share_prompt={value}",
                                                 f"gradient_checkpointing={str(ckpt).lower()}"]))
        trainer.device = device
        assert trainer._share_prompt() is want, (value, device, ckpt)
    assert load_config(None, ["share_prompt=true"]).share_prompt == "true"  # YAML bool accepted
