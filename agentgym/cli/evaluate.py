"""``agentgym eval``: a policy on an env's held-out split, with a report."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from .app import app, console, err_console, fail, run_guarded


@app.command("eval")
def eval_cmd(
    env_id: str,
    policy: Annotated[str, typer.Option(help="scripted, random, hf:smollm2-135m, "
                                             "openai:http://host:8000/v1?model=M")] = "scripted",
    split: Annotated[str, typer.Option(help="Task split (held-out test by default).")] = "test",
    n: Annotated[int | None, typer.Option("-n", "--n", help="Tasks (default: all).")] = None,
    k: Annotated[int, typer.Option("--k", help="Samples per task; pass@k uses them.")] = 1,
    out: Annotated[str | None, typer.Option(help="Output folder: store, results, report.")] = None,
    resume: Annotated[bool, typer.Option(help="Skip episodes already stored in --out.")] = False,
    backend: Annotated[str, typer.Option(help="asyncio or ray.")] = "asyncio",
    num_envs: Annotated[int, typer.Option(help="Env instances = concurrent episodes.")] = 8,
    max_turns: Annotated[int | None, typer.Option(help="Turn limit (default: env's).")] = None,
    max_new_tokens: Annotated[int, typer.Option(help="New tokens per turn.")] = 256,
    temperature: Annotated[float | None, typer.Option(help="Default 0 if k=1 else 1.")] = None,
    seed: Annotated[int, typer.Option(help="Base seed.")] = 0,
) -> None:
    """Evaluate a policy on an env's split: success (95% CI), reward, pass@k, turns, tokens."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ..rollout.evaluate import EvalConfig, run_eval

    if backend not in ("asyncio", "ray"):
        fail(f"--backend must be 'asyncio' or 'ray', not {backend!r}")
    if resume and not out:
        fail("--resume needs --out")
    config = EvalConfig(env_id, policy, split, n, k, out, resume, backend, num_envs, max_turns,
                        max_new_tokens=max_new_tokens, temperature=temperature, seed=seed)
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("success {task.fields[wins]}"), TimeElapsedColumn())
    with Progress(*columns, console=err_console) as bar:
        job = bar.add_task(f"eval {env_id}", total=None, wins=0)
        state = {"wins": 0}

        def on_start(total: int, skipped: int) -> None:
            bar.update(job, total=total, completed=skipped)

        def progress(traj: Any) -> None:
            state["wins"] += int(traj.success)
            bar.update(job, advance=1, wins=state["wins"])

        results = run_guarded(run_eval, config, progress=progress, on_start=on_start)
    m = results["metrics"]
    low, high = m["success_ci95"]
    table = Table(title=f"{results['config']['env_id']} / {policy} / {split}")
    table.add_column("metric")
    table.add_column("value")
    table.add_row("success rate", f"{m['success_rate']:.1%} ({m['successes']}/{m['episodes']})")
    table.add_row("95% CI", f"[{low:.1%}, {high:.1%}]")
    table.add_row("mean reward", f"{m['mean_reward']:.3f}")
    for name, value in m["pass_at_k"].items():
        table.add_row(name, f"{value:.1%}")
    table.add_row("mean turns", f"{m['mean_turns']:.2f}")
    table.add_row("mean generated tokens", f"{m['mean_generated_tokens']:.1f}")
    table.add_row("wall time", f"{m['wall_s']:.1f} s")
    table.add_row("aborted", str(m["aborted"]))
    console.print(table)
    if out:
        console.print(f"wrote {out}/results.json and {out}/report.md")
