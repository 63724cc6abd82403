"""Fully sharded data parallel (FSDP2, ``torch.distributed.fsdp.fully_shard``) for big models.

``parallel: fsdp`` shards every decoder block and then the whole model over the ranks, so each
rank holds ``1/N`` of the weights, gradients and AdamW state (WebAgent-R1 trains 3B and 8B
models this way). With ``dtype: auto`` on a GPU the blocks compute in bf16 and reduce gradients
in fp32 (``MixedPrecisionPolicy``).

Rollouts cannot run on the sharded module: every forward of a sharded model is a collective, and
each rank decodes its own episodes at its own pace. So each rank keeps an unsharded replica for
its in-process policy, refreshed from the gathered weights after every optimizer step
(:func:`full_state`). For models too big for one GPU's replica, roll out with the vLLM policy
(``policy: vllm:...``, tensor parallel) and its weight sync instead.

Checkpoints gather the full weights and optimizer state (collectives: every rank calls) and rank 0
writes them in the same files as single-process and DDP runs, so a run can resume under another
parallelism with the same number of ranks.
"""

from __future__ import annotations

from typing import Any

import torch

from .modeling import frozen_copy


def is_sharded(model: Any) -> bool:
    """Whether ``model`` was sharded by :func:`shard` (its parameters are DTensors)."""
    try:
        from torch.distributed.tensor import DTensor
    except ImportError:  # a torch without DTensor has no FSDP2 either
        return False
    return any(isinstance(p, DTensor) for p in model.parameters())


def decoder_blocks(model: Any) -> list[torch.nn.Module]:
    """The repeated blocks of a transformer (the largest ``ModuleList``), sharded one by one."""
    lists = [list(m) for m in model.modules() if isinstance(m, torch.nn.ModuleList)]
    return max(lists, key=len) if lists else []


def shard(model: Any, autocast: torch.dtype | None) -> Any:
    """Shard ``model`` in place over the default process group; returns it."""
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    kwargs: dict[str, Any] = {}
    if autocast is not None:
        kwargs["mp_policy"] = MixedPrecisionPolicy(param_dtype=autocast,
                                                   reduce_dtype=torch.float32)
    for block in decoder_blocks(model):
        fully_shard(block, **kwargs)
    fully_shard(model, **kwargs)
    return model


def replica(model: Any) -> Any:
    """An unsharded, frozen copy of ``model`` for the rank's rollout policy (before sharding)."""
    return frozen_copy(model)


def full_state(model: Any, *, to_cpu: bool = False, trainable_only: bool = False
               ) -> dict[str, torch.Tensor]:
    """The full (unsharded) weights of a sharded model on every rank (a collective)."""
    from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

    options = StateDictOptions(full_state_dict=True, cpu_offload=False)
    state: dict[str, Any] = dict(get_model_state_dict(model, options=options))
    if trainable_only:
        keep = {n for n, p in model.named_parameters() if p.requires_grad}
        state = {k: v for k, v in state.items() if k in keep}
    return {k: v.detach().cpu() if to_cpu else v.detach() for k, v in state.items()}


def full_optimizer_state(model: Any, optimizer: Any) -> dict[str, Any]:
    """The full optimizer state, keyed by parameter name, on every rank (a collective)."""
    from torch.distributed.checkpoint.state_dict import StateDictOptions, get_optimizer_state_dict

    options = StateDictOptions(full_state_dict=True, cpu_offload=False)
    state = get_optimizer_state_dict(model, optimizer, options=options)
    return _to_cpu(state)


def load_full_state(model: Any, state: dict[str, Any]) -> None:
    """Load full weights into a sharded model (every rank passes the same dict)."""
    from torch.distributed.checkpoint.state_dict import StateDictOptions, set_model_state_dict

    set_model_state_dict(model, dict(state), options=StateDictOptions(full_state_dict=True,
                                                                strict=False))


def load_full_optimizer_state(model: Any, optimizer: Any, state: dict[str, Any]) -> None:
    """Load a full optimizer state (from :func:`full_optimizer_state`) into the sharded run."""
    from torch.distributed.checkpoint.state_dict import StateDictOptions, set_optimizer_state_dict

    set_optimizer_state_dict(model, optimizer, state,
                             options=StateDictOptions(full_state_dict=True))


def _to_cpu(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, dict):
        return {k: _to_cpu(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_cpu(v) for v in value]
    return value


__all__ = ["decoder_blocks", "full_optimizer_state", "full_state", "is_sharded",
           "load_full_optimizer_state", "load_full_state", "replica", "shard"]
