"""Peak resident memory and time of one CPU update with glibc's own mmap threshold and with it
fixed (``host_malloc_threshold_kb``, :mod:`agentgym.trainers.host_memory`), in one run.

Each arm runs in its own process: a SmolLM2-shaped model with random weights, gradient
checkpointing on, the chunked log-prob path, one full-size warm-up update (glibc's threshold
rises while it frees), then one measured update of ``--micro`` rows x ``--tokens`` tokens. The
headline is the process's peak resident memory during the measured update (what stays resident
after the warm-up plus what the update adds). The last line is
``fixed_vs_glibc_threshold_update_peak_rss_ratio=<fixed / glibc>``.

    python benchmarks/host_malloc.py --micro 4 --tokens 1500
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def arm(threshold_kb: int, micro: int, tokens: int) -> dict[str, float]:
    """One warm-up and one measured update; peak bytes added and seconds of the second."""

    from update_memory import RssSampler, build_model, make_batch, rss_bytes

    from agentgym.trainers.config import TrainConfig
    from agentgym.trainers.host_memory import fix_mmap_threshold
    from agentgym.trainers.losses import ppo_clip_loss
    from agentgym.trainers.update import make_optimizer, policy_update

    fix_mmap_threshold(threshold_kb)
    model = build_model("smollm2")
    model.config.use_cache = False
    model.gradient_checkpointing_enable()
    model.train()
    cfg = TrainConfig(micro_batch_size=micro, lr=1e-6, logprobs="chunked")
    opt = make_optimizer(list(model.parameters()), cfg)
    batch = make_batch(micro, tokens, model.config.vocab_size)
    policy_update(model, batch, cfg, ppo_clip_loss, opt)
    base = rss_bytes()
    with RssSampler() as sampler:
        t0 = time.perf_counter()
        policy_update(model, batch, cfg, ppo_clip_loss, opt)
        seconds = time.perf_counter() - t0
    return {"peak": float(sampler.peak - base), "base": float(base), "seconds": seconds}


def main() -> None:
    """Run both arms and print their figures, the ratio last."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--micro", type=int, default=4)
    p.add_argument("--tokens", type=int, default=1500)
    p.add_argument("--threshold-kb", type=int, default=1024)
    p.add_argument("--arm", type=int, default=-1, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.arm >= 0:
        print(json.dumps(arm(args.arm, args.micro, args.tokens)))
        return
    print(f"CPU ({os.cpu_count()} cores), SmolLM2 shape, micro-batch {args.micro} x "
          f"{args.tokens} tokens, checkpointing on, chunked log-probs; load "
          f"{os.getloadavg()[0]:.1f}")
    results = {}
    for name, kb in (("glibc", 0), ("fixed", args.threshold_kb)):
        out = subprocess.run([sys.executable, __file__, "--arm", str(kb), "--micro",
                              str(args.micro), "--tokens", str(args.tokens)],
                             check=True, capture_output=True, text=True).stdout
        r = results[name] = json.loads(out.strip().splitlines()[-1])
        print(f"  {name:5s} threshold {kb or 'glibc'}: update adds {r['peak'] / 2**30:.2f} GiB "
              f"over {r['base'] / 2**30:.2f} GiB, {r['seconds']:.1f} s", flush=True)
    print(f"fixed_vs_glibc_threshold_update_step_time_ratio="
          f"{results['fixed']['seconds'] / results['glibc']['seconds']:.3f}")
    total = {k: r["base"] + r["peak"] for k, r in results.items()}
    print(f"peak resident: glibc {total['glibc'] / 2**30:.2f} GiB, fixed "
          f"{total['fixed'] / 2**30:.2f} GiB")
    print(f"fixed_vs_glibc_threshold_update_peak_rss_ratio={total['fixed'] / total['glibc']:.3f}")


if __name__ == "__main__":
    main()
