"""The trainer's update and rollout against plain PyTorch, plain ``generate`` and TRL, on a GPU.

For each model (SmolLM2-135M: the real weights when ``--smollm2-gguf`` or the agentgym cache
has them, else a randomly initialised model of the same shape; and a randomly initialised
Qwen2-0.5B-shaped model) on one synthetic GRPO batch (``--prompts`` prompts x ``--group``
samples, ``--prompt-len`` prompt tokens, ``--gen-len`` generated tokens):

- update: :func:`agentgym.trainers.update.policy_update` against a plain loop (forward, fp32
  log-softmax, PPO-clip loss, backward, AdamW) over the same micro-batches, same precision;
- rollout: the in-process policy's :func:`~agentgym.policies.hf_decode.decode_batch` against
  ``model.generate`` on the same prompts and lengths (sampling at T=1, no early stop);
- MFU: ``6 x params x tokens/s`` over the GPU's peak dense bf16 FLOP/s (``--peak-tflops``);
- with ``--trl``: one GRPO step of agentgym (decode + update) and of TRL's ``GRPOTrainer``
  on the same model, prompts and batch, with peak memories, per step and per generated token.

Prints the figures, then the ratio lines (a / b; lower is better for agentgym):
``trainer_vs_plain_update_ratio``, ``trainer_vs_plain_generate_ratio`` and last
``agentgym_vs_trl_gpu_step_ratio`` (or the update ratio when TRL is not run).

    python benchmarks/gpu_trainer.py --trl                   # on a GPU machine
    python benchmarks/gpu_trainer.py --device cpu --smoke    # seconds, checks the script runs
"""

from __future__ import annotations

import argparse
import copy
import statistics
import tempfile
import time
from contextlib import nullcontext
from types import SimpleNamespace
from typing import Any

import torch

from agentgym.policies.hf_decode import DecodeRequest, decode_batch
from agentgym.trainers.batch import collate
from agentgym.trainers.config import TrainConfig
from agentgym.trainers.losses import ppo_clip_loss
from agentgym.trainers.update import make_optimizer, policy_update


def sync(device: torch.device) -> None:
    """Wait for the device's queued work (timings are wall-clock)."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def reset_peak(device: torch.device) -> None:
    """Start a new peak-memory window."""
    if device.type == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)


def peak_gib(device: torch.device, base: int = 0) -> float:
    """Peak allocated GPU memory since :func:`reset_peak` above ``base`` bytes, GiB (0 on CPU)."""
    if device.type != "cuda":
        return 0.0
    return (torch.cuda.max_memory_allocated(device) - base) / 2**30


def allocated(device: torch.device) -> int:
    """Bytes allocated on the GPU now (0 on CPU)."""
    return torch.cuda.memory_allocated(device) if device.type == "cuda" else 0


# -- models ------------------------------------------------------------------------------------


def smollm2_shape() -> Any:
    """SmolLM2-135M's architecture (LlamaConfig)."""
    from transformers import LlamaConfig

    return LlamaConfig(vocab_size=49152, hidden_size=576, intermediate_size=1536,
                       num_hidden_layers=30, num_attention_heads=9, num_key_value_heads=3,
                       max_position_embeddings=8192, tie_word_embeddings=True, rope_theta=1e5,
                       bos_token_id=1, eos_token_id=2)


def qwen2_05b_shape() -> Any:
    """Qwen2-0.5B's architecture (Qwen2Config)."""
    from transformers import Qwen2Config

    return Qwen2Config(vocab_size=151936, hidden_size=896, intermediate_size=4864,
                       num_hidden_layers=24, num_attention_heads=14, num_key_value_heads=2,
                       max_position_embeddings=32768, tie_word_embeddings=True,
                       bos_token_id=151643, eos_token_id=151645)


def tiny_shape() -> Any:
    """A 2-layer toy for ``--smoke`` runs."""
    from transformers import LlamaConfig

    return LlamaConfig(vocab_size=512, hidden_size=64, intermediate_size=128,
                       num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                       tie_word_embeddings=True, bos_token_id=1, eos_token_id=2)


def load_model(name: str, device: torch.device) -> tuple[Any, str]:
    """``(model, description)`` on ``device`` in fp32 (the trainer's master weights)."""
    from transformers import AutoModelForCausalLM

    if name == "smollm2":
        try:
            from agentgym.models import load_model_and_tokenizer

            model, _ = load_model_and_tokenizer("smollm2-135m", device="cpu")
            return model.to(device), "SmolLM2-135M-Instruct (real weights)"
        except Exception as e:  # noqa: BLE001 - no weights here: same shape, random init
            print(f"  (SmolLM2 weights unavailable: {type(e).__name__}; random init)")
            config, label = smollm2_shape(), "SmolLM2-135M shape, random weights"
    elif name == "qwen2-0.5b":
        config, label = qwen2_05b_shape(), "Qwen2-0.5B shape, random weights"
    else:
        config, label = tiny_shape(), "tiny 2-layer Llama, random weights"
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    return model.to(device), label


