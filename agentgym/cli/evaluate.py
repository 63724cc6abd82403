"""``agentgym eval``: a policy on an env's held-out split, with a report.

Exit status: 0 when every episode completed (whatever the success rate); 1 on a bad argument, a
policy or backend that cannot run (checked once before the first episode), or when episodes
aborted for an infrastructure reason (unless ``--allow-aborted``; never when all of them did).
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from .app import ADVANCED, app, console, err_console, fail, interrupted, run_guarded

GATEWAY = "Agent program through the gateway (--agent)"


def _table(results: dict[str, Any], title: str) -> Table:
    m = results["metrics"]
    low, high = m["success_ci95"]
    table = Table(title=title)
    table.add_column("metric")
    table.add_column("value")
    rate = f"{m['success_rate']:.1%}" if m["episodes"] else "-"
    table.add_row("success rate", f"{rate} ({m['successes']}/{m['episodes']} completed)")
    table.add_row("95% CI", f"[{low:.1%}, {high:.1%}]" if m["episodes"] else "-")
    table.add_row("aborted (not scored)", f"{m['aborted']} of {m['total_episodes']}")
    table.add_row("mean reward", f"{m['mean_reward']:.3f}")
    for name, value in m["pass_at_k"].items():
        table.add_row(name, f"{value:.1%}")
    table.add_row("mean turns", f"{m['mean_turns']:.2f}")
    table.add_row("mean generated tokens", f"{m['mean_generated_tokens']:.1f}")
    table.add_row("wall time", f"{m['wall_s']:.1f} s")
    return table


def _env_kwargs(pairs: list[str]) -> dict[str, Any]:
    """``["a=1", "b=x"]`` -> ``{"a": 1, "b": "x"}`` (values read as YAML scalars or lists)."""
    import yaml

    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip().isidentifier():
            fail(f"--env-arg {pair!r}: expected key=value with a Python name as the key")
        try:
            out[key.strip()] = yaml.safe_load(value) if value.strip() else ""
        except yaml.YAMLError:
            out[key.strip()] = value
    return out


def policy_label(spec: str, described: dict[str, Any]) -> str:
    """``spec`` with the model it loaded when the spec does not name it (``hf`` -> ``hf:...``)."""
    model = described.get("model")
    if not model or str(model) in spec:
        return spec
    from ..models import ALIASES

    return f"{spec} (model {ALIASES.get(str(model), model)})"


def written(out: Any) -> str:
    """What ``eval --out`` wrote, naming the viewer a person opens (an absolute path)."""
    names = [n for n in ("results.json", "report.md", "report.png") if (out / n).is_file()]
    text = f"wrote {', '.join(f'{out}/{n}' for n in names)}"
    index = out / "viewer" / "index.html"
    if index.is_file():
        text += f"\ntrajectory viewer (open in a browser): {index.resolve()}"
    return text


@app.command("eval")
def eval_cmd(
    env_id: Annotated[str, typer.Argument(
        metavar="ENV", help="Env id or alias (agentgym list).", show_default=False)],
    policy: Annotated[str, typer.Option(help="scripted, random, hf:smollm2-135m, "
                                             "openai:http://host:8000/v1?model=M")] = "scripted",
    split: Annotated[str, typer.Option(help="Task split (held-out test by default).")] = "test",
    n: Annotated[int | None, typer.Option(
        "-n", "--n", min=1,
        help="Tasks: a sample spread over the split, fixed by --seed (default: all).")] = None,
    k: Annotated[int, typer.Option("--k", min=1, help="Samples per task; pass@k uses them.")] = 1,
    out: Annotated[str | None, typer.Option(
        help="Output folder: trajectories, results.json, report.md/.png, viewer/index.html.")
    ] = None,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Continue the run in --out (same settings), skipping stored episodes.")
    ] = False,
    overwrite: Annotated[bool, typer.Option(
        "--overwrite", help="Replace an earlier evaluation in --out.")] = False,
    seed: Annotated[int, typer.Option(help="Base seed of the task sample and sampling.")] = 0,
    allow_aborted: Annotated[bool, typer.Option(
        "--allow-aborted", help="Exit 0 even when some episodes aborted (infrastructure "
        "failures).", rich_help_panel=ADVANCED)] = False,
    backend: Annotated[str, typer.Option(
        help="asyncio or ray.", rich_help_panel=ADVANCED)] = "asyncio",
    num_envs: Annotated[int, typer.Option(
        min=1, help="Env instances = concurrent episodes.", rich_help_panel=ADVANCED)] = 8,
    max_turns: Annotated[int | None, typer.Option(
        min=1, help="Turn limit, raising or lowering the env's (default: the env's).",
        rich_help_panel=ADVANCED)] = None,
    max_new_tokens: Annotated[int, typer.Option(
        min=1, help="New tokens per turn.", rich_help_panel=ADVANCED)] = 256,
    temperature: Annotated[float | None, typer.Option(
        help="Default 0 if k=1 else 1.", rich_help_panel=ADVANCED)] = None,
    semi_online: Annotated[bool, typer.Option(
        "--semi-online", help="Also report SOP, TSR and PG on the same tasks' expert "
        "trajectories.", rich_help_panel=ADVANCED)] = False,
    experts: Annotated[str | None, typer.Option(
        help="Expert trajectories for --semi-online (default: record the scripted expert).",
        rich_help_panel=ADVANCED)] = None,
    policy_timeout: Annotated[float, typer.Option(
        min=1, help="Seconds one policy turn may take; past it the episode aborts.",
        rich_help_panel=ADVANCED)] = 300.0,
    env_timeout: Annotated[float, typer.Option(
        min=1, help="Seconds one env reset or step may take.",
        rich_help_panel=ADVANCED)] = 60.0,
    env_arg: Annotated[list[str] | None, typer.Option(
        "--env-arg", help="key=value for the env's constructor (the value read as YAML: "
                          "numbers, true/false, lists); repeat for several.",
        rich_help_panel=ADVANCED)] = None,
    summary_budget: Annotated[int, typer.Option(
        min=0, help="Summarised context (SUPO): past this many context tokens the model writes "
                    "a summary that replaces the history (task + summary); 0 = off.",
        rich_help_panel=ADVANCED)] = 0,
    sites: Annotated[str | None, typer.Option(
        help="WebArena sites file (YAML/JSON: site -> URL): run the official tasks on those "
             "servers (same as --env-arg sites=FILE; the WA_* variables also work).",
        rich_help_panel=ADVANCED)] = None,
    agent: Annotated[str | None, typer.Option(
        help="An agent program (one shell-like string) plays each task through the gateway, "
             "greedy (docs/gateway.md).", rich_help_panel=GATEWAY)] = None,
    reward: Annotated[str | None, typer.Option(
        help="env (default), posted or module:function.", rich_help_panel=GATEWAY)] = None,
    scorer: Annotated[str | None, typer.Option(
        help="With --reward posted: the program posting it.", rich_help_panel=GATEWAY)] = None,
    sandbox: Annotated[str | None, typer.Option(
        help="auto (default), bubblewrap or none.", rich_help_panel=GATEWAY)] = None,
    pass_env: Annotated[list[str] | None, typer.Option(
        "--pass-env", help="A variable the agent also gets (repeatable).",
        rich_help_panel=GATEWAY)] = None,
    bind: Annotated[list[str] | None, typer.Option(
        "--bind", help="A path the jailed agent may read (repeatable).",
        rich_help_panel=GATEWAY)] = None,
    mcp: Annotated[bool | None, typer.Option(
        "--mcp/--no-mcp", help="Serve the env's tools over MCP (default on).",
        show_default=False, rich_help_panel=GATEWAY)] = None,
    agent_timeout: Annotated[float | None, typer.Option(
        min=1, help="Seconds an agent may run (default 300).", rich_help_panel=GATEWAY)] = None,
) -> None:
    """Evaluate a policy on an env's split: success (95% CI), reward, pass@k, turns, tokens.

    Success counts completed episodes; aborted ones (a dead server, a killed container) are
    reported beside them and make the exit status 1 unless --allow-aborted. With --agent an
    agent program plays each task through the token-exact gateway (docs/gateway.md).
    """
    from pathlib import Path

    from ..rollout.evaluate import EvalConfig, clear_outputs, run_eval
    from .eval_progress import EvalProgress

    env_kwargs = _env_kwargs(env_arg or [])
    if sites is not None:
        if not Path(sites).is_file():
            fail(f"--sites {sites}: no such file")
        env_kwargs["sites"] = str(Path(sites).resolve())
    gateway_opts = {"--reward": reward, "--scorer": scorer, "--sandbox": sandbox,
                    "--pass-env": pass_env, "--bind": bind, "--mcp/--no-mcp": mcp,
                    "--agent-timeout": agent_timeout}
    if agent is None:
        given = [name for name, value in gateway_opts.items() if value is not None]
        if given:
            fail(f"{', '.join(given)} only apply with --agent (an agent program through the "
                 "gateway)")
    else:
        from .eval_gateway import eval_through_gateway

        results = eval_through_gateway(
            env_id, policy, agent, split=split, n=n, seed=seed, out=out, overwrite=overwrite,
            max_turns=max_turns, max_new_tokens=max_new_tokens, env_kwargs=env_kwargs,
            num_envs=num_envs, reward=reward, scorer=scorer,
            sandbox=sandbox, pass_env=pass_env or [], binds=bind or [], mcp=mcp,
            timeout_s=agent_timeout,
            refused={"--k > 1": k > 1, "--resume": resume, "--semi-online": semi_online,
                     "--temperature (greedy only)": temperature not in (None, 0.0),
                     "--backend ray": backend != "asyncio", "--summary-budget": summary_budget > 0})
        label = policy_label(policy, results.get("policy") or {})
        console.print(_table(results, f"{results['config']['env_id']} / {label} / agent "
                                      f"{agent} / {split}"), soft_wrap=True)
        _finish(results, out, allow_aborted)
        return
    if resume and not out:
        fail("--resume needs --out")
    if resume and overwrite:
        fail("--resume and --overwrite exclude each other")
    config = run_guarded(EvalConfig, env_id, policy, split, n, k, out, resume, backend, num_envs,
                         max_turns, max_new_tokens=max_new_tokens, temperature=temperature,
                         seed=seed, policy_timeout_s=policy_timeout, env_timeout_s=env_timeout,
                         episode_timeout_s=max(600.0, 2 * policy_timeout, 2 * env_timeout),
                         env_kwargs=env_kwargs,
                         summary_budget=summary_budget)
    if overwrite and out:
        clear_outputs(Path(out))
    bar = EvalProgress(f"eval {env_id}", err_console)
    try:  # the bar starts after the checks: their errors come bar-less
        results = run_guarded(run_eval, config, progress=bar.episode_finished,
                              on_start=bar.run_started, on_turn=bar.turn_finished)
    except KeyboardInterrupt:
        bar.stop()
        hint = f"; continue with the same command and --resume (stored in {out})" if out else ""
        interrupted(f"interrupted{hint}")
    finally:
        bar.stop()
    m = results["metrics"]
    label = policy_label(policy, results.get("policy") or {})
    console.print(_table(results, f"{results['config']['env_id']} / {label} / {split}"))
    if semi_online:
        from ..rollout.sop import sop_for_tasks

        ids = [row["task_id"] for row in results["per_task"]]
        sop = run_guarded(sop_for_tasks, env_id, policy, ids, split=split, experts=experts,
                          max_new_tokens=max_new_tokens, seed=seed)
        console.print(f"semi-online on {sop['sop_tasks']} of {len(ids)} tasks: "
                      f"SOP {sop['sop']:.3f} (TSR {sop['tsr']:.3f}, PG {sop['pg']:.3f}) "
                      f"beside online success {m['success_rate']:.3f}", highlight=False)
    _finish(results, out, allow_aborted)


def _finish(results: dict[str, Any], out: str | None, allow_aborted: bool) -> None:
    """Name what ``--out`` holds; exit 1 when episodes aborted (unless ``allow_aborted``)."""
    from pathlib import Path

    m = results["metrics"]
    if out:
        console.print(written(Path(out)), highlight=False)
    if m["aborted"]:
        reasons = "; ".join(m["abort_reasons"][:3])
        if not m["episodes"]:
            fail(f"every episode aborted ({m['aborted']}), nothing was scored: {reasons}")
        if not allow_aborted:
            fail(f"{m['aborted']} of {m['total_episodes']} episodes aborted for an "
                 f"infrastructure reason (not scored): {reasons}. Pass --allow-aborted to accept")
