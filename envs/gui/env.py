"""``gui/desktop-v0``: computer-use tasks on a virtual desktop, OSWorld style.

One env instance owns one :class:`~agentgym.sandboxes.desktop.DesktopSandbox` (started at the
first ``reset``, reused across episodes: each ``reset`` kills the previous task's apps, empties
the home folder and runs the new task's setup steps). A turn is any action space of
:mod:`.parse`; the observation is the screenshot (PNG, optionally scaled; coordinates in actions
are in the screenshot's pixels and mapped back) plus text: the cursor, the window list, the Tk
app's widgets and the last action's error. ``DONE`` or ``FAIL`` ends the episode and runs the
task's evaluator. A malformed action is an error observation and changes nothing.

Who is to blame for a fault decides how it ends (:mod:`.faults`): the X server dying or a part
of the desktop killed from the host aborts the episode as an infrastructure failure; a task app
or the window manager ended from inside the desktop (``kill -9 $PPID`` typed in the task's
terminal, ``xkill``) is the model's doing: reward 0, ``success`` False, the reason in
``info["failure"]``.

Bounds: one step runs at most :attr:`DesktopEnv.step_budget_s` seconds (further actions, long
waits and long typing are cut there, with an error observation) and ``open_app`` starts at most
:data:`MAX_OPEN_APPS` apps per episode; the desktop caps its processes (see
:mod:`agentgym.sandboxes._desktop_jail`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from dataclasses import replace
from typing import Any, Literal

from agentgym.env import AgentEnv, Observation, StepResult, make_observation
from agentgym.errors import InfrastructureError, ResetNeeded, TaskError
from agentgym.sandboxes.desktop import DesktopConfig, DesktopSandbox
from agentgym.tasks import Task, TaskSet
from agentgym.tools import Tool, ToolSet

from .actions import TERMINAL, ActionError, Primitive
from .atspi import accessibility_tree, render_accessibility
from .backends import (
    CLICK_SETTLE_S,
    Backend,
    BackendError,
    LocalBackend,
    VNCBackend,
    png_bytes,
)
from .evaluators import evaluate
from .expert import expert_turns
from .faults import SelfInflicted, blame_display, check_desktop, run_within
from .parse import ACTION_SPACES, parse_action
from .screen import pointer, render_widgets, render_windows, window_list
from .tasks import APPS_FILE, STATE_FILE, load_task_set

logger = logging.getLogger(__name__)

INSTRUCTIONS = """You control a Linux desktop with the mouse and keyboard to do the user's task.
Each turn you see a screenshot (coordinates are its pixels, origin top-left), the cursor, the
open windows and, for the project's apps, their widgets with their centres. Answer with ONE of:
- pyautogui code in a ```python``` block, e.g. pyautogui.click(120, 80); pyautogui.write('hi');
  pyautogui.hotkey('ctrl', 's'); pyautogui.press('enter'); pyautogui.scroll(-3) (only literal
  arguments; the code is parsed, not run);
- a JSON action or list of actions: computer_13 ({"action_type": "CLICK", "x": 120, "y": 80},
  TYPING text, PRESS key, HOTKEY keys, DRAG_TO, SCROLL dx/dy, MOVE_TO, ...) or AndroidWorld
  ({"action_type": "click", "x": 120, "y": 80}, input_text, long_press, swipe, ...);
