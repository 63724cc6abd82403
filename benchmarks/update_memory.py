"""Peak memory and time of one update step: log-probs from hidden states in chunks vs full logits.

For each model (SmolLM2-135M's shape, vocabulary 49,152; a tiny 2-layer model with Qwen2's
151,936-token vocabulary), one micro-batch of ``--micro`` rows x ``--tokens`` tokens goes through
:func:`agentgym.trainers.update.policy_update` (forward, backward, optimizer step) with each
log-prob path (``--paths``): ``chunked`` (trainers/head_logprobs.py: the logits are never held
whole), ``full`` (the model's ``(B, T, V)`` logits), and on a CUDA GPU ``fused`` (Cut
Cross-Entropy) when it is installed. Weights are random (memory and time do not depend on them).

Peak memory is what the step adds on top of the model, its optimizer state and the batch:
on CPU each arm runs in its own process and a sampler reads the resident set every 2 ms during
the measured step (the baseline is read just before it); on a GPU it is
``max_memory_allocated`` above ``memory_allocated`` before the step. A warm-up update first
allocates the optimizer state (on a GPU at full size, so kernel choices and allocator pools are
made before the measured step), so the measured step is a steady-state one.

    python benchmarks/update_memory.py                          # CPU, 16 x 1,024
    python benchmarks/update_memory.py --device cuda --tokens 2048

Prints one line per arm, then ``<model>: chunked_vs_full_logits_update_peak_mem_ratio=`` and
``..._step_time_ratio=`` per model, and last the SmolLM2 ratio
``chunked_vs_full_logits_update_peak_mem_ratio=`` (a / b: lower is better for chunked).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from types import SimpleNamespace
from typing import Any

import torch

MODELS = {"smollm2": "SmolLM2-135M shape (vocab 49,152)",
          "tiny-151936": "tiny 2-layer model, Qwen2 vocabulary (151,936)"}


def build_model(name: str) -> Any:
    """A randomly initialised fp32 model of the named shape."""
    from transformers import AutoModelForCausalLM, LlamaConfig, Qwen2Config

    if name == "smollm2":
        config = LlamaConfig(vocab_size=49152, hidden_size=576, intermediate_size=1536,
                             num_hidden_layers=30, num_attention_heads=9, num_key_value_heads=3,
                             tie_word_embeddings=True, rope_theta=1e5, bos_token_id=1,
                             eos_token_id=2)
    else:
        config = Qwen2Config(vocab_size=151936, hidden_size=128, intermediate_size=256,
                             num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                             tie_word_embeddings=True, bos_token_id=151643, eos_token_id=151645)
    torch.manual_seed(0)
    return AutoModelForCausalLM.from_config(config, dtype=torch.float32)


def make_batch(rows: int, tokens: int, vocab: int) -> Any:
    """``rows`` trajectories of ``tokens`` tokens: a 64-token prompt, the rest trained."""
    from agentgym.trainers.batch import collate

    g = torch.Generator().manual_seed(1)
    ids = torch.randint(10, vocab, (rows, tokens), generator=g).tolist()
    prompt = min(64, tokens // 2)
    trajs = [SimpleNamespace(token_ids=r, loss_mask=[0] * prompt + [1] * (tokens - prompt),
                             logprobs=[0.0] * prompt + [-1.0] * (tokens - prompt),
                             prompt_ids=r[:prompt]) for r in ids]
    adv = torch.randn(rows, generator=g)
    return collate(trajs, adv, pad_id=0, loss_agg="token_mean")


def rss_bytes() -> int:
    """Resident set size of this process now."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class RssSampler:
    """Reads the resident set every ``period`` seconds in a thread; ``peak`` is the highest."""

    def __init__(self, period: float = 0.002) -> None:
        self.period, self.peak, self._stop = period, rss_bytes(), threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, rss_bytes())
            self._stop.wait(self.period)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_bytes())


