"""Rollout throughput: the async engine against a synchronous lock-step baseline.

Both run the same env, tasks, seeds and pool size. The lock-step baseline generates one turn for
every live episode of a wave as a batch, waits for the slowest, then steps every env, and waits
again (how synchronous RL frameworks roll out); the engine lets each episode move on as soon as
its own turn returns.

(a) long tail: a fake policy whose per-turn latency is log-normal, ``median * exp(sigma * Z)``
    (defaults: median 0.2 s, sigma 1.0, so mean 0.33 s and p99 2.05 s), seeded per episode and
    turn so both runs see the same latencies;
(b) the real SmolLM2-135M-Instruct through the in-process ``hf`` policy (small settings).

The env (defined here, so the benchmark needs no family) lasts 1 to 6 turns depending on the
task and each step sleeps a log-normal 20 ms (sigma 0.5). Prints trajectories/s, the share of
wall time with no policy request in flight ("policy idle"), the mean share of the pool's
slots with a request in flight ("slots busy"), and last the line
``async_vs_sync_throughput_ratio=...`` for the long-tail case.

    python benchmarks/rollout_throughput.py              # both cases
    python benchmarks/rollout_throughput.py --skip-hf    # long-tail case only
"""

from __future__ import annotations

import argparse
import math
import random
import time
from typing import Any

import agentgym
from agentgym import AgentEnv, make_observation
from agentgym.policies import FakePolicy, LogNormalLatency, Policy, SamplingParams, derive_seed
from agentgym.rollout import Engine, EpisodeRequest, LockstepEngine, RolloutConfig

ENV_ID = "bench/turns-v0"


