"""Asynchronous vs synchronous GRPO under a long-tail policy latency (issue 17).

    python benchmarks/async_training.py [steps=12] [median=0.1] [sigma=1.5] [eta=2] [spare=2]
                                        [device=cpu]

The same task, model, seed and budget are trained three ways: synchronously, asynchronously with
``staleness_eta`` = eta, and asynchronously with APRIL's partial rollouts (``spare`` extra groups
per step). The model is the tiny random Llama (agentgym.trainers.tiny); the env is a two-turn
"reply with digits" task defined here (reward = share of digits, success at >= 0.5). Every
policy turn first waits a log-normal latency (``median * exp(sigma * N(0, 1))`` seconds, seeded
per episode and turn, so all three runs see the same latencies): the long tail of decode times
that asynchronous and partial rollouts are meant to hide. Held-out success (greedy and sampled,
without the latency) and the sampled reward (digit share) are measured after the last step.

Per mode it prints the wall time of the N steps (summed step times; evaluation and the final
checkpoint excluded), trained trajectories per second, the generator's idle share (time with
no episode in flight) and held-out success. The lines ``partial_rollout_throughput_gain=`` (the
async-with-partial trajectories/s over async-without) and, last,
``async_vs_sync_training_speedup=`` (sync wall over async wall, eta and no partial rollouts).
"""

from __future__ import annotations

import json
import logging
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import agentgym
from agentgym import AgentEnv, Task, TaskSet, make_observation
from agentgym.policies import LogNormalLatency
from agentgym.testing.latency import LatencyPolicy
from agentgym.trainers import AsyncGRPOTrainer, GRPOTrainer, load_config
from agentgym.trainers.rollouts import Rollouts

ENV = "bench/digits-v0"


def load_tasks() -> TaskSet:
    """48 train and 16 test prompts."""
    return TaskSet(Task(f"d{i}", "test" if i % 4 == 0 else "train",
                        f"Write digits, round {i}.") for i in range(64))


class DigitsEnv(AgentEnv):
    """Two turns; reward = share of digit characters over both replies."""

    instructions = "Reply with digits."

    def __init__(self, split: str = "train") -> None:
        super().__init__()
        self.tasks = load_tasks().split(split)
        self.replies: list[str] = []
        self.task: Task | None = None

    def _reset(self, options: dict[str, Any]) -> Any:
        self.task = self.tasks.get(options["task_id"]) if "task_id" in options else self.tasks[0]
        self.replies = []
        return make_observation(self.task.prompt), {"task_id": self.task.task_id}

    def _step(self, action: Any) -> Any:
        self.replies.append(action if isinstance(action, str) else str(action))
        info: dict[str, Any] = {"task_id": self.task.task_id if self.task else ""}
        if len(self.replies) < 2:
            return make_observation("again"), 0.0, False, False, info
        text = "".join(self.replies)
        reward = sum(c.isdigit() for c in text) / max(len(text), 1)
        info["success"] = reward >= 0.5
        return make_observation("done"), reward, True, False, info


def slow(base: type[GRPOTrainer], latency: LogNormalLatency) -> type[GRPOTrainer]:
    """``base`` whose training rollouts wait ``latency`` before each policy turn."""

    class Slow(base):  # type: ignore[misc, valid-type]
        def setup(self) -> None:
            super().setup()
            self.rollouts.close()
            self.rollouts: Rollouts = Rollouts(self.cfg, LatencyPolicy(self.policy, latency),
                                     self.max_turns)
            if getattr(self, "eval_rollouts", None) is None:  # sync: evaluate without latency
                self.eval_rollouts = Rollouts(self.cfg, self.policy, self.max_turns)

        def evaluate(self) -> dict[str, float]:
            if isinstance(self, AsyncGRPOTrainer):
                return super().evaluate()
            result = self.eval_rollouts.evaluate(self.eval_ids, self.dist)
            self.metrics.log(self.state.step, "eval", result)
            self.last_eval = result
            return result

        def close(self) -> None:
            if not isinstance(self, AsyncGRPOTrainer) and getattr(self, "eval_rollouts", None):
                self.eval_rollouts.close()
            super().close()

    return Slow


