"""Bubblewrap-specific behaviour: uid drop, cgroups, seccomp, the host-side deadline."""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from agentgym.sandbox import RunStatus, SandboxLimits, SandboxUnavailable
from agentgym.sandboxes import _cgroup, bubblewrap
from agentgym.sandboxes.bubblewrap import BubblewrapSandbox

from .test_hostile import descendants

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="uid drop and cgroups need root")


def _own_run_cgroups() -> list[Path]:
    return [
        child
        for directory in _cgroup._own_paths().values()
        for child in directory.glob(f"{_cgroup.PREFIX}-{os.getpid()}-*")
    ]


def test_inside_view(bubblewrap_sandbox: BubblewrapSandbox) -> None:
    code = (
        "import os\nprint(open('/proc/self/uid_map').read().split())\n"
        "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('Seccomp:')])\n"
        "print(sorted(os.listdir('/')))\nprint(os.getpid() < 10, open('/etc/hostname').read()"
        " if os.path.exists('/etc/hostname') else os.uname().nodename)"
    )
    lines = bubblewrap_sandbox.run_python(code).stdout.splitlines()
    assert lines[0].startswith("['65534',")
    assert lines[1] == "['2']"  # a seccomp filter is loaded
    assert "root" not in lines[2] and "home" not in lines[2]
    assert lines[3] == "True sandbox"  # own pid namespace and hostname


@needs_root
def test_sandbox_processes_run_as_nobody_on_the_host(
    bubblewrap_sandbox: BubblewrapSandbox,
) -> None:
    """bwrap runs as uid 65534, not root, so RLIMIT_NPROC binds (the kernel exempts uid 0)."""
    earlier = set(descendants(os.getpid()))  # other tests' helpers (a desktop's reaper...)
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(bubblewrap_sandbox.run, ["sleep", "1.5"])
        uids: set[str] = set()
        while not running.done():
            time.sleep(0.05)
            for pid in set(descendants(os.getpid())) - earlier:
                with contextlib.suppress(OSError, StopIteration):
                    status = Path(f"/proc/{pid}/status").read_text().splitlines()
                    uids.add(next(ln.split()[1] for ln in status if ln.startswith("Uid:")))
        assert running.result().ok
    assert uids == {"65534"}


@needs_root
def test_runs_get_their_own_cgroup_and_leave_none(bubblewrap_sandbox: BubblewrapSandbox) -> None:
    assert bubblewrap_sandbox._use_cgroup
    result = bubblewrap_sandbox.run_python("print(open('/proc/self/cgroup').read())")
    assert _cgroup.PREFIX in result.stdout
    assert _own_run_cgroups() == []


@needs_root
def test_pid_limit_counts_threads_and_processes(bubblewrap_sandbox: BubblewrapSandbox) -> None:
    code = (
        "import threading, time\nn = 0\ntry:\n    for _ in range(200):\n"
        "        threading.Thread(target=time.sleep, args=(3,), daemon=True).start()\n"
        "        n += 1\nexcept RuntimeError:\n    pass\nprint(n)"
    )
    result = bubblewrap_sandbox.run_python(code, limits=SandboxLimits(pids=20, memory_mb=2048))
    assert result.ok and 10 <= int(result.stdout) < 20


def test_reap_stale_cgroups() -> None:
    own = _cgroup._own_paths()
    if os.geteuid() != 0 or "memory" not in own:
        pytest.skip("needs writable cgroup v1 memory controller")
    dead_pid = 2**22 + 7  # above the kernel's largest pid_max: never a live process
    stale = own["memory"] / f"{_cgroup.PREFIX}-{dead_pid}-deadbeef"
    stale.mkdir()
    try:
        assert _cgroup.reap_stale() >= 1
        assert not stale.exists()
    finally:
        if stale.exists():
            stale.rmdir()


def test_host_deadline_kills_the_whole_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bubblewrap, "GRACE_S", -0.5)  # the host gives up before `timeout` does
    box = BubblewrapSandbox()
    children = descendants(os.getpid())
    code = "import os, time\nfor _ in range(4):\n    os.fork()\ntime.sleep(60)"
    result = box.run_python(code, limits=SandboxLimits(timeout_s=2.0))
    assert result.status is RunStatus.TIMEOUT and result.duration_s < 3.0
    assert descendants(os.getpid()) == children
    assert _own_run_cgroups() == []


def test_unavailable_without_bwrap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(SandboxUnavailable, match="bwrap"):
        BubblewrapSandbox()
    assert not bubblewrap.bubblewrap_available()


def test_many_concurrent_runs_stay_independent(bubblewrap_sandbox: BubblewrapSandbox) -> None:
    """Regression: runs on several threads once shared (and double-closed) fd numbers."""

    def one(i: int) -> str:
        result = bubblewrap_sandbox.run_python("import sys; print(sys.stdin.read())", stdin=str(i))
        return result.stdout if result.ok else result.summary() + result.error

    with ThreadPoolExecutor(4) as pool:
        outputs = list(pool.map(one, range(40)))
    assert outputs == [f"{i}\n" for i in range(40)]
