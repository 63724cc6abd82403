"""The resident run server and the bounded pool: isolation, threads, bounds, quick shutdown."""

from __future__ import annotations

import os
import threading
import time

import pytest

from agentgym.sandbox import RunStatus, SandboxLimits

pytestmark = pytest.mark.docker

THREADS = """
import threading
done = []
threads = [threading.Thread(target=lambda: done.append(sum(range(1000)))) for _ in range(64)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(len(done))
"""

ATTACK_SERVER = r"""
import os, signal, socket
out = []
for name, fn in [
    ("kill1", lambda: os.kill(1, signal.SIGKILL)),
    ("list", lambda: os.listdir("/agentgym")),
    ("connect", lambda: socket.socket(socket.AF_UNIX).connect("/agentgym/run.sock")),
    ("unlink", lambda: os.unlink("/agentgym/run.sock")),
    ("environ", lambda: open("/proc/1/environ").read()),
    ("mem", lambda: open("/proc/1/mem", "rb").read(1)),
]:
    try:
        fn()
        out.append(name + ":allowed")
    except Exception as e:
        out.append(name + ":" + type(e).__name__)
print(" ".join(out))
print(os.getuid(), os.getgid(), open("/proc/self/status").read().split("CapEff:")[1].split()[0])
"""


def test_runs_go_through_the_server_as_uid_65534(docker_sandbox) -> None:  # type: ignore[no-untyped-def]
    result = docker_sandbox.run_python(ATTACK_SERVER)
    assert result.ok, result.stderr
    first, second = result.stdout.splitlines()
    assert "allowed" not in first, first  # PID 1 cannot be killed, entered, traced or reached
    assert second == "65534 65534 0000000000000000"  # no capabilities at all
    pool = docker_sandbox._pool(docker_sandbox.limits)
    assert all(c.socket_path for c in pool._idle)  # the pool's containers serve runs
    assert docker_sandbox.run_python("print(2)").stdout == "2\n"  # the server survived


def test_python_runs_like_a_fresh_interpreter(docker_sandbox) -> None:  # type: ignore[no-untyped-def]
    code = (
        "import sys, os\nprint(__name__, sys.argv[1:], sys.path[0] == os.getcwd())\n"
        "print(os.environ.get('AGENTGYM_SANDBOX_CANARY_SECRET'), sorted(sys.modules) == "
        "sorted(sys.modules))\nsys.exit('bye')"
    )
    result = docker_sandbox.run(["python3", "main.py", "a", "b"], files={"main.py": code})
    assert result.stdout.splitlines()[0] == "__main__ ['a', 'b'] True"
    assert result.stdout.splitlines()[1].startswith("None")
    assert result.exit_code == 1 and result.stderr == "bye\n"
    crash = docker_sandbox.run_python("def f():\n    raise KeyError('k')\nf()")
    assert crash.exit_code == 1 and crash.stderr.startswith("Traceback (most recent call last):")
    assert 'File "main.py", line 3' in crash.stderr and "runpy" not in crash.stderr


def test_threads_are_limited_by_the_cgroup_not_address_space(docker_sandbox) -> None:  # type: ignore[no-untyped-def]
    result = docker_sandbox.run_python(THREADS, limits=SandboxLimits(timeout_s=20.0, pids=96))
    assert result.ok and result.stdout == "64\n", result.stderr[-500:]


def test_memory_bomb_is_still_out_of_memory(docker_sandbox) -> None:  # type: ignore[no-untyped-def]
    result = docker_sandbox.run_python(
        "b = bytearray(2000 << 20)\nfor i in range(0, len(b), 4096):\n    b[i] = 1",
        limits=SandboxLimits(timeout_s=20.0),
    )
    assert result.status is RunStatus.MEMORY, result


def test_pool_is_bounded_by_concurrency_and_shrinks(docker_engine: None) -> None:
    from agentgym.sandboxes import shutdown_pools
    from agentgym.sandboxes.docker import DockerSandbox

    limits = SandboxLimits(timeout_s=20.0, disk_mb=48)  # a pool of its own
    boxes = [DockerSandbox(limits, pool_size=1, max_pool_size=16) for _ in range(3)]
    pool = boxes[0]._pool(limits)
    assert pool.capacity == 3
    peak = []

    def work(box) -> None:  # type: ignore[no-untyped-def]
        for _ in range(4):
            assert box.run_python("import time; time.sleep(0.2); print(1)").stdout == "1\n"
            peak.append(pool.live)

    threads = [threading.Thread(target=work, args=(b,)) for b in boxes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert max(peak) <= 3, peak  # never more containers than concurrent runs asked for
    for box in boxes[1:]:
        box.close()
    assert pool.capacity == 1 and pool.live <= 1  # idle containers over capacity were stopped
    started = time.monotonic()
    boxes[0].close()
    shutdown_pools()
    assert time.monotonic() - started < 10.0


def test_close_closes_the_docker_client(docker_engine: None) -> None:
    from agentgym.sandboxes.docker import DockerSandbox

    def sockets() -> int:
        count = 0
        for fd in os.listdir("/proc/self/fd"):
            try:
                count += os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")
            except OSError:
                pass
        return count

    DockerSandbox().close()  # the shared pool and its client exist from here on
    before = sockets()
    for _ in range(8):
        box = DockerSandbox()
        assert box.run(["true"]).ok
        box.close()
    assert sockets() - before <= 2
