"""Fork an episode: n independent copies of an env in exactly its current state.

``agentgym.fork(env, n)`` (also ``env.fork(n)`` and the async ``afork``) returns ``n`` envs built
the way ``env`` was (:func:`agentgym.make` with the same id and arguments) and brought to the
same task, turn, observation and hidden state, without touching ``env``: stepping one never
changes another or the parent. Two ways, chosen by the spec's ``forkable``:

- ``state``: the env clones itself (:meth:`agentgym.TaskToolEnv.fork_clone`: what an episode
  only reads is shared, what it changes, :meth:`~agentgym.TaskToolEnv.fork_state`, is deep
  copied) under copies of its wrappers. Nothing is built or replayed: microseconds.
- ``replay``: the generic fallback. A fresh copy from :func:`agentgym.make` is reset with the
  parent's seed and options and
  replays the parent's recorded actions; it is exact for deterministic envs, and the copy must
  end on the parent's observation, else :class:`agentgym.ForkError` (never a silently different
  state).

Wrappers carry their own episode state (``TurnLimit.turns``) in ``fork_fields``, copied layer by
layer. ``forkable: no`` refuses, as does an env not made by :func:`agentgym.make`. Forks share
nothing writable: each is its own env, and what ``state`` copies is deep-copied.
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any

from .errors import ForkError
from .fork_trace import ForkTrace


def fork_mode(env: Any) -> str:
    """``state``, ``replay`` or ``no`` for ``env`` (its spec's ``forkable`` resolved)."""
    base = env.unwrapped
    spec = getattr(base, "agentgym_spec", None)
    mode = getattr(spec, "forkable", "auto")
    if mode == "auto":
        mode = "state" if getattr(type(base), "fork_fields", None) is not None else "replay"
    if mode not in ("state", "replay", "no"):
        raise ForkError(f"forkable must be auto, state, replay or no, not {mode!r}")
    return mode


def _layers(env: Any) -> list[Any]:
    """The wrapper chain from the outermost layer to the base env."""
    layers = [env]
    while hasattr(layers[-1], "env") and layers[-1] is not layers[-1].unwrapped:
        layers.append(layers[-1].env)
    return layers


def fork(env: Any, n: int = 1) -> list[Any]:
    """``n`` independent copies of ``env`` in its current state (see the module docstring)."""
    if n < 1:
        raise ValueError("n must be at least 1")
    base = env.unwrapped
    mode = fork_mode(env)
    name = getattr(getattr(base, "agentgym_spec", None), "id", type(base).__name__)
    if mode == "no":
        raise ForkError(f"{name} cannot be forked (its spec says forkable: no)")
    trace: ForkTrace | None = getattr(base, "_fork_trace", None)
    if trace is None:
        raise ForkError(f"{name}: no episode to fork (reset it first, or an action could not "
                        "be recorded)")
    if mode == "state":
        return [_clone(env, trace) for _ in range(n)]
    return _replay(env, n, trace, name)


def _clone(env: Any, trace: ForkTrace) -> Any:
    """A state fork: the base env's :meth:`fork_clone` under copies of the wrapper layers."""
    layers = _layers(env)
    inner = layers[-1].fork_clone()
    inner._fork_trace = copy.deepcopy(trace)
    for layer in reversed(layers[:-1]):
        outer = copy.copy(layer)
        outer.env = inner
        for field_name in getattr(layer, "fork_fields", None) or ():
            setattr(outer, field_name, copy.deepcopy(getattr(layer, field_name)))
        inner = outer
    return inner


def _replay(env: Any, n: int, trace: ForkTrace, name: str) -> list[Any]:
    """Replay forks: fresh envs from :func:`agentgym.make` replay the recorded actions."""
    base = env.unwrapped
    made = getattr(base, "agentgym_made", None)
    if made is None:
        raise ForkError(f"{name} was not made by agentgym.make and has no fork_fields: nothing "
                        "to build its copies from")
    make, env_id, kwargs = made  # the builder that made the parent (agentgym.make)
    children = []
    try:
        for _ in range(n):
            child = make(env_id, **kwargs)
            children.append(child)
            child.reset(seed=trace.seed, options=copy.deepcopy(trace.options))
            for action in trace.actions:
                child.step(copy.deepcopy(action))
            if child.unwrapped._last_text != base._last_text:
                raise ForkError(f"{name}: replaying {len(trace.actions)} actions did not reach "
                                "the parent's observation (the env is not deterministic); it "
                                "cannot be forked by replay")
    except BaseException:
        for child in children:
            child.close()
        raise
    return children


async def afork(env: Any, n: int = 1) -> list[Any]:
    """Async twin of :func:`fork` (runs it in a worker thread)."""
    return await asyncio.get_running_loop().run_in_executor(None, fork, env, n)


__all__ = ["afork", "fork", "fork_mode"]
