"""``agentgym play``: an episode in the terminal, typed by a person."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from .app import app, console, interrupted, run_guarded


def bare_action(env: Any, text: str) -> Any:
    """A bare answer (``50``, ``crane``) as a call of the env's only tool, when it has exactly
    one tool taking one argument; anything else (a tool call, free text) is passed on as typed.
    """
    from ..errors import AgentGymError
    from ..toolcalls import ToolCall, parse_tool_calls

    try:
        if parse_tool_calls(text):
            return text
    except AgentGymError:
        return text  # a malformed call: the env answers with its error observation
    tools = list(getattr(env.unwrapped, "tools", None) or [])
    if len(tools) != 1:
        return text
    properties = tools[0].parameters.get("properties", {})
    if len(properties) != 1:
        return text
    ((name, schema),) = properties.items()
    value: Any = text.strip()
    kind = schema.get("type")
    try:
        if kind == "integer":
            value = int(value)
        elif kind == "number":
            value = float(value)
    except ValueError:
        return text
    return [ToolCall(tools[0].name, {name: value})]


def turn_limit(env: Any) -> int | None:
    """The turn limit of ``env``'s wrapper chain (None when nothing limits the turns)."""
    current, seen = env, set()
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        limit = getattr(current, "max_turns", None)
        if isinstance(limit, int):
            return limit
        current = getattr(current, "env", None)
    return None


def read_action(turn: int, limit: int | None) -> str | None:
    """One typed action after a ``turn N/limit`` prompt; None at end of input (Ctrl-D)."""
    counter = f"turn {turn}/{limit}" if limit else f"turn {turn}"
    try:
        return console.input(f"action ({counter}): ")
    except EOFError:
        console.print()
        return None


@app.command()
def play(
    env_id: str,
    seed: Annotated[int, typer.Option(help="Seed that picks the task.")] = 0,
    split: Annotated[str, typer.Option(help="Task split.")] = "train",
) -> None:
    """Play an episode in the terminal: type actions (tool calls or text); an empty line or
    Ctrl-D quits.

    Where the env has a single one-argument tool, a bare answer (``50``) calls it. The prompt
    counts the turns against the env's turn limit.
    """
    from ..registry import make

    env = run_guarded(make, env_id, split=split)
    stopped = False
    try:
        console.rule(env_id)
        console.print(env.unwrapped.instructions, markup=False, highlight=False)
        obs, info = env.reset(seed=seed)
        total, turn, limit = 0.0, 1, turn_limit(env)
        while True:
            console.print(f"[cyan]observation[/] (task {info.get('task_id')}):")
            console.print(obs["text"], markup=False, highlight=False)
            action = read_action(turn, limit)
            if action is None or not action.strip():
                console.print("bye")
                break
            turn += 1
            step_action = bare_action(env, action)
            if step_action is not action:
                call = step_action[0]
                console.print(f"[dim]-> {call.name}({json.dumps(call.arguments)})[/]",
                              highlight=False)
            obs, reward, terminated, truncated, info = env.step(step_action)
            total += reward
            if terminated or truncated:
                console.print(obs["text"], markup=False, highlight=False)
                state = "terminated" if terminated else "truncated"
                outcome = {k: v for k, v in info.items() if k != "tool_results"}
                console.print(f"[bold]episode {state}[/]: return {total:.3f}  {outcome}")
                break
    except KeyboardInterrupt:
        stopped = True
    finally:
        env.close()
    if stopped:
        interrupted("interrupted (Ctrl-C)")
