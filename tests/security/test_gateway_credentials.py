"""Gateway credentials (issue 35): no credential an agent can hold sets a reward or reaches
another episode, and no client can fill the gateway's episode table.

Before: one run-wide bearer token was every agent's ``OPENAI_API_KEY``; with it an agent posted
its own reward, added branches to (and read) sibling episodes, and opened episodes until the
gateway's 4,096 slots were full, so later agents aborted. Now each episode gets two keys of its
own: the agent's (chat in that episode only) and the scorer's (the episode's reward only), both
revoked when the episode is collected; the run token opens episodes but posts no reward; each
client (credential) holds at most ``max_episodes_per_client`` episodes at once.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from agentgym.gateway import Gateway, GatewayError, GatewayLimits, GatewayServer
from agentgym.policies.base import Generation, Policy, SamplingParams
from agentgym.policies.fake import FakeTokenizer

BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
RUN = "run-token-" + "x" * 30


class OkPolicy(Policy):
    """Answers "ok" and counts its calls."""

    name = "ok"
    tokenizer = FakeTokenizer()

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    async def agenerate(self, messages: list[dict[str, Any]], *, tools: Any = None,
                        sampling: SamplingParams, prompt_token_ids: list[int] | None = None,
                        episode: Any = None) -> Generation:
        """Answer "ok"."""
        self.calls += 1
        ids = self.tokenizer.encode("ok")
        return Generation("ok", ids, [0.0] * len(ids), prompt_token_ids=prompt_token_ids)


def _bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture
def server() -> GatewayServer:
    with GatewayServer(Gateway(OkPolicy(), limits=GatewayLimits(max_episodes_per_client=3)),
                       token=RUN) as s:
        yield s


def test_an_agent_key_reaches_its_own_episode_only(server: GatewayServer) -> None:
    a = server.gateway.open_episode("ep-a", client="harness")
    b = server.gateway.open_episode("ep-b", client="harness")
    chat = "/chat/completions"
    assert httpx.post(server.base_url("ep-a") + chat, json=BODY,
                      headers=_bearer(a.agent)).status_code == 200
    # another episode by path, by header, a new episode, and reading another's prompts
    assert httpx.post(server.base_url("ep-b") + chat, json=BODY,
                      headers=_bearer(a.agent)).status_code == 403
    assert httpx.post(server.url + "/v1" + chat, json=BODY, headers={
        **_bearer(a.agent), "X-Agentgym-Episode": "ep-b"}).status_code == 403
    assert httpx.post(server.base_url("ep-new") + chat, json=BODY,
                      headers=_bearer(a.agent)).status_code == 403
    assert httpx.get(f"{server.url}/episodes/ep-b", headers=_bearer(a.agent)).status_code == 403
    assert httpx.post(f"{server.url}/episodes", json={},
                      headers=_bearer(a.agent)).status_code == 403
    # the key alone names the episode (an agent given only the key and the plain /v1 URL)
    assert httpx.post(server.url + "/v1" + chat, json=BODY,
                      headers=_bearer(a.agent)).status_code == 200
    assert set(server.gateway.episodes) == {"ep-a", "ep-b"}
    assert not server.gateway.episodes["ep-b"].branches
    assert b.agent != a.agent


def test_only_the_episode_reward_key_posts_its_reward(server: GatewayServer) -> None:
    a = server.gateway.open_episode("ep-a", client="harness")
    b = server.gateway.open_episode("ep-b", client="harness")
    url = f"{server.url}/episodes/ep-a/reward"
    for key in (a.agent, RUN, b.reward, b.agent):  # the agent's, the run's, another episode's
        r = httpx.post(url, json={"reward": 1.0}, headers=_bearer(key))
        assert r.status_code == 403, (key, r.text)
    assert server.gateway.episodes["ep-a"].reward is None
    ok = httpx.post(url, json={"reward": 0.25}, headers=_bearer(a.reward))
    assert ok.status_code == 200
    assert server.gateway.episodes["ep-a"].reward == 0.25
    # a reward key chats nowhere
    assert httpx.post(server.base_url("ep-a") + "/chat/completions", json=BODY,
                      headers=_bearer(a.reward)).status_code == 403


def test_keys_die_with_their_episode(server: GatewayServer) -> None:
    a = server.gateway.open_episode("ep-a", client="harness")
    server.gateway.collect("ep-a")
    assert httpx.post(server.url + "/v1/chat/completions", json=BODY,
                      headers=_bearer(a.agent)).status_code == 401
    assert httpx.post(f"{server.url}/episodes/ep-a/reward", json={"reward": 1},
                      headers=_bearer(a.reward)).status_code in (401, 404)
    assert "ep-a" not in server.gateway.episodes


def test_the_run_token_opens_episodes_and_gets_their_keys(server: GatewayServer) -> None:
    r = httpx.post(f"{server.url}/episodes", json={"episode": "ep-h"}, headers=_bearer(RUN))
    assert r.status_code == 200
    keys = r.json()
    assert keys["episode"] == "ep-h" and keys["agent_key"] and keys["reward_key"]
    assert httpx.post(server.base_url("ep-h") + "/chat/completions", json=BODY,
                      headers=_bearer(keys["agent_key"])).status_code == 200
    assert httpx.post(f"{server.url}/episodes/ep-h/reward", json={"reward": 1},
                      headers=_bearer(keys["reward_key"])).status_code == 200


def test_one_client_cannot_fill_the_episode_table(server: GatewayServer) -> None:
    for i in range(3):
        server.gateway.open_episode(f"greedy-{i}", client="greedy")
    with pytest.raises(GatewayError) as e:
        server.gateway.open_episode("greedy-3", client="greedy")
    assert e.value.status == 429
    server.gateway.open_episode("polite-0", client="polite")  # another client still opens
    # over HTTP the run token is one client: its fourth open episode is refused
    codes = [httpx.post(f"{server.url}/episodes", json={}, headers=_bearer(RUN)).status_code
             for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    # collecting frees the client's slots
    server.gateway.collect("greedy-0")
    server.gateway.open_episode("greedy-4", client="greedy")
