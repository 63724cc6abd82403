"""Docker-specific behaviour: container hardening, leak reaping, exit cleanup, cold mode."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time

import docker
import pytest

from agentgym.sandbox import RunStatus, SandboxLimits, SandboxUnavailable
from agentgym.sandboxes._docker_pool import LABEL, reap_leaked

pytestmark = pytest.mark.docker


def _labelled(client, **labels: str) -> list[str]:  # type: ignore[no-untyped-def]
    filters = [f"{LABEL}=1", *(f"{LABEL}.{k}={v}" for k, v in labels.items())]
    return [c["Id"] for c in client.api.containers(all=True, filters={"label": filters})]


def test_pooled_container_is_locked_down(docker_sandbox) -> None:  # type: ignore[no-untyped-def]
    assert docker_sandbox.run(["true"]).ok
    info = docker_sandbox.client.api.inspect_container(docker_sandbox.last_container_id)
    host = info["HostConfig"]
    assert host["ReadonlyRootfs"] is True and host["NetworkMode"] == "none"
    assert host["CapDrop"] == ["ALL"] and "no-new-privileges" in host["SecurityOpt"]
    assert host["PidsLimit"] > 0 and host["Memory"] > 0 and host["NanoCpus"] == 10**9
    assert set(host["Tmpfs"]) == {"/work", "/tmp"}
    # PID 1 is the run server: root in the container with only what it needs to start runs as
    # 65534 and kill their leftovers; the runs themselves have no capability at all
    assert info["Config"]["User"] == "0:0"
    assert sorted(host["CapAdd"]) == ["CAP_KILL", "CAP_SETGID", "CAP_SETUID"] or sorted(
        host["CapAdd"]) == ["KILL", "SETGID", "SETUID"]
    assert docker_sandbox.run(["id", "-u"]).stdout == "65534\n"
    labels = info["Config"]["Labels"]
    assert labels[LABEL] == "1" and labels[f"{LABEL}.owner_pid"] == str(os.getpid())


def test_reap_removes_containers_of_dead_owners(docker_sandbox) -> None:  # type: ignore[no-untyped-def]
    client = docker_sandbox.client
    assert docker_sandbox.run(["true"]).ok
    dead = {  # a container whose owner died: its pid is above any pid_max
        LABEL: "1",
        f"{LABEL}.owner_pid": str(2**22 + 7),
        f"{LABEL}.owner_start": "1",
        f"{LABEL}.owner_host": socket.gethostname(),
    }
    orphan = client.api.create_container(docker_sandbox.image, ["true"], labels=dead)["Id"]
    try:
        # running ones only: a stopped container of ours may be on its way out (auto-remove)
        mine = {"label": [f"{LABEL}=1", f"{LABEL}.owner_pid={os.getpid()}"], "status": "running"}
        live = {c["Id"] for c in client.api.containers(filters=mine)}
        assert live and reap_leaked(client) >= 1
        remaining = _labelled(client)
        assert orphan not in remaining and live <= set(remaining)
    finally:
        with contextlib.suppress(Exception):
            client.api.remove_container(orphan, force=True)


CHILD = textwrap.dedent(
    """
    import sys, time
    from agentgym.sandboxes.docker import DockerSandbox
    box = DockerSandbox(pool_size=1, max_pool_size=1)
    assert box.run(["true"]).ok
    print(box.last_container_id, flush=True)
    if sys.argv[1] == "hang":
        time.sleep(600)
    """
)


def _child(mode: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-c", CHILD, mode], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


@pytest.mark.slow
def test_no_leak_after_kill_9(docker_sandbox) -> None:  # type: ignore[no-untyped-def]
    client = docker_sandbox.client
    proc, cid = _child("hang")
    owner = str(proc.pid)
    assert cid and _labelled(client, owner_pid=owner)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert _labelled(client, owner_pid=owner)  # kill -9 left it behind...
    reap_leaked(client)  # ...and the next pool start removes it
    assert _labelled(client, owner_pid=owner) == []


@pytest.mark.slow
def test_containers_removed_at_exit(docker_sandbox) -> None:  # type: ignore[no-untyped-def]
    proc, cid = _child("exit")
    assert proc.wait(timeout=120) == 0 and cid
    deadline = time.monotonic() + 90  # stopped at exit; the engine deletes it (auto-remove)
    while _labelled(docker_sandbox.client, owner_pid=str(proc.pid)) and time.monotonic() < deadline:
        time.sleep(1)
    assert _labelled(docker_sandbox.client, owner_pid=str(proc.pid)) == []


def test_cold_mode_leaves_nothing(docker_engine: None) -> None:
    from agentgym.sandboxes.docker import DockerSandbox

    box = DockerSandbox(mode="cold")
    result = box.run_python("print(open('/proc/1/cmdline').read().split('\\0')[0])")
    assert result.ok and result.stdout == "python3\n"
    cid = box.last_container_id
    assert cid is not None
    # scoped to this run's own container: pools of other tests in this process come and go
    assert cid not in _labelled(box.client, owner_pid=str(os.getpid()))
    with pytest.raises(docker.errors.NotFound):
        box.client.api.inspect_container(cid)


def test_container_replaced_after_oom(docker_sandbox) -> None:  # type: ignore[no-untyped-def]
    code = (
        "import os, time\nfor _ in range(6):\n    if os.fork() == 0:\n"
        "        b = bytearray(300 << 20)\n        for i in range(0, len(b), 4096):\n"
        "            b[i] = 1\n        os._exit(0)\nfor _ in range(6):\n    os.wait()"
    )
    result = docker_sandbox.run_python(code, limits=SandboxLimits(timeout_s=10.0))
    assert result.status is RunStatus.MEMORY
    old, replaced = docker_sandbox.last_container_id, docker_sandbox.last_container_replaced
    started = time.monotonic()
    assert docker_sandbox.run(["true"]).ok and time.monotonic() - started < 120
    # the run server answered after the OOM kill, so its container is known to be fine and is
    # reused (exec mode cannot tell and replaces it)
    assert (docker_sandbox.last_container_id != old) == replaced


def test_missing_image_is_reported(docker_engine: None) -> None:
    from agentgym.sandboxes.docker import DockerSandbox

    with pytest.raises(SandboxUnavailable, match="build_sandbox_image.sh"):
        DockerSandbox(image="agentgym-sandbox:no-such-tag")


@pytest.mark.parametrize("url", ["unix:///nonexistent/docker.sock"])
def test_unreachable_engine_is_reported(url: str) -> None:
    from agentgym.sandboxes.docker import DockerSandbox

    with pytest.raises(SandboxUnavailable, match="start_dockerd.sh|'docker' package"):
        DockerSandbox(base_url=url)
