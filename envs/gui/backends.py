"""Control backends: execute primitives on a display and take screenshots.

- :class:`LocalBackend` drives an X display directly: ``xdotool`` for input (XTEST), ``mss`` for
  screenshots (XGetImage/XShm), ``xdotool getmouselocation`` for the cursor.
- :class:`VNCBackend` speaks RFB to any VNC server through ``vncdotool``: OSWorld VMs, Android
  emulators and remote desktops expose one. Keys become X keysyms (python-xlib's table).

Both take primitives in *screen* pixels. A failure of the display or the connection raises
:class:`BackendError` (an :class:`~agentgym.errors.InfrastructureError`): the episode is aborted,
never scored as the model's failure.
"""

from __future__ import annotations

import io
import subprocess
import threading
import time
from abc import ABC, abstractmethod
from typing import Any

from PIL import Image

from agentgym.errors import InfrastructureError, missing_extra

from .actions import Primitive

TYPE_DELAY_MS = 8
"""Delay between typed characters (xdotool's default of 12 ms is slower)."""
CLICK_SETTLE_S = 0.15
"""Pause after a click, so the app has moved the keyboard focus before the next keys arrive."""
VNC_CLICK_SETTLE_S = 0.3
"""The same over VNC: the server injects the pointer events a little later."""
KEY_GAP_S = 0.01
"""Gap between two key events sent over VNC."""


CALL_TIMEOUT_S = 10.0
"""Deadline of one call to the display (a screenshot, an XTEST event, an xdotool command): a
program holding an X server grab blocks every other client, and no step may hang on it."""


class BackendError(InfrastructureError):
    """The display or the VNC connection failed."""


def _bounded(fn: Any, what: str, timeout_s: float = CALL_TIMEOUT_S) -> Any:
    """``fn()`` on a worker thread, or :class:`BackendError` after ``timeout_s`` (the thread is
    left blocked in the X library until the display answers or closes)."""
    result: list[Any] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            result.append(fn())
        except BaseException as e:  # re-raised in the caller's thread
            failure.append(e)

    worker = threading.Thread(target=run, name="agentgym-display-call", daemon=True)
    worker.start()
    worker.join(timeout_s)
    if worker.is_alive():
        raise BackendError(f"{what}: the display did not answer within {timeout_s:g} s")
    if failure:
        raise failure[0]
    return result[0] if result else None


class Backend(ABC):
    """Executes primitives on one screen of ``size`` pixels."""

    size: tuple[int, int] = (0, 0)

    @abstractmethod
    def execute(self, p: Primitive, *, settle: bool = True) -> None:
        """Perform ``p`` (screen coordinates); raise :class:`BackendError` if the display fails.

        ``settle=False``: the caller waits anyway (the env's settle after a step's last
        action), so a backend may skip its own pause after a click."""

    @abstractmethod
    def screenshot(self) -> Image.Image:
        """The whole screen as an RGB image."""

    @abstractmethod
    def cursor(self) -> tuple[int, int]:
        """The pointer position in screen pixels."""

    def close(self) -> None:  # noqa: B027  (optional for backends without connections)
        """Release connections."""


def png_bytes(image: Image.Image) -> bytes:
    """Encode ``image`` as PNG (fast compression)."""
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


