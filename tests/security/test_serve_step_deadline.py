"""A step whose client-chosen deadline passed must not keep running on the server.

Before the fix, twenty 504s left twenty steps burning CPU outside the session lock. The env here
burns CPU until it is closed (as a sandbox's process runs until the sandbox is torn down); the
test proves each timed-out step was stopped by the server, and that none ran to its end.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from serve.servers import app_in_thread

from agentgym.env import AgentEnv, make_observation

STOPPED = threading.Semaphore(0)
FINISHED: list[int] = []


class BurnEnv(AgentEnv):
    """Each step burns CPU until the env is closed (or 120 s pass: then FINISHED grows)."""

    instructions = "burn"

    def __init__(self) -> None:
        super().__init__()
        self.closed = threading.Event()

    def _reset(self, options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        return make_observation("go"), {}

    def _step(self, action: Any) -> Any:
        deadline = time.monotonic() + 120
        while not self.closed.is_set() and time.monotonic() < deadline:
            sum(range(1000))
        if self.closed.is_set():
            STOPPED.release()
        else:
            FINISHED.append(1)
        return make_observation("done"), 0.0, True, False, {}

    def _close(self) -> None:
        self.closed.set()


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    """A server of BurnEnv on a loopback port."""
    from agentgym.serve import create_app

    app = create_app(["burn"], factory=lambda env_id, **kw: BurnEnv(), max_sessions=4)
    with app_in_thread(app) as base:
        yield base


def test_a_step_past_its_deadline_is_cancelled_not_left_running(url):
    rounds = 5
    for _ in range(rounds):
        reset = httpx.post(url + "/reset", json={}, timeout=60)
        assert reset.status_code == 200, reset.text
        session_id = reset.json()["metadata"]["session_id"]
        step = httpx.post(url + "/step", json={"action": {"content": "x"}, "session_id": session_id,
                                               "timeout_s": 0.5}, timeout=60)
        assert step.status_code == 504, step.text
        assert "reset" in step.json()["detail"]
        assert STOPPED.acquire(timeout=60), "the timed-out step is still running"
        again = httpx.post(url + "/step", json={"action": {"content": "x"},
                                                "session_id": session_id}, timeout=60)
        assert again.status_code == 409  # the episode was aborted: no step in a half-run env
        assert httpx.post(url + "/reset", json={"session_id": session_id},
                          timeout=60).status_code == 200
        httpx.post(url + "/close", json={"session_id": session_id}, timeout=60)
    assert not FINISHED
