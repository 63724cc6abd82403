"""GRPO with rollouts from vLLM's CPU build: the arith config and the SQL GPU config, tiny.

After every step the trainer pushes its weights into the engine, so at the end the engine's
log-probs are those of the trained model. Run by ``make test-vllm`` (marker ``vllm``; also
``slow``, so the default suite skips it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from vllm_support import require_vllm

from agentgym.policies import SamplingParams
from agentgym.policies.chat import ChatFormat
from agentgym.policies.vllm_check import LOGPROB_TOL, hf_logprobs, max_diff

pytestmark = [pytest.mark.vllm, pytest.mark.slow, pytest.mark.timeout(3600)]  # a loaded CPU
ROOT = Path(__file__).resolve().parents[2]
TINY = ["steps=2", "tasks_per_step=2", "group_size=4", "max_new_tokens=8", "num_envs=8",
        "eval_every=0", "eval_at_start=false", "save_every=0", "tensorboard=false",
        "progress=false", "micro_batch_size=8", "lr=1e-4"]


def _train(config: str, tmp_path: Path, *overrides: str) -> dict[str, Any]:
    """Train; just before the trainer closes the engine, ask it for log-probs and compare them
    with the trained module's (the weights must have reached the engine)."""
    from agentgym import get_registry
    from agentgym.trainers import load_config
    from agentgym.trainers.async_grpo import async_trainer

    cfg = load_config(str(ROOT / "configs" / config),
                      [*TINY, f"output_dir={tmp_path / 'run'}", *overrides])
    cls = get_registry("trainers").load(cfg.algorithm)
    trainer = async_trainer(cls)(cfg) if cfg.async_rollouts else cls(cfg)
    seen: dict[str, Any] = {}
    close = trainer.close

    def check_then_close() -> None:
        try:
            policy = trainer.policy
            seen["name"], seen["version"] = policy.name, policy.version
            prompt = ChatFormat(policy.tokenizer).prompt_ids([{"role": "user", "content": "1+2?"}])
            gen = policy.generate([], sampling=SamplingParams(max_tokens=6, seed=1),
                                  prompt_token_ids=prompt)
            seen["diff"] = max_diff(gen.logprobs,
                                    hf_logprobs(trainer.model.eval(), prompt, gen.token_ids))
        finally:
            close()

    trainer.close = check_then_close
    seen["result"] = trainer.train()
    return seen


@pytest.mark.parametrize("async_rollouts", [False, True], ids=["sync", "async"])
def test_grpo_arith_with_vllm_rollouts(tmp_path: Path, async_rollouts: bool) -> None:
    require_vllm()
    seen = _train("grpo_arith_cpu.yaml", tmp_path, "policy=vllm:smollm2-135m",
                  f"async_rollouts={str(async_rollouts).lower()}")
    assert seen["name"] == "vllm" and seen["version"] == 2  # one weight push a step
    assert seen["diff"] < LOGPROB_TOL  # the engine samples from the trained weights


def test_async_multi_turn_with_partial_rollouts_and_a_staleness_bound(tmp_path: Path) -> None:
    """The multi-turn shop (three tool calls an episode) with vLLM rollouts, asynchronous:
    the generator runs up to one step ahead (``staleness_eta: 1``) and spare groups stop between
    turns and continue next step (``partial_rollouts``); every step still pushes its weights and
    trains on episodes at most eta versions old."""
    require_vllm()
    run = tmp_path / "run"
    seen = _train("grpo_arith_cpu.yaml", tmp_path, "policy=vllm:smollm2-135m",
                  "env=shop/price-v0", "max_turns=4", "max_tokens=1024", "steps=3",
                  "async_rollouts=true", "staleness_eta=1", "partial_rollouts=2",
                  "decoupled_ppo=true", "tis_cap=2.0", f"output_dir={run}")
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    steps = [r for r in rows if r.get("kind") == "train"]
    assert [int(r["step"]) for r in steps] == [1, 2, 3]
    assert all(r["train_tokens"] > 0 and 0 <= r["staleness"] <= 1 for r in steps)
    assert seen["name"] == "vllm" and seen["version"] == 3  # one push a step
    assert seen["diff"] < LOGPROB_TOL  # the engine samples from the trained weights


def test_the_sql_gpu_config_runs_on_the_cpu_build_with_tiny_sizes(tmp_path: Path) -> None:
    """configs/grpo_sql_vllm_gpu.yaml end to end: only the device, the model and sizes change,
    and DAPO's dynamic sampling is off. SmolLM2-135M solves no SQL task, so that filter drops
    every all-zero group, the step has nothing to train on and nothing is pushed (seen: version
    0, 290 s of refill rounds); off, the step trains on its groups and pushes once."""
    require_vllm()
    seen = _train("grpo_sql_vllm_gpu.yaml", tmp_path, "steps=1", "dynamic_sampling=false",
                  "model=smollm2-135m",
                  "policy=vllm:smollm2-135m", f"weight_sync_dir={tmp_path / 'weights'}",
                  "device=cpu", "dtype=float32", "max_turns=2", "max_new_tokens=16",
                  "max_tokens=1536", "group_size=2", "num_envs=4", "micro_batch_size=4",
                  "gradient_checkpointing=false", "warmup_steps=0", "eval_every=0",
                  "keep_checkpoints=1")
    assert seen["name"] == "vllm" and seen["version"] == 1
    assert seen["diff"] < LOGPROB_TOL
    assert (tmp_path / "weights" / "model.safetensors").is_file()
