"""Rollouts from vLLM's CPU build against the in-process ``hf`` policy: same model, same prompts.

    python benchmarks/vllm_rollouts.py [--tokens 32] [--batches 1,8,64] [--steps 2] [--skip-train]

Needs ``make setup-vllm`` (vLLM in .venv-vllm). Both policies serve SmolLM2-135M-Instruct in fp32
on the CPU. The prompts are the arith env's train tasks as the trainer templates them (system
instructions + task). For each batch size B, B requests are sent at once (T=1, seeded, at most
``--tokens`` new tokens each) after one warm-up batch, and generated tokens / wall seconds is
reported; the log-prob agreement of the vLLM samples with a transformers forward pass is checked
on the way (largest |difference| printed). Then the GRPO trainer runs the arith config with each
policy (``policy: ""`` and ``policy: vllm:smollm2-135m``) for one warm-up step and ``--steps``
timed steps: the median step time and its rollout / update parts are printed (the vLLM update
includes the weight push: save_pretrained + load into the engine).

The last line is ``vllm_vs_hf_rollout_tokens_per_s_ratio=<vLLM / HF tokens/s at the largest
batch>`` (higher is better for vLLM).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from typing import Any

from agentgym import spec
from agentgym.envs.arith.env import ArithEnv
from agentgym.policies import SamplingParams
from agentgym.policies.chat import ChatFormat
from agentgym.policies.vllm_check import hf_logprobs, max_diff


def prompts(tokenizer: Any, n: int) -> list[list[int]]:
    """``n`` arith train prompts as exact ids (cycled when n exceeds the split)."""
    train = spec("arith").load_tasks().split("train")
    fmt = ChatFormat(tokenizer)
    return [fmt.prompt_ids([{"role": "system", "content": ArithEnv.instructions},
                            {"role": "user", "content": train[i % len(train.ids())].prompt}])
            for i in range(n)]


async def _batch(policy: Any, batch: list[list[int]], tokens: int, seed: int) -> list[Any]:
    return list(await asyncio.gather(*(
        policy.agenerate([], sampling=SamplingParams(max_tokens=tokens, temperature=1.0,
                                                     seed=seed + i), prompt_token_ids=p)
        for i, p in enumerate(batch))))


def tokens_per_s(policy: Any, batch: list[list[int]], tokens: int) -> tuple[float, list[Any]]:
    """Generated tokens / wall seconds for one concurrent batch (after a warm-up batch)."""
    async def go() -> tuple[float, list[Any]]:
        await _batch(policy, batch[:2], tokens, seed=999)
        t0 = time.perf_counter()
        gens = await _batch(policy, batch, tokens, seed=0)
        return sum(len(g.token_ids) for g in gens) / (time.perf_counter() - t0), gens

    return asyncio.run(go())


def step_times(policy: str, steps: int) -> dict[str, float]:
    """Median step, rollout and update seconds of the arith GRPO config with ``policy``."""
    from agentgym.trainers import GRPOTrainer, load_config

    with tempfile.TemporaryDirectory() as out:
        cfg = load_config("configs/grpo_arith_cpu.yaml", [
            f"policy={policy}", f"steps={steps + 1}", "eval_every=0", "eval_at_start=false",
            "save_every=0", "tensorboard=false", "progress=false", f"output_dir={out}"])
        trainer = GRPOTrainer(cfg)
        trainer.setup()
        rows = []
        try:
            for _ in range(steps + 1):
                rows.append(trainer.step())
        finally:
            trainer.close()
    rows = rows[1:]
    return {k: statistics.median(r[k] for r in rows)
            for k in ("step_s", "rollout_s", "update_s", "gen_tokens_per_s")}


def main() -> None:
    """Run both policies, print the figures and the ratio line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--batches", default="1,8,64")
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--skip-train", action="store_true")
    args = parser.parse_args()
    batches = [int(b) for b in args.batches.split(",")]

    from agentgym.policies.hf import HFPolicy
    from agentgym.policies.vllm_engine import VLLMPolicy

    t0 = time.perf_counter()
    vllm = VLLMPolicy("smollm2-135m")
    print(f"vllm engine start: {time.perf_counter() - t0:.1f} s (vllm {vllm.worker.version})")
    hf = HFPolicy("smollm2-135m", max_batch_size=max(batches))
    rates: dict[str, dict[int, float]] = {"vllm": {}, "hf": {}}
    try:
        all_prompts = prompts(vllm.tokenizer, max(batches))
        for b in batches:
            rate, gens = tokens_per_s(vllm, all_prompts[:b], args.tokens)
            rates["vllm"][b] = rate
            diff = max(max_diff(g.logprobs, hf_logprobs(hf.model, p, g.token_ids))
                       for p, g in zip(all_prompts[:b][:4], gens[:4], strict=True))
            rates["hf"][b], _ = tokens_per_s(hf, all_prompts[:b], args.tokens)
            print(f"batch {b:3d}: vllm {rates['vllm'][b]:8.1f} tok/s   hf {rates['hf'][b]:8.1f} "
                  f"tok/s   ratio {rates['vllm'][b] / rates['hf'][b]:.2f}   "
                  f"max |logprob vllm - hf| {diff:.2e}")
    finally:
        vllm.close()
        hf.close()
    if not args.skip_train:
        for name, spec_ in (("hf", ""), ("vllm", "vllm:smollm2-135m")):
            s = step_times(spec_, args.steps)
            print(f"trainer step ({name}): median {s['step_s']:.2f} s (rollout "
                  f"{s['rollout_s']:.2f} s, update+push {s['update_s']:.2f} s, "
                  f"{s['gen_tokens_per_s']:.1f} gen tok/s)")
    b = max(batches)
    print(f"vllm_vs_hf_rollout_tokens_per_s_ratio={rates['vllm'][b] / rates['hf'][b]:.3f}")


if __name__ == "__main__":
    main()