# -- the batch ---------------------------------------------------------------------------------


def make_prompts(args: argparse.Namespace, vocab: int) -> list[list[int]]:
    """``args.prompts`` random prompts of ``args.prompt_len`` tokens (ids above the specials)."""
    g = torch.Generator().manual_seed(1)
    return torch.randint(10, vocab, (args.prompts, args.prompt_len), generator=g).tolist()


def make_batch(args: argparse.Namespace, prompts: list[list[int]], completions: list[list[int]],
               logprobs: list[list[float]]) -> Any:
    """A collated GRPO batch: each prompt followed by its group's completions."""
    trajs = []
    for i, (ids, lps) in enumerate(zip(completions, logprobs, strict=True)):
        prompt = prompts[i // args.group]
        trajs.append(SimpleNamespace(
            token_ids=prompt + ids, loss_mask=[0] * len(prompt) + [1] * len(ids),
            logprobs=[0.0] * len(prompt) + lps, prompt_ids=prompt))
    g = torch.Generator().manual_seed(2)
    adv = torch.randn(len(trajs), generator=g)
    return collate(trajs, adv, pad_id=0, loss_agg="seq_mean_token_mean",
                   share_prompt=args.device == "cpu")


# -- the measured pieces -----------------------------------------------------------------------


def timed(fn: Any, device: torch.device, repeats: int, warmup: int = 1) -> tuple[float, Any]:
    """Median seconds of ``fn()`` over ``repeats`` runs after ``warmup``; and the last result."""
    out = None
    for _ in range(warmup):
        out = fn()
    sync(device)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        sync(device)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def ours_generate(model: Any, prompts: list[list[int]], args: argparse.Namespace,
                  amp: torch.dtype | None, seed: int = 0) -> Any:
    """The in-process policy's batched decode: every prompt ``args.group`` times."""
    reqs = [DecodeRequest(p, args.gen_len, seed=seed * 100_000 + i)
            for i, p in enumerate(p for p in prompts for _ in range(args.group))]
    return decode_batch(model, reqs, temperature=1.0, eos_ids={-1}, pad_id=0,
                        weights=lambda: nullcontext(0), autocast=amp)


def plain_generate(model: Any, prompts: list[list[int]], args: argparse.Namespace,
                   amp: torch.dtype | None) -> Any:
    """``model.generate`` on the same rows (all prompts have the same length: no padding)."""
    device = next(model.parameters()).device
    ids = torch.tensor([p for p in prompts for _ in range(args.group)], device=device)
    ctx = torch.autocast(device.type, dtype=amp) if amp else nullcontext()
    with torch.inference_mode(), ctx:
        return model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=True,
                              temperature=1.0, top_k=0, top_p=1.0, max_new_tokens=args.gen_len,
                              min_new_tokens=args.gen_len, pad_token_id=0)


def plain_update(model: Any, batch: Any, optimizer: Any, micro: int,
                 amp: torch.dtype | None) -> None:
    """A plain PyTorch GRPO update over the same micro-batches: what the trainer competes with."""
    device = next(model.parameters()).device
    optimizer.zero_grad(set_to_none=True)
    for lo in range(0, len(batch), micro):
        mb = batch.select(slice(lo, lo + micro)).to(device)
        ctx = torch.autocast(device.type, dtype=amp) if amp else nullcontext()
        with ctx:
            logits = model(input_ids=mb.input_ids, attention_mask=mb.attention_mask).logits
        logp = torch.log_softmax(logits[:, :-1].float(), -1)  # (B, L-1, V)
        logp = logp.gather(-1, mb.input_ids[:, 1:, None]).squeeze(-1)  # (B, L-1)
        ratio = torch.exp(logp - logp.detach())
        loss = -(ratio * mb.advantages[:, None] * mb.weights).sum()
        loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()


