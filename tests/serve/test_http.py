"""The reset/step/state server against a client written from OpenEnv's protocol docs."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from websockets.sync.client import connect

from agentgym import make
from agentgym.rollout import env_expert_actions

from .openenv_client import OpenEnvHTTP, OpenEnvWS, WSReply
from .servers import app_in_thread


def _answer(text: str) -> str:
    a, b = (int(x) for x in text.split("Compute ")[1].split(".")[0].split(" + "))
    return str(a + b)


def test_http_conformance_plays_an_episode(http_url):
    client = OpenEnvHTTP(http_url)
    assert client.health()["max_sessions"] == 8
    schema = client.schema()
    assert "content" in schema["action"]["properties"]
    first = client.reset(seed=5, episode_id="ep-1")
    assert first.done is False and first.reward is None
    assert first.observation["text"].startswith("Compute ")
    state = client.state()
    assert state.episode_id == "ep-1" and state.step_count == 0
    result = client.step({"content": _answer(first.observation["text"])})
    assert result.done is True and result.reward == 1.0
    assert result.metadata["terminated"] is True and result.metadata["info"]["success"] is True
    assert client.state().step_count == 1


def test_websocket_conformance_and_same_results_as_local(http_url):
    ws = OpenEnvWS(http_url.replace("http", "ws") + "/sql/spider-lite-v0/ws")
    local = make("sql")
    task_id = local.unwrapped.task_set.ids()[3]
    local.reset(options={"task_id": task_id})
    remote_first = ws.reset(task_id=task_id)
    assert remote_first.observation["text"] == local.render()
    for call in env_expert_actions(local):
        local_result = local.step([call])
        remote = ws.step({"tool_calls": [{"name": call.name, "arguments": call.arguments}]})
        assert remote.observation["text"] == local_result[0]["text"]
        assert remote.reward == local_result[1]
    assert remote.done and remote.reward == 1.0
    assert ws.state().step_count == 2
    ws.close()
    local.close()


JSON = {"content-type": "application/json"}


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status", "words"),
    [
        ("post", "/reset", {"content": b"{not json", "headers": JSON}, 400, "not valid JSON"),
        ("post", "/reset", {"content": b"{}"}, 415, "Content-Type: application/json"),
        ("post", "/reset", {"json": {"seed": -1}}, 422, "seed"),
        ("post", "/reset", {"json": {"bogus": 1}}, 422, "bogus"),
        ("post", "/reset", {"json": {"max_turns": 0}}, 422, "max_turns"),
        ("post", "/reset", {"json": {"task_id": "no-such-task"}}, 400, "no-such-task"),
        ("post", "/reset", {"json": {"session_id": "nope"}}, 404, "unknown session"),
        ("post", "/step", {"json": {"action": {"content": "1"}}}, 422, "session_id"),
        ("post", "/step", {"json": {"action": {"content": "1"}, "session_id": "x"}}, 404,
         "unknown session"),
        ("post", "/step", {"json": [1, 2]}, 422, "invalid request"),
        ("get", "/state", {"params": {"session_id": "x"}}, 404, "unknown session"),
        ("get", "/state", {}, 422, "session_id"),
        ("post", "/close", {"json": {}}, 422, "session_id"),
    ],
)
def test_bad_requests_get_4xx_with_a_message(http_url, method, path, kwargs, status, words):
    response = getattr(httpx, method)(http_url + path, **kwargs)
    assert response.status_code == status, response.text
    assert words in json.dumps(response.json())
    assert httpx.get(http_url + "/health").json()["status"] == "healthy"


def test_bad_actions_and_steps_out_of_turn(http_url):
    client = OpenEnvHTTP(http_url + "/sql/spider-lite-v0")
    client.reset(seed=1)
    bad = client.http.post("/step", json={"action": {"tool_calls": "x"},
                                           "session_id": client.session_id})
    assert bad.status_code == 422 and "tool_calls" in bad.json()["detail"]
    # a malformed tool call is the model's mistake: an error observation, not an HTTP error
    odd = client.step({"content": "", "tool_calls": [{"name": "submit", "arguments": "{oops"}]})
    assert odd.done is False and "not valid JSON" in odd.observation["text"]
    unknown = client.step({"content": '<tool_call>{"name": "rm", "arguments": {}}</tool_call>'})
    assert unknown.done is False and "unknown tool 'rm'" in unknown.observation["text"]
    client.step({"content": "", "tool_calls": [{"name": "submit", "arguments": {"query": "x"}}]})
    again = client.http.post("/step", json={"action": {"content": "3"},
                                             "session_id": client.session_id})
    assert again.status_code == 409 and "reset" in again.json()["detail"]


def test_websocket_bad_messages_get_error_replies(http_url):
    with connect(http_url.replace("http", "ws") + "/ws") as ws:
        for raw, code in [("{nope", "INVALID_JSON"), ("[1]", "VALIDATION_ERROR"),
                          ('{"type": "dance"}', "UNKNOWN_TYPE"),
                          ('{"type": "step", "data": {"content": "1"}}', "VALIDATION_ERROR"),
                          ('{"type": "reset", "data": {"seed": "x"}}', "VALIDATION_ERROR")]:
            ws.send(raw)
            reply = WSReply.model_validate_json(ws.recv(timeout=10))
            assert reply.type == "error" and reply.data["code"] == code, (raw, reply)
            assert reply.data["message"]
        ws.send(json.dumps({"type": "reset", "data": {"seed": 2}}))
        assert json.loads(ws.recv(timeout=10))["type"] == "observation"


def test_session_limit_and_idle_timeout():
    from agentgym.serve import create_app

    app = create_app("arith", max_sessions=2, idle_timeout_s=2.0)
    with app_in_thread(app) as url:
        ids = [httpx.post(url + "/reset", json={}).json()["metadata"]["session_id"]
               for _ in range(2)]
        full = httpx.post(url + "/reset", json={})
        assert full.status_code == 429 and "maximum of 2 sessions" in full.json()["detail"]
        with connect(url.replace("http", "ws") + "/ws") as ws:
            reply = json.loads(ws.recv(timeout=10))
            assert reply["data"]["code"] == "CAPACITY_REACHED"
        pool = app.state.served["arith/add-v0"].pool
        deadline = time.monotonic() + 10
        while len(pool) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(pool) == 0
        gone = httpx.post(url + "/step", json={"action": {"content": "1"}, "session_id": ids[0]})
        assert gone.status_code == 404 and "expired" in gone.json()["detail"]
        assert httpx.post(url + "/reset", json={}).status_code == 200


def test_close_frees_the_session(http_url):
    client = OpenEnvHTTP(http_url)
    client.reset()
    closed = client.http.post("/close", json={"session_id": client.session_id}).json()
    assert closed["closed"] is True
    assert client.http.get("/state", params={"session_id": client.session_id}).status_code == 404
