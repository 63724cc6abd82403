"""Time per GRPO step: agentgym's trainer vs TRL's GRPOTrainer, same model, prompts and batch, CPU.

    python benchmarks/trainer_step.py [--prompts 4] [--generations 8] [--steps 3] [--tokens 12]

Both trainers start from the same SmolLM2-135M-Instruct fp32 weights and run one warm-up step,
then ``--steps`` timed steps. A step is everything from the start of rollouts to the end of the
optimizer step: ``prompts x generations`` completions of at most ``--tokens`` new tokens at
T=1, rewards, advantages, one forward/backward over the whole batch (one micro-batch) and the
AdamW step. Prompts are the arith env's train tasks in the order agentgym's sampler draws them,
given to TRL as the same chat messages (system instructions + task) with shuffling off.
Both use ``beta=0``, lr 1e-5, ``torch.set_num_threads(--threads)``.

Prints per trainer the median step time and generated tokens/s, and the ratio of the fastest
steps (the least disturbed by other processes on a shared CPU); the last line is
``trainer_vs_trl_step_time_ratio=<agentgym median / TRL median>`` (lower is better).
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import tempfile
import time
from typing import Any

import torch

from agentgym import spec
from agentgym.envs.arith.env import ArithEnv, read_number
from agentgym.models import load_model_and_tokenizer
from agentgym.trainers import GRPOTrainer, load_config


def agentgym_steps(args: argparse.Namespace, out: str) -> tuple[list[float], list[dict], list[str]]:
    """Step times, metrics and the task ids used, for agentgym's trainer."""
    cfg = load_config(None, [
        "env=arith/add-v0", "model=smollm2-135m", "device=cpu", "dtype=float32",
        f"tasks_per_step={args.prompts}", f"group_size={args.generations}",
        f"max_new_tokens={args.tokens}", f"micro_batch_size={args.prompts * args.generations}",
        f"num_envs={args.prompts * args.generations}", "max_batch_size=256", "lr=1e-5",
        f"steps={args.steps + 1}", "eval_every=0", "eval_at_start=false", "save_every=0",
        "tensorboard=false", "progress=false", f"output_dir={out}",
        f"torch_threads={args.threads}",
    ])
    trainer = GRPOTrainer(cfg)
    trainer.setup()
    times, metrics, tasks = [], [], []
    try:
        for _ in range(args.steps + 1):
            position = trainer.sampler.state_dict()
            tasks += trainer.sampler.take(args.prompts)
            trainer.sampler.load_state_dict(position)
            t0 = time.perf_counter()
            metrics.append(trainer.step())
            times.append(time.perf_counter() - t0)
    finally:
        trainer.close()
    return times[1:], metrics[1:], tasks


def trl_steps(
    args: argparse.Namespace, task_ids: list[str], out: str
) -> tuple[list[float], list[int]]:
    """Step times and generated tokens per step for TRL's GRPOTrainer."""
    from datasets import Dataset
    from transformers import TrainerCallback
    from trl import GRPOConfig
    from trl import GRPOTrainer as TRLGRPOTrainer

    tasks = spec("arith").load_tasks()
    system = ArithEnv.instructions
    rows = [{"prompt": [{"role": "system", "content": system},
                        {"role": "user", "content": tasks.get(t).prompt}],
             "answer": tasks.get(t).data["answer"]} for t in task_ids]
    generated: list[int] = []

    def reward(completions: list[Any], answer: list[int], **kwargs: Any) -> list[float]:
        ids = kwargs.get("completion_ids") or []
        generated.append(sum(len(x) for x in ids))
        texts = [c[0]["content"] if isinstance(c, list) else c for c in completions]
        return [float(read_number(t) == a) for t, a in zip(texts, answer, strict=True)]

    class Timer(TrainerCallback):
        def __init__(self) -> None:
            self.times: list[float] = []
            self._t0 = 0.0

        def on_step_begin(self, *a: Any, **k: Any) -> None:
            self._t0 = time.perf_counter()

        def on_step_end(self, *a: Any, **k: Any) -> None:
            self.times.append(time.perf_counter() - self._t0)

    batch = args.prompts * args.generations
    config = GRPOConfig(
        output_dir=out, per_device_train_batch_size=batch, gradient_accumulation_steps=1,
        num_generations=args.generations, max_completion_length=args.tokens, temperature=1.0,
        beta=0.0, learning_rate=1e-5, max_steps=args.steps + 1, use_cpu=True, bf16=False,
        report_to="none", save_strategy="no", logging_steps=1000, shuffle_dataset=False,
        seed=0, disable_tqdm=True,
    )
    model, tokenizer = load_model_and_tokenizer("smollm2-135m")
    model.train()
    timer = Timer()
    trainer = TRLGRPOTrainer(model=model, processing_class=tokenizer, reward_funcs=reward,
                             args=config, train_dataset=Dataset.from_list(rows),
                             callbacks=[timer])
    trainer.train()
    return timer.times[1:], generated[1:]


def main() -> None:
    """Run both trainers and print the comparison."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--prompts", type=int, default=4)
    p.add_argument("--generations", type=int, default=8)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--tokens", type=int, default=12)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    logging.basicConfig(level=logging.WARNING)
    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        ours, metrics, task_ids = agentgym_steps(args, f"{tmp}/agentgym")
        theirs, trl_generated = trl_steps(args, task_ids, f"{tmp}/trl")
    ours_med, trl_med = statistics.median(ours), statistics.median(theirs)
    gen = statistics.mean(m["response_tokens"] * m["episodes"] for m in metrics)
    trl_gen = statistics.mean(trl_generated) if trl_generated else float("nan")
    w = sys.stdout.write
    w(f"batch: {args.prompts} prompts x {args.generations} generations, <= {args.tokens} new "
      f"tokens, {args.steps} timed steps, {args.threads} threads\n")
    w(f"agentgym: step {ours_med:.2f} s (all: {', '.join(f'{t:.2f}' for t in ours)}), "
      f"rollout {statistics.median(m['rollout_s'] for m in metrics):.2f} s, "
      f"update {statistics.median(m['update_s'] for m in metrics):.2f} s, "
      f"{gen:.0f} generated tokens/step, {gen / ours_med:.1f} tok/s\n")
    w(f"trl:      step {trl_med:.2f} s (all: {', '.join(f'{t:.2f}' for t in theirs)}), "
      f"{trl_gen:.0f} generated tokens/step, {trl_gen / trl_med:.1f} tok/s\n")
    w(f"fastest step ratio (least disturbed by other load): {min(ours) / min(theirs):.3f}\n")
    w(f"trainer_vs_trl_step_time_ratio={ours_med / trl_med:.3f}\n")


if __name__ == "__main__":
    main()
