"""Attack: a memory bomb on the desktop. A program the agent starts allocated without bound (4 GB
seen) because nothing capped the desktop's memory. The desktop now sits in a cgroup whose
``memory.max`` is ``DesktopConfig.memory_mb`` (as root, where cgroups are delegated), else each
process gets that much address space (``RLIMIT_AS``); a bomb dies, the desktop lives on."""

from __future__ import annotations

import pytest

from agentgym.sandboxes.desktop import DesktopConfig, DesktopSandbox, desktop_available

pytestmark = pytest.mark.skipif(not desktop_available(), reason="needs Xvfb and xdotool")

BOMB = ("chunks = []\n"
        "while True:\n"
        "    chunks.append(bytearray(64 * 1024 * 1024))  # 64 MiB, touched (zero-filled)\n")
SMALL = "x = bytearray(64 * 1024 * 1024)\nprint(len(x))\n"


def test_a_memory_bomb_is_killed_at_the_desktops_cap_and_the_desktop_lives_on() -> None:
    desktop = DesktopSandbox(DesktopConfig(memory_mb=512, window_manager=None))
    try:
        small = desktop.launch([DesktopSandbox.python, "-c", SMALL])
        assert small.wait(timeout=60) == 0, "a 64 MiB program must run under a 512 MiB cap"
        bomb = desktop.launch([DesktopSandbox.python, "-c", BOMB])
        code = bomb.wait(timeout=120)
        assert code != 0, "the memory bomb ran to completion"
        assert all(p.poll() is None for p in desktop._core), "the desktop died with the bomb"
        if desktop._cgroup is not None:
            assert desktop._cgroup.oom_kills() >= 1 or code == 1  # OOM kill or MemoryError
    finally:
        desktop.close()


def test_the_jail_enters_the_cgroup_or_sets_an_address_space_limit() -> None:
    desktop = DesktopSandbox(DesktopConfig(memory_mb=512, window_manager=None))
    try:
        argv = " ".join(desktop.jail.host_argv(["true"]))
        if desktop._cgroup is not None:
            assert "cgroup.procs" in argv
            assert any(d.joinpath("memory.max").exists() or d.joinpath(
                "memory.limit_in_bytes").exists() for d in desktop._cgroup.dirs.values())
        else:
            assert f"--as={512 * 1024 * 1024}" in argv
    finally:
        desktop.close()
