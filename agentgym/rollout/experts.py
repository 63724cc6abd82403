"""Expert trajectories as data: record a family's scripted expert, load demonstrations back.

An :class:`ExpertTrajectory` is what behaviour cloning and semi-online RL need from a
demonstration: the system instructions, and per step the observation the expert saw (text and
images), its optional thought and its action. Two sources give the same objects:

- a trajectory store written by :func:`record_experts` (``agentgym record ENV --policy scripted
  --split train --out DIR``): the engine plays the env's expert and stores every episode;
- a JSONL file in the documented demonstration format, one episode per line, for users who bring
  their own demonstrations (AndroidControl, Mind2Web style)::

    {"task_id": "shop-pen-3", "env_id": "shop/price-v0",
     "instructions": "You are a shop assistant. ...",
     "steps": [
       {"observation": "How much do 3 pens cost?", "action": "lookup(pen)"},
       {"observation": "4", "role": "tool", "thought": "", "action": "calc(4*3)"},
       {"observation": "12", "role": "tool", "action": "answer(12)", "images": ["s2.png"]}
     ]}

  ``observation`` is what the agent saw before acting (the task text at step 0), ``role`` the
  chat role it is shown with (``user`` at step 0, default ``tool`` after), ``thought`` optional
  reasoning, ``images`` optional PNG paths relative to the JSONL file.

:func:`load_experts` reads either (a store folder, its ``trajectories.jsonl``, or a
demonstration JSONL) and :func:`save_demonstrations` writes the JSONL format.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import AgentGymError
from .store import RECORDS, TrajectoryStore
from .trajectory import Trajectory

logger = logging.getLogger(__name__)


@dataclass
class ExpertStep:
    """One expert step: the observation it saw, its optional thought and its action."""

    observation: str
    action: str
    thought: str = ""
    role: str = "tool"
    """Chat role of the observation message (``user`` for the first step)."""
    images: list[str] = field(default_factory=list)
    """Paths of the observation's images (absolute once loaded)."""
    given: bool = False
    """Part of the prompt, not trained: the summary that starts a summarised episode's next
    context (trained once, in the context that wrote it)."""

    def response(self, with_thought: bool = True) -> str:
        """The expert's reply as the model would write it: thought (if any) then the action."""
        if with_thought and self.thought:
            return f"{self.thought}\n{self.action}"
        return self.action


@dataclass
class ExpertTrajectory:
    """A recorded demonstration: instructions and the expert's steps, in order."""

    task_id: str
    steps: list[ExpertStep]
    instructions: str = ""
    env_id: str = ""
    success: bool = True
    contexts: list[ExpertTrajectory] = field(default_factory=list)
    """Earlier contexts of a summarised episode (SUPO), in order, each ending with the expert's
    summary; :attr:`steps` is the last context, which starts with that summary (``given``)."""

    def all_contexts(self) -> list[ExpertTrajectory]:
        """Every context to clone: the earlier ones, then this one (itself when unsummarised)."""
        return [*self.contexts, self]

    def to_json(self) -> str:
        """One line of the demonstration JSONL format."""
        return json.dumps(self._record(), ensure_ascii=False)

    def _record(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "task_id": self.task_id, "env_id": self.env_id, "instructions": self.instructions,
            "success": self.success,
            "steps": [{"observation": s.observation, "role": s.role, "thought": s.thought,
                       "action": s.action, "images": s.images, **({"given": True} if s.given
                                                                   else {})}
                      for s in self.steps],
        }
        if self.contexts:
            record["contexts"] = [c._record() for c in self.contexts]
        return record

    @classmethod
    def from_dict(cls, data: dict[str, Any], base: Path | None = None) -> ExpertTrajectory:
        """Parse one demonstration record; raises AgentGymError naming what is missing."""
        try:
            raw_steps = data["steps"]
            steps = [
                ExpertStep(
                    observation=str(s["observation"]), action=str(s["action"]),
                    thought=str(s.get("thought") or ""),
                    role=str(s.get("role") or ("user" if i == 0 else "tool")),
                    images=[str(base / p) if base else str(p) for p in s.get("images") or []],
                    given=bool(s.get("given", False)),
                )
                for i, s in enumerate(raw_steps)
            ]
            return cls(task_id=str(data["task_id"]), steps=steps,
                       instructions=str(data.get("instructions") or ""),
                       env_id=str(data.get("env_id") or ""),
                       success=bool(data.get("success", True)),
                       contexts=[cls.from_dict(c, base) for c in data.get("contexts") or []])
        except (KeyError, TypeError) as e:
            raise AgentGymError(f"demonstration record lacks a field: {e}") from e

    @classmethod
    def from_trajectory(cls, traj: Trajectory, root: Path | None = None) -> ExpertTrajectory:
        """The expert steps of an engine trajectory (observation before each assistant turn).

        A summarised episode gives one :attr:`contexts` entry per closed context; the summary
        that opens a later context is a ``given`` step.
        """
        def one(msgs: list[dict[str, Any]]) -> ExpertTrajectory:
            system = msgs[0]["content"] if msgs and msgs[0].get("role") == "system" else ""
            return cls(task_id=str(traj.task_id), steps=_steps(traj, msgs[1 if system else 0:],
                                                               root),
                       instructions=str(system), env_id=traj.env_id, success=traj.success)

        expert = one(traj.messages)
        expert.contexts = [one(segment.messages) for segment in traj.segments]
        return expert


