"""Checkpoints that resume bit-for-bit: weights, optimizer, scheduler, RNGs, data cursor.

Layout of ``<output_dir>/checkpoints/step-000012/``::

    model/                 weights (save_pretrained; only the adapter with LoRA)
    trainer.pt             optimizer, scheduler, step, rollout round, metric history
    rank-0.pt ...          per-rank RNG states (python, numpy, torch) and task-sampler cursor
    trajectories.jsonl     the step's trajectories (rank 0's), for inspection and replay
    COMPLETE               written last: a folder without it is ignored

A checkpoint is written into ``step-N.tmp`` and renamed, so ``kill -9`` at any moment leaves
either the previous checkpoint or the new one, never half of one.
"""

from __future__ import annotations

import json
import logging
import random
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import torch

logger = logging.getLogger(__name__)

STEP_PREFIX = "step-"


def rng_state() -> dict[str, Any]:
    """The python, numpy and torch (CPU and CUDA) generator states."""
    state: dict[str, Any] = {
        "python": random.getstate(),
        "numpy": np.random.get_state(),
        "torch": torch.get_rng_state(),
    }
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict[str, Any]) -> None:
    """Restore states saved by :func:`rng_state`."""
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def checkpoint_root(output_dir: str | Path) -> Path:
    """``<output_dir>/checkpoints``."""
    return Path(output_dir) / "checkpoints"


def step_dir(output_dir: str | Path, step: int) -> Path:
    """Folder of the checkpoint taken after ``step``."""
    return checkpoint_root(output_dir) / f"{STEP_PREFIX}{step:06d}"


def latest_checkpoint(output_dir: str | Path) -> Path | None:
    """The newest complete checkpoint folder, or None."""
    root = checkpoint_root(output_dir)
    if not root.is_dir():
        return None
    done = [
        p for p in root.iterdir()
        if p.name.startswith(STEP_PREFIX) and p.suffix != ".tmp" and (p / "COMPLETE").exists()
    ]
    return max(done, key=lambda p: p.name) if done else None


def staging_dir(output_dir: str | Path, step: int) -> Path:
    """An empty ``step-N.tmp`` folder to write a checkpoint into."""
    tmp = step_dir(output_dir, step).with_suffix(".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    return tmp


def save_rank_state(folder: Path, rank: int, extra: dict[str, Any]) -> None:
    """Write this rank's RNG states plus ``extra`` (the sampler cursor) to ``rank-<r>.pt``."""
    torch.save({"rng": rng_state(), **extra}, folder / f"rank-{rank}.pt")


def load_rank_state(folder: Path, rank: int) -> dict[str, Any]:
    """Read ``rank-<r>.pt`` and restore its RNG states; returns the whole dict."""
    state: dict[str, Any] = torch.load(folder / f"rank-{rank}.pt", weights_only=False)
    set_rng_state(state["rng"])
    return state


def save_trajectories(folder: Path, trajectories: list[Any]) -> None:
    """Write trajectories as JSON lines (each must have ``to_json``)."""
    with open(folder / "trajectories.jsonl", "w", encoding="utf-8") as f:
        for t in trajectories:
            f.write(t.to_json() + "\n")


def finalize(tmp: Path, output_dir: str | Path, step: int, keep: int) -> Path:
    """Mark ``tmp`` complete, rename it to ``step-N`` and delete all but the ``keep`` newest."""
    (tmp / "COMPLETE").write_text(json.dumps({"step": step}))
    final = step_dir(output_dir, step)
    if final.exists():
        shutil.rmtree(final)
    tmp.rename(final)
    if keep > 0:
        done = sorted(
            p for p in checkpoint_root(output_dir).iterdir()
            if p.name.startswith(STEP_PREFIX) and p.suffix != ".tmp"
        )
        for old in done[:-keep]:
            shutil.rmtree(old, ignore_errors=True)
    logger.info("checkpoint saved: %s", final)
    return final


__all__ = [
    "checkpoint_root",
    "finalize",
    "latest_checkpoint",
    "load_rank_state",
    "rng_state",
    "save_rank_state",
    "save_trajectories",
    "set_rng_state",
    "staging_dir",
    "step_dir",
]
