"""The VNC backend against the desktop's own x11vnc gives the local backend's results."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from agentgym.envs.gui.actions import Primitive
from agentgym.envs.gui.backends import Backend, LocalBackend, VNCBackend
from agentgym.envs.gui.tasks import APPS_FILE, STATE_FILE, _tk_config
from agentgym.sandboxes.desktop import DesktopConfig, DesktopSandbox

from .gui_helpers import needs_desktop

pytestmark = [pytest.mark.xvfb, needs_desktop]
VNC_CONFIG = DesktopConfig(vnc=True, width=1024, height=640, share=(str(APPS_FILE),))


def _state(desktop: DesktopSandbox) -> dict:
    """The app's state file, once it exists and parses."""
    deadline = time.monotonic() + 15
    while True:
        try:
            return json.loads((desktop.private_dir / STATE_FILE).read_text())
        except (OSError, ValueError):
            assert time.monotonic() < deadline, "the app never wrote its state"
            time.sleep(0.05)


def _value(desktop: DesktopSandbox, key: str, want: object) -> object:
    """``key``'s value once it equals ``want`` (or the last value seen, after 15 s): the app
    writes its state a moment after the event, so the test waits on the state, not on time."""
    deadline = time.monotonic() + 15
    while (got := _state(desktop)["values"].get(key)) != want and time.monotonic() < deadline:
        time.sleep(0.05)
    return got


def _click(backend: Backend, box: list[int]) -> None:
    x, y, w, h = box
    backend.execute(Primitive("click", x + w // 2, y + h // 2))


def test_vnc_and_local_backends_see_and_do_the_same():
    with DesktopSandbox(VNC_CONFIG) as desktop:
        local = LocalBackend(desktop.display, desktop.environ(), (1024, 640))
        vnc = VNCBackend("127.0.0.1", int(desktop.vnc_port or 0))
        try:
            assert vnc.size == (1024, 640)
            desktop.setup(_tk_config("settings", {"dark_mode": False}))
            a = np.asarray(local.screenshot(), dtype=np.int16)
            deadline, diff = time.monotonic() + 15, 255.0
            while diff >= 1.0 and time.monotonic() < deadline:  # x11vnc polls for changes
                diff = float(np.abs(a - np.asarray(vnc.screenshot(), dtype=np.int16)).mean())
            assert diff < 1.0, "the VNC framebuffer differs from the X server's"

            boxes = {w["name"]: w["bbox"] for w in _state(desktop)["widgets"]}
            _click(local, boxes["font_size"])
            for backend, text in ((vnc, "16"), (local, "24")):
                backend.execute(Primitive("key", keys=("ctrl", "a")))  # Tk: start of line
                backend.execute(Primitive("key", keys=("ctrl", "k")))  # Tk: kill to end
                backend.execute(Primitive("type", text=text))
                assert _value(desktop, "font_size", text) == text

            vnc.execute(Primitive("move", 300, 200))
            deadline = time.monotonic() + 10  # x11vnc applies pointer events in batches
            while local.cursor() != (300, 200) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert local.cursor() == vnc.cursor() == (300, 200)
        finally:
            vnc.close()


def _center(box: list[int]) -> tuple[int, int]:
    x, y, w, h = box
    return x + w // 2, y + h // 2


def test_vnc_clicks_match_local_clicks():
    with DesktopSandbox(VNC_CONFIG) as desktop:
        local = LocalBackend(desktop.display, desktop.environ(), (1024, 640))
        vnc = VNCBackend("127.0.0.1", int(desktop.vnc_port or 0))
        try:
            desktop.setup(_tk_config("settings", {"dark_mode": False}))
            boxes = {w["name"]: w["bbox"] for w in _state(desktop)["widgets"]}
            seen = []
            for backend, want in zip((vnc, vnc, local, local), (True, False, True, False),
                                     strict=True):
                _click(backend, boxes["dark_mode"])  # each click toggles the checkbox
                seen.append(_value(desktop, "dark_mode", want))
            assert seen == [True, False, True, False]
            _click(vnc, boxes["language_german"])
            assert _value(desktop, "language", "German") == "German"
            _click(local, boxes["language_french"])
            assert _value(desktop, "language", "French") == "French"

        finally:
            vnc.close()


class _Recorder:
    """A stand-in vncdotool client recording the RFB calls in order."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def __getattr__(self, name: str):
        return lambda *args: self.calls.append((name, *args))


def test_a_click_is_flushed_to_x_before_the_next_keys(monkeypatch) -> None:
    """x11vnc sends pointer events to X only with the next flush (keys flush): without a flush
    of its own, the click's focus change came after the first typed key (lost characters)."""
    monkeypatch.setattr("agentgym.envs.gui.backends.VNC_CLICK_SETTLE_S", 0.0)
    backend = VNCBackend.__new__(VNCBackend)
    backend.client, backend._pos = _Recorder(), (0, 0)
    backend.execute(Primitive("click", 10, 20))
    backend.execute(Primitive("type", text="ab"))
    names = [c[:2] for c in backend.client.calls]
    up = names.index(("mouseUp", 1))
    first_key = names.index(("keyDown", "a"))
    between = names[up:first_key]
    assert ("keyDown", "shift") in between and ("keyUp", "shift") in between