def run(name: str, cls: type[GRPOTrainer], overrides: list[str], out: Path) -> dict[str, float]:
    """Train one mode; its figures."""
    cfg = load_config(None, [*overrides, f"output_dir={out / name}"])
    trainer = cls(cfg)
    trainer.train()
    rows = [json.loads(line) for line in trainer.metrics.path.read_text().splitlines()]
    train = [r for r in rows if r["kind"] == "train"]
    evals = [r for r in rows if r["kind"] == "eval"]
    wall = sum(r["step_s"] for r in train)
    trajs = sum(r["trained_episodes"] for r in train)
    if isinstance(trainer, AsyncGRPOTrainer):
        idle = train[-1]["generator_idle_share"]
    else:  # no episode in flight while the synchronous trainer updates
        idle = sum(r["update_s"] for r in train) / max(wall, 1e-9)
    last = evals[-1] if evals else {}
    return {"wall_s": wall, "trajectories_per_s": trajs / max(wall, 1e-9), "idle_share": idle,
            "success_greedy": last.get("success_greedy", 0.0),
            "success_sampled": last.get("success_sampled", 0.0),
            "reward_sampled": last.get("reward_sampled", 0.0),
            "reward": sum(r["reward"] for r in train) / len(train)}


def main(argv: list[str]) -> None:
    """Run the three modes and print the comparison."""
    logging.basicConfig(level=logging.WARNING)
    opts = dict(a.split("=", 1) for a in argv if "=" in a)
    steps, eta, spare = int(opts.get("steps", 12)), int(opts.get("eta", 2)), int(
        opts.get("spare", 2))
    latency = LogNormalLatency(float(opts.get("median", 0.1)), float(opts.get("sigma", 1.5)))
    agentgym.register(ENV, DigitsEnv, tasks=load_tasks, max_turns=2, family="bench",
                      plugin="bench")
    tasks_per_step, group_size = 4, 4
    envs = (eta + 1) * (tasks_per_step + spare) * group_size
    device = opts.get("device", "cpu")  # device=cuda on a GPU machine
    base = [f"env={ENV}", "model=agentgym.trainers.tiny:tiny_llama", f"device={device}",
            f"steps={steps}", f"tasks_per_step={tasks_per_step}", f"group_size={group_size}",
            "max_new_tokens=6", "lr=0.01", "micro_batch_size=16", f"eval_every={steps}",
            "eval_at_start=false", "eval_samples=1", "save_every=0", "tensorboard=false",
            "progress=false", "torch_threads=1", f"num_envs={envs}", "max_batch_size=64",
            "seed=0"]
    modes = [
        ("sync", GRPOTrainer, []),
        ("async", AsyncGRPOTrainer, ["async_rollouts=true", f"staleness_eta={eta}"]),
        ("async_partial", AsyncGRPOTrainer, ["async_rollouts=true", f"staleness_eta={eta}",
                                             f"partial_rollouts={spare}"]),
    ]
    sys.stdout.write(f"steps={steps} tasks_per_step={tasks_per_step} group_size={group_size} "
                     f"latency=lognormal(median={latency.median}s, sigma={latency.sigma}) "
                     f"eta={eta} spare_groups={spare}\n")
    figures: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        run("warmup", GRPOTrainer, [*base, "steps=1", "eval_every=0"], Path(tmp))  # untimed
        for name, cls, extra in modes:
            t0 = time.perf_counter()
            figures[name] = f = run(name, slow(cls, latency), [*base, *extra], Path(tmp))
            sys.stderr.write(f"{name} done in {time.perf_counter() - t0:.0f}s\n")
            sys.stdout.write(
                f"{name}: wall_to_{steps}_steps={f['wall_s']:.1f}s "
                f"trajectories_per_s={f['trajectories_per_s']:.2f} "
                f"generator_idle_share={f['idle_share']:.2f} "
                f"train_reward={f['reward']:.3f} heldout_success_greedy="
                f"{f['success_greedy']:.3f} heldout_success_sampled={f['success_sampled']:.3f} "
                f"heldout_reward_sampled={f['reward_sampled']:.3f}\n")
            sys.stdout.flush()
    gain = figures["async_partial"]["trajectories_per_s"] / figures["async"]["trajectories_per_s"]
    partial_speedup = figures["sync"]["wall_s"] / figures["async_partial"]["wall_s"]
    sys.stdout.write(f"async_partial_vs_sync_training_speedup={partial_speedup:.2f}\n")
    sys.stdout.write(f"partial_rollout_throughput_gain={gain:.2f}\n")
    speedup = figures["sync"]["wall_s"] / figures["async"]["wall_s"]
    sys.stdout.write(f"async_vs_sync_training_speedup={speedup:.2f}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