def measure_model(name: str, args: argparse.Namespace, device: torch.device) -> dict[str, float]:
    """Update and rollout figures for one model; returns the ratios."""
    model, label = load_model(name, device)
    amp = torch.bfloat16 if device.type == "cuda" else None
    n_params = sum(p.numel() for p in model.parameters())
    rows = args.prompts * args.group
    print(f"\n== {label}: {n_params / 1e6:.0f}M parameters, {rows} rows "
          f"({args.prompts} prompts x {args.group}), prompt {args.prompt_len} + "
          f"{args.gen_len} generated tokens, micro-batch {args.micro}, "
          f"{'bf16 autocast over fp32 weights' if amp else 'fp32'}")
    model.eval()
    prompts = make_prompts(args, model.config.vocab_size)
    reset_peak(device)
    t_ours, gens = timed(lambda: ours_generate(model, prompts, args, amp), device, args.repeats)
    mem_ours_gen = peak_gib(device)
    reset_peak(device)
    t_plain, _ = timed(lambda: plain_generate(model, prompts, args, amp), device, args.repeats)
    new_tokens = rows * args.gen_len
    print(f"rollout  agentgym decode_batch {t_ours:7.3f} s  {new_tokens / t_ours:9.0f} tok/s  "
          f"peak {mem_ours_gen:5.2f} GiB")
    print(f"rollout  plain model.generate  {t_plain:7.3f} s  {new_tokens / t_plain:9.0f} tok/s  "
          f"peak {peak_gib(device):5.2f} GiB")

    batch = make_batch(args, prompts, [g.token_ids for g in gens], [g.logprobs for g in gens])
    cfg = TrainConfig(micro_batch_size=args.micro, lr=1e-7, temperature=1.0)
    model.train()
    if args.checkpointing:
        model.gradient_checkpointing_enable()
    opt = make_optimizer([p for p in model.parameters() if p.requires_grad], cfg)
    reset_peak(device)
    t_upd, _ = timed(lambda: policy_update(model, batch, cfg, ppo_clip_loss, opt, autocast=amp),
                     device, args.repeats)
    mem_upd = peak_gib(device)
    reset_peak(device)
    t_pl, _ = timed(lambda: plain_update(model, batch, opt, args.micro, amp), device, args.repeats)
    mem_pl = peak_gib(device)
    tokens = int(batch.attention_mask.sum())
    flops = 6 * n_params * tokens
    peak = args.peak_tflops * 1e12
    print(f"update   agentgym policy_update {t_upd:7.3f} s  {tokens / t_upd:9.0f} tok/s  "
          f"MFU {flops / t_upd / peak:6.1%}  peak {mem_upd:5.2f} GiB")
    print(f"update   plain PyTorch loop     {t_pl:7.3f} s  {tokens / t_pl:9.0f} tok/s  "
          f"MFU {flops / t_pl / peak:6.1%}  peak {mem_pl:5.2f} GiB")
    out = {"update": t_upd / t_pl, "generate": t_ours / t_plain}
    if args.trl:
        out.update(compare_trl(model, prompts, args, device, amp))
    return out


# -- TRL ---------------------------------------------------------------------------------------


def agentgym_step(model: Any, prompts: list[list[int]], args: argparse.Namespace,
                  opt: Any, amp: torch.dtype | None, step: int) -> int:
    """One GRPO step as the trainer runs it (decode the groups, collate, update); tokens made."""
    model.eval()
    gens = ours_generate(model, prompts, args, amp, seed=step)
    batch = make_batch(args, prompts, [g.token_ids for g in gens], [g.logprobs for g in gens])
    model.train()
    policy_update(model, batch, TrainConfig(micro_batch_size=args.micro, lr=1e-7), ppo_clip_loss,
                  opt, autocast=amp)
    return sum(len(g.token_ids) for g in gens)


