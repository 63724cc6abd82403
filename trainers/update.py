"""One policy update: forward passes over micro-batches, the loss, backward, optimizer step.

The reduction weights of :class:`~agentgym.trainers.batch.TrainBatch` are computed over the
whole batch, so summing micro-batch losses gives exactly the full-batch loss and gradient
(gradient accumulation over masked tokens). With ``ppo_epochs == 1`` the "old" policy is the
current one (``old_logp = logp.detach()``, ratio 1, as in TRL); with more epochs the old
log-probs are recomputed once before the first pass.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import torch
from torch import Tensor

from agentgym import ConfigError
from agentgym.policies import cache_argument, output_cache

from .batch import TrainBatch
from .config import TrainConfig
from .distributed import no_sync, unwrap
from .fused_logprobs import fused_available, fused_head_logprobs
from .head_logprobs import final_hidden, head_logprobs, head_parts
from .logprobs import chunked_entropy, selective_logprobs
from .losses import PolicyLossFn, k3_kl, tis_weights
from .parts import SelectsBatch


def first_trained_position(mask: Tensor) -> int:
    """Leftmost target position holding a trained token in any row (``mask`` is ``(B, T)``)."""
    cols = mask.any(0).nonzero()
    return int(cols[0]) if cols.numel() else max(mask.shape[1] - 1, 0)


def model_device(model: Any) -> torch.device:
    """The device of the model's first parameter (where its inputs must live)."""
    return next(iter(model.parameters())).device


def _autocast(device: torch.device, dtype: torch.dtype | None) -> AbstractContextManager[Any]:
    """``torch.autocast`` to ``dtype`` on ``device``, or nothing when ``dtype`` is None."""
    if dtype is None:
        return nullcontext()
    return torch.autocast(device_type=device.type, dtype=dtype)


LOGPROB_PATHS = ("auto", "chunked", "fused", "full")
"""``chunked``: from the hidden states and the LM head, never holding the ``(B, T, V)`` logits
(:mod:`agentgym.trainers.head_logprobs`); ``fused``: the same through the Cut Cross-Entropy
kernel (CUDA only, :mod:`agentgym.trainers.fused_logprobs`); ``full``: the model's logits;
``auto``: fused on a CUDA GPU that has the kernel, else chunked, where the model allows it,
else full."""


def _inputs(mb: TrainBatch) -> dict[str, Any]:
    """The model inputs of a micro-batch."""
    return {"input_ids": mb.input_ids, "attention_mask": mb.attention_mask, **mb.vision}


def _logits(model: Any, mb: TrainBatch, keep: int) -> Tensor:
    """Logits of the last ``keep`` positions, ``(B, keep, V)``; whole rows if unsupported."""
    try:
        out = model(**_inputs(mb), logits_to_keep=keep)
    except TypeError as e:  # a model without transformers' ``logits_to_keep``
        if "logits_to_keep" not in str(e):
            raise
        out = model(**_inputs(mb))
    return out.logits[:, -keep:]


def _shared_prompt_forward(model: Any, mb: TrainBatch, keep: int | None) -> tuple[Any, Any] | None:
    """Each distinct prompt run once: the outputs of the prompt pass and of the responses' pass.

    The ``k`` distinct prompts of the micro-batch (``P`` tokens each) go through the model once
    as a ``(k, P)`` batch with a KV cache; the cache rows are gathered for the ``B`` rows
    (``mb.prefix_index``) and the responses run on top. Gradients flow through the cache into
    the prompts' computation, so this equals the full forward. ``keep`` limits the responses'
    logits (1 when the hidden states are read instead). Returns None when the model's cache
    cannot be indexed (the caller then runs full rows).
    """
    p, (b, length) = mb.prefix_len, mb.input_ids.shape
    index = torch.tensor(mb.prefix_index, dtype=torch.long).to(mb.input_ids.device)  # (B,)
    firsts = [mb.prefix_index.index(i) for i in range(max(mb.prefix_index) + 1)]  # row/prompt
    base = unwrap(model)  # the prompt pass bypasses DDP's forward hooks
    head = base(input_ids=mb.input_ids[firsts, :p], use_cache=True, logits_to_keep=1)  # (k, 1, V)
    cache = output_cache(head)
    if not isinstance(cache, SelectsBatch):
        return None
    cache.batch_select_indices(index)  # (k, ...) -> (B, ...)
    positions = torch.arange(p, length, device=mb.input_ids.device).expand(b, -1)  # (B, L-P)
    extra = {} if keep is None else {"logits_to_keep": keep}
    tail = model(input_ids=mb.input_ids[:, p:], attention_mask=mb.attention_mask,
                 position_ids=positions, use_cache=True, **{cache_argument(base): cache}, **extra)
    return head, tail