def _steps(traj: Trajectory, msgs: list[dict[str, Any]], root: Path | None) -> list[ExpertStep]:
    """(observation, action) pairs of one context's messages after the system prompt."""
    steps: list[ExpertStep] = []
    last_obs: dict[str, Any] | None = None
    for m in msgs:
        if m.get("role") == "assistant":
            if last_obs is None:
                raise AgentGymError(f"trajectory {traj.task_id}: assistant turn first")
            images = [traj.image_paths[i] for i in last_obs.get("images", [])
                      if i < len(traj.image_paths)]
            steps.append(ExpertStep(
                observation=str(last_obs.get("content") or ""),
                action=str(m.get("content") or ""), role=str(last_obs["role"]),
                images=[str(root / p) if root else p for p in images],
                given=bool(m.get("summary")) and not last_obs.get("summary_request")))
            last_obs = None
        else:
            last_obs = m
    return steps


def load_experts(path: str | Path, *, successful_only: bool = True) -> list[ExpertTrajectory]:
    """Expert trajectories from a store folder, a store's JSONL or a demonstration JSONL.

    The format is told per line: engine records hold ``messages``, demonstrations ``steps``.
    Failed or aborted recordings are skipped unless ``successful_only`` is False.
    """
    path = Path(path)
    if path.is_dir():
        path = path / RECORDS
    if not path.is_file():
        raise AgentGymError(f"no expert trajectories at {path}")
    out: list[ExpertTrajectory] = []
    by_key: dict[tuple[str, int], ExpertTrajectory] = {}
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as e:
                raise AgentGymError(f"{path}:{n}: not JSON: {e}") from e
            if "steps" in data:
                out.append(ExpertTrajectory.from_dict(data, path.parent))
            elif "messages" in data:
                traj = Trajectory.from_dict(data)
                if traj.aborted:
                    continue
                expert = ExpertTrajectory.from_trajectory(traj, path.parent)
                by_key[(expert.task_id, traj.sample_idx)] = expert  # the last record wins
            else:
                raise AgentGymError(f"{path}:{n}: neither a demonstration nor a trajectory")
    out.extend(by_key.values())
    kept = [e for e in out if e.steps and (e.success or not successful_only)]
    if len(kept) < len(out):
        logger.info("skipped %d failed or empty expert trajectories", len(out) - len(kept))
    return kept


def save_demonstrations(experts: Iterable[ExpertTrajectory], path: str | Path) -> int:
    """Write ``experts`` in the demonstration JSONL format; returns how many."""
    n = 0
    with open(path, "w", encoding="utf-8") as fh:
        for e in experts:
            fh.write(e.to_json() + "\n")
            n += 1
    return n


def record_experts(
    env_id: str,
    out: str | Path,
    *,
    split: str = "train",
    policy: Any = "scripted",
    num_envs: int = 8,
    limit: int | None = None,
    env_kwargs: dict[str, Any] | None = None,
    resume: bool = True,
    config: Any = None,
) -> dict[str, int]:
    """Play ``policy`` (the env's scripted expert) on every task of ``split`` into a store.

    ``config`` (a :class:`~agentgym.rollout.RolloutConfig`, default the engine's) sets e.g. the
    summarised context the recording runs under. Returns counts: ``episodes`` recorded now,
    ``successful`` among them, ``skipped`` (already in the store). Observation images are
    written beside the records by the store.
    """
    import agentgym

    from ..policies.base import derive_seed
    from .engine import Engine
    from .episode import EpisodeRequest, RolloutConfig

    kwargs = {**(env_kwargs or {}), "split": split}
    env = agentgym.make(env_id, **kwargs)
    try:
        task_set = getattr(env.unwrapped, "task_set", None)
        if task_set is None:
            raise AgentGymError(f"env {env_id!r} has no task set to record")
        ids = list(task_set.ids())[: limit or None]
    finally:
        env.close()
    store = TrajectoryStore(out, resume=resume)
    try:
        done = store.done_keys()
        todo = [i for i in ids if (i, 0) not in done]
        counts = {"episodes": 0, "successful": 0, "skipped": len(ids) - len(todo)}
        engine = Engine(env_id, policy, config=config or RolloutConfig(), num_envs=num_envs,
                        env_kwargs=kwargs)  # make() applies the spec's turn limit
        try:
            seed = engine.config.seed  # a reset seed per task: the same recording every time
            requests = [EpisodeRequest(task_id=i, group_id="expert",
                                       seed=derive_seed(seed, "expert", i)) for i in todo]
            for traj in engine.run(requests):
                store.append(traj)
                counts["episodes"] += 1
                counts["successful"] += int(traj.success)
        finally:
            engine.close()
    finally:
        store.close()
    return counts


__all__ = ["ExpertStep", "ExpertTrajectory", "load_experts", "record_experts",
           "save_demonstrations"]
