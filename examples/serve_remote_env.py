"""Serve an env over HTTP/WebSocket and roll it out remotely with the unchanged engine.

    python examples/serve_remote_env.py            # serves arith/add-v0 on a free port

The server runs as ``agentgym serve arith --http`` in a child process (on a real cluster it runs
on a CPU host: ``agentgym serve arith --http --host 0.0.0.0 --allow-public``, which shows a bearer
token the engine's host passes as ``AGENTGYM_SERVE_TOKEN``); the engine here only sees the id
``remote:http://127.0.0.1:PORT/arith``.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import httpx

from agentgym.policies import FakePolicy
from agentgym.rollout import Engine, EpisodeRequest


def adder(messages, episode):
    """A "model" that reads "Compute a + b." and answers."""
    text = messages[-1]["content"]
    a, b = (int(x) for x in text.split("Compute ")[1].split(".")[0].split(" + "))
    return str(a + b)


def main() -> None:
    """Start the server, run six episodes through it, stop the server."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "agentgym.cli", "serve", "arith", "--http", "--port", str(port)]
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        engine = Engine(f"remote:{url}/arith", FakePolicy(adder), num_envs=3)
        trajs = engine.run([EpisodeRequest(seed=i) for i in range(6)])
        engine.close()
        for t in trajs:
            print(f"{t.task_id}: reward={t.reward} aborted={t.aborted}")
    finally:
        server.terminate()
        server.wait(15)


if __name__ == "__main__":
    main()
