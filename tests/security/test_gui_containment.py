"""Attacks on the GUI desktop from inside it (issue 23): the window manager's menus, the task's
terminal, the X server and other desktops. Each runs against a real Xvfb, openbox, xterm and
bubblewrap and proves its failure by something observable: a host marker file absent, a uid
that is not 0, an X connection refused, no new window."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from security.gui_attack import type_line, wait_path, wait_windows, windows

import agentgym
from agentgym.sandboxes.desktop import DesktopConfig, DesktopSandbox, desktop_available

pytestmark = [
    pytest.mark.xvfb,
    pytest.mark.skipif(not desktop_available() or shutil.which("bwrap") is None,
                       reason="needs Xvfb, xdotool and bubblewrap"),
]
ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="the per-desktop uid needs root")


@pytest.fixture(scope="module")
def env() -> Iterator[Any]:
    """One ``gui/desktop-v0`` for the module."""
    env = agentgym.make("gui/desktop-v0", split="train")
    yield env
    env.close()


def test_the_desktop_background_opens_no_menu_and_no_terminal(env):
    """Right-click on the background, Down, Enter opened an xterm from openbox's root menu."""
    env.reset(options={"task_id": "form-00"})
    before = wait_windows(env, 1)
    assert before == ["Registration Form"]
    w, h = env.unwrapped.shot_size
    env.step(f'[{{"action_type": "CLICK", "x": {w - 60}, "y": {h - 60}, "button": "right"}}, '
             '{"action_type": "PRESS", "key": "Down"}, {"action_type": "PRESS", "key": "Return"}]')
    after = wait_windows(env, 2, timeout_s=8.0)  # an xterm maps within a second when it opens
    assert after == before, f"the desktop background opened {set(after) - set(before)}"


def test_the_terminal_runs_unprivileged_and_cannot_reach_the_host(env, tmp_path: Path):
    """From the task's xterm: uid 0 with every capability, remounting / read-write and writing a
    host file, reading the project checkout and /root all worked."""
    marker = Path(f"/agentgym-escape-{uuid.uuid4().hex[:12]}")
    env.reset(options={"task_id": "xterm-0"})
    home = env.unwrapped.desktop.home
    checkout = Path(__file__).resolve().parents[2]
    # relative paths: the cwd keeps the home in view even if the escape unmounts /tmp
    command = (f"cd ~; id -u > uid.txt; grep CapEff /proc/self/status > cap.txt; "
               f"(umount -l /tmp; mount -o remount,bind,rw /; echo pwned > {marker}) 2>/dev/null;"
               f" ls {checkout} /root > ls.txt 2>&1; touch done.txt")
    try:
        type_line(env, command)
        assert wait_path(home / "done.txt"), "the typed command never finished"
        assert not marker.exists(), "the terminal wrote a file on the host's root"
        assert (home / "uid.txt").read_text().strip() != "0"
        assert (home / "cap.txt").read_text().split() == ["CapEff:", "0000000000000000"]
        listing = (home / "ls.txt").read_text()
        assert "pyproject.toml" not in listing and listing.count("No such file") == 2, listing
    finally:
        marker.unlink(missing_ok=True)


def test_the_window_manager_and_apps_run_unprivileged(env):
    """openbox ran outside the jail as root; every process of a desktop now runs as its uid,
    without capabilities. (The one exception: the bubblewrap that set up the accessibility bus's
    namespaces as root waits for it, capability-free, outside every app's pid namespace.)"""
    env.reset(options={"task_id": "xterm-2"})
    desktop = env.unwrapped.desktop
    uids = {}
    for pid in _labelled(desktop):
        status = Path(f"/proc/{pid}/status").read_text()
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        cmd = argv[0].decode()
        uid = int(status.split("Uid:")[1].split()[0])
        eff = status.split("CapEff:")[1].split()[0]
        uids[cmd] = uid
        assert int(eff, 16) == 0, (cmd, uid, eff)
        service_monitor = cmd.endswith("bwrap") and b"--unshare-user" not in argv
        assert uid != 0 or service_monitor, (cmd, uid, eff)
    assert any(c.endswith("openbox") for c in uids) and any(c.endswith("xterm") for c in uids)


