"""``agentgym play``: an episode in the terminal, typed by a person."""

from __future__ import annotations

from typing import Annotated

import typer

from .app import app, console, run_guarded


@app.command()
def play(
    env_id: str,
    seed: Annotated[int, typer.Option(help="Seed that picks the task.")] = 0,
    split: Annotated[str, typer.Option(help="Task split.")] = "train",
) -> None:
    """Play an episode in the terminal: type actions (tool calls or text); an empty line quits."""
    from ..registry import make

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