def compare_trl(model: Any, prompts: list[list[int]], args: argparse.Namespace,
                device: torch.device, amp: torch.dtype | None) -> dict[str, float]:
    """The same GRPO step in agentgym and in TRL's GRPOTrainer; returns the step ratios."""
    from datasets import Dataset
    from transformers import PreTrainedTokenizerFast, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    steps = args.trl_steps
    reset_peak(device)
    base = allocated(device)  # the caller's model and optimizer: not part of either step
    ours = copy.deepcopy(model)
    opt = make_optimizer(list(ours.parameters()), TrainConfig(lr=1e-7))
    agentgym_step(ours, prompts, args, opt, amp, 0)  # warm-up
    sync(device)
    t0 = time.perf_counter()
    made = sum(agentgym_step(ours, prompts, args, opt, amp, s + 1) for s in range(steps)) / steps
    sync(device)
    t_ours = (time.perf_counter() - t0) / steps
    mem_ours = peak_gib(device, base)
    del ours, opt

    # a word-level tokenizer over the model's vocabulary: prompt i is the text of its ids
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {f"t{i}": i for i in range(model.config.vocab_size)}
    raw = Tokenizer(models.WordLevel(vocab, unk_token="t3"))
    raw.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok = PreTrainedTokenizerFast(tokenizer_object=raw, pad_token="t0", eos_token="t2",
                                  unk_token="t3")
    tok.padding_side = "left"
    data = Dataset.from_dict({"prompt": [" ".join(f"t{i}" for i in p) for p in prompts] * 64})
    times: list[float] = []
    lengths: list[float] = []

    class Clock(TrainerCallback):
        """Times each optimizer step and reads the mean completion length."""

        def on_step_begin(self, *a: Any, **k: Any) -> None:
            sync(device)
            self.t = time.perf_counter()

        def on_step_end(self, *a: Any, **k: Any) -> None:
            sync(device)
            times.append(time.perf_counter() - self.t)

        def on_log(self, _args: Any, _state: Any, _control: Any, logs: Any = None,
                   **k: Any) -> None:
            if logs and "completions/mean_length" in logs:
                lengths.append(float(logs["completions/mean_length"]))

    rows = args.prompts * args.group
    with tempfile.TemporaryDirectory() as out:
        config = GRPOConfig(
            output_dir=out, per_device_train_batch_size=args.micro,
            gradient_accumulation_steps=rows // args.micro, num_generations=args.group,
            max_completion_length=args.gen_len, temperature=1.0, top_k=0, top_p=1.0,
            learning_rate=1e-7, beta=0.0, bf16=device.type == "cuda",
            use_cpu=device.type == "cpu", gradient_checkpointing=args.checkpointing,
            max_steps=steps + 1, logging_steps=1, report_to=[], save_strategy="no",
            shuffle_dataset=False, disable_dropout=True, seed=0, dataloader_num_workers=0,
        )
        reset_peak(device)
        base = allocated(device)
        trl_model = copy.deepcopy(model)
        trainer = GRPOTrainer(model=trl_model, args=config, processing_class=tok,
                              reward_funcs=lambda completions, **k: [float(len(c) % 3)
                                                                     for c in completions],
                              train_dataset=data, callbacks=[Clock()])
        trainer.train()
        mem_trl = peak_gib(device, base)
        del trainer, trl_model
    t_trl = statistics.mean(times[1:]) if len(times) > 1 else times[0]
    trl_len = statistics.mean(lengths[1:] or lengths) if lengths else float(args.gen_len)
    ours_per_tok = t_ours / max(made, 1)
    trl_per_tok = t_trl / max(trl_len * rows, 1)
    print("GRPO step (peak = memory the step adds: its model copy, optimizer, activations)")
    print(f"GRPO step  agentgym {t_ours:7.3f} s ({made / rows:5.1f} tokens/row, "
          f"{ours_per_tok * 1e6:7.1f} us/generated token)  peak {mem_ours:5.2f} GiB")
    print(f"GRPO step  TRL      {t_trl:7.3f} s ({trl_len:5.1f} tokens/row, "
          f"{trl_per_tok * 1e6:7.1f} us/generated token)  peak {mem_trl:5.2f} GiB")
    return {"trl_step": t_ours / t_trl, "trl_token": ours_per_tok / trl_per_tok,
            "trl_mem": mem_ours / max(mem_trl, 1e-9)}


def main() -> None:
    """Parse arguments, measure every model, print the ratio lines."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--models", default="smollm2,qwen2-0.5b")
    p.add_argument("--prompts", type=int, default=16)
    p.add_argument("--group", type=int, default=8)
    p.add_argument("--prompt-len", type=int, default=64)
    p.add_argument("--gen-len", type=int, default=128)
    p.add_argument("--micro", type=int, default=16)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--checkpointing", action="store_true", help="gradient checkpointing on")
    p.add_argument("--trl", action="store_true", help="also run TRL's GRPOTrainer")
    p.add_argument("--trl-steps", type=int, default=3)
    p.add_argument("--peak-tflops", type=float, default=989.0,
                   help="peak dense bf16 TFLOP/s of the GPU (H100 SXM: 989)")
    p.add_argument("--smoke", action="store_true", help="tiny model and batch (seconds)")
    args = p.parse_args()
    if args.smoke:
        args.models, args.prompts, args.group, args.prompt_len, args.gen_len = "tiny", 2, 4, 8, 6
        args.micro, args.repeats, args.trl_steps = 4, 1, 1
    device = torch.device(args.device)
    if device.type == "cuda":
        print(f"device: {torch.cuda.get_device_name(device)}, torch {torch.__version__}")
    ratios = {}
    for name in args.models.split(","):
        ratios[name] = measure_model(name, args, device)
        if device.type == "cuda":
            torch.cuda.empty_cache()
    print()
    for name, r in ratios.items():
        print(f"{name}: trainer_vs_plain_update_ratio={r['update']:.3f}")
        print(f"{name}: trainer_vs_plain_generate_ratio={r['generate']:.3f}")
        if "trl_step" in r:
            print(f"{name}: agentgym_vs_trl_gpu_per_token_ratio={r['trl_token']:.3f}")
            print(f"{name}: agentgym_vs_trl_gpu_peak_memory_ratio={r['trl_mem']:.3f}")
    first = ratios[args.models.split(",")[0]]
    if "trl_step" in first:
        print(f"agentgym_vs_trl_gpu_step_ratio={first['trl_step']:.3f}")
    else:
        print(f"trainer_vs_plain_update_ratio={first['update']:.3f}")


if __name__ == "__main__":
    main()
