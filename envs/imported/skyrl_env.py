"""SkyRL-gym's text envs as agentgym envs: ``make("skyrl-gym:<env id>", tasks=[...])``.

SkyRL-gym (``pip install 'agentgym[interop]'``, PyPI ``skyrl-gym``) registers text envs
(``BaseTextEnv``: ``init(prompt)`` -> chat messages, ``step(text)`` -> new chat messages, a
reward and ``done``) that take their task in the constructor's ``extras`` (one row of a SkyRL
dataset: ``prompt``, ``reward_spec``, ``extra_info``...). The datasets themselves live on the
Hugging Face Hub, so the importer takes the rows in the call. It maps:

- **tasks and splits**: ``tasks=[row, ...]`` or ``data=PATH`` (a ``.jsonl``/``.json`` file of
  rows, or ``.parquet``, SkyRL's own format); a seeded shuffle (``seed``) puts ``test_size`` of
  them (a count, or a share: 0.2) in ``test`` and the rest in ``train``; a test row whose prompt
  is also in ``train`` is dropped. Task ids are ``<env id>/<row index>``.
- **observation**: ``init``'s messages rendered as text (a system message shows first); each
  step shows the env's new messages.
- **action**: text, SkyRL-gym's own protocol (``#### 42`` for gsm8k, ``<sql>...</sql>``), or
  a ``reply`` tool call carrying that text. A non-text action or one over
  :data:`MAX_ACTION_CHARS` is an error observation the env never sees.
- **reward**: each step's reward as SkyRL-gym computes it, unchanged (a multi-turn env's
  per-turn rewards arrive per step); success is a last reward of at least 1. ``done`` is
  ``terminated``; agentgym's turn limit (the one owner) truncates.
- **faults**: a network or OS error out of the env's ``step`` ends the episode ``aborted``; any
  other exception of the env is an error observation.
- **refused** (:class:`~agentgym.errors.ConfigError`, naming why): envs that run the model's
  code on this machine without a sandbox (``lcb``, ``searchcode``), ``search`` (a retrieval
  server and its Hub index), a call without rows (the datasets are on the Hub).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from agentgym import InfrastructureError, Task, TaskSet, TaskToolEnv
from agentgym.env import StepResult
from agentgym.errors import ConfigError, EnvNotFound, ToolError, missing_extra

from .text_replies import TextReplies

MAX_ACTION_CHARS = 200_000
REFUSED = {
    "lcb": "runs the model's code in a subprocess of this machine without a sandbox "
           "(use agentgym's code family)",
    "searchcode": "runs the model's code in a subprocess of this machine without a sandbox "
                  "and needs a retrieval server",
    "search": "needs a retrieval server (SkyRL's search_url) and its index from the Hub",
}
"""SkyRL-gym env ids the importer refuses, with why."""
SINGLE_STEP = frozenset({"gsm8k", "aime", "lcb"})
"""Envs whose first step always ends the episode: their spec's turn limit is 1."""
TOOL_NOTE = ("\nAnswer in text as the task asks, or call the `reply` tool with that text as "
             "`text`.")


def _skyrl() -> Any:
    try:
        import skyrl_gym
    except ImportError as e:
        raise missing_extra("skyrl-gym", "interop") from e
    return skyrl_gym


def env_ids() -> list[str]:
    """Every env id SkyRL-gym registers, sorted (the refused ones too: they say why)."""
    from skyrl_gym.envs.registration import registry

    _skyrl()
    return sorted(registry)


def check_id(name: str) -> str:
    """``name`` when SkyRL-gym registers it, else :class:`EnvNotFound`."""
    ids = env_ids()
    if name not in ids:
        raise EnvNotFound(f"skyrl-gym has no env {name!r} (it registers {', '.join(ids)})")
    return name


def _render(messages: Any) -> str:
    if isinstance(messages, str):
        return messages
    parts = []
    for m in messages or []:
        if isinstance(m, dict):
            role, content = str(m.get("role", "user")), str(m.get("content", ""))
            parts.append(content if role in ("user", "tool") else f"[{role}] {content}")
        else:
            parts.append(str(m))
    return "\n\n".join(parts)


def _read_rows(data: str) -> list[dict[str, Any]]:
    path = Path(data)
    if not path.is_file():
        raise ConfigError(f"data={data!r} is not a file (SkyRL dataset rows: .jsonl, .json, "
                          ".parquet)")
    if path.suffix == ".parquet":
        import pandas as pd

        return [dict(r) for r in pd.read_parquet(path).to_dict("records")]
    text = path.read_text()
    if path.suffix == ".json":
        rows = json.loads(text)
        return rows if isinstance(rows, list) else [rows]
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _rows(name: str, tasks: Any, data: str | None) -> list[dict[str, Any]]:
    if name in REFUSED:
        raise ConfigError(f"skyrl-gym:{name} is not imported: it {REFUSED[name]}")
    if tasks is None and data is None:
        raise ConfigError(f"skyrl-gym:{name} takes its tasks in the call: tasks=[{{'prompt': "
                          "..., 'reward_spec': {'ground_truth': ...}}, ...] or data=PATH "
                          "(SkyRL dataset rows); its datasets are on the Hugging Face Hub, "
                          "which the importer does not download")
    rows = list(tasks) if tasks is not None else _read_rows(str(data))
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or "prompt" not in row:
            raise ConfigError(f"skyrl-gym:{name}: row {i} is not a dict with a 'prompt'")
    if not rows:
        raise ConfigError(f"skyrl-gym:{name}: no rows")
    return rows


