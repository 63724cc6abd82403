"""The ``agentgym`` command line: list, info, tools, play, eval, train.

Errors print one clear line and exit with status 1.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from .errors import AgentGymError

app = typer.Typer(help="agentgym: envs and tools for training and evaluating LLM agents.",
                  no_args_is_help=True, add_completion=False)
console = Console()
err_console = Console(stderr=True)


def _fail(message: str) -> None:
    err_console.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(1)


def run_guarded(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Run ``fn``; agentgym errors and bad files become one line on stderr and exit code 1."""
    try:
        return fn(*args, **kwargs)
    except (AgentGymError, OSError, ValueError) as e:
        _fail(str(e))


def _task_counts(spec: Any) -> dict[str, int] | None:
    try:
        tasks = spec.load_tasks()
    except Exception as e:  # a listing must survive a broken family
        return {"error": str(e)[:60]}  # type: ignore[dict-item]
    return None if tasks is None else tasks.splits


@app.command("list")
def list_cmd(family: Annotated[str | None, typer.Option(help="Only this family.")] = None) -> None:
    """Table of registered environments with family, splits and task counts."""
    from .registry import all_specs

    table = Table(title="agentgym environments")
    for col in ("id", "family", "aliases", "splits", "plugin", "description"):
        table.add_column(col)
    for spec in all_specs():
        if family and spec.family != family:
            continue
        counts = _task_counts(spec)
        splits = "-" if counts is None else ", ".join(f"{k}: {v}" for k, v in counts.items())
        table.add_row(spec.id, spec.family, ", ".join(spec.aliases), splits, spec.plugin,
                      spec.description)
    console.print(table)


@app.command()
def info(env_id: str) -> None:
    """Spec, tools and splits of one environment."""
    from .registry import make, spec

    s = run_guarded(spec, env_id)
    console.print(f"[bold]{s.id}[/]  family={s.family}  plugin={s.plugin or '-'}")
    console.print(f"entry point: {s.entry_point}  max_turns: {s.max_turns}")
    console.print(f"aliases: {', '.join(s.aliases) or '-'}")
    console.print(f"splits: {_task_counts(s)}")
    if s.description:
        console.print(s.description)
    env = run_guarded(make, env_id)
    try:
        console.print("[bold]tools:[/]")
        for t in env.unwrapped.tools:
            args = ", ".join(t.parameters.get("properties", {}))
            console.print(f"  {t.name}({args}): {t.description}")
        console.print("[bold]instructions:[/]")
        console.print(env.unwrapped.instructions, highlight=False, markup=False)
    finally:
        env.close()


@app.command()
def tools(
    env_id: str,
    format: Annotated[str, typer.Option("--format", help="openai or mcp")] = "openai",
) -> None:
    """Print the env's tool schemas as OpenAI function-calling JSON or MCP tool definitions."""
    from .registry import make

    if format not in ("openai", "mcp"):
        _fail(f"--format must be 'openai' or 'mcp', not {format!r}")
    env = run_guarded(make, env_id)
    try:
        toolset = env.unwrapped.tools
        data = toolset.to_openai() if format == "openai" else {"tools": toolset.to_mcp()}
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    finally:
        env.close()


@app.command()
def play(
    env_id: str,
    seed: Annotated[int, typer.Option(help="Seed that picks the task.")] = 0,
    split: Annotated[str, typer.Option(help="Task split.")] = "train",
) -> None:
    """Play an episode in the terminal: type actions (tool calls or text); an empty line quits."""
    from .registry import make

    env = run_guarded(make, env_id, split=split)
    try:
        console.rule(env_id)
        console.print(env.unwrapped.instructions, markup=False, highlight=False)
        obs, info = env.reset(seed=seed)
        total = 0.0
        while True:
            console.print(f"[cyan]observation[/] (task {info.get('task_id')}):")
            console.print(obs["text"], markup=False, highlight=False)
            action = typer.prompt("action", default="", show_default=False)
            if not action.strip():
                console.print("bye")
                break
            obs, reward, terminated, truncated, info = env.step(action)
            total += reward
            if terminated or truncated:
                console.print(obs["text"], markup=False, highlight=False)
                state = "terminated" if terminated else "truncated"
                outcome = {k: v for k, v in info.items() if k != "tool_results"}
                console.print(f"[bold]episode {state}[/]: return {total:.3f}  {outcome}")
                break
    finally:
        env.close()


def main() -> None:
    """Entry point of the ``agentgym`` script."""
    app()



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

    from .rollout.evaluate import EvalConfig, run_eval

    if backend not in ("asyncio", "ray"):
        _fail(f"--backend must be 'asyncio' or 'ray', not {backend!r}")
    if resume and not out:
        _fail("--resume needs --out")
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


@app.command("train")
def train_cmd(
    config: Annotated[str, typer.Argument(help="YAML config (see configs/ and docs/training.md).")],
    overrides: Annotated[list[str] | None, typer.Argument(
        help="key=value overrides, e.g. steps=5 lr=3e-6 lora=true.")] = None,
    resume: Annotated[bool, typer.Option(help="Continue from the newest checkpoint.")] = False,
) -> None:
    """Train a policy: `train CONFIG [key=value ...]` (under torchrun for several processes).

    The config's ``algorithm`` names a trainer registered through ``agentgym_register_trainers``;
    its ``run`` entry point (``run="pkg.mod:function"``) gets the config path and overrides.
    """
    import logging
    import os
    from pathlib import Path

    import yaml
    from rich.logging import RichHandler

    from .plugins import get_registry
    from .registrars import load_entry_point

    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s",
                        handlers=[RichHandler(console=err_console, show_path=False)])
    args = [*(overrides or []), *(["resume=true"] if resume else [])]
    try:
        data = yaml.safe_load(Path(config).read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as e:
        _fail(f"cannot read config {config}: {e}")
    chosen = [a.split("=", 1)[1] for a in args if a.startswith("algorithm=")]
    algorithm = chosen[-1] if chosen else str(data.get("algorithm", "grpo"))
    entry = run_guarded(get_registry("trainers").get, algorithm)
    if "run" not in entry.extra:
        _fail(f"trainer {algorithm!r} ({entry.plugin}) registers no run entry point")
    result = run_guarded(load_entry_point(entry.extra["run"]), config, args)
    if os.environ.get("RANK", "0") != "0":  # under torchrun only rank 0 reports
        return
    table = Table(title=f"{algorithm}: held-out evaluation")
    for col in ("metric", "before", "after"):
        table.add_column(col)
    baseline, final = getattr(result, "baseline", {}), getattr(result, "final", {})
    for key in sorted(set(baseline) | set(final)):
        if key.startswith(("success", "reward")):
            before, after = baseline.get(key), final.get(key)
            table.add_row(key, "-" if before is None else f"{before:.3f}",
                          "-" if after is None else f"{after:.3f}")
    console.print(table)
    console.print(f"run folder: {getattr(result, 'output_dir', '-')}  "
                  f"report: {getattr(result, 'report_png', None) or '-'}")


if __name__ == "__main__":
    main()
