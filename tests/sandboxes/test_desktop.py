"""The desktop sandbox against a real Xvfb: displays, setup steps, runs, and teardown that leaves
nothing behind, also after ``kill -9`` of its owner."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from agentgym.sandboxes import open_sandbox
from agentgym.sandboxes._desktop_jail import BASE_UID, app_python
from agentgym.sandboxes._desktop_reaper import UID_BASE, pid_alive, pids_with_label, reap_orphans
from agentgym.sandboxes._desktop_setup import SetupError
from agentgym.sandboxes.desktop import (
    STATE_DIR,
    DesktopConfig,
    DesktopSandbox,
    desktop_available,
)

pytestmark = [
    pytest.mark.xvfb,
    pytest.mark.skipif(not desktop_available(), reason="needs Xvfb and xdotool"),
]


def _cmd(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def test_the_reaper_and_the_jail_agree_on_the_uid_range():
    assert UID_BASE == BASE_UID


def _gone(label: str, timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while pids_with_label(label):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_concurrent_desktops_get_distinct_displays_and_leave_nothing():
    with ThreadPoolExecutor(3) as pool:
        desktops = list(pool.map(lambda _: DesktopSandbox(), range(3)))
    try:
        assert len({d.display for d in desktops}) == 3
        assert all(d.alive() for d in desktops)
        assert all(len(pids_with_label(d.label)) >= 2 for d in desktops)  # Xvfb + openbox
        assert len({d.uid for d in desktops}) == 3  # each desktop its own uid (None if not root)
        if os.geteuid() == 0:
            assert all(d.uid and d.uid >= BASE_UID for d in desktops)
    finally:
        for d in desktops:
            d.close()
    for d in desktops:
        assert _gone(d.label)
        assert not d.root.exists()
        assert not (STATE_DIR / f"{d.label}.json").exists()


def test_registered_and_opened_through_the_registry():
    with open_sandbox("desktop") as desktop:
        assert isinstance(desktop, DesktopSandbox)
        result = desktop.run(["sh", "-c", "echo $DISPLAY; xdotool getdisplaygeometry"])
        assert result.ok
        assert result.stdout.split() == [desktop.display, "1280", "720"]


def test_setup_steps_osworld_style():
    with DesktopSandbox(DesktopConfig(width=800, height=600)) as desktop:
        desktop.setup([
            {"type": "file", "parameters": {"path": "a/b.txt", "content": "hello"}},
            {"type": "execute", "parameters": {"command": ["cp", "a/b.txt", "c.txt"]}},
            {"type": "launch", "parameters": {"command": ["xterm", "-T", "probe-term"]}},
            {"type": "wait_window", "parameters": {"name": "^probe-term$", "timeout": 30}},
            {"type": "activate_window", "parameters": {"name": "^probe-term$"}},
            {"type": "sleep", "parameters": {"seconds": 0.1}},
        ])
        assert (desktop.home / "c.txt").read_text() == "hello"
        assert len(desktop.apps) == 1
        for bad in ([{"type": "teleport"}], [{"type": "file", "parameters": {"path": "../x"}}],
                    [{"type": "execute", "parameters": {"command": ["false"]}}],
                    [{"type": "launch", "parameters": {"command": []}}],
                    [{"type": "wait_window", "parameters": {"name": "nothing", "timeout": 0.2}}]):
            with pytest.raises(SetupError):
                desktop.setup(bad)
        desktop.kill_apps()
        assert desktop.apps == [] and desktop.alive()
        left = [_cmd(pid) for pid in pids_with_label(desktop.label)]
        assert not [c for c in left if c.startswith(("xterm", "sh"))], left  # only Xvfb, openbox
        assert any(c.startswith("Xvfb") for c in left) and any(
            c.startswith("openbox") for c in left)


def test_apps_run_without_network_and_with_a_read_only_root():
    with DesktopSandbox() as desktop:
        if desktop._bwrap is None:
            pytest.skip("bubblewrap is not installed")
        desktop.own(desktop.home)
        script = ("import socket, pathlib\n"
                  "try:\n    socket.create_connection(('1.1.1.1', 53), timeout=1); net = 'up'\n"
                  "except OSError:\n    net = 'down'\n"
                  "try:\n    pathlib.Path('/usr/agentgym-probe').write_text('x'); ro = 'no'\n"
                  "except OSError:\n    ro = 'yes'\n"
                  "pathlib.Path('out.txt').write_text(net + ' ' + ro)\n")
        (desktop.home / "probe.py").write_text(script)
        proc = desktop.launch([app_python(), "-S", "probe.py"])
        proc.wait(timeout=30)
        assert (desktop.home / "out.txt").read_text() == "down yes"


def test_vnc_server_on_loopback():
    with DesktopSandbox(DesktopConfig(vnc=True)) as desktop:
        assert desktop.vnc_port
        out = subprocess.run(["ss", "-ltnH"], capture_output=True, text=True).stdout
        listeners = [line.split()[3] for line in out.splitlines() if line.strip()]
        mine = [a for a in listeners if a.endswith(f":{desktop.vnc_port}")]
        assert mine and all(a.startswith(("127.0.0.1", "[::1]", "::1")) for a in mine)


def test_killed_x_server_is_detected():
    with DesktopSandbox() as desktop:
        os.kill(desktop._core[0].pid, signal.SIGKILL)
        desktop._core[0].wait(timeout=10)
        assert not desktop.alive()
        assert desktop.run(["true"]).status.value == "sandbox_error"


OWNER = textwrap.dedent("""
    import sys, time
    from agentgym.sandboxes.desktop import DesktopSandbox
    d = DesktopSandbox()
    d.launch(["xterm", "-T", "orphan"])
    print(d.label, flush=True)
    time.sleep(600)
