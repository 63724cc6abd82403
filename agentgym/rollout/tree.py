"""Tree-structured rollouts: a task's group grown as a tree of forked episodes (Tree-GRPO style).

A chain group runs ``G`` independent episodes of a task. A tree group runs ``roots`` episodes
and, at each branch turn ``k`` of :class:`TreeShape`, forks every live episode into ``width``
copies: the env with :func:`agentgym.fork` (its real state, never a replay of the first ``k``
turns when the env forks natively) and the episode (exact token ids, messages, behaviour
log-probs and policy versions) with :meth:`Episode.fork`. The copies then sample their own
continuations (their sampling seeds follow their own ``sample_idx``). A leaf is a finished
episode; the first ``k`` turns are stepped once for all the leaves under them, which is where
the env-step saving comes from.

Each leaf's :attr:`Trajectory.info` gets ``tree``::

    {"path": [root, child, ...],      # the node ids from the root to this leaf
     "branch_at": [token positions],  # where in token_ids each branch happened
     "branch_turns": [turns],         # after which turn each branch happened
     "own_env_steps": n}              # env steps this leaf paid for (shared prefix: child 0)

so the trainer can credit each shared prefix once (:mod:`agentgym.trainers.tree_advantages`),
and summing ``own_env_steps`` over a group gives the env steps it cost.

Only in-process envs fork (the ``asyncio`` backend); an env that cannot fork fails the branch
closed: its copies end ``aborted`` with the fork error, never as the model's failure.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from ..policies.base import derive_seed
from .episode import Episode, EpisodeRequest
from .trajectory import Trajectory
from .workers import EnvWorker, LocalEnvWorker

Engine = Any
"""The :class:`~agentgym.rollout.Engine` that runs the tree (its pool, policy and config)."""


@dataclass(frozen=True)
class TreeShape:
    """How a group grows: ``roots`` episodes, each live node forked ``width`` ways after each
    turn in ``branch_turns``."""

    roots: int = 2
    width: int = 2
    branch_turns: tuple[int, ...] = (1,)

    def __post_init__(self) -> None:
        turns = tuple(int(t) for t in self.branch_turns)
        if self.roots < 1 or self.width < 1:
            raise ConfigError("a tree needs roots >= 1 and width >= 1")
        if any(t < 1 for t in turns) or list(turns) != sorted(set(turns)):
            raise ConfigError(f"branch_turns must be increasing turns >= 1, not {turns}")
        object.__setattr__(self, "branch_turns", turns)

    @property
    def leaves(self) -> int:
        """Leaves of a full tree (fewer when episodes end before a branch turn)."""
        return self.roots * self.width ** len(self.branch_turns)

    @classmethod
    def for_group(cls, group_size: int, width: int, branch_turns: tuple[int, ...]) -> TreeShape:
        """The shape whose full tree has ``group_size`` leaves."""
        per_root = width ** len(branch_turns)
        if group_size % per_root:
            raise ConfigError(f"group_size {group_size} is not a multiple of width^branches "
                              f"= {per_root} (tree rollouts)")
        return cls(roots=group_size // per_root, width=width, branch_turns=tuple(branch_turns))


class _Node:
    """One running episode of a tree and where it sits."""

    def __init__(self, episode: Episode, worker: EnvWorker, path: list[int],
                 branch_at: list[int], branch_turns: list[int], start_turn: int,
                 owned: bool) -> None:
        self.episode, self.worker = episode, worker
        self.path, self.branch_at, self.branch_turns = path, branch_at, branch_turns
        self.start_turn = start_turn
        """The turn this node's own env steps start after."""
        self.owned = owned
        """True for a forked env (closed by the tree), False for the pool's worker."""


async def run_tree(engine: Engine, task_id: str, *, group_size: int, width: int,
                   branch_turns: tuple[int, ...], seed: int = 0, round: int = 0) -> (
        list[Trajectory]):
    """One tree group of ``task_id`` on ``engine``'s pool and policy (leaves in path order).

    Group and sample ids follow :func:`~agentgym.rollout.group_requests`: ``r<round>:<task>``,
    and leaf ``i`` of the full tree gets ``sample_idx`` ``i``.
    """
    if engine.backend != "asyncio":
        raise ConfigError("tree rollouts fork envs in this process: env_backend must be asyncio")
    shape = TreeShape.for_group(group_size, width, branch_turns)
    group_id = f"r{round}:{task_id}"
    per_root = shape.leaves // shape.roots
    roots = [EpisodeRequest(task_id=task_id, sample_idx=r * per_root, group_id=group_id,
                            seed=derive_seed(seed, round, task_id, r * per_root))
             for r in range(shape.roots)]
    results = await asyncio.gather(*(_grow_root(engine, shape, req, r)
                                     for r, req in enumerate(roots)))
    leaves = [t for trajs in results for t in trajs]
    return sorted(leaves, key=lambda t: t.info["tree"]["path"])