class LocalBackend(Backend):
    """xdotool + mss against ``display`` (``:N``) with the given process environment.

    Pointer moves and clicks, the commonest actions, go through XTEST on one python-xlib
    connection kept open (no process start per action); keys, typing and gestures through
    xdotool.
    """

    def __init__(self, display: str, env: dict[str, str], size: tuple[int, int]) -> None:
        self.display, self.env, self.size = display, env, size
        self._conn: Any = None

    def _pointer(self, x: int | None, y: int | None, button: int = 0, clicks: int = 0) -> None:
        """Move to ``(x, y)`` (when given), then click ``button`` ``clicks`` times, via XTEST
        (within :data:`CALL_TIMEOUT_S`; a connection that timed out is dropped unclosed)."""
        try:
            _bounded(lambda: self._pointer_now(x, y, button, clicks), "XTEST")
        except BackendError:
            self._conn = None  # its thread may still be blocked on it
            raise

    def _pointer_now(self, x: int | None, y: int | None, button: int, clicks: int) -> None:
        try:
            from Xlib import X
            from Xlib import error as xerror
            from Xlib.display import Display
            from Xlib.ext import xtest
        except ImportError as e:
            raise missing_extra("python-xlib", "gui") from e
        try:
            if self._conn is None:
                self._conn = Display(self.display)
            conn = self._conn
            if x is not None and y is not None:
                xtest.fake_input(conn, X.MotionNotify, x=int(x), y=int(y))
            for i in range(clicks):
                if i:
                    conn.sync()
                    time.sleep(0.06)  # xdotool's --delay 60 between repeated clicks
                xtest.fake_input(conn, X.ButtonPress, int(button))
                xtest.fake_input(conn, X.ButtonRelease, int(button))
            conn.sync()
        except (xerror.XError, OSError, ConnectionError) as e:
            self._drop()
            raise BackendError(f"cannot reach display {self.display}: {e}") from e
        except Exception as e:  # python-xlib raises its own ConnectionClosedError and friends
            self._drop()
            raise BackendError(f"XTEST on {self.display} failed: {e}") from e

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # already broken
                pass

    def close(self) -> None:
        """Close the XTEST connection."""
        self._drop()

    def _xdotool(self, *args: str) -> str:
        try:
            done = subprocess.run(["xdotool", *args], env=self.env, capture_output=True,
                                  text=True, timeout=CALL_TIMEOUT_S + 10)  # typing takes time
        except (OSError, subprocess.TimeoutExpired) as e:
            raise BackendError(f"xdotool failed: {e}") from e
        if done.returncode != 0 and "open display" in done.stderr:
            raise BackendError(f"cannot reach display {self.display}: {done.stderr.strip()}")
        return done.stdout

    def execute(self, p: Primitive, *, settle: bool = True) -> None:
        """Translate ``p`` into one xdotool command line."""
        move = ["mousemove", str(p.x), str(p.y)] if p.x is not None else []
        k = p.kind
        if k == "move":
            self._pointer(p.x, p.y)
        elif k == "move_rel":
            self._xdotool("mousemove_relative", "--", str(p.x), str(p.y))
        elif k == "click":
            self._pointer(p.x, p.y, int(p.button), int(p.clicks))
            if settle:
                time.sleep(CLICK_SETTLE_S)
        elif k in ("down", "up"):
            self._xdotool(*move, f"mouse{k}", str(p.button))
        elif k in ("drag", "drag_rel", "swipe", "long_press"):
            self._gesture(p)
        elif k == "scroll":
            for steps, neg, pos in ((p.dy, 4, 5), (p.dx, 6, 7)):
                if steps:
                    self._xdotool("click", "--repeat", str(min(abs(steps), 50)), "--delay", "20",
                                  str(pos if steps > 0 else neg))
        elif k == "type":
            self._xdotool("type", "--delay", str(TYPE_DELAY_MS), "--", p.text)
        elif k == "key":
            self._xdotool("key", "--clearmodifiers", "+".join(p.keys))
        elif k in ("key_down", "key_up"):
            self._xdotool(k.replace("_", ""), p.keys[0])
        elif k == "wait":
            time.sleep(p.seconds)

    def _gesture(self, p: Primitive) -> None:
        if p.kind == "drag":
            self._xdotool("mousedown", str(p.button), "sleep", "0.05", "mousemove",
                          str(p.x), str(p.y), "sleep", "0.05", "mouseup", str(p.button))
        elif p.kind == "drag_rel":
            self._xdotool("mousedown", str(p.button), "sleep", "0.05", "mousemove_relative",
                          "--", str(p.x), str(p.y), "sleep", "0.05", "mouseup",
                          str(p.button))
        elif p.kind == "swipe":
            self._xdotool("mousemove", str(p.x), str(p.y), "mousedown", "1", "sleep",
                          "0.05", "mousemove", str(p.x2), str(p.y2), "sleep", "0.05",
                          "mouseup", "1")
        else:  # long_press
            self._xdotool("mousemove", str(p.x), str(p.y), "mousedown", "1", "sleep",
                          f"{p.seconds:.2f}", "mouseup", "1")

    def screenshot(self) -> Image.Image:
        """Grab the root window with mss."""
        try:
            import mss
        except ImportError as e:
            raise missing_extra("mss", "gui") from e
        def grab() -> Any:
            with mss.MSS(display=self.display) as grabber:
                return grabber.grab(grabber.monitors[0])

        try:
            shot = _bounded(grab, f"screenshot of {self.display}")
        except BackendError:
            raise
        except Exception as e:  # mss raises its own ScreenShotError and Xlib errors
            raise BackendError(f"screenshot of {self.display} failed: {e}") from e
        return Image.frombytes("RGB", shot.size, shot.bgra, "raw", "BGRX")

    def cursor(self) -> tuple[int, int]:
        """``xdotool getmouselocation``."""
        out = dict(kv.split("=", 1) for kv in self._xdotool("getmouselocation", "--shell").split()
                   if "=" in kv)
        try:
            return int(out["X"]), int(out["Y"])
        except (KeyError, ValueError) as e:
            raise BackendError(f"cannot read the pointer position of {self.display}") from e