def run_arm(model_name: str, path: str, micro: int, tokens: int, device_name: str,
            checkpointing: bool = False) -> dict[str, float]:
    """One warm-up update, then one measured update; peak bytes added and seconds."""
    from agentgym.trainers.config import TrainConfig
    from agentgym.trainers.losses import ppo_clip_loss
    from agentgym.trainers.update import make_optimizer, policy_update

    device = torch.device(device_name)
    model = build_model(model_name).to(device).train()
    if checkpointing:
        model.config.use_cache = False
        model.gradient_checkpointing_enable()
    amp = torch.bfloat16 if device.type == "cuda" else None
    cfg = TrainConfig(micro_batch_size=micro, lr=1e-6, logprobs=path)
    opt = make_optimizer(list(model.parameters()), cfg)
    vocab = model.config.vocab_size
    batch = make_batch(micro, tokens, vocab)
    # the warm-up: optimizer state; on a GPU at full size too (kernel choices, allocator pools),
    # so that no arm pays the first-call costs in its measured step
    warm = batch if device.type == "cuda" else make_batch(2, 96, vocab)
    policy_update(model, warm, cfg, ppo_clip_loss, opt, autocast=amp)
    if device.type == "cuda":
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        t0 = time.perf_counter()
        metrics = policy_update(model, batch, cfg, ppo_clip_loss, opt, autocast=amp)
        torch.cuda.synchronize()
        seconds = time.perf_counter() - t0
        peak = torch.cuda.max_memory_allocated() - base
    else:
        base = rss_bytes()
        with RssSampler() as sampler:
            t0 = time.perf_counter()
            metrics = policy_update(model, batch, cfg, ppo_clip_loss, opt, autocast=amp)
            seconds = time.perf_counter() - t0
        peak = sampler.peak - base
    return {"peak": float(peak), "seconds": seconds, "logp_mean": metrics["logp_mean"],
            "grad_norm": metrics["grad_norm"]}


def main() -> None:
    """Run every (model, path) arm and print the figures and ratios."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", default="cpu")
    p.add_argument("--models", default="smollm2,tiny-151936")
    p.add_argument("--paths", default="",
                   help="comma-separated log-prob paths (default: chunked,full and, on a CUDA "
                        "GPU with cut-cross-entropy, fused)")
    p.add_argument("--micro", type=int, default=16)
    p.add_argument("--tokens", type=int, default=1024)
    p.add_argument("--tokens-for", default="",
                   help="per-model token counts, e.g. tiny-151936:512 (a machine too small "
                        "for the full path's logits at the default)")
    p.add_argument("--checkpointing", default="off,on",
                   help="gradient checkpointing settings to run: off, on or off,on (each path "
                        "runs with each; the headline is the last one)")
    p.add_argument("--arm", default="", help=argparse.SUPPRESS)  # child: model:path:ckpt
    args = p.parse_args()
    if args.arm:
        name, path, ckpt = args.arm.split(":")
        print(json.dumps(run_arm(name, path, args.micro, args.tokens, args.device,
                                 ckpt == "on")))
        return
    paths = args.paths.split(",") if args.paths else ["chunked", "full"]
    if not args.paths and args.device.startswith("cuda"):
        from agentgym.trainers.fused_logprobs import fused_available

        if fused_available(torch.device(args.device), torch.bfloat16):
            paths.insert(1, "fused")
    per_model = dict(kv.split(":") for kv in args.tokens_for.split(",") if kv)
    if args.device.startswith("cuda"):
        print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    else:
        print(f"device: CPU ({os.cpu_count()} cores), torch {torch.__version__}")
    results: dict[tuple[str, str], dict[str, dict[str, float]]] = {}
    for name in args.models.split(","):
        tokens = int(per_model.get(name, args.tokens))
        for ckpt in args.checkpointing.split(","):
            print(f"\n== {MODELS[name]}: micro-batch {args.micro} x {tokens} tokens, one update "
                  f"(forward + backward + AdamW), random weights, gradient checkpointing {ckpt}")
            results[name, ckpt] = arms = {}
            for path in paths:
                if args.device.startswith("cuda"):
                    r = run_arm(name, path, args.micro, tokens, args.device, ckpt == "on")
                    torch.cuda.empty_cache()
                else:  # its own process: a clean resident set
                    out = subprocess.run(
                        [sys.executable, __file__, "--arm", f"{name}:{path}:{ckpt}", "--micro",
                         str(args.micro), "--tokens", str(tokens), "--device", args.device],
                        check=True, capture_output=True, text=True).stdout
                    r = json.loads(out.strip().splitlines()[-1])
                arms[path] = r
                print(f"  {path:8s} peak {r['peak'] / 2**30:7.2f} GiB  step {r['seconds']:7.2f} s"
                      f"  (logp mean {r['logp_mean']:.5f}, grad norm {r['grad_norm']:.5f})",
                      flush=True)
    print()
    for (name, ckpt), r in results.items():
        if "full" not in r:
            continue
        for path in (p for p in r if p != "full"):
            mem = r[path]["peak"] / r["full"]["peak"]
            speed = r[path]["seconds"] / r["full"]["seconds"]
            print(f"{name} (checkpointing {ckpt}): "
                  f"{path}_vs_full_logits_update_peak_mem_ratio={mem:.3f}")
            print(f"{name} (checkpointing {ckpt}): "
                  f"{path}_vs_full_logits_update_step_time_ratio={speed:.3f}")
    first = results[args.models.split(",")[0], args.checkpointing.split(",")[-1]]
    if "chunked" in first and "full" in first:
        ratio = first["chunked"]["peak"] / first["full"]["peak"]
        print(f"chunked_vs_full_logits_update_peak_mem_ratio={ratio:.3f}")


if __name__ == "__main__":
    main()
