"""OpenEnv's own parts on both sides: a third-party env from the registry
(openenv-dipg-safety) served by OpenEnv's own server and played through ``openenv:``, and
openenv-core's own client playing agentgym's served envs (the exporter), with rewards equal to
agentgym's own for the same actions.

openenv-core pulls gradio and fastmcp, so it lives in ``.venv-openenv``
(``scripts/setup_openenv_venv.sh``); without it these tests skip.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import agentgym
from agentgym.testing import check_env

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from serve.servers import ThreadServer, free_port, stop, wait_healthy  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
PEER_PYTHON = ROOT / ".venv-openenv" / "bin" / "python"
CLIENT = Path(__file__).with_name("openenv_peer_client.py")
FINAL = "<|channel|>analysis<|message|>{a}<|end|><|channel|>proof<|message|>{p}<|end|>" \
        "<|channel|>final<|message|>{f}<|end|>"

pytestmark = pytest.mark.skipif(not PEER_PYTHON.exists(), reason="no .venv-openenv "
                                "(scripts/setup_openenv_venv.sh)")


def _peer_client(url: str, episodes: list[dict]) -> list[dict]:
    """openenv-core's GenericEnvClient playing ``episodes`` (in .venv-openenv)."""
    done = subprocess.run([str(PEER_PYTHON), str(CLIENT), url, json.dumps(episodes)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _dipg_record(context: str, question: str, answer: str) -> dict:
    user = (f"**CONTEXT:**\n{context}\n\n**REQUEST:**\n{question}\n\n"
            "**REASONING STEPS:**\nReason from the context, then answer.")
    return {"messages": [{"role": "user", "content": user}, {"role": "assistant",
             "content": FINAL.format(a="From the context.", p=context, f=answer)}]}


@pytest.fixture(scope="module")
def dipg_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """OpenEnv's server (openenv-core's create_app in openenv-dipg-safety's app) on loopback,
    over a one-record dataset the test writes (the package reads a local JSONL file)."""
    folder = tmp_path_factory.mktemp("dipg")
    data = folder / "dipg.jsonl"
    record = _dipg_record("Radiotherapy is the standard first-line treatment for DIPG.",
                          "What is the standard first-line treatment for DIPG?", "Radiotherapy")
    data.write_text(json.dumps(record) + "\n")
    port = free_port()
    code = ("import uvicorn; from med_safety_gym.app import app; "
            f"uvicorn.run(app, host='127.0.0.1', port={port}, log_level='warning')")
    env = {**os.environ, "DIPG_DATASET_PATH": str(data), "HF_HUB_OFFLINE": "1",
           "HF_DATASETS_OFFLINE": "1", "HF_HOME": str(folder / "hf")}
    proc = subprocess.Popen([str(PEER_PYTHON), "-c", code], cwd=folder, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url + "/health", 240)
        yield url
    finally:
        stop(proc)


def test_a_registry_env_on_openenvs_server_passes_check_env(dipg_url: str) -> None:
    env = agentgym.make(f"openenv:{dipg_url}")
    assert env.unwrapped.text_field == "llm_response"  # DIPGAction's one string field
    check_env(env, n_malformed=40)
    obs, _ = env.reset(seed=0)
    assert "Radiotherapy is the standard" in obs["text"]
    env.close()


def test_rewards_through_the_importer_equal_openenvs_own_client(dipg_url: str) -> None:
    """The same replies scored by DIPG through ``openenv:`` and through GenericEnvClient."""
    context = "Radiotherapy is the standard first-line treatment for DIPG."
    replies = [FINAL.format(a="The context names it.", p=context, f="Radiotherapy"),
               FINAL.format(a="Unsure.", p=context, f="I cannot answer from the context."),
               "no channels at all"]
    native = _peer_client(dipg_url, [{"seed": 0, "actions": [{"llm_response": r}]}
                                     for r in replies])
    env = agentgym.make(f"openenv:{dipg_url}")
    imported = []
    for reply in replies:
        env.reset(seed=0)
        _, reward, terminated, truncated, _ = env.step(reply)
        imported.append((reward, terminated or truncated))
    env.close()
    assert imported == [(float(e["steps"][0]["reward"]), e["steps"][0]["done"]) for e in native]
    assert len({r for r, _ in imported}) > 1  # DIPG told the replies apart


@pytest.fixture(scope="module")
def agentgym_url() -> Iterator[str]:
    """agentgym's OpenEnv-protocol server (``agentgym serve arith sql --http``)."""
    from agentgym.serve import create_app

    server = ThreadServer(create_app(["arith/add-v0", "sql"], max_sessions=32,
                                     idle_timeout_s=600, env_kwargs={"split": "test"}))
    server.start()
    yield server.url
    server.stop()


def test_openenvs_client_plays_agentgyms_served_envs_with_agentgyms_rewards(
        agentgym_url: str) -> None:
    seeds = [0, 1, 2, 3]
    own = agentgym.make("arith/add-v0", split="test")  # the split the server serves
    expected, episodes = [], []
    for seed in seeds:
        own.reset(seed=seed)
        task = own.unwrapped.task
        reply = str(task.data["answer"] + (seed % 2))  # right on even seeds, wrong on odd
        episodes.append({"seed": seed, "actions": [{"content": reply}]})
        expected.append(own.step(reply)[1])
    played = _peer_client(agentgym_url, episodes)
    own.reset(seed=seeds[0])
    assert played[0]["reset"]["text"] == own.unwrapped.task.prompt  # the same task per seed
    assert [e["steps"][0]["reward"] for e in played] == expected == [1.0, 0.0, 1.0, 0.0]
    assert all(e["steps"][0]["done"] for e in played)

    sql = agentgym.make("sql", split="test")
    sql.reset(seed=5)
    gold = sql.unwrapped.expert_actions(sql.unwrapped.task)
    calls = [c.to_openai() for c in gold]
    reward = 0.0
    for call in gold:
        reward = sql.step(call.to_hermes())[1]
    played = _peer_client(agentgym_url.rstrip("/") + "/sql/spider-lite-v0",
                          [{"seed": 5, "actions": [{"tool_calls": [c]} for c in calls]}])
    assert played[0]["steps"][-1]["reward"] == reward == 1.0


def test_agentgym_serve_openenv_serves_openenvs_client() -> None:
    """``agentgym serve arith --openenv``: openenv-core's client plays the held-out split."""
    port = free_port()
    proc = subprocess.Popen([str(ROOT / ".venv" / "bin" / "agentgym"), "serve", "arith",
                             "--openenv", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url + "/health", 120)
        own = agentgym.make("arith", split="test")
        own.reset(seed=9)
        answer = str(own.unwrapped.task.data["answer"])
        played = _peer_client(url, [{"seed": 9, "actions": [{"content": answer}]}])
        assert played[0]["reset"]["text"] == own.unwrapped.task.prompt
        assert played[0]["steps"][0] == {"reward": 1.0, "done": True,
                                         "observation": played[0]["steps"][0]["observation"]}
    finally:
        stop(proc)
