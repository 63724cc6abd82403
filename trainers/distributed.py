"""Data-parallel training through ``torch.distributed`` (DDP), started by ``torchrun``.

``torchrun --nproc_per_node N -m agentgym.cli train CONFIG`` sets ``RANK``, ``WORLD_SIZE`` and
``LOCAL_RANK``; each rank then rolls out its share of the step's tasks with its own in-process
policy, computes the loss on its trajectories, and DDP averages the gradients, so every rank holds
the same weights after each step. NCCL is used on GPUs, gloo on CPU (the tests run 2 CPU ranks).
"""

from __future__ import annotations

import datetime
import logging
import os
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as dist

from .parts import SkipsGradSync, TogglesGradSync, WrapsModule

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class DistInfo:
    """Where this process sits in the data-parallel group."""

    rank: int = 0
    world_size: int = 1
    local_rank: int = 0

    @property
    def enabled(self) -> bool:
        """True when more than one rank trains."""
        return self.world_size > 1

    @property
    def is_main(self) -> bool:
        """True on rank 0 (it writes logs, checkpoints and reports)."""
        return self.rank == 0


def init_distributed(device: torch.device | None = None, timeout_s: float = 1800) -> DistInfo:
    """Join the process group described by torchrun's environment, or stay single-process."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world <= 1:
        return DistInfo()
    info = DistInfo(int(os.environ["RANK"]), world, int(os.environ.get("LOCAL_RANK", "0")))
    if not dist.is_initialized():
        backend = "nccl" if device is not None and device.type == "cuda" else "gloo"
        dist.init_process_group(backend, timeout=datetime.timedelta(seconds=timeout_s))
        logger.info("rank %d/%d joined the %s group", info.rank, world, backend)
    return info


def wrap_ddp(model: Any, info: DistInfo, device: torch.device) -> Any:
    """Wrap ``model`` in DistributedDataParallel when several ranks train."""
    if not info.enabled:
        return model
    from torch.nn.parallel import DistributedDataParallel

    ids = [device.index] if device.type == "cuda" else None
    return DistributedDataParallel(model, device_ids=ids)


def unwrap(model: Any) -> Any:
    """The module inside a DDP wrapper (the model itself otherwise)."""
    return model.module if isinstance(model, WrapsModule) else model


def no_sync(model: Any, skip: bool) -> AbstractContextManager[Any]:
    """Skip the gradient reduction while accumulating (DDP's ``no_sync``, FSDP2's
    ``set_requires_gradient_sync(False)``), else a null context."""
    if skip and isinstance(model, SkipsGradSync):
        return model.no_sync()
    if skip and isinstance(model, TogglesGradSync):
        return _fsdp_no_sync(model)
    return nullcontext()


@contextmanager
def _fsdp_no_sync(model: Any) -> Iterator[None]:
    model.set_requires_gradient_sync(False)
    try:
        yield
    finally:
        model.set_requires_gradient_sync(True)


def barrier(info: DistInfo) -> None:
    """Wait for every rank."""
    if info.enabled:
        dist.barrier()


def all_sum(values: list[float], info: DistInfo) -> list[float]:
    """Element-wise sum of ``values`` over ranks."""
    if not info.enabled:
        return list(values)
    device = "cuda" if dist.get_backend() == "nccl" else "cpu"
    t = torch.tensor(values, dtype=torch.float64, device=device)
    dist.all_reduce(t, op=dist.ReduceOp.SUM)
    return [float(v) for v in t.cpu().tolist()]


def cleanup(info: DistInfo) -> None:
    """Leave the process group."""
    if info.enabled and dist.is_initialized():
        dist.destroy_process_group()


__all__ = ["DistInfo", "all_sum", "barrier", "cleanup", "init_distributed", "no_sync", "unwrap",
           "wrap_ddp"]