def load_tasks(name: str, tasks: Any = None, data: str | None = None, seed: int = 0,
               test_size: float | int = 0.2, **_: Any) -> TaskSet:
    """The rows as a task set: a seeded shuffle, ``test_size`` rows in ``test``."""
    rows = _rows(name, tasks, data)
    order = list(range(len(rows)))
    random.Random(int(seed)).shuffle(order)
    if isinstance(test_size, bool) or not isinstance(test_size, (int, float)) or test_size < 0:
        raise ConfigError(f"test_size must be a count or a share, got {test_size!r}")
    n_test = int(test_size) if isinstance(test_size, int) and test_size >= 1 else (
        round(len(rows) * float(test_size)))
    n_test = min(n_test, len(rows) - 1)
    train_idx, test_idx = order[n_test:], order[:n_test]
    out: list[Task] = []
    seen: set[str] = set()
    for split, idx in (("train", train_idx), ("test", test_idx)):
        for i in sorted(idx):
            prompt = _render(rows[i]["prompt"])
            if split == "test" and prompt.strip() in seen:
                continue
            seen.add(prompt.strip())
            out.append(Task(f"{name}/{i}", split, prompt, {"row": rows[i]}))
    return TaskSet(out, name=f"skyrl-gym:{name}")


class SkyRLGymEnv(TextReplies, TaskToolEnv):
    """One SkyRL-gym text env per episode, built from the task's row."""

    def __init__(self, name: str, tasks: Any = None, data: str | None = None,
                 split: str = "train", seed: int = 0, test_size: float | int = 0.2,
                 env_config: dict[str, Any] | None = None) -> None:
        self.name = check_id(name)
        self.env_config = dict(env_config or {})
        task_set = load_tasks(name, tasks, data, seed, test_size)
        self.instructions = f"You are solving a task of SkyRL-gym's {name} env." + TOOL_NOTE
        self._env: Any = None
        self._step_reward = 0.0
        super().__init__(task_set, split)
        self._build(task_set[0])  # a row the env rejects is a ConfigError now, not mid-run

    def _build(self, task: Task) -> Any:
        from omegaconf import OmegaConf

        extras = dict(task.data["row"])
        try:
            return _skyrl().make(self.name, env_config=OmegaConf.create(self.env_config),
                                 extras=extras)
        except (AssertionError, KeyError, TypeError, ValueError, FileNotFoundError,
                NotImplementedError) as e:
            raise ConfigError(f"skyrl-gym:{self.name} rejects task {task.task_id}: "
                              f"{type(e).__name__}: {e}") from e

    def make_tools(self) -> list[Any]:
        """The single ``reply`` tool (the text the env parses)."""
        return [self.reply]

    def start(self, task: Task) -> str:
        """Build the task's SkyRL-gym env and show ``init``'s messages."""
        if self._env is not None:
            self._env.close()
        self._env = self._build(task)
        prompt = task.data["row"]["prompt"]
        if isinstance(prompt, str):
            prompt = [{"role": "user", "content": prompt}]
        messages, _ = self._env.init(prompt)
        return _render(messages)

    def reply(self, text: str) -> str:
        """Send your reply to the env (in the format the task asks for).

        Args:
            text: The reply, as text.
        """
        if len(text) > MAX_ACTION_CHARS:
            raise ToolError(f"the reply is over {MAX_ACTION_CHARS} characters")
        try:
            out = self._env.step(text)
        except (OSError, TimeoutError) as e:  # the env's service (a database, a server)
            raise InfrastructureError(
                f"skyrl-gym:{self.name} step: {type(e).__name__}: {e}") from e
        except Exception as e:  # the env's own parser failing on odd text
            raise ToolError(f"skyrl-gym:{self.name} could not take the reply: "
                            f"{type(e).__name__}: {e}"[:500]) from e
        reward = float(out.get("reward") or 0.0)
        self._step_reward = reward
        if out.get("done"):
            self.finish(reward, success=reward >= 1.0, skyrl_metadata=out.get("metadata") or {},
                        skyrl_metrics=self._env.get_metrics())
        return _render(out.get("observations")) or ("(episode over)" if self.done else "")

    def _step(self, action: Any) -> StepResult:
        self._step_reward = 0.0
        obs, reward, terminated, truncated, info = super()._step(action)
        if not terminated and not truncated:  # a multi-turn env's per-turn reward
            reward = self._step_reward
        return obs, reward, terminated, truncated, info

    def expert_actions(self, task: Task) -> list[str]:
        """The row's ``expert_actions``, else for gsm8k ``#### <ground truth>`` (``--policy
        scripted``)."""
        row = task.data["row"]
        if "expert_actions" in row:
            return [str(a) for a in row["expert_actions"]]
        truth = (row.get("reward_spec") or {}).get("ground_truth")
        return [f"#### {truth}"] if self.name.startswith("gsm8k") and truth is not None else []

    def close(self) -> None:
        """Close the episode's SkyRL-gym env."""
        if self._env is not None:
            self._env.close()
            self._env = None
        super().close()


def make_env(name: str, **kwargs: Any) -> SkyRLGymEnv:
    """``make("skyrl-gym:<env id>", **kwargs)``'s factory."""
    return SkyRLGymEnv(name, **kwargs)


def spec_max_turns(name: str) -> int | None:
    """1 for SkyRL-gym's single-step envs, else None (agentgym's default limit)."""
    return 1 if name in SINGLE_STEP else None


__all__ = ["MAX_ACTION_CHARS", "REFUSED", "SkyRLGymEnv", "check_id", "env_ids", "load_tasks",
           "make_env"]
