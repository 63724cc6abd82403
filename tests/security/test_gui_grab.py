"""Attack: a program on the desktop grabs the X server (``XGrabServer``; ImageMagick's window
picker did it). Every later X request of the env (the screenshot, the XTEST click) then hung with
no deadline, and the episode ended ``aborted`` through the engine: an agent turned its failure
into an unscored episode. Every backend call now has a deadline; on a timeout the env kills the
desktop's apps and asks the display again: if it answers, the grab was the agent's programs'
(score 0, the model's failure), else the display itself failed (``aborted``)."""

from __future__ import annotations

import threading

import pytest

import agentgym
from agentgym.sandboxes.desktop import DesktopSandbox, desktop_available

pytestmark = pytest.mark.skipif(not desktop_available(), reason="needs Xvfb and xdotool")

GRAB = (
    "import ctypes, sys, time\n"
    "x = ctypes.CDLL('libX11.so.6')\n"
    "x.XOpenDisplay.restype = ctypes.c_void_p\n"
    "x.XGrabServer.argtypes = [ctypes.c_void_p]\n"
    "x.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]\n"
    "d = x.XOpenDisplay(None)\n"
    "x.XGrabServer(d)\n"
    "x.XSync(d, 0)\n"
    "print('grabbed', flush=True)\n"
    "time.sleep(600)\n"
)


def test_a_grab_by_the_agents_program_is_the_models_failure_not_an_abort() -> None:
    env = agentgym.make("gui/desktop-v0")
    base = env.unwrapped
    try:
        env.reset(seed=0)
        grabber = base.desktop.launch([DesktopSandbox.python, "-c", GRAB])
        result: list = []
        stepping = threading.Thread(target=lambda: result.append(env.step(
            '<tool_call>{"name": "computer", "arguments": {"action_type": "CLICK", '
            '"x": 10, "y": 10}}</tool_call>')), daemon=True)
        stepping.start()
        stepping.join(timeout=180)
        assert result, "the step hung behind the X server grab"
        _, reward, terminated, truncated, info = result[0]
        assert not info.get("aborted"), info
        assert terminated and reward == 0.0 and "grab" in info.get("failure", "")
        assert grabber.poll() is not None, "the grabbing program is still running"
    finally:
        env.close()
