"""reasoning-gym's procedural tasks as agentgym envs: ``make("reasoning-gym:<task name>")``.

reasoning-gym (``pip install 'agentgym[interop]'``) generates question/answer items from a seed
and scores an answer with the dataset's own ``score_answer``. The importer maps:

- **tasks and splits**: ``train`` holds items ``0..train_size-1`` of
  ``create_dataset(name, seed=seed, size=train_size, **config)``; ``test`` holds
  ``test_size`` items of the same generator seeded :data:`TEST_SEED_OFFSET` higher, so the
  two draw from disjoint item seeds; a test item whose question also appears in ``train`` is
  dropped (small generators repeat), so the splits share no question. Task ids are
  ``<name>/<split>/<index>``.
- **observation**: the question; the instructions are one of reasoning-gym's own system
  prompts (``system_prompt="default"``: think, then the answer inside ``<answer>`` tags;
  ``"direct"``, ``"simple"``, ``"DeepSeekZero"``...) plus the ``answer`` tool.
- **action**: an ``answer`` tool call, or text; text with ``<answer>`` tags answers with the
  last tagged span (reasoning-gym's ``extract_answer``), text without them answers with the
  whole reply. The episode is one answer: the spec's turn limit is 1.
- **reward**: ``score_answer(answer, entry)`` unchanged (``reward="native"``), a float in
  [0, 1]; success is a score of 1. Several generators keep reasoning-gym's default scorer,
  which pays ``len(gold)/len(reply)`` to any reply containing the gold answer: the audit
  (``agentgym audit reasoning-gym:<task>``, docs/interop.md) lists them. ``reward="exact"``
  is the fix the audit suggests: 1 for a score of 1, else 0 (opt-in, never silent).
"""

from __future__ import annotations

import functools
import json
import math
from typing import Any

from agentgym import EnvNotFound, Task, TaskSet, TaskToolEnv, ToolCall, parse_tool_calls
from agentgym.errors import ConfigError, missing_extra

TEST_SEED_OFFSET = 1_000_000_007
"""How far the ``test`` split's generator seed is from ``train``'s (disjoint item seeds)."""
REWARDS = ("native", "exact")
TOOL_NOTE = ("\nYou may instead call the `answer` tool with the final answer as `value`; "
             "either way your first answer ends the episode.")


def _rg() -> Any:
    try:
        import reasoning_gym
    except ImportError as e:
        raise missing_extra("reasoning-gym", "interop") from e
    return reasoning_gym


def task_names() -> list[str]:
    """Every task name reasoning-gym registers, sorted."""
    from reasoning_gym.factory import DATASETS

    _rg()
    return sorted(DATASETS)


def check_name(name: str) -> str:
    """``name`` when reasoning-gym has that task, else :class:`EnvNotFound` with close names."""
    import difflib

    names = task_names()
    if name not in names:
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise EnvNotFound(f"reasoning-gym has no task {name!r} ({len(names)} tasks: agentgym "
                          f"list --importer reasoning-gym){hint}")
    return name


@functools.lru_cache(maxsize=64)
def _datasets(name: str, seed: int, train_size: int, test_size: int, config: str) -> (
    tuple[TaskSet, dict[str, Any]]
):
    """The task set and each split's dataset (cached: every env instance shares them)."""
    rg = _rg()
    kwargs = json.loads(config)
    try:
        data = {"train": rg.create_dataset(name, seed=seed, size=train_size, **kwargs),
                "test": rg.create_dataset(name, seed=seed + TEST_SEED_OFFSET, size=test_size,
                                          **kwargs)}
    except (TypeError, ValueError, AssertionError) as e:  # a bad config field or value
        raise ConfigError(f"reasoning-gym:{name}: bad config {kwargs}: {e}") from e
    tasks: list[Task] = []
    seen: set[str] = set()
    for split, dataset in data.items():
        for i in range(len(dataset)):
            entry = dataset[i]
            question = str(entry["question"])
            key = question.strip().lower()
            if split == "test" and key in seen:
                continue
            seen.add(key)
            tasks.append(Task(f"{name}/{split}/{i}", split, question,
                              {"answer": str(entry.get("answer")), "entry": entry}))
    return TaskSet(tasks, name=f"reasoning-gym:{name}"), data


