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

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import agentgym
from agentgym.envs.imported import verifiers_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_verifiers_export import (  # noqa: E402, F401
    _Expert,
    expert_model,
    export,
    ours,
    serve_http,
    vf_eval,
)

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not verifiers_client.available(), reason="no .venv-verifiers (make setup-verifiers)")]
ENV = "code/py-functions-v1"


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
