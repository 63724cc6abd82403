"""The web env base against the real Chromium: bad input, refused URLs, egress, tabs, crashes."""

from __future__ import annotations

import asyncio
import http.server
import os
import signal
import threading
from collections.abc import Iterator
from typing import Any

import psutil
import pytest

import agentgym
from agentgym.envs.web import WebEnv, web_tools
from agentgym.rollout import Engine, EpisodeRequest, RolloutConfig
from agentgym.sandboxes.browser import MARKER
from agentgym.testing.malformed import malformed_actions

pytestmark = pytest.mark.browser

WEB_BAD = [
    "click [999999]", "type [999999] [x] [0]", "goto [javascript:alert(1)]",
    "goto [file:///etc/passwd]",
    "goto [http://example.com/]", "goto [not a url]", "tab_focus [42]", "press [NoSuchKey+Q]",
    "mouse_click [5000] [5000]", "select [2] [nothing]", "hover [-1]", "scroll [sideways]",
    "click('abc')", "fill('1')", "__import__('os').system('true')", "click [1] [2] [3]",
]


class _Hits(http.server.BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self) -> None:  # noqa: N802
        type(self).hits.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"leak")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def forbidden_port() -> Iterator[tuple[int, type[_Hits]]]:
    """A loopback server the env is not allowed to reach; it records every request."""
    handler = type("Hits", (_Hits,), {"hits": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1], handler
    server.shutdown()


def _step_never_raises(env: Any, action: Any) -> tuple[dict, dict]:
    obs, reward, terminated, truncated, info = env.step(action)
    assert isinstance(obs["text"], str) and reward in (0.0, 1.0)
    if terminated or truncated:
        env.reset(options={"index": 0})
    return obs, info


def test_web_bad_actions_become_error_observations(forbidden_port) -> None:
    port, hits = forbidden_port
    env = agentgym.make("miniwob/click-test-v0", split="test", screenshot=False)
    try:
        env.reset(options={"index": 0})
        for action in [*WEB_BAD, f"goto [http://127.0.0.1:{port}/leak]",
                       f"goto('http://localhost:{port}/x')"]:
            obs, info = _step_never_raises(env, action)
            assert obs["text"].count("Error:") == 1, (action, obs["text"][:300])
            assert "Error" in obs["text"] and info["error"]
        assert hits.hits == []
    finally:
        env.close()


def test_egress_from_the_page_never_arrives(forbidden_port) -> None:
    port, hits = forbidden_port
    env = agentgym.make("miniwob/click-test-v0", split="test", screenshot=False)
    try:
        env.reset(options={"index": 0})
        base = env.unwrapped
        script = (f"fetch('http://127.0.0.1:{port}/fetch').catch(() => 0);"
                  f"new Image().src = 'http://localhost:{port}/img';")
        base.run_on_home_loop(base.session.page.evaluate(script))
        _, _, _, _, info = env.step("hover [2]")
        env.step("noop")
        assert hits.hits == []
        assert base.session.policy.blocked >= 2 and info["blocked_requests"] >= 1
    finally:
        env.close()


@pytest.mark.slow
def test_1000_malformed_actions() -> None:
    env = agentgym.make("miniwob/click-button-v0", split="test", screenshot=False)
    try:
        env.reset(options={"index": 1})
        actions = list(malformed_actions(1000 - len(WEB_BAD), seed=3,
                                         tool_names=web_tools().names())) + WEB_BAD
        errors = 0
        for action in actions:
            obs, info = _step_never_raises(env, action)
            errors += "error" in info
        assert errors > 900
        obs, info = env.reset(options={"index": 0})
        assert obs["text"].startswith("Task: Click on the")
    finally:
        env.close()


def test_sync_api_tabs_and_tool_calls() -> None:
    env = agentgym.make("miniwob/click-test-v0", split="test", screenshot=True)
    try:
        obs, info = env.reset(options={"index": 3})
        assert info["task_id"] == "click-test-3" and obs["images"][0][:4] == b"\x89PNG"
        obs, *_ = env.step("new_tab")
        assert "Tab 1 (current)" in obs["text"]
        obs, *_ = env.step('<tool_call>{"name": "tab_focus", "arguments": {"index": 0}}'
                           "</tool_call>")
        assert "Tab 0 (current)" in obs["text"] and "Click Me!" in obs["text"]
        obs, *_ = env.step("tab_focus('1')")
        obs, reward, terminated, *_ = env.step("close_tab")
        assert "Tabs:" not in obs["text"] and not terminated
        button = next(ln.split("]")[0].strip().lstrip("[") for ln in obs["text"].splitlines()
                      if "button 'Click Me!'" in ln)
        obs, reward, terminated, _, info = env.step(
            {"role": "assistant", "content": None, "tool_calls": [{"id": "1", "type": "function",
             "function": {"name": "click", "arguments": f'{{"element": {button}}}'}}]})
        assert (reward, terminated, info["success"]) == (1.0, True, True)
    finally:
        env.close()


def _browser_mains() -> set[int]:
    out = set()
    for child in psutil.Process().children(recursive=True):
        try:
            cmd = child.cmdline()
        except psutil.Error:
            continue
        if any(a.startswith(MARKER) for a in cmd) and not any(a.startswith("--type") for a in cmd):
            out.add(child.pid)
    return out


def _live_chromium() -> list[int]:
    out = []
    for child in psutil.Process().children(recursive=True):
        try:
            if "chrom" in child.name() and child.status() != psutil.STATUS_ZOMBIE:
                out.append(child.pid)
        except psutil.Error:
            continue
    return out


def _engine_run(policy: Any, requests: list[EpisodeRequest], num_envs: int) -> list[Any]:
    async def run() -> list[Any]:
        engine = Engine("miniwob/click-test-v0", policy, num_envs=num_envs,
                        config=RolloutConfig(max_turns=3, env_timeout_s=120),
                        env_kwargs={"split": "test", "screenshot": False})
        try:
            return await engine.arun(requests)
        finally:
            await engine.aclose()

    return asyncio.run(run())


def test_browser_killed_mid_episode_is_aborted_and_the_next_runs() -> None:
    from agentgym.policies.base import Generation
    from agentgym.policies.scripted import ScriptedPolicy

    killed: list[int] = []

    class KillOnce(ScriptedPolicy):
        async def agenerate(self, messages, *, sampling, episode=None, **kw):  # type: ignore[override]
            if episode is not None and episode.task_id == "click-test-0" and not killed:
                killed.extend(_browser_mains())
                for pid in killed:
                    os.kill(pid, signal.SIGKILL)
                return Generation(text="click [2]", finish_reason="stop")
            return await super().agenerate(messages, sampling=sampling, episode=episode, **kw)

    requests = [EpisodeRequest(task_id=f"click-test-{i}", group_id=str(i)) for i in range(3)]
    trajs = _engine_run(KillOnce(), requests, num_envs=1)
    assert killed
    first, *rest = trajs
    assert first.aborted and "browser" in first.reason and not first.success
    assert all(t.success and not t.aborted for t in rest)
    assert not any(psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE
                   for p in killed)
    assert _live_chromium() == []


@pytest.mark.slow
def test_16_concurrent_episodes_without_leaks() -> None:
    from agentgym.policies.scripted import ScriptedPolicy

    requests = [EpisodeRequest(task_id=f"click-test-{i}", group_id=str(i)) for i in range(32)]
    trajs = _engine_run(ScriptedPolicy(), requests, num_envs=16)
    assert len(trajs) == 32 and all(t.success for t in trajs)
    assert _live_chromium() == []
    assert _browser_mains() == set()


def test_web_env_subclass_contract() -> None:
    class Empty(WebEnv):
        pass

    env = Empty()
    with pytest.raises(NotImplementedError):
        env.reset()
    env.close()
    assert _live_chromium() == []