def _prompt_index(mb: TrainBatch) -> Tensor:
    """Row -> distinct prompt index of a shared-prompt micro-batch, on its device ``(B,)``."""
    return torch.tensor(mb.prefix_index, dtype=torch.long).to(mb.input_ids.device)


def _shared_prompt_logits(model: Any, mb: TrainBatch) -> Tensor | None:
    """Logits of positions ``P-1 .. L-2`` with each distinct prompt run once; ``(B, L-P, V)``."""
    outs = _shared_prompt_forward(model, mb, keep=None)
    if outs is None:
        return None
    head, tail = outs
    first = head.logits[_prompt_index(mb), -1:]  # (B, 1, V): predicts token P
    return torch.cat([first, tail.logits[:, :-1]], dim=1)  # (B, L-P, V)


def _hidden_states(model: Any, mb: TrainBatch, autocast: torch.dtype | None
                   ) -> tuple[Tensor, int] | None:
    """Final hidden states predicting tokens ``start+1 .. L-1`` ``(B, L-1-start, H)``, and
    ``start``; None when the model's head cannot be split off (the caller takes the logits)."""
    parts = head_parts(model)
    if parts is None:
        return None
    tolerance = 2e-2 if autocast in (torch.bfloat16, torch.float16) else 1e-4
    if mb.prefix_len > 0:
        got = final_hidden(model, parts, lambda: _shared_prompt_forward(model, mb, keep=1),
                           tolerance)
        if got is not None:  # hidden: prompts (k, P, H), then responses (B, L-P, H)
            first = got[0][_prompt_index(mb), -1:]  # (B, 1, H): predicts token P
            return torch.cat([first, got[1][:, :-1]], dim=1), mb.prefix_len - 1
        if head_parts(model) is None:
            return None
    start = mb.trained_from if mb.trained_from >= 0 else first_trained_position(mb.mask)
    got = final_hidden(model, parts, lambda: model(**_inputs(mb), logits_to_keep=1), tolerance)
    if got is None:
        return None
    return got[0][:, start:-1], start  # (B, L-1-start, H)


def forward_logprobs(
    model: Any,
    mb: TrainBatch,
    temperature: float,
    with_entropy: bool = False,
    autocast: torch.dtype | None = None,
    path: str = "auto",
) -> tuple[Tensor, Tensor | None]:
    """Log-probs ``(B, L-1)`` of each target token, and optionally the entropy ``(B, L-1)``.

    The micro-batch is moved to the model's device first. Only positions from the first trained
    token on go through the LM head (the prompt's logits are never needed); earlier positions
    read 0. A micro-batch whose rows share a prompt (``mb.prefix_len``) runs it once. The
    forward runs under ``autocast`` (bf16 on GPUs); log-probs and entropy are computed in fp32
    from the logits divided by the sampling temperature, matching the behaviour log-probs the
    rollout policy records (``log_softmax(logits / T)``). ``path`` (:data:`LOGPROB_PATHS`)
    picks whether the logits are ever materialised: ``auto``/``chunked`` compute them chunk by
    chunk from the final hidden states (:func:`~agentgym.trainers.head_logprobs.head_logprobs`)
    where the model's head allows it.
    """
    if path not in LOGPROB_PATHS:
        raise ValueError(f"logprob path must be one of {LOGPROB_PATHS}, not {path!r}")
    device = model_device(model)
    if path == "fused" and not fused_available(device, autocast or torch.float32):
        raise ValueError("logprobs: fused needs a CUDA GPU with cut-cross-entropy installed "
                         "and bf16 or fp16 autocast (dtype: auto)")
    mb = mb.to(device, non_blocking=True)
    temp = temperature if temperature > 0 else 1.0
    logits: Tensor | None = None
    with _autocast(device, autocast):
        hidden = None if path == "full" else _hidden_states(model, mb, autocast)
        if hidden is None:
            if path == "chunked" and head_parts(model) is None:
                raise ValueError(f"{type(model).__name__}: its LM head cannot be split off; "
                                 "use logprobs: full (or auto)")
            if mb.prefix_len > 0:
                logits = _shared_prompt_logits(model, mb)
            if logits is not None:
                start = mb.prefix_len - 1  # (B, L-1-start, V): predicts tokens start+1 .. L-1
            else:
                start = (mb.trained_from if mb.trained_from >= 0
                         else first_trained_position(mb.mask))
                logits = _logits(model, mb, mb.input_ids.shape[1] - start)[:, :-1]
        else:
            states, start = hidden  # (B, L-1-start, H)
    targets = mb.input_ids[:, start + 1:]  # (B, L-1-start)
    if logits is None:
        weight = head_parts(model).weight  # type: ignore[union-attr]
        compute = autocast or states.dtype
        if path == "fused" or (path == "auto" and fused_available(device, compute)):
            logp = fused_head_logprobs(states, weight, targets, temp, compute)
            entropy = None
            if with_entropy:
                with torch.no_grad():
                    entropy = head_logprobs(states.detach(), weight.detach(), targets, temp,
                                            compute, with_entropy=True)[1]
        else:
            logp, entropy = head_logprobs(states, weight, targets, temp, compute, with_entropy)
    else:
        logp = selective_logprobs(logits, targets, temp)
        entropy = chunked_entropy(logits.detach(), temp) if with_entropy else None
    logp = torch.nn.functional.pad(logp, (start, 0))  # (B, L-1)
    if entropy is not None:
        entropy = torch.nn.functional.pad(entropy, (start, 0))
    return logp, entropy


