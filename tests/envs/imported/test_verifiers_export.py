"""``agentgym export verifiers``: verifiers' own evaluation loop (``vf-eval``: its null chat
harness program, interception server, tool server process and scoring, in ``.venv-verifiers``)
plays agentgym's SQL env through the exported package against ``agentgym serve sql --http``,
with a scripted model; each task's reward equals agentgym's own for the same actions.

Slow (verifiers starts a harness program and a tool server per episode); skips without
``.venv-verifiers`` (``make setup-verifiers``). uv fetches the harness program's dependencies
from the package index on first use.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import agentgym
from agentgym.cli import app
from agentgym.envs.imported import verifiers_client

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not verifiers_client.available(), reason="no .venv-verifiers (make setup-verifiers)")]
ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve.servers import free_port, stop, wait_healthy  # noqa: E402

PACKAGE = "agentgym_sql_spider_lite_v0"


class _Expert(BaseHTTPRequestHandler):
    """An OpenAI-compatible streaming endpoint: on the task whose prompt it sees, turn k
    answers with the script's k-th action (a tool call, or text), then "done"."""

    script: dict[str, list[Any]] = {}

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        messages = body.get("messages") or []
        prompt = next(m["content"] for m in messages if m["role"] == "user")
        turn = sum(1 for m in messages if m["role"] == "assistant")
        actions = self.script.get(prompt, [])
        action = actions[turn] if turn < len(actions) else "done"
        if isinstance(action, str):
            delta: dict[str, Any] = {"role": "assistant", "content": action}
            finish = "stop"
        else:
            delta = {"role": "assistant", "content": None, "tool_calls": [{
                "index": 0, "id": f"call_{turn}", "type": "function", "function": {
                    "name": action["name"], "arguments": json.dumps(action["arguments"])}}]}
            finish = "tool_calls"
        base = {"id": "c", "object": "chat.completion.chunk", "created": int(time.time()),
                "model": "m"}
        chunks = [{**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                  {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
                  {**base, "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1,
                                                    "total_tokens": 2}}]
        data = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)
        data += b"data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        """Quiet."""


@pytest.fixture()
def served_sql() -> Iterator[str]:
    """``agentgym serve sql --http`` in its own process."""
    yield from serve_http("sql")


@pytest.fixture()
def expert_model() -> Iterator[type[_Expert]]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Expert)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _Expert.url = f"http://127.0.0.1:{server.server_address[1]}/v1"  # type: ignore[attr-defined]
    yield _Expert
    server.shutdown()
    server.server_close()


def serve_http(env_id: str) -> Iterator[str]:
    """``agentgym serve ENV --http`` (test split) in its own process; yields its URL."""
    port = free_port()
    proc = subprocess.Popen([str(ROOT / ".venv" / "bin" / "agentgym"), "serve", env_id,
                             "--http", "--port", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url + "/health", 180)
        yield url
    finally:
        stop(proc)


def export(env_id: str, folder: Path, url: str) -> dict[str, Any]:
    """``agentgym export verifiers ENV FOLDER --url URL``; returns the package's tasks.json."""
    result = CliRunner().invoke(app, ["export", "verifiers", env_id, str(folder), "--url", url])
    assert result.exit_code == 0, result.output
    [tasks] = folder.glob("agentgym_*/tasks.json")
    return dict(json.loads(tasks.read_text()))


def vf_eval(folder: Path, model_url: str, limit: int, runs: Path) -> dict[str, float]:
    """verifiers' own loop on the exported package in ``folder``: each task's reward."""
    [package] = [p.parent.name for p in folder.glob("agentgym_*/tasks.json")]
    venv_bin = Path(verifiers_client.worker_python()).parent
    run = subprocess.run(
        [str(venv_bin / "vf-eval"), package, "--model", "m", "--client.base-url", model_url,
         "--client.api-key-var", "AGENTGYM_FAKE_KEY", "--env.agent.runtime.type",
         "subprocess", "--no-push", "-o", str(runs), "--select.limit", str(limit)],
        env={**os.environ, "PATH": f"{venv_bin}:{os.environ['PATH']}",
             "PYTHONPATH": str(folder), "AGENTGYM_FAKE_KEY": "unused"},
        cwd=runs.parent, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    [traces] = runs.glob("*/traces.jsonl")
    theirs = {}
    for line in traces.read_text().splitlines():
        episode = json.loads(line)
        [trace] = episode["traces"]
        assert trace["stop_condition"] == "agent_completed", trace.get("errors")
        theirs[episode["task"]["data"]["task_id"]] = sum(
            r["score"] * r["weight"] for r in trace["rewards"].values())
    return theirs


def ours(env_id: str, task_id: str, actions: list[Any]) -> float:
    """agentgym's own return for the same actions (tool calls or text, then "done")."""
    env = agentgym.make(env_id, split="test")
    env.reset(options={"task_id": task_id})
    total, done = 0.0, False
    for action in [*actions, "done"]:
        if done:
            break
        step = {"content": action} if isinstance(action, str) else {
            "content": "", "tool_calls": [action]}
        _, reward, terminated, truncated, _ = env.step(step)
        total, done = total + reward, terminated or truncated
    env.close()
    return total


def test_verifiers_own_loop_plays_the_exported_sql_env_with_agentgyms_rewards(
        tmp_path: Path, served_sql: str, expert_model: type[_Expert]) -> None:
    out = tmp_path / "export"
    data = export("sql", out, served_sql)
    assert [p.parent.name for p in out.glob("agentgym_*/tasks.json")] == [PACKAGE]
    assert {t["function"]["name"] for t in data["tools"]} == {"execute_sql", "submit"}
    env = agentgym.make("sql", split="test")
    base = env.unwrapped
    rows = data["tasks"][:3]
    script: dict[str, list[Any]] = {}
    for i, row in enumerate(rows):
        calls = [{"name": c.name, "arguments": c.arguments}
                 for c in base.expert_actions(base.task_set.get(row["task_id"]))]
        if i == 2:  # a wrong final query on the third task
            calls[-1] = {"name": "submit", "arguments": {"query": "SELECT 0"}}
        script[row["prompt"]] = calls
    env.close()
    expert_model.script = script
    theirs = vf_eval(out, expert_model.url, 3, tmp_path / "runs")  # type: ignore[attr-defined]
    mine = {row["task_id"]: ours("sql", row["task_id"], script[row["prompt"]]) for row in rows}
    assert theirs == mine
    assert sorted(theirs.values()) == [0.0, 1.0, 1.0]