""")


def test_kill_9_of_the_owner_leaves_nothing_behind():
    owner = subprocess.Popen([sys.executable, "-c", OWNER], stdout=subprocess.PIPE, text=True)
    try:
        label = owner.stdout.readline().strip() if owner.stdout else ""
        assert label
        deadline = time.monotonic() + 20
        while len(pids_with_label(label)) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(pids_with_label(label)) >= 3  # Xvfb, openbox, xterm (and its shell)
    finally:
        owner.kill()
        owner.wait()
    assert _gone(label), f"processes of {label} survived their owner's kill -9"
    deadline = time.monotonic() + 10  # the watcher removes the state file after the kills
    while (STATE_DIR / f"{label}.json").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not (STATE_DIR / f"{label}.json").exists()


@pytest.mark.xfail(reason="open defect: on an idle machine pids_with_label does not see the "
                          "label of a just-started `sleep` (passed under load); the kill -9 "
                          "reaping test covers the real path", strict=False)
def test_reap_orphans_kills_desktops_of_dead_owners(tmp_path: Path):
    dead = subprocess.Popen(["true"])
    dead.wait()
    label = "orphan-test-label"
    env = {**os.environ, "AGENTGYM_DESKTOP": label}
    victim = subprocess.Popen(["sleep", "300"], env=env, start_new_session=True)
    (tmp_path / f"{label}.json").write_text(json.dumps({"owner": dead.pid, "label": label}))
    deadline = time.monotonic() + 10  # the label is in /proc/PID/environ once `sleep` has exec'd
    while pids_with_label(label) != [victim.pid] and time.monotonic() < deadline:
        time.sleep(0.02)
    assert pids_with_label(label) == [victim.pid]
    assert reap_orphans(tmp_path) == [label]
    victim.wait(timeout=10)
    assert not pid_alive(victim.pid) and not list(tmp_path.iterdir())


def test_run_python_runs_in_the_jail_as_the_desktops_uid():
    with DesktopSandbox(DesktopConfig(width=320, height=240, window_manager=None)) as desktop:
        result = desktop.run_python("import os; print(os.getuid())")
        assert result.ok, result.stderr
        assert int(result.stdout) == (desktop.uid if desktop.uid is not None else os.getuid())


def test_read_home_file_follows_no_symlink_anywhere_on_the_path():
    with DesktopSandbox(DesktopConfig(width=320, height=240, window_manager=None)) as desktop:
        (desktop.home / "sub").mkdir()
        (desktop.home / "sub" / "ok.txt").write_text("fine")
        (desktop.home / "link").symlink_to("/etc")
        (desktop.home / "leaf.txt").symlink_to("/etc/hostname")
        assert desktop.read_home_file("sub/ok.txt") == b"fine"
        assert desktop.read_home_file("link/hostname") is None
        assert desktop.read_home_file("leaf.txt") is None
        assert desktop.read_home_file("../x/Xauthority") is None
        assert desktop.read_home_file("sub") is None  # a folder is not a file


def test_openbox_config_has_no_root_menu_and_runs_no_program(tmp_path: Path):
    from agentgym.sandboxes._desktop_jail import OPENBOX_RC, write_openbox_config

    rc, menu = tmp_path / "rc.xml", tmp_path / "menu.xml"
    write_openbox_config(rc, menu, "/opt/agentgym/menu.xml")
    text = rc.read_text()
    assert 'name="Root"' not in text and 'name="Execute"' not in text
    assert "<file>/opt/agentgym/menu.xml</file>" in text
    assert "<item" not in menu.read_text()
    if OPENBOX_RC.is_file():  # the rest of the system's bindings (focus, move) stay
        assert 'name="Frame"' in text and 'name="Focus"' in text


def test_jail_argv_drops_everything_and_binds_only_the_desktops_folders(tmp_path: Path):
    from agentgym.sandboxes._desktop_jail import Jail, shared_path

    app = tmp_path / "checkout" / "apps.py"
    jail = Jail(uid=BASE_UID + 7, display_socket="/tmp/.X11-unix/X9",
                xauthority=tmp_path / "x" / "Xauthority", home=tmp_path / "home",
                runtime=tmp_path / "run", bus=tmp_path / "bus", private=tmp_path / "private",
                etc=tmp_path / "x", share=(str(app),), max_processes=99)
    argv = jail.sandbox_argv(["xterm"])
    assert argv[:3] == ["setpriv", f"--reuid={BASE_UID + 7}", f"--regid={BASE_UID + 7}"]
    assert "--nproc=99:99" in argv and "--no-new-privs" in argv
    for flag in ("--unshare-all", "--unshare-user", "--disable-userns", "--new-session"):
        assert flag in argv
    assert argv[argv.index("--cap-drop") + 1] == "ALL"
    sources = [argv[i + 1] for i, a in enumerate(argv) if a in ("--bind", "--ro-bind")]
    assert "/" not in sources and "/root" not in sources and "/home" not in sources
    assert str(app.parent) not in sources and str(jail.private) not in sources
    assert argv[argv.index(str(app)) + 1] == shared_path(app)  # the file, not its folder
    assert str(jail.private) in jail.sandbox_argv(["tk"], private=True)
    assert argv[argv.index(str(jail.bus)) - 1] == "--ro-bind"  # apps cannot swap the socket
    assert argv[-2:] == ["--", "xterm"]


def test_shared_files_reach_the_apps_from_a_folder_the_desktop_uid_cannot_enter(tmp_path):
    """A checkout under a 0700 folder (a fresh clone in a private temporary folder): the jail
    binds copies of the shared files, so the window manager and the apps still start."""
    from agentgym.sandboxes._desktop_jail import shared_path

    private = tmp_path / "private-checkout"
    private.mkdir(mode=0o700)
    app = private / "hello_app.py"
    app.write_text("print('shared file read')\n")
    with DesktopSandbox(DesktopConfig(width=320, height=240, share=(str(app),))) as desktop:
        proc = desktop.launch(["sh", "-c", f"python3 {shared_path(app)} > ~/shared.txt"])
        proc.wait(timeout=30)
        assert (desktop.home / "shared.txt").read_text() == "shared file read\n"