- a call of the `computer` tool with a computer_13 action;
- WAIT, DONE when the task is complete, or FAIL when it cannot be done."""

APPS = {"xterm": ["xterm"], "terminal": ["xterm"], "mousepad": ["mousepad"],
        "text editor": ["mousepad"], "gnumeric": ["gnumeric"]}
"""Apps ``open_app`` may start."""
MAX_OPEN_APPS = 4
"""Apps ``open_app`` may start in one episode; more are refused with an error observation."""
STEP_BUDGET_S = 20.0
"""Default wall-time budget of one step."""

_ActionType = Literal["MOVE_TO", "CLICK", "MOUSE_DOWN", "MOUSE_UP", "RIGHT_CLICK",
                      "DOUBLE_CLICK", "DRAG_TO", "SCROLL", "TYPING", "PRESS", "KEY_DOWN",
                      "KEY_UP", "HOTKEY", "WAIT", "FAIL", "DONE"]


def computer(action_type: _ActionType, x: int | None = None, y: int | None = None,
             button: str | None = None, num_clicks: int | None = None, text: str | None = None,
             key: str | None = None, keys: list[str] | None = None, dx: int | None = None,
             dy: int | None = None) -> str:
    """Perform one computer_13 action on the desktop.

    Args:
        action_type: The action.
        x: Screenshot x coordinate (CLICK, MOVE_TO, DRAG_TO...).
        y: Screenshot y coordinate.
        button: left, middle or right.
        num_clicks: 1, 2 or 3 (CLICK).
        text: Text to type (TYPING).
        key: Key name (PRESS, KEY_DOWN, KEY_UP).
        keys: Key names pressed together (HOTKEY).
        dx: Horizontal scroll steps (SCROLL).
        dy: Vertical scroll steps (SCROLL).
    """
    return "handled by the env"  # the env parses the call itself; see parse.py


class DesktopEnv(AgentEnv):
    """Desktop tasks driven through the local (xdotool + mss) or VNC backend."""

    instructions = INSTRUCTIONS

    def __init__(self, *, split: str = "train", backend: str = "local",
                 action_space: str = "auto", screen: tuple[int, int] = (1280, 720),
                 screenshot_size: tuple[int, int] | None = None, text_observation: bool = True,
                 settle_s: float = 0.25, tasks: TaskSet | None = None,
                 accessibility: bool = True, step_budget_s: float = STEP_BUDGET_S) -> None:
        super().__init__()
        if backend not in ("local", "vnc"):
            raise ValueError("backend must be 'local' or 'vnc'")
        if action_space not in ACTION_SPACES:
            raise ValueError(f"action_space must be one of {ACTION_SPACES}")
        self.split, self.backend_name, self.action_format = split, backend, action_space
        self.screen = (int(screen[0]), int(screen[1]))
        size = screenshot_size or self.screen
        self.shot_size = (int(size[0]), int(size[1]))
        self.text_observation, self.settle_s = text_observation, settle_s
        self.accessibility = accessibility
        """Read GTK apps' widget trees over AT-SPI into the text (where at-spi2 is installed)."""
        if not step_budget_s > 0:
            raise ValueError("step_budget_s must be positive")
        self.step_budget_s = float(step_budget_s)
        """Longest wall time of one step's actions; the rest is cut with an error."""
        self.opened = 0
        self.task_set = (tasks or load_task_set()).split(split)
        self.tools = ToolSet([Tool.from_function(computer)])
        self.desktop: DesktopSandbox | None = None
        self.backend: Backend | None = None
        self.task: Task | None = None
        self.done = True
        self.turn = 0
        self.task_apps = 0
        """How many of the desktop's apps the task's setup started (the rest: ``open_app``)."""
        self.clicks: list[tuple[int, int]] = []

    # -- coordinates -------------------------------------------------------------------------

    @property
    def scale(self) -> tuple[float, float]:
        """Screenshot pixels per screen pixel."""
        return self.shot_size[0] / self.screen[0], self.shot_size[1] / self.screen[1]

    def to_shot(self, x: float, y: float) -> tuple[int, int]:
        """Screen -> screenshot pixels."""
        return round(x * self.scale[0]), round(y * self.scale[1])

    def to_screen(self, p: Primitive) -> Primitive:
        """Map ``p``'s coordinates from screenshot to screen pixels; refuse points off-screen."""
        sx, sy = self.scale
        changes: dict[str, int] = {}
        relative = p.kind.endswith("_rel")
        for xk, yk in (("x", "y"), ("x2", "y2")):
            x, y = getattr(p, xk), getattr(p, yk)
            if x is None or y is None:
                continue
            if not relative and not (0 <= x < self.shot_size[0] and 0 <= y < self.shot_size[1]):
                raise ActionError(f"point ({x}, {y}) is outside the {self.shot_size[0]}x"
                                  f"{self.shot_size[1]} screenshot")
            changes[xk] = min(round(x / sx), self.screen[0] - 1) if not relative else round(x / sx)
            changes[yk] = min(round(y / sy), self.screen[1] - 1) if not relative else round(y / sy)
        return replace(p, **changes)  # type: ignore[arg-type]

    # -- desktop lifecycle -------------------------------------------------------------------

    def _ensure_desktop(self) -> tuple[DesktopSandbox, Backend]:
        if self.desktop is not None and self.backend is not None and self.desktop.alive():
            return self.desktop, self.backend
        self._close()
        self.desktop = DesktopSandbox(self._desktop_config())
        if self.backend_name == "vnc":
            self.backend = VNCBackend("127.0.0.1", int(self.desktop.vnc_port or 0))
        else:
            self.backend = LocalBackend(self.desktop.display, self.desktop.environ(), self.screen)
        return self.desktop, self.backend

    def _desktop_config(self) -> DesktopConfig:
        """The desktop this env starts (jailed; the Tk apps file shared read-only)."""
        return DesktopConfig(width=self.screen[0], height=self.screen[1],
                             vnc=self.backend_name == "vnc", share=(str(APPS_FILE),),
                             accessibility=self.accessibility and self.text_observation)

    def _check_infrastructure(self) -> None:
        """Raise for a fault: infrastructure or the model's doing (see :mod:`.faults`)."""
        check_desktop(self.desktop, self.desktop.apps[:self.task_apps] if self.desktop else [])

    # -- observations ------------------------------------------------------------------------

    def app_state(self) -> dict[str, Any] | None:
        """The Tk app's state dump, if the task runs one."""
        if self.desktop is None:
            return None
        raw = self.desktop.read_home_file(STATE_FILE, private=True)
        try:
            value = json.loads(raw) if raw is not None else None
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    def _wait_state_stable(self, quiet_s: float = 0.3, limit_s: float = 5.0) -> None:
        """Wait until a Tk app's dump (widget boxes included) stops changing: the window manager
        may still move the window just after it is mapped."""
        if self.desktop is None or not (self.desktop.private_dir / STATE_FILE).exists():
            return
        deadline, last, since = time.monotonic() + limit_s, None, time.monotonic()
        while time.monotonic() < deadline:
            current = self.app_state()
            if current != last:
                last, since = current, time.monotonic()
            elif time.monotonic() - since >= quiet_s:
                return
            time.sleep(0.05)

    def _observe(self, head: str) -> Observation:
        assert self.desktop is not None and self.backend is not None  # set by reset
        image = self.backend.screenshot()
        if image.size != self.shot_size:
            image = image.resize(self.shot_size)
        parts = [head]
        cx, cy = self.to_shot(*self._cursor())
        parts.append(f"Screenshot {self.shot_size[0]}x{self.shot_size[1]}; cursor at ({cx}, {cy}).")
        if self.text_observation:
            parts.append(render_windows(window_list(self.desktop.display), self.scale))
            widgets = render_widgets(self.app_state(), self.scale)
            if not widgets and self.desktop.a11y_address:  # a GTK app: its AT-SPI tree
                widgets = render_accessibility(accessibility_tree(self.desktop.a11y_address),
                                               self.scale)
            if widgets:
                parts.append(widgets)
        return make_observation("\n".join(p for p in parts if p), (png_bytes(image),))

    def _cursor(self) -> tuple[int, int]:
        assert self.desktop is not None and self.backend is not None
        if self.backend_name == "local":
            return pointer(self.desktop.display)
        return self.backend.cursor()

    def _info(self, **extra: Any) -> dict[str, Any]:
        return {"task_id": self.task.task_id if self.task else None, "split": self.split,
                "turn": self.turn, **extra}

    # -- gym API -----------------------------------------------------------------------------

    def _reset(self, options: dict[str, Any]) -> tuple[Observation, dict[str, Any]]:
        if not len(self.task_set):
            raise TaskError(f"split {self.split!r} has no tasks")
        if "task_id" in options:
            task = self.task_set.get(str(options["task_id"]))
        elif "index" in options:
            task = self.task_set[int(options["index"]) % len(self.task_set)]
        else:
            task = self.task_set[int(self.np_random.integers(len(self.task_set)))]
        desktop, backend = self._ensure_desktop()
        desktop.kill_apps()
        desktop.clear_home()
        try:
            desktop.setup(task.data.get("config", []))
            backend.execute(Primitive("move", self.screen[0] // 2, self.screen[1] // 2))
        except Exception as e:
            raise InfrastructureError(f"task {task.task_id} setup failed: {e}") from e
        self.task, self.done, self.turn, self.clicks = task, False, 0, []
        self.task_apps, self.opened = len(desktop.apps), 0
        time.sleep(self.settle_s)
        self._wait_state_stable()
        return self._observe(f"Task: {task.prompt}"), self._info()

    def _step(self, action: Any) -> StepResult:
        if self.done or self.task is None:
            raise ResetNeeded("call reset() before step(); the episode has ended")
        self.turn += 1
        try:
            self._check_infrastructure()
            prims = [self.to_screen(p) for p in parse_action(action, self.action_format)]
        except InfrastructureError as e:
            return self._abort(str(e))
        except SelfInflicted as e:
            return self._fail(str(e))
        except ActionError as e:
            info = self._info(error=str(e))
            return make_observation(f"Error: {e}"), 0.0, False, False, info
        except Exception as e:  # a parser bug must not end the run
            logger.exception("GUI action parser crashed")
            info = self._info(error=f"{type(e).__name__}: {e}")
            return make_observation(f"Error: cannot read the action: {e}"), 0.0, False, False, info
        try:
            return self._perform(prims)
        except BackendError as e:  # a grab by the agent's own program, or the display's fault
            blamed = blame_display(self.desktop, e)
            if isinstance(blamed, SelfInflicted):
                return self._fail(str(blamed))
            return self._abort(str(e))
        except InfrastructureError as e:
            return self._abort(str(e))
        except SelfInflicted as e:
            return self._fail(str(e))

    def _perform(self, prims: list[Primitive]) -> StepResult:
        assert self.desktop is not None and self.backend is not None and self.task is not None
        errors: list[str] = []
        clicks: list[tuple[int, int]] = []
        ending = None
        deadline = time.monotonic() + self.step_budget_s
        for i, p in enumerate(prims):
            if p.kind in TERMINAL:
                ending = p
                break
            if time.monotonic() >= deadline:
                errors.append(self._over_budget(i, len(prims)))
                break
            if p.kind == "open_app":
                error = self._open_app(p.text)
                if error:
                    errors.append(error)
                    break
                continue
            if not self._execute_within(p, deadline, last=i == len(prims) - 1):
                errors.append(self._over_budget(i, len(prims)))
                break
            if p.kind in ("click", "long_press", "swipe") and p.x is not None:
                clicks.append(self.to_shot(p.x, p.y or 0))
        self.clicks.extend(clicks)
        self._check_infrastructure()
        if ending is not None:
            return self._finish(ending)
        time.sleep(self.settle_s)
        head = f"Error: {errors[0]}" if errors else f"Done {len(prims)} action(s)."
        info = self._info(clicks=clicks, **({"error": errors[0]} if errors else {}))
        return self._observe(head), 0.0, False, False, info

    def _over_budget(self, done: int, total: int) -> str:
        return (f"the step's time budget of {self.step_budget_s:g} s was used up: {done} of "
                f"{total} action(s) done, the rest were not")

    def _open_app(self, name: str) -> str | None:
        """Start an app for ``open_app``; return an error, or None."""
        assert self.desktop is not None
        argv = APPS.get(name.lower())
        if argv is None:
            return f"unknown app {name!r}; known: {', '.join(sorted(APPS))}"
        if self.opened >= MAX_OPEN_APPS:
            return (f"open_app refused: this episode already opened {self.opened} apps "
                    f"(at most {MAX_OPEN_APPS})")
        self.opened += 1
        self.desktop.launch(argv)
        return None

    def _execute_within(self, p: Primitive, deadline: float, *, last: bool = False) -> bool:
        """Run ``p`` without passing ``deadline``; False when it had to be cut. The step's last
        action needs no pause of its own after a click: the step's settle follows."""
        assert self.backend is not None
        return run_within(self.backend, p, deadline,
                          settle=not last or self.settle_s < CLICK_SETTLE_S)

    def _fail(self, reason: str) -> StepResult:
        """End the episode as the model's failure (a fault it caused on the desktop)."""
        self.done = True
        info = self._info(success=False, failure=reason)
        logger.info("GUI episode of %s failed by the model's doing: %s", info["task_id"], reason)
        text = f"The episode ended with score 0: {reason}"
        return make_observation(text), 0.0, True, False, info

    def _finish(self, ending: Primitive) -> StepResult:
        assert self.desktop is not None and self.task is not None
        time.sleep(max(self.settle_s, 0.2))  # let the apps dump and flush their state
        self._check_infrastructure()  # a part the step's own actions killed: not scored as done
        result = evaluate(self.desktop, self.task.data.get("evaluator", {}),
                          failed=ending.kind == "fail")
        self.done = True
        info = self._info(success=result.score >= 1.0, answer=ending.kind.upper(),
                          evaluation={"result": result.result, "expected": result.expected})
        text = f"Episode finished with {ending.kind.upper()}; score {result.score:g}."
        return make_observation(text), float(result.score), True, False, info

    def _abort(self, reason: str) -> StepResult:
        self.done = True
        info = self._info(aborted=True, abort_reason=reason, truncated_reason=f"aborted: {reason}")
        logger.warning("GUI episode of %s aborted: %s", info["task_id"], reason)
        text = f"The episode was aborted because of an infrastructure failure: {reason}"
        return make_observation(text), 0.0, False, True, info

    def expert_actions(self, task: Task) -> list[str]:
        """The scripted expert's turns for ``task`` (reads the app's widget boxes)."""
        return expert_turns(task.data.get("expert", {}), self.app_state(), self.to_shot)

    def _close(self) -> None:
        if self.backend is not None:
            with contextlib.suppress(Exception):
                self.backend.close()
        if self.desktop is not None:
            self.desktop.close()
        self.backend = self.desktop = None


def load_tasks() -> TaskSet:
    """Entry point for the registry: the bundled desktop tasks."""
    return load_task_set()


__all__ = ["APPS", "INSTRUCTIONS", "MAX_OPEN_APPS", "STEP_BUDGET_S", "DesktopEnv", "computer",
           "load_tasks"]
