"""Fork an episode: n independent copies of an env in exactly its current state.

``agentgym.fork(env, n)`` (also ``env.fork(n)`` and the async ``afork``) returns ``n`` envs built
the way ``env`` was (:func:`agentgym.make` with the same id and arguments) and brought to the
same task, turn, observation and hidden state, without touching ``env``: stepping one never
changes another or the parent. Two ways, chosen by the spec's ``forkable``:

- ``state``: the env clones itself (:meth:`agentgym.TaskToolEnv.fork_clone`: what an episode
  only reads is shared, what it changes, :meth:`~agentgym.TaskToolEnv.fork_state`, is deep
  copied) under copies of its wrappers. Nothing is built or replayed: microseconds.
- ``snapshot``: for envs whose state lives outside the Python object (a browser, a site's
  database): the env writes plain-data snapshots of its state (:meth:`fork_snapshot`, one per
  copy, each owning its own copied resources) and a fresh env from :func:`agentgym.make`
  restores one (:meth:`fork_restore`) on the loop that will step it, ending on the parent's
  observation or refusing with :class:`~agentgym.ForkError`; a refused restore falls back to
  ``replay``. The WebArena twin forks this way (``envs/webarena/fork.py``).
- ``replay``: the generic fallback. A fresh copy from :func:`agentgym.make` is reset with the
  parent's seed and options and
  replays the parent's recorded actions; it is exact for deterministic envs, and the copy must
  end on the parent's observation, else :class:`agentgym.ForkError` (never a silently different
  state).

Wrappers carry their own episode state (``TurnLimit.turns``) in ``fork_fields``, copied layer by
layer. ``forkable: no`` refuses, as does an env not made by :func:`agentgym.make`. Forks share
nothing writable: each is its own env, and what ``state`` copies is deep-copied. Each copy's
base env says how it was made in ``fork_origin`` (``state``, ``snapshot`` or ``replay``).
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
        if getattr(type(base), "fork_fields", None) is not None:
            mode = "state"
        elif callable(getattr(base, "fork_snapshot", None)):
            mode = "snapshot"
        else:
            mode = "replay"
    if mode not in ("state", "snapshot", "replay", "no"):
        raise ForkError(f"forkable must be auto, state, snapshot, replay or no, not {mode!r}")
    return mode


def _layers(env: Any) -> list[Any]:
    """The wrapper chain from the outermost layer to the base env."""
    layers = [env]
    while hasattr(layers[-1], "env") and layers[-1] is not layers[-1].unwrapped:
        layers.append(layers[-1].env)
    return layers


def _preflight(env: Any, n: int) -> tuple[str, str, ForkTrace]:
    """``(mode, name, trace)`` of a fork of ``env``; refusals raise here."""
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
    return mode, name, trace


def _reached(child: Any, base: Any, trace: ForkTrace, name: str) -> None:
    """A replayed ``child`` must show the parent's observation (else ForkError)."""
    if child.unwrapped._last_text != base._last_text:
        raise ForkError(f"{name}: replaying {len(trace.actions)} actions did not reach the "
                        "parent's observation (the env is not deterministic); it cannot be "
                        "forked by replay")
    child.unwrapped.fork_origin = "replay"


def fork(env: Any, n: int = 1) -> list[Any]:
    """``n`` independent copies of ``env`` in its current state (see the module docstring)."""
    base = env.unwrapped
    mode, name, trace = _preflight(env, n)
    if mode == "state":
        return [_clone(env, trace) for _ in range(n)]
    if mode == "snapshot":
        try:
            snaps = base._run(base.fork_snapshot(n))
        except ForkError:
            return _replay(env, n, trace, name)
        return [_restored(env, trace, name, snap, sync=True) for snap in snaps]
    return _replay(env, n, trace, name)


def _made(env: Any, name: str) -> tuple[Any, str, dict[str, Any]]:
    made = getattr(env.unwrapped, "agentgym_made", None)
    if made is None:
        raise ForkError(f"{name} was not made by agentgym.make and has no fork_fields: nothing "
                        "to build its copies from")
    return made  # type: ignore[no-any-return]


