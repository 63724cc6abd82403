"""A container killed or removed under a run is a sandbox error, never the program's outcome."""

from __future__ import annotations

import threading
import time

import pytest

from agentgym.sandbox import RunStatus
from agentgym.sandboxes._docker_pool import LABEL

pytestmark = pytest.mark.docker


def _kill_soon(client, delay: float, remove: bool) -> threading.Thread:  # type: ignore[no-untyped-def]
    def kill() -> None:
        time.sleep(delay)
        for info in client.api.containers(filters={"label": f"{LABEL}=1"}):
            if remove:
                client.api.remove_container(info["Id"], force=True)
            else:
                client.api.kill(info["Id"])

    thread = threading.Thread(target=kill)
    thread.start()
    return thread


@pytest.mark.parametrize("remove", [False, True], ids=["killed", "removed"])
def test_container_killed_mid_run_is_a_sandbox_error(docker_sandbox, remove: bool) -> None:  # type: ignore[no-untyped-def]
    assert docker_sandbox.run(["true"]).ok  # the pool's container is warm
    thread = _kill_soon(docker_sandbox.client, 1.0, remove)
    result = docker_sandbox.run_python("import time\nprint('start', flush=True)\ntime.sleep(8)")
    thread.join()
    assert result.status is RunStatus.SANDBOX_ERROR, result
    assert not result.memory_killed and "Ran out of memory" not in result.summary()
    assert "SIGKILL" not in result.summary()
    assert docker_sandbox.run_python("print(2)").stdout == "2\n"  # a fresh container serves
