"""``agentgym audit ENV``: red-team an env's reward (:func:`agentgym.testing.check_rewards`).

Prints the probe table (probe, class, mean reward, aborted share, verdict, best variant) and
the failures' reasons. Exit status 0 when every probe earned no more than doing nothing, 2 when
one did (the env pays a degenerate policy), 1 on a bad argument. Imported envs
(``reasoning-gym:<task>``, ``textarena:<game>``) are audited like native ones.
"""

from __future__ import annotations

from typing import Annotated

import typer

from .app import app, console, err_console, run_guarded


@app.command()
def audit(
    env_id: str,
    seeds: Annotated[int, typer.Option(min=1, help="Episodes per probe variant.")] = 3,
    cheap: Annotated[bool, typer.Option(
        help="Only the cheap probes, two payloads each (envs with sandboxes or browsers).")]
    = False,
    max_variants: Annotated[int | None, typer.Option(
        min=1, help="At most this many variants per probe.")] = None,
    env_arg: Annotated[list[str] | None, typer.Option(
        "--env-arg", help="key=value for the env's constructor (YAML value); repeatable.")]
    = None,
) -> None:
    """Red-team ENV's reward: which degenerate policies earn more than doing nothing."""
    from ..settings import parse_overrides
    from ..testing.rewards import check_rewards

    kwargs = run_guarded(parse_overrides, env_arg or [])
    err_console.print(f"auditing {env_id} ({seeds} seeds)...", highlight=False)
    result = run_guarded(check_rewards, env_id, seeds=seeds, cheap=cheap,
                         max_variants=max_variants, **kwargs)
    console.print(str(result), highlight=False, markup=False, soft_wrap=True)
    if not result.passed:
        raise typer.Exit(2)
