"""openenv-core's own client (``GenericEnvClient``, in ``.venv-openenv``) plays agentgym's
WebArena-Lite twin (``webarena-lite``, the bundled sites and Chromium) served by agentgym's
OpenEnv-protocol server: the scripted expert's actions on read-only tasks (they only look pages
up and answer), and one episode with a wrong answer; every step's reward equals
``agentgym.make("webarena-lite")`` stepping the same actions in-process.

Slow (Chromium); skips without ``.venv-openenv`` or without Chromium/Playwright. The sites
server is the WebArena tests' own fixture (tests/envs/webarena/conftest.py).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import agentgym

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_openenv_peer import PEER_PYTHON, ThreadServer, _peer_client  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "webarena_fixtures", Path(__file__).resolve().parents[1] / "webarena" / "conftest.py")
assert _spec is not None and _spec.loader is not None
_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fixtures)
site_server = _fixtures.site_server
needs_chromium = _fixtures.needs_chromium

ENV = "webarena-lite"
READ_ONLY = re.compile(r"^(click|goto|scroll|hover|go_back|stop) ")
"""Actions that only read pages (no typing, no forms): a read-only task's expert uses these."""

pytestmark = [pytest.mark.slow, pytest.mark.browser,
              pytest.mark.usefixtures("needs_chromium", "site_server"),
              pytest.mark.skipif(not PEER_PYTHON.exists(),
                                 reason="no .venv-openenv (scripts/setup_openenv_venv.sh)")]


@pytest.fixture(scope="module")
def webarena_url(site_server: object) -> Iterator[str]:
    """agentgym's OpenEnv-protocol server (``agentgym serve webarena-lite --openenv``)."""
    from agentgym.serve import create_app

    server = ThreadServer(create_app([ENV], max_sessions=4, idle_timeout_s=600,
                                     env_kwargs={"split": "test"}))
    server.start()
    yield server.url
    server.stop()


def _play(env: agentgym.AgentEnv, seed: int, actions: list[str]) -> list[float]:
    """agentgym's own rewards for ``actions`` on ``seed``'s task, in-process."""
    env.reset(seed=seed)
    rewards = []
    for action in actions:
        _, reward, terminated, truncated, _ = env.step(action)
        rewards.append(reward)
        if terminated or truncated:
            break
    return rewards


def _expert_plans(env: agentgym.AgentEnv, want: int) -> list[tuple[int, list[str], list[float]]]:
    """The first ``want`` seeds whose task the expert solves with read-only actions: each
    seed's action strings (resolved against the observations) and agentgym's rewards."""
    plans = []
    for seed in range(40):
        obs, _ = env.reset(seed=seed)
        steps = env.unwrapped.expert_actions(env.unwrapped.task) or []
        actions, rewards = [], []
        for step in steps:
            action = step(obs["text"])
            if not READ_ONLY.match(action):
                break
            obs, reward, terminated, truncated, _ = env.step(action)
            actions.append(action)
            rewards.append(reward)
            if terminated or truncated:
                break
        if len(actions) == len(steps) > 1 and rewards[-1] == 1.0:
            plans.append((seed, actions, rewards))
            if len(plans) == want:
                return plans
    raise AssertionError(f"fewer than {want} read-only expert tasks in the first 40 seeds")


def test_openenvs_client_plays_the_webarena_twin_with_agentgyms_rewards(
        webarena_url: str) -> None:
    own = agentgym.make(ENV, split="test")
    try:
        plans = _expert_plans(own, 2)
        seed, actions, _ = plans[0]
        wrong = [*actions[:-1], "stop [a wrong answer 0000]"]
        plans.append((seed, wrong, _play(own, seed, wrong)))
    finally:
        own.close()
    played = _peer_client(webarena_url, [{"seed": s, "actions": [{"content": a} for a in acts]}
                                         for s, acts, _ in plans])
    assert [[s["reward"] for s in e["steps"]] for e in played] == [r for *_, r in plans]
    assert [r[-1] for *_, r in plans] == [1.0, 1.0, 0.0]  # the expert pays, the wrong answer not
    assert all(e["steps"][-1]["done"] for e in played)
