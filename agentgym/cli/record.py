"""``agentgym record``: play a family's scripted expert on a split into a trajectory store.

The store (``trajectories.jsonl`` with observations, images as files, and the expert's actions)
is what behaviour cloning (``bc_steps``) and semi-online RL read as ``expert_data``;
``--jsonl`` also writes the documented demonstration format (``docs/semi_online.md``).
"""

from __future__ import annotations

from typing import Annotated

import typer

from .app import app, console, run_guarded


@app.command("record")
def record_cmd(
    env_id: str,
    policy: Annotated[str, typer.Option(help="Who plays (the env's expert).")] = "scripted",
    split: Annotated[str, typer.Option(help="Task split to record.")] = "train",
    out: Annotated[str | None, typer.Option(
        help="Store folder (default: experts/<env>-<split>).")] = None,
    n: Annotated[int | None, typer.Option("-n", "--n", min=1,
                                          help="First N tasks only.")] = None,
    num_envs: Annotated[int, typer.Option(min=1, help="Concurrent episodes.")] = 8,
    jsonl: Annotated[str | None, typer.Option(
        help="Also write the demonstrations in the JSONL format to this file.")] = None,
) -> None:
    """Record expert trajectories (observations and actions) of ENV_ID's SPLIT into a store."""
    from ..rollout.experts import load_experts, record_experts, save_demonstrations

    folder = out or f"experts/{env_id.replace('/', '_')}-{split}"
    counts = run_guarded(record_experts, env_id, folder, split=split, policy=policy,
                         num_envs=num_envs, limit=n)
    console.print(f"recorded {counts['episodes']} episodes of {env_id} / {split} into {folder} "
                  f"({counts['successful']} successful, {counts['skipped']} already stored)")
    if jsonl:
        written = run_guarded(lambda: save_demonstrations(load_experts(folder), jsonl))
        console.print(f"wrote {written} demonstrations to {jsonl}")