async def _grow_root(engine: Engine, shape: TreeShape, request: EpisodeRequest,
                     root: int) -> list[Trajectory]:
    """Run one root to its leaves; the pool's worker is returned (or replaced) at the end."""
    try:
        worker = await engine.pool.acquire(engine.config.acquire_timeout_s)
    except Exception as e:  # no env could be made: this root's one leaf is aborted
        episode = Episode(request, engine.policy, engine.config, engine.env_id, engine._tracker)
        episode._fail(e, "env creation", env=False)
        return [_leaf(engine, _Node(episode, None, [root], [], [], 0, False))]  # type: ignore
    episode = Episode(request, engine.policy, engine.config, engine.env_id, engine._tracker)
    node = _Node(episode, worker, [root], [], [], 0, owned=False)
    healthy = False
    try:
        await episode.begin(worker)
        leaves = await _grow(engine, shape, node, depth=0)
        healthy = not episode.env_failed
        return leaves
    finally:
        if healthy:
            engine.pool.release(worker)
        else:
            engine.pool.discard(worker, episode.traj.reason or "tree root cancelled")


async def _grow(engine: Engine, shape: TreeShape, node: _Node, depth: int) -> list[Trajectory]:
    """Play ``node`` to its next branch turn (then fork and recurse) or to its end."""
    episode = node.episode
    stop = shape.branch_turns[depth] if depth < len(shape.branch_turns) else None
    while not episode.done and (stop is None or episode.traj.turns < stop):
        gen = await episode.policy_turn()
        if gen is None:
            break
        await episode.env_turn(gen)
    if episode.done or stop is None:
        return [_leaf(engine, node)]
    children = await _fork(engine, shape, node, depth)
    results = await asyncio.gather(*(_grow_child(engine, shape, c, depth + 1) for c in children))
    return [t for trajs in results for t in trajs]


async def _grow_child(engine: Engine, shape: TreeShape, node: _Node,
                      depth: int) -> list[Trajectory]:
    try:
        return await _grow(engine, shape, node, depth)
    finally:
        if node.owned:  # off the loop, as the pool closes a worker: closing may block
            await asyncio.get_running_loop().run_in_executor(
                None, node.worker.close, engine.pool.close_timeout_s)


async def _fork(engine: Engine, shape: TreeShape, node: _Node, depth: int) -> list[_Node]:
    """``width`` children of ``node``: child 0 continues the node's own env, the others fork."""
    parent = node.episode
    at, turn = len(parent.traj.token_ids), parent.traj.turns
    span = shape.width ** (len(shape.branch_turns) - depth - 1)  # leaves under each child
    children: list[_Node] = []
    envs: list[Any] = []
    error = ""
    if shape.width > 1:
        try:
            envs = await node.worker.env.afork(shape.width - 1)  # type: ignore[attr-defined]
        except Exception as e:  # a fork that fails: the copies abort, the parent goes on
            error = f"infrastructure: fork failed: {type(e).__name__}: {e}"[:500]
    for c in range(shape.width):
        path = [*node.path, c]
        branch_at, turns = [*node.branch_at, at], [*node.branch_turns, turn]
        sample_idx = parent.traj.sample_idx + c * span
        if c == 0:
            children.append(_Node(parent, node.worker, path, branch_at, turns,
                                  node.start_turn, node.owned))
            node.owned = False  # child 0 closes the env it carries on with
            continue
        if error:
            copy = parent.fork(None, sample_idx)
            copy._end(aborted=True, reason=error)
            children.append(_Node(copy, None, path, branch_at, turns, turn, False))  # type: ignore
            continue
        worker = LocalEnvWorker(envs[c - 1], engine.env_id)
        children.append(_Node(parent.fork(worker, sample_idx), worker, path, branch_at, turns,
                              turn, owned=True))
    return children


def _leaf(engine: Engine, node: _Node) -> Trajectory:
    traj = engine._account(node.episode.result())
    traj.info["tree"] = {"path": node.path, "branch_at": node.branch_at,
                         "branch_turns": node.branch_turns,
                         "own_env_steps": max(traj.turns - node.start_turn, 0)}
    return traj


def tree_env_steps(group: list[Trajectory]) -> int:
    """Env steps a group cost: shared prefixes once (chain groups: every episode's turns)."""
    return sum(int(t.info.get("tree", {}).get("own_env_steps", t.turns)) for t in group)


__all__ = ["TreeShape", "run_tree", "tree_env_steps"]