class TurnsEnv(AgentEnv):
    """Task ``k`` lasts ``1 + k % 6`` turns; each step takes a seeded log-normal time."""

    instructions = "Answer each message briefly. The episode ends by itself."

    def __init__(self, step_median: float = 0.02, step_sigma: float = 0.5) -> None:
        super().__init__()
        self.step_median, self.step_sigma = step_median, step_sigma
        self.task, self.turn = 0, 0

    def _reset(self, options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        self.task, self.turn = int(options["task_id"]), 0
        return make_observation(f"Task {self.task}: say something."), {"task_id": str(self.task)}

    def _step(self, action: Any) -> Any:
        self.turn += 1
        rng = random.Random(derive_seed("env", self.task, self.turn))
        time.sleep(self.step_median * math.exp(self.step_sigma * rng.gauss(0, 1)))
        done = self.turn >= 1 + self.task % 6
        obs = make_observation(f"Noted ({self.turn}). Continue.")
        return obs, float(done), done, False, {"task_id": str(self.task), "success": done}


def run(engine_cls: type[Engine], policy: Policy, episodes: int, num_envs: int,
        config: RolloutConfig) -> dict[str, float]:
    """Run ``episodes`` with a fresh pool (envs made before the clock starts)."""
    engine = engine_cls(ENV_ID, policy, num_envs=num_envs, config=config)
    engine.run([EpisodeRequest(task_id=str(i), options={"warmup": True})
                for i in range(0, 6 * num_envs, 6)])  # make every env: 1-turn tasks
    engine.stats = type(engine.stats)()
    reqs = [EpisodeRequest(task_id=str(i), seed=i) for i in range(episodes)]
    t0 = time.perf_counter()
    trajs = engine.run(reqs)
    wall = time.perf_counter() - t0
    engine.close()
    stats = engine.stats
    return {
        "wall_s": wall,
        "traj_per_s": len(trajs) / wall,
        "idle": stats.policy_idle_share,
        "slots": stats.mean_inflight / num_envs,
        "tokens": float(stats.generated_tokens),
        "tokens_per_s": stats.generated_tokens / wall,
        "turns": float(stats.turns),
        "aborted": float(stats.aborted),
    }


def report(name: str, sync: dict[str, float], fast: dict[str, float], tokens: bool) -> float:
    """Print one case and return the async/sync throughput ratio."""
    for label, r in (("sync lock-step", sync), ("async engine  ", fast)):
        extra = f"  {r['tokens_per_s']:6.1f} tokens/s" if tokens else ""
        print(f"  {label}: {r['wall_s']:7.2f} s  {r['traj_per_s']:6.2f} traj/s  "
              f"policy idle {r['idle']:6.1%}  slots busy {r['slots']:6.1%}  "
              f"turns {r['turns']:.0f}  aborted {r['aborted']:.0f}{extra}")
    ratio = fast["traj_per_s"] / sync["traj_per_s"]
    print(f"  {name}_async_vs_sync_throughput_ratio={ratio:.2f}")
    return ratio


def main() -> None:
    """Parse arguments, run both cases, print the figures."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--episodes", type=int, default=96)
    p.add_argument("--num-envs", type=int, default=16)
    p.add_argument("--median", type=float, default=0.2, help="median policy latency (s)")
    p.add_argument("--sigma", type=float, default=1.0, help="log-normal sigma of the latency")
    p.add_argument("--skip-hf", action="store_true", help="skip the SmolLM2 case")
    p.add_argument("--skip-longtail", action="store_true", help="skip the long-tail case")
    p.add_argument("--hf-episodes", type=int, default=8)
    p.add_argument("--hf-num-envs", type=int, default=4)
    p.add_argument("--hf-max-new-tokens", type=int, default=8)
    p.add_argument("--hf-threads", type=int, default=1, help="torch threads (shared CPU: 1)")
    p.add_argument("--hf-batch-wait-ms", type=float, default=50.0)
    args = p.parse_args()
    agentgym.register(ENV_ID, TurnsEnv)

    hf_ratio = None
    if not args.skip_hf:
        from agentgym.policies.hf import HFPolicy

        policy = HFPolicy("smollm2-135m", max_batch_size=args.hf_num_envs,
                          num_threads=args.hf_threads, batch_wait_ms=args.hf_batch_wait_ms)
        config = RolloutConfig(max_turns=6, sampling=SamplingParams(
            max_tokens=args.hf_max_new_tokens, temperature=1.0))
        print(f"[b] SmolLM2-135M-Instruct, hf policy on CPU ({args.hf_threads} torch thread): "
              f"{args.hf_episodes} episodes, {args.hf_num_envs} envs, <= "
              f"{args.hf_max_new_tokens} new tokens/turn, T=1.0, batch wait "
              f"{args.hf_batch_wait_ms:g} ms")
        sync = run(LockstepEngine, policy, args.hf_episodes, args.hf_num_envs, config)
        fast = run(Engine, policy, args.hf_episodes, args.hf_num_envs, config)
        hf_ratio = report("smollm2", sync, fast, tokens=True)

    if args.skip_longtail:
        return
    latency = LogNormalLatency(args.median, args.sigma)
    mean = args.median * math.exp(args.sigma**2 / 2)
    p99 = args.median * math.exp(args.sigma * 2.326)
    print(f"[a] long-tail fake policy: log-normal latency median={args.median:.3f}s "
          f"sigma={args.sigma:.2f} (mean {mean:.3f}s, p99 {p99:.2f}s); env step log-normal "
          f"median 0.020s sigma 0.5; {args.episodes} episodes of 1-6 turns, {args.num_envs} envs")
    config = RolloutConfig(max_turns=6)
    sync = run(LockstepEngine, FakePolicy(("ok",), latency=latency), args.episodes,
               args.num_envs, config)
    fast = run(Engine, FakePolicy(("ok",), latency=latency), args.episodes, args.num_envs, config)
    ratio = report("longtail", sync, fast, tokens=False)
    if hf_ratio is not None:
        print(f"smollm2_async_vs_sync_throughput_ratio={hf_ratio:.2f}")
    print(f"async_vs_sync_throughput_ratio={ratio:.2f}")  # long-tail case, last line


if __name__ == "__main__":
    main()