def _labelled(desktop: DesktopSandbox) -> list[int]:
    from agentgym.sandboxes._desktop_reaper import pids_with_label

    out = []
    for pid in pids_with_label(desktop.label):
        try:
            if Path(f"/proc/{pid}/status").exists():
                out.append(pid)
        except OSError:
            continue
    return out


@ROOT_ONLY
def test_the_x_server_refuses_clients_without_the_desktops_cookie():
    """Xvfb accepted any local client: another uid without the cookie is now refused."""
    with DesktopSandbox() as desktop:
        env = {"DISPLAY": desktop.display, "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
               "XAUTHORITY": "/nonexistent"}
        stranger = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "xdpyinfo"],
            env=env, capture_output=True, text=True, timeout=30)
        assert stranger.returncode != 0 and "unable to open display" in stranger.stderr
        with_cookie = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sh", "-c",
             "cat > /tmp/agentgym-cookie-test-$$ && XAUTHORITY=/tmp/agentgym-cookie-test-$$ "
             "xdpyinfo; r=$?; rm -f /tmp/agentgym-cookie-test-$$; exit $r"],
            input=desktop.jail.xauthority.read_bytes(), env=env, capture_output=True,
            timeout=30)
        assert with_cookie.returncode == 0  # the control: the cookie is what lets a client in


def test_another_desktops_display_is_unreachable_from_inside():
    """An app on desktop A cannot open desktop B's display, nor see its socket."""
    with DesktopSandbox() as a, DesktopSandbox() as b:
        number = b.display.lstrip(":")
        probe = a.run(["sh", "-c", f"ls /tmp/.X11-unix; xdpyinfo -display {b.display} "
                                   ">/dev/null 2>&1; echo rc=$?"])
        assert probe.ok, probe.stderr
        listed, rc = probe.stdout.split()[:-1], probe.stdout.split()[-1]
        assert f"X{number}" not in listed and rc != "rc=0", probe.stdout
        own = a.run(["sh", "-c", "xdpyinfo >/dev/null 2>&1; echo rc=$?"])
        assert own.stdout.strip() == "rc=0"  # the control: its own display opens


def test_apps_have_no_network_and_see_no_host_home(tmp_path: Path):
    """No route out, no /root, /home or project files inside the jail."""
    checkout = Path(__file__).resolve().parents[2]
    with DesktopSandbox() as desktop:
        probe = desktop.run(["sh", "-c", f"ls /root /home {checkout} 2>&1 | grep -c 'No such'; "
                                         "cat /proc/net/dev | grep -c ':'"])
        assert probe.ok, probe.stderr
        missing, interfaces = probe.stdout.split()
        assert missing == "3" and interfaces == "1", probe.stdout  # only lo, and down


def test_windows_helper_sees_the_task_window(env):
    """The control of the menu test: the window list does show the task's window."""
    env.reset(options={"task_id": "form-00"})
    assert "Registration Form" in windows(env)


def test_an_app_cannot_swap_the_accessibility_socket_for_a_host_path():
    """The env (root) connects to the bus socket: an app that could replace it with a symlink
    would make the host connect wherever it likes."""
    with DesktopSandbox(DesktopConfig(accessibility=True)) as desktop:
        if desktop.a11y_address is None:
            pytest.skip("at-spi2-core is not installed")
        sock = Path(desktop.a11y_address.removeprefix("unix:path="))
        probe = desktop.run(["sh", "-c", f"rm -f {sock}; ln -sf /run/agentgym-elsewhere {sock}; "
                                         f"ls -l {sock}"])
        assert sock.is_socket() and not sock.is_symlink(), probe.stdout + probe.stderr
