"""Small deterministic envs for engine tests: a turn counter, a subprocess echo, a faulty env."""

from __future__ import annotations

import subprocess
import sys
import threading
from typing import Any

from agentgym import AgentEnv, EnvError, Task, TaskSet, make_observation

TASKS = [f"t{i}" for i in range(10)]
"""Task ``t<i>`` lasts ``1 + i % 5`` turns."""

RELEASE = threading.Event()
"""Set at teardown so that hanging steps return and their threads end."""

LIVE_PROCS: dict[str, subprocess.Popen[bytes]] = {}
"""The echo subprocess of each running task (fault tests kill one)."""


def counter_tasks() -> TaskSet:
    """The ten tasks, all in the test split, plus one train task."""
    tasks = [Task(t, "test", f"task {t}") for t in TASKS]
    return TaskSet([*tasks, Task("train0", "train", "a train task")], name="counter")


def turns_of(task_id: str) -> int:
    """How many turns task ``task_id`` lasts."""
    return 1 + int(task_id[1:]) % 5


class CounterEnv(AgentEnv):
    """Ends after ``turns_of(task)`` steps; reward 1 if the last action contains 'done'."""

    instructions = "Say anything; say done at the end."

    def __init__(self, split: str = "test", images: bool = False) -> None:
        super().__init__()
        self.task_id = "t0"
        self.turn = 0
        self.images = images

    def _reset(self, options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        self.task_id = str(options.get("task_id", "t0"))
        self.turn = 0
        return make_observation(f"task {self.task_id}"), {"task_id": self.task_id}

    def _step(self, action: Any) -> Any:
        self.turn += 1
        text = action if isinstance(action, str) else str(action)
        done = self.turn >= turns_of(self.task_id)
        reward = 1.0 if done and "done" in text else 0.0
        images = (b"\x89PNG fake " + bytes([self.turn]),) if self.images else ()
        obs = make_observation(f"turn {self.turn} seen {len(text)} chars", images)
        return obs, reward, done, False, {"task_id": self.task_id, "success": reward >= 1.0}


class EvenCounterEnv(CounterEnv):
    """A variant that keeps only the even tasks of the family (like a difficulty filter)."""

    def __init__(self, split: str = "test") -> None:
        super().__init__(split)
        kept = [t for t in counter_tasks().split(split) if int(t.task_id[1:]) % 2 == 0]
        self.task_set = TaskSet(kept, name="even")


class EchoProcessEnv(CounterEnv):
    """Like CounterEnv, but every step round-trips through a ``cat`` subprocess."""

    def __init__(self, split: str = "test") -> None:
        super().__init__(split)
        self.proc: subprocess.Popen[bytes] | None = None

    def _reset(self, options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(
                [sys.executable, "-u", "-c",
                 "import sys\nfor line in sys.stdin: sys.stdout.write(line); sys.stdout.flush()"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            )
        obs, info = super()._reset(options)
        LIVE_PROCS[self.task_id] = self.proc
        return obs, info

    def _step(self, action: Any) -> Any:
        if self.proc is None or self.proc.stdin is None or self.proc.stdout is None:
            raise EnvError("no subprocess")
        self.proc.stdin.write(b"ping\n")
        self.proc.stdin.flush()
        if self.proc.stdout.readline() != b"ping\n":
            raise EnvError(f"env subprocess died (exit {self.proc.poll()})")
        return super()._step(action)

    def _close(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(5)


class FaultyEnv(CounterEnv):
    """Task ``t3`` hangs at its second step; task ``t4`` raises at its second step."""

    def _step(self, action: Any) -> Any:
        if self.turn == 1 and self.task_id == "t3":
            RELEASE.wait(30)
        if self.turn == 1 and self.task_id == "t4":
            raise RuntimeError("simulated env crash")
        return super()._step(action)
