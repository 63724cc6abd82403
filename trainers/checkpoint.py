"""Checkpoints that resume bit-for-bit: weights, optimizer, scheduler, RNGs, data cursor.

Layout of ``<output_dir>/checkpoints/step-000012/``::

    model.safetensors      trainable weights at the training dtype (only the adapters with LoRA)
    optimizer.pt           optimizer state: in the newest checkpoint only (what resume needs)
    trainer.pt             scheduler, step, rollout round, policy version, world size
    rank-0.pt ...          per-rank RNG states (python, numpy, torch) and task-sampler cursor
    trajectories.jsonl     the step's trajectories (rank 0's), for inspection and replay
    COMPLETE               written last: a folder without it is ignored

A checkpoint is written into ``step-N.tmp`` and renamed, so ``kill -9`` at any moment leaves
either the previous checkpoint or the new one, never half of one. When a newer checkpoint is
complete, older kept ones drop their optimizer state (AdamW's is twice the weights).

A run folder is refused when it already holds a run, unless the run resumes or overwrites it
(:func:`prepare_run_dir`).
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

from agentgym import ConfigError

logger = logging.getLogger(__name__)

STEP_PREFIX = "step-"
WEIGHTS = "model.safetensors"
OPTIMIZER = "optimizer.pt"
RUN_MARKERS = ("metrics.jsonl", "checkpoints", "summary.json", "final")
"""What makes a folder hold a run (a fresh run refuses it without resume or overwrite)."""
RUN_OUTPUTS = (*RUN_MARKERS, "tb", "report.png", "config.yaml", "weights")
"""Everything a run writes; overwrite deletes these and nothing else."""


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


def save_weights(folder: Path, tensors: dict[str, torch.Tensor]) -> Path:
    """Write ``tensors`` (as they are: the training dtype) to ``folder/model.safetensors``."""
    from safetensors.torch import save_file

    path = folder / WEIGHTS
    save_file({k: v.detach().cpu().contiguous() for k, v in tensors.items()}, str(path),
              metadata={"format": "pt"})
    return path


def load_weights(folder: Path) -> dict[str, torch.Tensor]:
    """The weights of checkpoint ``folder`` (``model.safetensors``, or an older ``model.pt``)."""
    path = folder / WEIGHTS
    if path.exists():
        from safetensors.torch import load_file

        return load_file(str(path))
    weights: dict[str, torch.Tensor] = torch.load(folder / "model.pt", weights_only=True)
    return weights


def save_optimizer(folder: Path, state: dict[str, Any]) -> None:
    """Write the optimizer's ``state_dict`` to ``folder/optimizer.pt``."""
    torch.save(state, folder / OPTIMIZER)


def load_optimizer(folder: Path, meta: dict[str, Any]) -> dict[str, Any] | None:
    """The optimizer state of ``folder`` (older checkpoints kept it in ``trainer.pt``), or None."""
    if (folder / OPTIMIZER).exists():
        state: dict[str, Any] = torch.load(folder / OPTIMIZER, weights_only=False)
        return state
    return meta.get("optimizer")


def _done(output_dir: str | Path) -> list[Path]:
    root = checkpoint_root(output_dir)
    if not root.is_dir():
        return []
    return sorted(
        p for p in root.iterdir() if p.name.startswith(STEP_PREFIX) and p.suffix != ".tmp"
    )


def finalize(tmp: Path, output_dir: str | Path, step: int, keep: int) -> Path:
    """Mark ``tmp`` complete, rename it to ``step-N``, keep the ``keep`` newest (0 = all).

    Older kept checkpoints lose their optimizer state: resume starts from the newest.
    """
    (tmp / "COMPLETE").write_text(json.dumps({"step": step}))
    final = step_dir(output_dir, step)
    if final.exists():
        shutil.rmtree(final)
    tmp.rename(final)
    done = _done(output_dir)
    if keep > 0:
        for old in done[:-keep]:
            shutil.rmtree(old, ignore_errors=True)
    for old in done[:-1]:
        (old / OPTIMIZER).unlink(missing_ok=True)
    logger.info("checkpoint saved: %s", final)
    return final


def remove_staging(output_dir: str | Path) -> None:
    """Delete half-written ``step-N.tmp`` folders (an interrupted save)."""
    root = checkpoint_root(output_dir)
    if root.is_dir():
        for tmp in root.glob(f"{STEP_PREFIX}*.tmp"):
            shutil.rmtree(tmp, ignore_errors=True)


def interrupted(output_dir: str | Path, steps_done: int) -> str:
    """Clean up after Ctrl-C (half-written checkpoints) and say where a resume would start."""
    remove_staging(output_dir)
    newest = latest_checkpoint(output_dir)
    if newest is None:
        return (f"interrupted after {steps_done} step(s); no checkpoint in {output_dir} yet, "
                "so --resume starts over")
    step = json.loads((newest / "COMPLETE").read_text()).get("step", "?")
    return (f"interrupted after {steps_done} step(s); --resume continues from the checkpoint "
            f"of step {step} ({newest})")


def prepare_run_dir(output_dir: str | Path, *, resume: bool, overwrite: bool) -> None:
    """Refuse a folder that already holds a run unless resuming or overwriting it.

    ``overwrite`` deletes what an earlier run wrote (:data:`RUN_OUTPUTS`, nothing else);
    ``resume`` into a folder without a complete checkpoint starts over the same way.
    """
    out = Path(output_dir)
    if not any((out / name).exists() for name in RUN_MARKERS):
        return
    if resume and latest_checkpoint(out) is not None:
        remove_staging(out)
        return
    if resume:
        logger.warning("resume: %s holds no complete checkpoint; starting over", out)
    elif not overwrite:
        raise ConfigError(f"{out} already holds a training run; pass --resume to continue it, "
                          "--overwrite to replace it, or choose another output_dir=")
    for name in RUN_OUTPUTS:
        path = out / name
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()


__all__ = [
    "OPTIMIZER",
    "RUN_MARKERS",
    "RUN_OUTPUTS",
    "WEIGHTS",
    "checkpoint_root",
    "finalize",
    "interrupted",
    "latest_checkpoint",
    "load_optimizer",
    "load_rank_state",
    "load_weights",
    "prepare_run_dir",
    "remove_staging",
    "rng_state",
    "save_rank_state",
    "save_optimizer",
    "save_trajectories",
    "save_weights",
    "set_rng_state",
    "staging_dir",
    "step_dir",
]
