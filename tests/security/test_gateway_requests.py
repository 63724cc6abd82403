"""Attacks on the gateway's HTTP surface, against the real server over loopback.

Each test proves the attack failed by the status the server answered and by the policy never
being called (``policy.calls`` stays 0) or by what it was asked to do.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import httpx
import pytest

from agentgym.gateway import Gateway, GatewayLimits, GatewayServer
from agentgym.policies.base import Generation, Policy, SamplingParams
from agentgym.policies.fake import FakeTokenizer
from agentgym.serve.guard import GuardSettings, guard_for

BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


class CountingPolicy(Policy):
    """A token-level policy that answers "ok" and counts calls and requested budgets."""

    name = "counting"
    tokenizer = FakeTokenizer()

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0
        self.max_tokens: list[int] = []

    async def agenerate(self, messages: list[dict[str, Any]], *, tools: Any = None,
                        sampling: SamplingParams, prompt_token_ids: list[int] | None = None,
                        episode: Any = None) -> Generation:
        """Answer "ok" within the budget asked."""
        self.calls += 1
        self.max_tokens.append(sampling.max_tokens)
        ids = self.tokenizer.encode("ok")[: sampling.max_tokens]
        return Generation("ok", ids, [0.0] * len(ids), prompt_token_ids=prompt_token_ids)


def _server(guard: GuardSettings | None = None, **limits: Any) -> GatewayServer:
    return GatewayServer(Gateway(CountingPolicy(), limits=GatewayLimits(**limits)), guard=guard)


def _policy(server: GatewayServer) -> CountingPolicy:
    return server.gateway.policy  # type: ignore[return-value]


def test_dns_rebinding_host_is_refused() -> None:
    with _server() as s:
        r = httpx.post(f"{s.base_url('e1')}/chat/completions", json=BODY,
                       headers={"Host": "attacker.example"})
        assert r.status_code == 421
        assert _policy(s).calls == 0 and not s.gateway.episodes


def test_web_page_origin_is_refused() -> None:
    with _server() as s:
        r = httpx.post(f"{s.base_url('e1')}/chat/completions", json=BODY,
                       headers={"Origin": "https://evil.example"})
        assert r.status_code == 403
        assert _policy(s).calls == 0


def test_token_required_when_set_and_api_key_is_not_an_episode_then() -> None:
    with _server(guard_for("0.0.0.0", token="s3cret")) as s:
        url = f"{s.url}/v1/chat/completions"
        assert httpx.post(url, json=BODY).status_code == 401
        assert httpx.post(url, json=BODY, headers={"Authorization": "Bearer wrong"}
                          ).status_code == 401
        # the right token is the key; the episode must then come from the path or the header
        ok = httpx.post(url, json=BODY, headers={"Authorization": "Bearer s3cret"})
        assert ok.status_code == 400 and ok.json()["error"]["code"] == "episode"
        assert _policy(s).calls == 0
        good = httpx.post(f"{s.base_url('e1')}/chat/completions", json=BODY,
                          headers={"Authorization": "Bearer s3cret"})
        assert good.status_code == 200 and _policy(s).calls == 1


def test_oversized_body_is_refused_before_it_is_read() -> None:
    with _server(GuardSettings(max_body_bytes=10_000)) as s:
        big = {"model": "m", "messages": [{"role": "user", "content": "x" * 50_000}]}
        r = httpx.post(f"{s.base_url('e1')}/chat/completions", json=big)
        assert r.status_code == 413
        assert _policy(s).calls == 0


def test_max_tokens_is_capped_by_the_gateway() -> None:
    with _server(max_new_tokens=16) as s:
        r = httpx.post(f"{s.base_url('e1')}/chat/completions",
                       json={**BODY, "max_tokens": 10**9})
        assert r.status_code == 200
        assert _policy(s).max_tokens == [16]


def test_context_past_the_limit_is_refused() -> None:
    with _server(max_context_tokens=64) as s:
        long = {"model": "m", "messages": [{"role": "user", "content": "y" * 500}]}
        r = httpx.post(f"{s.base_url('e1')}/chat/completions", json=long)
        assert r.status_code == 400 and r.json()["error"]["code"] == "context_length_exceeded"
        assert _policy(s).calls == 0


@pytest.mark.parametrize("episode", ["..", "a" * 200, "a%2Fb", "x y"])
def test_bad_episode_ids_are_refused(episode: str) -> None:
    with _server() as s:
        r = httpx.post(f"{s.url}/v1/chat/completions", json=BODY,
                       headers={"X-Agentgym-Episode": episode})
        assert r.status_code == 400
        assert _policy(s).calls == 0 and not s.gateway.episodes


def test_episode_flood_is_refused() -> None:
    with _server(max_episodes=3) as s:
        codes = [httpx.post(f"{s.base_url(f'e{i}')}/chat/completions", json=BODY).status_code
                 for i in range(5)]
        assert codes == [200, 200, 200, 429, 429]
        assert _policy(s).calls == 3


@pytest.mark.parametrize("body", [
    {"messages": "not a list"}, {"messages": []}, {"messages": [{"role": "user"}], "n": 5},
    {"messages": [{"role": "user", "content": "x"}], "temperature": -1},
])
def test_malformed_requests_get_an_error_not_a_crash(body: dict[str, Any]) -> None:
    with _server() as s:
        r = httpx.post(f"{s.base_url('e1')}/chat/completions", json=body)
        assert r.status_code == 400 and r.json()["error"]["message"]
        assert _policy(s).calls == 0
        again = httpx.post(f"{s.base_url('e1')}/chat/completions", json=BODY)
        assert again.status_code == 200  # the server still serves


def test_reward_for_unknown_episode_and_non_finite_reward_are_refused() -> None:
    with _server() as s:
        assert httpx.post(f"{s.url}/episodes/nope/reward", json={"reward": 1}
                          ).status_code == 404
        httpx.post(f"{s.base_url('e1')}/chat/completions", json=BODY)
        r = httpx.post(f"{s.url}/episodes/e1/reward", content=b'{"reward": NaN}',
                       headers={"content-type": "application/json"})
        assert r.status_code == 400
        assert s.gateway.episodes["e1"].reward is None


def test_public_bind_needs_allow_public() -> None:
    out = subprocess.run([sys.executable, "-m", "agentgym.cli", "gateway", "fake", "--host",
                          "0.0.0.0", "--port", "1"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and "--allow-public" in out.stderr
