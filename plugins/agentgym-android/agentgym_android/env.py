"""``android/emulator-v0``: AndroidWorld-style tasks on a running Android emulator.

Start an emulator first (it needs KVM), e.g.
``emulator -avd Pixel_6_API_33 -no-window -grpc 8554 -no-snapshot`` and check ``adb devices``.
Actions are AndroidWorld / UI-S1 JSON (``{"action_type": "click", "x": .., "y": ..}``), sent as
``adb shell input`` commands; the screenshot comes from ``screencap`` or, with ``vnc_port``, from
the emulator's VNC bridge through agentgym's VNC backend. Evaluators read device state over adb
(``settings get``, the focused window), as AndroidWorld's ``is_successful`` does.
"""

from __future__ import annotations

import re
import time
from typing import Any

from agentgym.env import AgentEnv, Observation, StepResult, make_observation
from agentgym.envs.gui import ActionError, parse_android
from agentgym.errors import InfrastructureError, MissingExtra, ResetNeeded
from agentgym.tasks import Task, TaskSet

from .adb import AdbDevice, to_adb

TASKS: list[dict[str, Any]] = [
    {"task_id": "open-settings", "split": "test", "prompt": "Open the Settings app.",
     "setup": [["am", "force-stop", "com.android.settings"]],
     "check": {"shell": ["dumpsys", "window"], "focused": "com.android.settings"},
     "expert": [{"action_type": "open_app", "app_name": "settings"},
                {"action_type": "status", "goal_status": "complete"}]},
    {"task_id": "airplane-on", "split": "train", "prompt": "Turn on airplane mode.",
     "setup": [["settings", "put", "global", "airplane_mode_on", "0"]],
     "check": {"shell": ["settings", "get", "global", "airplane_mode_on"], "equals": "1"}},
    {"task_id": "brightness-max", "split": "train",
     "prompt": "Set the screen brightness to the maximum.",
     "setup": [["settings", "put", "system", "screen_brightness", "102"]],
     "check": {"shell": ["settings", "get", "system", "screen_brightness"], "equals": "255"}},
]
"""Each task's ``setup`` puts the device in a state where the task is not done (run at every
reset, so state left by an earlier episode never scores); its ``check`` reads the result."""
_FOCUS = re.compile(r"^\s*mCurrentFocus=.*$", re.MULTILINE)
INSTRUCTIONS = """You operate an Android phone. Each turn you see a screenshot (device pixels).
Answer with one AndroidWorld JSON action: click, double_tap, long_press (x, y), swipe or scroll
(direction), input_text (text), keyboard_enter, navigate_back, navigate_home, open_app
(app_name), wait, or status with goal_status complete / infeasible when you are done."""


def load_tasks() -> TaskSet:
    """The plugin's tasks."""
    return TaskSet.from_records(TASKS, name="android/emulator")


class AndroidEnv(AgentEnv):
    """Tasks on one emulator reached through adb (``serial``)."""

    instructions = INSTRUCTIONS

    def __init__(self, *, serial: str = "emulator-5554", split: str = "test",
                 vnc_port: int | None = None) -> None:
        super().__init__()
        try:
            self.device = AdbDevice(serial)
        except InfrastructureError as e:
            raise MissingExtra(f"android/emulator-v0 needs adb and a running emulator: {e}") from e
        self.vnc_port = vnc_port
        self.task_set = load_tasks().split(split)
        self.task: Task | None = None
        self.done = True
        self.size = (0, 0)

    def _screenshot(self) -> bytes:
        if self.vnc_port:
            from agentgym.envs.gui import VNCBackend, png_bytes

            backend = VNCBackend("127.0.0.1", self.vnc_port)
            try:
                return png_bytes(backend.screenshot())
            finally:
                backend.close()
        return self.device.screenshot_png()

    def _observe(self, text: str) -> Observation:
        return make_observation(f"{text}\nScreen {self.size[0]}x{self.size[1]}.",
                                (self._screenshot(),))

    def _reset(self, options: dict[str, Any]) -> tuple[Observation, dict[str, Any]]:
        if "task_id" in options:
            self.task = self.task_set.get(str(options["task_id"]))
        else:
            self.task = self.task_set[int(self.np_random.integers(len(self.task_set)))]
        if not self.device.online():
            raise InfrastructureError(f"device {self.device.serial} is offline")
        self.device.shell(["input", "keyevent", "KEYCODE_HOME"])
        for argv in self.task.data.get("setup", []):
            self.device.shell(list(argv))
        if self.evaluate() > 0.0:
            raise InfrastructureError(f"the start state of {self.task.task_id} could not be "
                                      "set: the task's check already passes")
        self.size = self.device.size()
        self.done = False
        return self._observe(f"Task: {self.task.prompt}"), {"task_id": self.task.task_id}

    def _step(self, action: Any) -> StepResult:
        if self.done or self.task is None:
            raise ResetNeeded("call reset() first")
        info: dict[str, Any] = {"task_id": self.task.task_id}
        try:
            obj = action if isinstance(action, dict) else _json(action)
            prims = parse_android(obj)
            commands = [cmd for p in prims for cmd in to_adb(p, self.size)]
        except ActionError as e:
            info["error"] = str(e)
            return make_observation(f"Error: {e}"), 0.0, False, False, info
        try:
            for cmd in commands:
                self.device.shell(cmd)
            if prims and prims[-1].kind in ("done", "fail"):
                self.done = True
                reward = self.evaluate() if prims[-1].kind == "done" else 0.0
                info["success"] = reward >= 1.0
                return make_observation(f"Finished; score {reward:g}."), reward, True, False, info
            time.sleep(0.5)
            return self._observe(f"Done {len(commands)} command(s)."), 0.0, False, False, info
        except InfrastructureError as e:
            self.done = True
            info.update(aborted=True, abort_reason=str(e))
            return make_observation(f"Aborted: {e}"), 0.0, False, True, info

    def evaluate(self) -> float:
        """Score the device state against the task's check (``equals`` the whole output, or
        ``focused``: the package of the focused window). An unknown check fails closed."""
        if self.task is None:
            raise ResetNeeded("call reset() first")
        check = self.task.data["check"]
        out = self.device.shell(list(check["shell"])).strip()
        if "equals" in check:
            return float(out == check["equals"])
        if "focused" in check:
            focus = _FOCUS.search(out)
            return float(focus is not None and f" {check['focused']}/" in focus.group(0))
        raise InfrastructureError(f"task {self.task.task_id}: unknown check {sorted(check)}")

    def expert_actions(self, task: Task) -> list[dict[str, Any]] | None:
        """The task's scripted actions, where it has some."""
        return task.data.get("expert")


def _json(action: Any) -> Any:
    import json

    text = action.get("content") if isinstance(action, dict) else action
    if not isinstance(text, str):
        raise ActionError("an Android action is a JSON object")
    text = text.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as e:  # nested past the decoder's depth: malformed too
        raise ActionError(f"invalid JSON: {str(e)[:200]}") from e


__all__ = ["AndroidEnv", "load_tasks"]