@torch.no_grad()
def precompute_logprobs(
    model: Any, batch: TrainBatch, micro: int, temperature: float,
    autocast: torch.dtype | None = None, path: str = "auto",
) -> Tensor:
    """Log-probs of the whole batch under ``model`` without gradients; ``(B, L-1)`` on the host."""
    width = batch.mask.shape[1]
    parts = []
    for mb in batch.micro_batches(micro):
        logp, _ = forward_logprobs(model, mb, temperature, autocast=autocast,
                                   path=path)  # (b, l-1)
        parts.append(torch.nn.functional.pad(logp, (0, width - logp.shape[1])).cpu())
    return torch.cat(parts) if parts else torch.zeros_like(batch.mask)


def policy_update(
    model: Any,
    batch: TrainBatch,
    cfg: TrainConfig,
    loss_fn: PolicyLossFn,
    optimizer: torch.optim.Optimizer,
    *,
    scheduler: Any = None,
    weights_guard: Callable[[], AbstractContextManager[Any]] | None = None,
    autocast: torch.dtype | None = None,
    lr: float | None = None,
) -> dict[str, float]:
    """Run ``cfg.ppo_epochs`` optimizer steps on ``batch``; returns averaged metrics.

    ``lr`` runs this update at a fixed learning rate (a phase with its own rate, such as a
    behaviour-cloning warm-up): the optimizer's rates are set for the update and restored after,
    and the scheduler does not advance.

    Micro-batches move to the model's device as they are used; the metrics are summed on the
    device and read back once at the end (one host sync per update, not per micro-batch).
    ``weights_guard`` wraps the optimizer step (the in-process policy's ``updating_weights``,
    which pauses decoding and bumps its version).
    """
    guard = weights_guard or nullcontext
    device = model_device(model)
    saved_lrs = [g["lr"] for g in optimizer.param_groups]
    if lr is not None:
        for group in optimizer.param_groups:
            group["lr"] = lr
        scheduler = None
    params = [p for p in model.parameters() if p.requires_grad]
    names = ("loss", "entropy", "clip_frac", "kl", "logp", "tis", "behav_diff")
    sums = torch.zeros(len(names), dtype=torch.float32, device=device)  # summed over tokens
    tokens = max(batch.num_tokens, 1)
    grad_norms: list[Tensor] = []
    mbs = [mb.to(device, non_blocking=True)  # cut and moved once for every epoch
           for mb in batch.micro_batches(cfg.micro_batch_size)]
    for epoch in range(cfg.ppo_epochs):
        optimizer.zero_grad(set_to_none=True)
        for i, mb in enumerate(mbs):
            first = epoch == 0
            with no_sync(model, skip=i < len(mbs) - 1):
                logp, entropy = forward_logprobs(model, mb, cfg.temperature,
                                                 with_entropy=first, autocast=autocast,
                                                 path=cfg.logprobs)
                old = mb.old_logp if mb.old_logp is not None else logp.detach()  # (b, t)
                per_tok, clipped = loss_fn(
                    logp, old, mb.advantages, mb.mask, cfg.clip_eps_low, cfg.clip_eps_high
                )  # (b, t), (b, t)
                zero = torch.zeros((), device=device)
                tis = kl = zero
                if cfg.tis_cap > 0:
                    w = tis_weights(old, mb.behav_logp, cfg.tis_cap)  # (b, t)
                    per_tok = per_tok * w
                    tis = (w * mb.mask).sum()
                if cfg.kl_coef > 0 and mb.ref_logp is not None:
                    kl_tok = k3_kl(logp, mb.ref_logp)  # (b, t)
                    per_tok = per_tok + cfg.kl_coef * kl_tok
                    kl = (kl_tok.detach() * mb.mask).sum()
                loss = (per_tok * mb.weights).sum()
                loss.backward()
            if first:
                gap = (logp.detach() - mb.behav_logp).abs() * mb.mask  # rollout/trainer mismatch
                ent = (entropy * mb.mask).sum() if entropy is not None else zero
                sums += torch.stack([
                    loss.detach(), ent, (clipped.float() * mb.mask).sum(), kl,
                    (logp.detach() * mb.mask).sum(), tis, gap.sum(),
                ]).float()
        max_norm = cfg.max_grad_norm if cfg.max_grad_norm > 0 else math.inf
        grad_norms.append(torch.nn.utils.clip_grad_norm_(params, max_norm).detach())
        with guard():
            optimizer.step()
        if scheduler is not None:
            scheduler.step()
    used_lr = float(optimizer.param_groups[0]["lr"])
    if lr is not None:
        for group, old_lr in zip(optimizer.param_groups, saved_lrs, strict=True):
            group["lr"] = old_lr
    totals = dict(zip(names, sums.tolist(), strict=True))  # the one host sync of the update
    return {
        "loss": totals["loss"],
        "entropy": totals["entropy"] / tokens,
        "clip_frac": totals["clip_frac"] / tokens,
        "kl": totals["kl"] / tokens,
        "logp_mean": totals["logp"] / tokens,
        "behav_logp_abs_diff": totals["behav_diff"] / tokens,
        "tis_weight_mean": totals["tis"] / tokens if cfg.tis_cap > 0 else 1.0,
        "grad_norm": float(grad_norms[0]) if grad_norms else 0.0,
        "lr": used_lr,
        "train_tokens": float(batch.num_tokens),
    }


