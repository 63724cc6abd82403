"""``agentgym export verifiers`` on the WebArena-Lite twin: verifiers' own evaluation loop
(``vf-eval``, in ``.venv-verifiers``) plays ``webarena-lite`` (the bundled sites, Chromium)
through the exported package against ``agentgym serve webarena-lite --http``. The scripted model
of test_verifiers_export.py plays the expert's actions on three read-only tasks (search, open
the product, answer): the browser actions as the exported tools' calls, the answer
(``stop [...]``) as the final reply; the third task gets a wrong answer. Each task's reward
equals agentgym's own for the same actions.

Slow (Chromium, and verifiers starts a harness program and a tool server per episode); skips
without ``.venv-verifiers`` or Chromium/Playwright.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import agentgym
from agentgym.envs.imported import verifiers_client
from agentgym.envs.web.actions import parse_webarena

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_openenv_peer_webarena import needs_chromium, site_server  # noqa: E402, F401
from test_verifiers_export import (  # noqa: E402, F401
    _Expert,
    expert_model,
    export,
    ours,
    serve_http,
    vf_eval,
)

pytestmark = [pytest.mark.slow, pytest.mark.browser,
              pytest.mark.usefixtures("needs_chromium", "site_server"),
              pytest.mark.skipif(not verifiers_client.available(),
                                 reason="no .venv-verifiers (make setup-verifiers)")]
ENV = "webarena-lite"


@pytest.fixture()
def served_webarena(site_server: object) -> Iterator[str]:  # noqa: F811 - imported fixture
    yield from serve_http(ENV)


def _as_call(text: str) -> dict[str, Any] | str:
    """An expert action as the exported tools' call; ``stop [...]`` stays the final reply."""
    action = parse_webarena(text)
    if action.name == "stop":
        return text
    if action.name in ("click", "hover"):
        return {"name": action.name, "arguments": {"element": action.element}}
    assert action.name == "type", f"no tool mapping in this test for {text!r}"
    return {"name": "type", "arguments": {"element": action.element, "text": action.text,
                                          "press_enter": action.press_enter}}


def _expert_script(task_id: str) -> list[dict[str, Any] | str]:
    """The expert's actions on ``task_id``, resolved against agentgym's own observations."""
    env = agentgym.make(ENV, split="test")
    try:
        obs, _ = env.reset(options={"task_id": task_id})
        base = env.unwrapped
        actions = []
        for step in base.expert_actions(base.task) or []:
            text = step(obs["text"])
            actions.append(_as_call(text))
            obs, _, terminated, truncated, _ = env.step(text)
            if terminated or truncated:
                break
        return actions
    finally:
        env.close()


def test_verifiers_own_loop_plays_the_exported_webarena_twin_with_agentgyms_rewards(
        tmp_path: Path, served_webarena: str,
        expert_model: type[_Expert]) -> None:  # noqa: F811 - the imported fixture
    data = export(ENV, tmp_path / "export", served_webarena)
    assert {"click", "type", "stop"} <= {t["function"]["name"] for t in data["tools"]}
    rows = data["tasks"][:3]
    scripts = [_expert_script(row["task_id"]) for row in rows]
    assert all(isinstance(s[-1], str) and s[-1].startswith("stop [") for s in scripts)
    scripts[2] = [*scripts[2][:-1], "stop [a wrong answer 0000]"]
    expert_model.script = {row["prompt"]: s for row, s in zip(rows, scripts, strict=True)}
    theirs = vf_eval(tmp_path / "export", expert_model.url,  # type: ignore[attr-defined]
                     3, tmp_path / "runs")
    mine = {row["task_id"]: ours(ENV, row["task_id"], s) for row, s in zip(rows, scripts,
                                                                           strict=True)}
    assert theirs == mine
    assert sorted(theirs.values()) == [0.0, 1.0, 1.0]