def load_tasks(name: str, seed: int = 0, train_size: int = 500, test_size: int = 100,
               config: dict[str, Any] | None = None) -> TaskSet:
    """The task set of reasoning-gym's ``name`` (see the module docstring for the splits)."""
    return _datasets(name, seed, train_size, test_size, json.dumps(config or {},
                                                                   sort_keys=True))[0]


class ReasoningGymEnv(TaskToolEnv):
    """One reasoning-gym task: show the question, score the first answer with reasoning-gym."""

    def __init__(self, name: str, split: str = "train", seed: int = 0, train_size: int = 500,
                 test_size: int = 100, config: dict[str, Any] | None = None,
                 reward: str = "native", system_prompt: str = "default") -> None:
        check_name(name)
        prompts = _rg().utils.SYSTEM_PROMPTS
        if system_prompt not in prompts:
            raise ConfigError(f"system_prompt must be one of reasoning-gym's "
                              f"{', '.join(sorted(prompts))}, not {system_prompt!r}")
        if reward not in REWARDS:
            raise ConfigError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        for label, size in (("train_size", train_size), ("test_size", test_size)):
            if isinstance(size, bool) or not isinstance(size, int) or size < 1:
                raise ConfigError(f"{label} must be a positive integer, got {size!r}")
        key = json.dumps(config or {}, sort_keys=True)
        tasks, self._data = _datasets(name, int(seed), train_size, test_size, key)
        self.name = name
        self.reward_mode = reward
        self.instructions = prompts[system_prompt].strip() + TOOL_NOTE
        super().__init__(tasks, split)

    def make_tools(self) -> list[Any]:
        """The single ``answer`` tool."""
        return [self.answer]

    def start(self, task: Task) -> str:
        """Show the question."""
        return task.prompt

    def expert_actions(self, task: Task) -> list[str]:
        """reasoning-gym's gold answer in ``<answer>`` tags (``--policy scripted``)."""
        return [f"<answer>{task.data['answer']}</answer>"]

    def parse_action(self, action: Any) -> list[ToolCall]:
        """Tool calls when the reply holds some; otherwise the reply (or its last
        ``<answer>`` span) is the answer."""
        calls = parse_tool_calls(action)
        if calls:
            return calls
        text = action if isinstance(action, str) else str((action or {}).get("content") or "")
        tagged = _rg().utils.extract_answer(text)
        value = text.strip() if tagged is None else tagged
        return [ToolCall("answer", {"value": value}, id=f"answer_{self.turn}")]  # no uuid4

    def answer(self, value: str) -> str:
        """Give the final answer; ends the episode.

        Args:
            value: The final answer only, in the format the question asks for.
        """
        task = self.task
        if task is None:  # unreachable through step(); kept for direct tool use
            return "no task"
        entry = task.data["entry"]
        dataset = self._data[task.split]
        extra: dict[str, Any] = {}
        try:
            score = float(dataset.score_answer(str(value), entry))
        except Exception as e:  # reasoning-gym's scorer failing on odd input is a wrong answer
            score = 0.0
            extra["score_error"] = f"{type(e).__name__}: {e}"[:300]
        if not math.isfinite(score):  # a scorer bug, not a score
            extra["score_error"] = f"score_answer returned {score}"
            score = 0.0
        native = score
        if self.reward_mode == "exact":
            score = 1.0 if score >= 1.0 else 0.0
        correct = native >= 1.0
        self.finish(score, success=correct, answer=str(value)[:2000], native_score=native,
                    **extra)
        return "correct" if correct else f"scored {native:.3f}"


def make_env(name: str, **kwargs: Any) -> ReasoningGymEnv:
    """``make("reasoning-gym:<name>", **kwargs)``'s factory."""
    return ReasoningGymEnv(name, **kwargs)


__all__ = ["REWARDS", "TEST_SEED_OFFSET", "ReasoningGymEnv", "check_name", "load_tasks",
           "make_env", "task_names"]