_VNC_NAMES = {
    "Return": "enter", "Tab": "tab", "BackSpace": "bsp", "Escape": "esc", "Delete": "del",
    "Insert": "ins", "Home": "home", "End": "end", "Prior": "pgup", "Next": "pgdn",
    "Left": "left", "Up": "up", "Right": "right", "Down": "down", "space": " ", "ctrl": "ctrl",
    "alt": "alt", "shift": "shift", "super": "super", "\n": "enter", "\t": "tab",
    "minus": "-", "equal": "=", "bracketleft": "[", "bracketright": "]", "semicolon": ";",
    "apostrophe": "'", "comma": ",", "period": ".", "slash": "/", "backslash": "\\",
    "grave": "`", "plus": "+", "Caps_Lock": "caplk",
}
_VNC_NAMES.update({f"F{i}": f"f{i}" for i in range(1, 13)})


def vnc_key(name: str) -> str:
    """vncdotool's name of a key (one character stands for itself)."""
    key = _VNC_NAMES.get(name, name)
    if len(key) != 1 and key not in _VNC_NAMES.values():
        raise ValueError(f"no VNC key for {name!r}")
    return key


class VNCBackend(Backend):
    """An RFB client (vncdotool) connected to ``host:port``."""

    _lock = threading.Lock()

    def __init__(self, host: str, port: int, password: str | None = None,
                 timeout_s: float = 20.0) -> None:
        try:
            from vncdotool import api
        except ImportError as e:
            raise missing_extra("vncdotool", "gui") from e
        try:
            self.client: Any = api.connect(f"{host}::{port}", password=password,
                                           timeout=timeout_s)
            self.client.refreshScreen()
        except Exception as e:  # twisted connection errors, TimeoutError
            raise BackendError(f"cannot connect to VNC {host}:{port}: {e}") from e
        screen = self.client.screen
        self.size = screen.size
        self._pos = (0, 0)
        # x11vnc sets up its keymap and pointer on the first events and may drop them
        self._keys(["shift"])

    def _call(self, method: str, *args: Any) -> Any:
        try:
            return getattr(self.client, method)(*args)
        except Exception as e:  # a dead server surfaces as a twisted Failure or TimeoutError
            raise BackendError(f"VNC {method} failed: {e}") from e

    def _move(self, x: int, y: int) -> None:
        # x11vnc coalesces pointer events and applies the last one only when another arrives:
        # every pointer event is followed by a repeat of the position, so it takes effect now
        for _ in range(2):
            self._call("mouseMove", int(x), int(y))
        self._pos = (int(x), int(y))

    def _buttons(self, button: int, clicks: int) -> None:
        for _ in range(clicks):
            self._call("mouseDown", button)
            self._move(*self._pos)
            self._call("mouseUp", button)
            self._move(*self._pos)

    def execute(self, p: Primitive, *, settle: bool = True) -> None:
        """Translate ``p`` into RFB pointer and key events (a click always settles: x11vnc
        injects it later than the env's own settle would cover)."""
        k = p.kind
        if p.x is not None and k in ("move", "click", "down", "up"):
            self._move(p.x, p.y or 0)
        if k == "move_rel":
            self._move(self._pos[0] + (p.x or 0), self._pos[1] + (p.y or 0))
        elif k == "click":
            self._buttons(p.button, p.clicks)
            self._sync()
            time.sleep(VNC_CLICK_SETTLE_S)
        elif k in ("down", "up"):
            self._call("mouseDown" if k == "down" else "mouseUp", p.button)
            self._move(*self._pos)
            self._sync()
        elif k in ("drag", "drag_rel", "swipe", "long_press"):
            start = (p.x, p.y) if k in ("swipe", "long_press") else self._pos
            end = {"drag": (p.x, p.y), "swipe": (p.x2, p.y2), "long_press": (p.x, p.y),
                   "drag_rel": (self._pos[0] + (p.x or 0), self._pos[1] + (p.y or 0))}[k]
            self._move(int(start[0] or 0), int(start[1] or 0))
            self._call("mouseDown", p.button if k.startswith("drag") else 1)
            self._move(*self._pos)
            time.sleep(p.seconds if k == "long_press" else 0.05)
            self._move(int(end[0] or 0), int(end[1] or 0))
            time.sleep(0.05)
            self._call("mouseUp", p.button if k.startswith("drag") else 1)
            self._move(*self._pos)
            self._sync()
        elif k == "scroll":
            for steps, neg, pos in ((p.dy, 4, 5), (p.dx, 6, 7)):
                for _ in range(min(abs(steps), 50)):
                    self._call("mousePress", pos if steps > 0 else neg)
        elif k == "type":
            for ch in p.text:
                self._keys([vnc_key(ch)])
        elif k == "key":
            self._keys([vnc_key(name) for name in p.keys])
        elif k in ("key_down", "key_up"):
            self._call("keyDown" if k == "key_down" else "keyUp", vnc_key(p.keys[0]))
        elif k == "wait":
            time.sleep(p.seconds)

    def _sync(self) -> None:
        """Push the click to the X server now, before the settle pause.

        x11vnc injects pointer events without flushing its X connection (key events are
        flushed), so a click reached the X server together with the next typed key and the app
        moved its focus only after that key: the first character of every field landed in the
        previous one. A lone Shift press and release (no effect on any app) flushes it.
        """
        self._keys(["shift"])

    def _keys(self, names: list[str]) -> None:
        for name in names:
            self._call("keyDown", name)
            time.sleep(KEY_GAP_S)
        for name in reversed(names):
            self._call("keyUp", name)
            time.sleep(KEY_GAP_S)

    def screenshot(self) -> Image.Image:
        """Request a full framebuffer update and return it."""
        self._call("refreshScreen")
        return self.client.screen.convert("RGB")

    def cursor(self) -> tuple[int, int]:
        """The last position this client moved the pointer to (RFB does not report it)."""
        return self._pos

    def close(self) -> None:
        """Disconnect (the twisted reactor thread stays for later connections)."""
        try:
            self.client.disconnect()
        except Exception:  # already gone
            pass


__all__ = ["CALL_TIMEOUT_S", "Backend", "BackendError", "LocalBackend", "VNCBackend", "png_bytes",
           "vnc_key"]
