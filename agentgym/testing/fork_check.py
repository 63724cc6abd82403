"""The fork contract, checked on any env made by :func:`agentgym.make` (used by ``check_env``).

A fork taken after one step must start where its parent stands (same observation, same turn
count), and stepping one copy must change neither its sibling nor the parent. An env whose
spec says ``forkable: no`` is skipped; a replay fork the env refuses with
:class:`agentgym.ForkError` (not deterministic) is a documented refusal and passes; any other
failure is a breach.
"""

from __future__ import annotations

import contextlib
from typing import Any

from ..errors import ForkError
from ..fork import fork, fork_mode


def _turns(env: Any) -> int | None:
    """The outermost turn count (``TurnLimit.turns``) of a made env, if it has one."""
    layer = env
    while layer is not None:
        if hasattr(layer, "turns") and hasattr(layer, "max_turns"):
            return int(layer.turns)
        layer = getattr(layer, "env", None) if layer is not layer.unwrapped else None
    return None


def check_fork(env: Any, first_action: Any, *, seed: int = 0) -> str:
    """Check the fork contract on ``env``; returns ``checked``, ``skipped`` or ``refused``.

    ``first_action`` is stepped in the parent before forking. Raises ``AssertionError`` naming
    the breach.
    """
    if getattr(env.unwrapped, "agentgym_made", None) is None or fork_mode(env) == "no":
        return "skipped"
    env.reset(seed=seed)
    _, _, terminated, truncated, _ = env.step(first_action)
    parent_text, parent_turns = env.unwrapped._last_text, _turns(env)
    try:
        a, b = fork(env, 2)
    except ForkError:
        if fork_mode(env) == "state":
            raise
        return "refused"
    try:
        for child in (a, b):
            assert child.unwrapped._last_text == parent_text, "a fork starts elsewhere"
            assert _turns(child) == parent_turns, "a fork does not continue the turn count"
        if terminated or truncated:  # an ended episode: the copies end there too
            return "checked"
        _, _, a_ended, a_cut, _ = a.step("a different action in the first branch")
        b_text = b.unwrapped._last_text
        if not (a_ended or a_cut):  # a game may end on a second invalid move (TextArena's)
            a.step("and another")
        assert env.unwrapped._last_text == parent_text, "stepping a fork changed its parent"
        assert _turns(env) == parent_turns, "stepping a fork moved the parent's turn count"
        assert b.unwrapped._last_text == b_text, "stepping a fork changed its sibling"
        b.step("the second branch's own action")
        assert env.unwrapped._last_text == parent_text, "stepping a fork changed its parent"
    finally:
        for child in (a, b):
            with contextlib.suppress(Exception):
                child.close()
    return "checked"


__all__ = ["check_fork"]
