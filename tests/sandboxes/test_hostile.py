"""The hostile-code suite: each program of :mod:`.hostile_programs` on each backend.

For every program and backend: the result has one of the expected statuses (never an exception)
within the time limit plus a margin; the host is unaffected (a canary file unchanged, this
process's children unchanged, no leftover process, the host listener never reached, no secret
in the output); and the next run, in the same pooled container for Docker, starts clean.
"""

from __future__ import annotations

import json
import os
import socket
import string
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentgym.sandbox import RunResult, Sandbox, SandboxLimits

from .conftest import CANARY_SECRET
from .hostile_programs import PROGRAMS, Hostile

LIMITS = SandboxLimits(timeout_s=2.0, output_bytes=4096, disk_mb=32, file_size_mb=8)
MARGIN_S = 60.0  # generous: a program never stopped would run for ever; a loaded CI machine
# (load 30) took 22 s to tear a docker fork bomb down, which is not a failure of the limit
MARKER = "987654"
CANARY_TEXT = "host canary: untouched\n"

CLEAN_CHECK = r"""
import json, os
chain, pid = set(), os.getpid()
while pid > 1:
    chain.add(pid)
    with open(f"/proc/{pid}/stat") as f:
        pid = int(f.read().rsplit(")", 1)[1].split()[1])
foreign = []
for p in os.listdir("/proc"):
    if p.isdigit() and int(p) != 1 and int(p) not in chain:
        try:
            with open(f"/proc/{p}/stat") as f:
                foreign.append(f.read().split(" ", 3)[1:3])
        except OSError:
            pass
work = os.listdir("/work")
print(json.dumps({"foreign": foreign, "tmp": os.listdir("/tmp"), "cwd": sorted(os.listdir(".")),
                  "work_ok": os.getcwd() == "/work" or work == [os.path.basename(os.getcwd())]}))
"""


def descendants(root: int) -> set[int]:
    """Pids of every live descendant of ``root`` (read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def marked_processes() -> list[str]:
    """Host processes whose command line carries the leftover marker."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if MARKER.encode() in cmd:
                found.append(cmd.decode(errors="replace"))
    return found


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A canary file and a listening socket on the host, for the programs to go after."""
    canary = tmp_path_factory.mktemp("hostile") / "canary.txt"
    canary.write_text(CANARY_TEXT)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    yield {
        "canary": str(canary),
        "port": str(listener.getsockname()[1]),
        "hostpid": str(os.getpid()),
        "marker": MARKER,
        "_listener_fd": str(listener.fileno()),
    }
    listener.close()


def _listener_untouched(host: dict[str, str]) -> bool:
    listener = socket.socket(fileno=os.dup(int(host["_listener_fd"])))
    try:
        listener.accept()[0].close()
        return False
    except BlockingIOError:
        return True
    finally:
        listener.detach()


def _has_total_memory_cap(sandbox: Sandbox) -> bool:
    return sandbox.name == "docker" or bool(getattr(sandbox, "_use_cgroup", False))


def _run(sandbox: Sandbox, program: Hostile, host: dict[str, str]) -> RunResult:
    fill = string.Template
    limits = LIMITS.with_overrides(timeout_s=program.timeout_s)
    if program.command:
        command = [fill(a).safe_substitute(host) for a in program.command]
        return sandbox.run(command, limits=limits)
    return sandbox.run_python(fill(program.code).safe_substitute(host), limits=limits)


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_hostile_program(sandbox: Sandbox, program: Hostile, host: dict[str, str]) -> None:
    if program.needs_total_memory_cap and not _has_total_memory_cap(sandbox):
        pytest.skip("this backend has no total memory cap here (no writable cgroup)")
    canary = Path(host["canary"])
    canary_stat = canary.stat()
    children = descendants(os.getpid())

    started = time.monotonic()
    result = _run(sandbox, program, host)
    wall = time.monotonic() - started
    container = getattr(sandbox, "last_container_id", None)
    replaced = getattr(sandbox, "last_container_replaced", True)

    assert result.status.value in program.statuses, (result.summary(), result.stderr[-600:])
    assert wall < program.timeout_s + MARGIN_S, f"took {wall:.1f} s"
    if program.fast:
        assert result.duration_s < 1.5, f"network attempt took {result.duration_s:.1f} s"
    if program.truncated:
        assert result.output_truncated
    assert len(result.stdout) <= LIMITS.output_bytes and len(result.stderr) <= LIMITS.output_bytes
    assert "ESCAPED" not in result.stdout, result.stdout
    for leak in (CANARY_TEXT.strip(), CANARY_SECRET):
        assert leak not in result.stdout + result.stderr

    # The host is unaffected.
    assert canary.read_text() == CANARY_TEXT
    assert canary.stat().st_mtime_ns == canary_stat.st_mtime_ns
    assert _listener_untouched(host), "a sandboxed program reached the host's listener"
    assert descendants(os.getpid()) == children
    assert marked_processes() == []

    # The next run starts clean (in the same container unless it had to be replaced).
    check = sandbox.run_python(CLEAN_CHECK, limits=LIMITS.with_overrides(timeout_s=10.0))
    assert check.ok, check.summary() + check.stderr
    state = json.loads(check.stdout)
    assert state == {"foreign": [], "tmp": [], "cwd": ["main.py"], "work_ok": True}, state
    if container is not None and not replaced:
        assert sandbox.last_container_id == container  # type: ignore[attr-defined]