def _adopt(parent: Any, child: Any, trace: ForkTrace) -> None:
    """Give ``child`` (made like ``parent``) the parent's fork trace, RNG and wrapper state."""
    for mine, theirs in zip(_layers(child), _layers(parent), strict=False):
        for field_name in getattr(theirs, "fork_fields", None) or ():
            if mine is not mine.unwrapped:
                setattr(mine, field_name, copy.deepcopy(getattr(theirs, field_name)))
    base, kid = parent.unwrapped, child.unwrapped
    kid._fork_trace = copy.deepcopy(trace)
    if getattr(base, "_np_random", None) is not None:
        kid._np_random = copy.deepcopy(base._np_random)
    kid._last_text = base._last_text
    kid.fork_origin = "snapshot"


def _restored(env: Any, trace: ForkTrace, name: str, snap: Any, *, sync: bool) -> Any:
    """A fresh env restored from ``snap`` on its own loop; a refused restore replays."""
    make, env_id, kwargs = _made(env, name)
    child = make(env_id, **kwargs)
    try:
        child.unwrapped._run(child.unwrapped.fork_restore(snap))
    except ForkError:
        child.close()
        [child] = _replay(env, 1, trace, name)
        return child
    except BaseException:
        child.close()
        raise
    _adopt(env, child, trace)
    return child


def _clone(env: Any, trace: ForkTrace) -> Any:
    """A state fork: the base env's :meth:`fork_clone` under copies of the wrapper layers."""
    layers = _layers(env)
    inner = layers[-1].fork_clone()
    inner._fork_trace = copy.deepcopy(trace)
    inner.fork_origin = "state"
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
    make, env_id, kwargs = _made(env, name)  # the builder that made the parent
    children = []
    try:
        for _ in range(n):
            child = make(env_id, **kwargs)
            children.append(child)
            child.reset(seed=trace.seed, options=copy.deepcopy(trace.options))
            for action in trace.actions:
                child.step(copy.deepcopy(action))
            _reached(child, base, trace, name)
    except BaseException:
        for child in children:
            child.close()
        raise
    return children


async def afork(env: Any, n: int = 1) -> list[Any]:
    """Async twin of :func:`fork`.

    An async-native env (one whose resources are bound to the loop that drives it, such as a
    browser) forks on the running loop: its copies are restored or replayed through their
    async twins here, so the loop that steps them owns them. Others fork in a worker thread.
    """
    base = env.unwrapped
    mode, name, trace = _preflight(env, n)
    if mode == "state" or not base._is_async_native():
        return await asyncio.get_running_loop().run_in_executor(None, fork, env, n)
    snaps: list[Any] = []
    if mode == "snapshot":
        try:
            snaps = await base.fork_snapshot(n)
        except ForkError:
            snaps = []
    make, env_id, kwargs = _made(env, name)
    children: list[Any] = []
    try:
        for i in range(n):
            child = await asyncio.to_thread(make, env_id, **kwargs)
            children.append(child)
            if snaps:
                try:
                    await child.unwrapped.fork_restore(snaps[i])
                    _adopt(env, child, trace)
                    continue
                except ForkError:  # not restorable exactly: this copy replays instead
                    await child.aclose()
                    child = children[-1] = await asyncio.to_thread(make, env_id, **kwargs)
            await _areplay(child, trace, base, name)
    except BaseException:
        for child in children:
            await child.aclose()
        raise
    return children


async def _areplay(child: Any, trace: ForkTrace, base: Any, name: str) -> None:
    """Replay the parent's actions in ``child`` through its async twins."""
    await child.areset(seed=trace.seed, options=copy.deepcopy(trace.options))
    for action in trace.actions:
        await child.astep(copy.deepcopy(action))
    _reached(child, base, trace, name)


__all__ = ["afork", "fork", "fork_mode"]
