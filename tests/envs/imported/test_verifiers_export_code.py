"""``agentgym export verifiers`` on the code env: verifiers' own evaluation loop (``vf-eval``,
in ``.venv-verifiers``) plays ``code/py-functions-v1`` through the exported package against
``agentgym serve code/py-functions-v1 --http``, with the scripted model of
test_verifiers_export.py playing the expert's tool calls (``run_tests``, ``submit``), and one
task given another task's solution; each task's reward equals agentgym's own for the same
actions.

Slow (verifiers starts a harness program and a tool server per episode); skips without
``.venv-verifiers`` (``make setup-verifiers``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import agentgym
from agentgym.cli import app
from agentgym.envs.imported import verifiers_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve.servers import free_port, stop, wait_healthy  # noqa: E402
from test_verifiers_export import ROOT, _Expert, expert_model  # noqa: E402, F401

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not verifiers_client.available(), reason="no .venv-verifiers (make setup-verifiers)")]
ENV = "code/py-functions-v1"


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


@pytest.fixture()
def served_code() -> Iterator[str]:
    yield from serve_http(ENV)


def test_verifiers_own_loop_plays_the_exported_code_env_with_agentgyms_rewards(
        tmp_path: Path, served_code: str,
        expert_model: type[_Expert]) -> None:  # noqa: F811 - the imported fixture
    data = export(ENV, tmp_path / "export", served_code)
    assert {t["function"]["name"] for t in data["tools"]} >= {"run_tests", "submit"}
    env = agentgym.make(ENV, split="test")
    base = env.unwrapped
    rows = data["tasks"][:3]
    calls = [[{"name": c.name, "arguments": c.arguments}
              for c in base.expert_actions(base.task_set.get(row["task_id"]))] for row in rows]
    env.close()
    calls[2] = calls[0]  # the third task gets the first task's solution
    expert_model.script = {row["prompt"]: c for row, c in zip(rows, calls, strict=True)}
    theirs = vf_eval(tmp_path / "export", expert_model.url,  # type: ignore[attr-defined]
                     3, tmp_path / "runs")
    mine = {row["task_id"]: ours(ENV, row["task_id"], c) for row, c in zip(rows, calls,
                                                                            strict=True)}
    assert theirs == mine
    assert sorted(theirs.values()) == [0.0, 1.0, 1.0]
