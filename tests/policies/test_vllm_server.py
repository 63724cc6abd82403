"""``vllm serve`` (the real OpenAI-compatible server of vLLM's CPU build) behind the ``openai:``
policy: exact token ids and log-probs back, and the trainer's weight push reaching the server.

Run by ``make test-vllm`` (marker ``vllm``; also ``slow``, so the default suite skips it).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from vllm_support import require_vllm_bin

from agentgym import PolicyError
from agentgym.policies import SamplingParams
from agentgym.policies.chat import ChatFormat
from agentgym.policies.openai_http import OpenAIPolicy
from agentgym.policies.vllm_check import LOGPROB_TOL, hf_logprobs, max_diff
from agentgym.trainers.weight_sync import WeightSync

pytestmark = [pytest.mark.vllm, pytest.mark.slow]
MESSAGES = [{"role": "user", "content": "Name a colour."}]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """``vllm serve`` on a private copy of SmolLM2's folder (the folder weight pushes rewrite)."""
    exe = require_vllm_bin()
    from agentgym.models import resolve_model_path

    folder = tmp_path_factory.mktemp("served") / "weights"
    shutil.copytree(resolve_model_path("smollm2-135m"), folder)
    port = _free_port()
    log = open(folder.parent / "server.log", "wb")  # noqa: SIM115
    import agentgym.policies.vllm_worker as worker

    env = {**os.environ, "VLLM_SERVER_DEV_MODE": "1", "VLLM_LOGGING_LEVEL": "WARNING",
           "PYTHONPATH": str(Path(worker.__file__).parent)}  # the worker extension's module
    proc = subprocess.Popen(
        [exe, "serve", str(folder), "--host", "127.0.0.1", "--port", str(port),
         "--worker-extension-cls", "vllm_worker.WorkerExtension",
         "--served-model-name", "smol", "--dtype", "float32", "--enforce-eager",
         "--max-model-len", "2048", "--logprobs-mode", "processed_logprobs", "--seed", "0",
         "--kv-cache-memory-bytes", str(1 << 30),  # not 92% of the RAM (the CPU default)
         "--no-enable-chunked-prefill", "--max-num-batched-tokens", "4096"],  # seeds on CPU
        stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 600
    try:
        while True:
            if proc.poll() is not None:
                tail = (folder.parent / "server.log").read_text()[-3000:]
                pytest.fail(f"vllm serve exited:\n{tail}")
            try:
                if httpx.get(base + "/v1/models", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("vllm serve did not answer in 600 s")
            time.sleep(1)
        yield {"base": base, "folder": folder}
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture(scope="module")
def tokenizer(server: dict[str, Any]) -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(server["folder"])


def _ask(server: dict[str, Any], temperature: float = 0.0, seed: int | None = None) -> Any:
    policy = OpenAIPolicy(server["base"] + "/v1", model="smol", return_token_ids=True)
    return policy.generate(MESSAGES, sampling=SamplingParams(
        max_tokens=8, temperature=temperature, seed=seed))


def test_openai_policy_gets_token_ids_and_log_probs_from_vllm_serve(
        server: dict[str, Any], tokenizer: Any) -> None:
    from transformers import AutoModelForCausalLM

    gen = _ask(server, temperature=1.0, seed=5)
    assert gen.token_ids and len(gen.logprobs) == len(gen.token_ids)
    assert tokenizer.decode(gen.token_ids, skip_special_tokens=True) == gen.text
    model = AutoModelForCausalLM.from_pretrained(server["folder"]).eval()
    prompt = ChatFormat(tokenizer).prompt_ids(MESSAGES)
    assert max_diff(gen.logprobs, hf_logprobs(model, prompt, gen.token_ids)) < LOGPROB_TOL
    assert _ask(server, temperature=1.0, seed=5).token_ids == gen.token_ids  # seeded


def test_weight_push_to_vllm_serve_changes_what_it_samples(
        server: dict[str, Any], tokenizer: Any) -> None:
    import torch
    from transformers import AutoModelForCausalLM

    class ServerPolicy:  # the openai: policy has no reload_weights: the URL does it
        version = 0

    prompt = ChatFormat(tokenizer).prompt_ids(MESSAGES)
    original = AutoModelForCausalLM.from_pretrained(server["folder"]).eval()
    model = AutoModelForCausalLM.from_pretrained(server["folder"]).eval()
    with torch.no_grad():
        gen = torch.Generator().manual_seed(2)
        for name, p in model.named_parameters():
            if "layers." in name and p.dim() == 2:
                p.add_(torch.randn(p.shape, generator=gen) * 0.02)
    policy = ServerPolicy()
    WeightSync(policy, server["folder"], server["base"] + "/collective_rpc").push(model, tokenizer)
    assert policy.version == 1
    after = _ask(server)
    assert max_diff(after.logprobs, hf_logprobs(model, prompt, after.token_ids)) < LOGPROB_TOL
    stale = hf_logprobs(original, prompt, after.token_ids)
    assert max_diff(after.logprobs, stale) > 20 * LOGPROB_TOL  # not the weights it started with


def test_a_push_that_changes_the_tied_embeddings_reaches_the_server(
        server: dict[str, Any], tokenizer: Any) -> None:
    """SmolLM2's ``lm_head`` is its embedding: the server's own reload leaves the CPU build's
    packed copy of the head at the old weights; the worker extension's rebuild fixes it."""
    import torch
    from transformers import AutoModelForCausalLM

    class ServerPolicy:
        version = 0

    prompt = ChatFormat(tokenizer).prompt_ids(MESSAGES)
    before = AutoModelForCausalLM.from_pretrained(server["folder"]).eval()
    model = AutoModelForCausalLM.from_pretrained(server["folder"]).eval()
    with torch.no_grad():
        emb = model.get_input_embeddings().weight
        emb.add_(torch.randn(emb.shape, generator=torch.Generator().manual_seed(3)) * 0.05)
    assert model.get_output_embeddings().weight.data_ptr() == emb.data_ptr()  # tied
    WeightSync(ServerPolicy(), server["folder"], server["base"] + "/collective_rpc").push(
        model, tokenizer)
    after = _ask(server)
    assert max_diff(after.logprobs, hf_logprobs(model, prompt, after.token_ids)) < LOGPROB_TOL
    assert max_diff(after.logprobs, hf_logprobs(before, prompt, after.token_ids)) \
        > 20 * LOGPROB_TOL


def test_a_wrong_reload_endpoint_is_a_policy_error(server: dict[str, Any], tmp_path: Path,
                                                   tokenizer: Any) -> None:
    from transformers import AutoModelForCausalLM

    class ServerPolicy:
        version = 7

    model = AutoModelForCausalLM.from_pretrained(server["folder"])
    policy = ServerPolicy()
    with pytest.raises(PolicyError, match="weight reload"):
        WeightSync(policy, tmp_path / "w", server["base"] + "/no_such_endpoint").push(model)
    assert policy.version == 7