def make_optimizer(params: list[torch.nn.Parameter], cfg: TrainConfig) -> torch.optim.Optimizer:
    """The learner's optimizer: ``adamw`` (torch's, fused when torch supports it for these
    parameters: 7x faster on CPU than the loop) or ``adamw8bit`` (bitsandbytes' block-wise 8-bit
    moments: a quarter of AdamW's state, 1 byte per moment instead of 4)."""
    kwargs: dict[str, Any] = {"lr": cfg.lr, "betas": tuple(cfg.adam_betas),
                              "weight_decay": cfg.weight_decay}
    if cfg.optimizer == "adamw8bit":
        try:
            import bitsandbytes as bnb  # lazily: only runs that ask for it need it
        except ImportError as e:
            raise ConfigError("optimizer: adamw8bit needs bitsandbytes "
                              "(pip install 'agentgym[train]' or pip install bitsandbytes)") from e
        optimizer: torch.optim.Optimizer = bnb.optim.AdamW8bit(params, **kwargs)
        return optimizer
    try:
        return torch.optim.AdamW(params, fused=True, **kwargs)
    except (RuntimeError, TypeError):  # a device or dtype the fused kernel lacks
        return torch.optim.AdamW(params, **kwargs)


def make_scheduler(optimizer: torch.optim.Optimizer, cfg: TrainConfig) -> Any:
    """Linear warm-up, then constant, linear decay or cosine decay over the optimizer steps."""
    total = max(cfg.steps * cfg.ppo_epochs, 1)
    warm = cfg.warmup_steps * cfg.ppo_epochs

    def factor(i: int) -> float:
        """Multiplier of the peak learning rate at optimizer step ``i``."""
        if warm and i < warm:
            return (i + 1) / warm
        progress = min(max((i - warm) / max(total - warm, 1), 0.0), 1.0)
        if cfg.lr_schedule == "linear":
            return 1.0 - progress
        if cfg.lr_schedule == "cosine":
            return 0.5 * (1.0 + math.cos(math.pi * progress))
        return 1.0

    if cfg.lr_schedule not in ("constant", "linear", "cosine"):
        raise ValueError(f"lr_schedule must be constant, linear or cosine, not {cfg.lr_schedule!r}")
    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


__all__ = ["LOGPROB_PATHS", "first_trained_position", "forward_logprobs", "make_optimizer",
           "make_scheduler", "model_device", "policy_update", "precompute_logprobs"]
