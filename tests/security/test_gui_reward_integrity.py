"""Reward hacks on the GUI desktop (issue 24): a policy must not turn its own failure into an
unscored (aborted) episode, forge the state its scorer reads, or make the host read a file for
it. Observables: reward, ``aborted`` and ``success`` in the info."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from security.gui_attack import forged_state, play_until_end, type_line, wait_path, wait_windows

import agentgym
from agentgym.sandboxes.desktop import desktop_available

pytestmark = [
    pytest.mark.xvfb,
    pytest.mark.skipif(not desktop_available() or shutil.which("bwrap") is None,
                       reason="needs Xvfb, xdotool and bubblewrap"),
]


@pytest.fixture(scope="module")
def env() -> Iterator[Any]:
    """One ``gui/desktop-v0`` for the module."""
    env = agentgym.make("gui/desktop-v0", split="train")
    yield env
    env.close()


def test_killing_the_task_app_from_inside_is_the_models_failure(env):
    """``kill -9 $PPID`` in the task's xterm made the episode ``aborted`` (left out of GRPO
    groups and success rates): now it ends with reward 0, ``success`` False and the reason."""
    env.reset(options={"task_id": "xterm-0"})
    _, reward, terminated, truncated, info = type_line(env, "kill -9 $PPID")
    if not (terminated or truncated):  # the xterm may die a moment after the step
        reward, terminated, truncated, info = play_until_end(env)
    assert not info.get("aborted"), info
    assert terminated and not truncated and reward == 0.0
    assert info["success"] is False and "inside the desktop" in info["failure"]


def test_the_app_killed_from_the_host_is_still_an_infrastructure_failure(env):
    """The control: a kill the agent cannot cause (the jail killed from the host) aborts."""
    env.reset(options={"task_id": "xterm-0"})
    app = env.unwrapped.desktop.apps[0]
    os.kill(app.pid, 9)
    app.wait(timeout=30)
    _, _, truncated, info = play_until_end(env)
    assert truncated and info["aborted"] and "outside the desktop" in info["abort_reason"]


def test_a_forged_app_state_earns_nothing(env):
    """A terminal opened with ``open_app`` wrote ``state.json`` claiming the form was submitted:
    the scorer read it and paid 1.0."""
    env.reset(options={"task_id": "form-00"})
    task = env.unwrapped.task
    values = task.data["evaluator"]["expected"]["value"]
    env.step('{"action_type": "open_app", "app_name": "xterm"}')
    assert len(wait_windows(env, 2)) == 2
    home = env.unwrapped.desktop.home
    type_line(env, f"echo '{forged_state(values)}' > ~/state.json; touch ~/forged.txt")
    assert wait_path(home / "forged.txt")
    _, reward, terminated, _, info = env.step("DONE")
    assert terminated and reward == 0.0, info


def test_a_symlink_planted_in_home_is_not_followed_by_the_scorer(env, tmp_path: Path):
    """``ln -s /host/file ~/hello.txt``: the scorer, on the host, read the host file (and paid
    1.0 when it held the expected text)."""
    secret = Path(f"/tmp/agentgym-secret-{uuid.uuid4().hex[:12]}")
    secret.write_text("hi there\n")
    secret.chmod(0o644)
    try:
        env.reset(options={"task_id": "xterm-0"})  # wants hello.txt holding 'hi there'
        home = env.unwrapped.desktop.home
        type_line(env, f"ln -s {secret} ~/hello.txt; touch ~/linked.txt")
        assert wait_path(home / "linked.txt")
        assert (home / "hello.txt").is_symlink()
        _, reward, terminated, _, info = env.step("DONE")
        assert terminated and reward == 0.0, info
        assert info["evaluation"]["result"] is None  # the host file's text was never read
    finally:
        secret.unlink(missing_ok=True)


def test_disconnecting_the_window_manager_from_inside_is_the_models_failure(env):
    """Any X client can disconnect another (``xkill``): openbox killed that way made the episode
    ``aborted``, also when the model answered DONE right after."""
    env.reset(options={"task_id": "xterm-0"})
    wm = env.unwrapped.desktop._core[1]
    result = type_line(env, "xkill -id $(xprop -root _NET_SUPPORTING_WM_CHECK | awk '{print $5}')")
    _, reward, terminated, truncated, info = result
    if not (terminated or truncated):  # openbox went after the typing step: DONE sees it
        wm.wait(timeout=60)  # the event the test waits on: openbox has gone
        _, reward, terminated, truncated, info = env.step("DONE")
    # else the typing step itself saw openbox go (its settle time can outlast xkill): the same
    # verdict must come from that step
    assert not info.get("aborted"), info
    assert terminated and not truncated and reward == 0.0
    assert info["success"] is False and "window manager" in info["failure"]
