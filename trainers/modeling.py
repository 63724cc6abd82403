"""Loading the model to train: device and dtype choice, LoRA, the frozen reference copy.

``model`` in the config is either a name for :func:`agentgym.models.load_model_and_tokenizer`
(``smollm2-135m``, a local folder, a hub id) or a ``"pkg.mod:function"`` entry point returning
``(model, tokenizer)``; the tests use :func:`agentgym.trainers.tiny.tiny_llama` that way.
"""

from __future__ import annotations

import copy
import logging
import re
from typing import Any

import torch

from agentgym import ConfigError, MissingExtra, load_entry_point
from agentgym.settings import resolve_device

from .config import TrainConfig
from .host_memory import fix_mmap_threshold
from .parts import HasModelConfig, HasPadToken

logger = logging.getLogger(__name__)

_ENTRY_POINT = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


def pick_device(name: str, local_rank: int | None = None) -> torch.device:
    """:func:`agentgym.settings.resolve_device` as a ``torch.device`` (``auto`` -> the rank's
    CUDA device when there is one, else CPU)."""
    return torch.device(resolve_device(name, local_rank))


def pick_dtype(name: str, device: torch.device) -> torch.dtype:
    """The trained weights' dtype; ``auto`` -> fp32 master weights (:func:`autocast_dtype`)."""
    if name == "auto":
        return torch.float32
    table = {"float32": torch.float32, "fp32": torch.float32, "bfloat16": torch.bfloat16,
             "bf16": torch.bfloat16, "float16": torch.float16, "fp16": torch.float16}
    if name not in table:
        raise ConfigError(f"dtype must be auto, float32, bfloat16 or float16, not {name!r}")
    return table[name]


def autocast_dtype(name: str, device: torch.device) -> torch.dtype | None:
    """The dtype forward passes autocast to: ``auto`` on a bf16-capable GPU -> bf16, else None.

    ``dtype: auto`` is mixed precision: fp32 master weights and optimizer state, bf16 matrix
    products (as TRL and the HF Trainer do with ``bf16=True``). ``dtype: bfloat16`` keeps the
    weights themselves in bf16 (half the memory, updates rounded to bf16) and needs no autocast.
    """
    if name == "auto" and device.type == "cuda" and torch.cuda.is_bf16_supported():
        return torch.bfloat16
    return None


def load_base(cfg: TrainConfig, device: torch.device, dtype: torch.dtype) -> tuple[Any, Any]:
    """The model and tokenizer named by ``cfg.model``, on ``device`` in ``dtype``."""
    if _ENTRY_POINT.match(cfg.model):
        model, tokenizer = load_entry_point(cfg.model)()
    else:
        from agentgym.policies import load_model_and_tokenizer

        model, tokenizer = load_model_and_tokenizer(cfg.model, device="cpu")
    return model.to(device=device, dtype=dtype), tokenizer


def apply_lora(model: Any, cfg: TrainConfig) -> Any:
    """Wrap ``model`` with peft LoRA adapters (only they are trained)."""
    try:
        from peft import LoraConfig, get_peft_model
    except ImportError as e:
        raise MissingExtra("LoRA needs 'peft': pip install 'agentgym[train]'") from e
    lora = LoraConfig(
        r=cfg.lora_r, lora_alpha=cfg.lora_alpha, lora_dropout=cfg.lora_dropout,
        target_modules=list(cfg.lora_target_modules), task_type="CAUSAL_LM",
    )
    return get_peft_model(model, lora)


def build_model(cfg: TrainConfig, device: torch.device) -> tuple[Any, Any, torch.dtype]:
    """Load the model to train (LoRA-wrapped when asked) and its tokenizer."""
    fix_mmap_threshold(cfg.host_malloc_threshold_kb)  # before the weights: they are blocks too
    dtype = pick_dtype(cfg.dtype, device)
    model, tokenizer = load_base(cfg, device, dtype)
    if cfg.lora:
        model = apply_lora(model, cfg)
    if cfg.gradient_checkpointing:
        model.gradient_checkpointing_enable()
        if isinstance(model, HasModelConfig):
            model.config.use_cache = False
    n_train = sum(p.numel() for p in model.parameters() if p.requires_grad)
    logger.info("model %s on %s (%s), %d trainable parameters", cfg.model, device, dtype, n_train)
    return model, tokenizer, dtype


def frozen_copy(model: Any) -> Any:
    """A frozen copy of ``model`` for the KL reference (LoRA: the base with adapters off)."""
    ref = copy.deepcopy(model)
    ref.eval()
    for p in ref.parameters():
        p.requires_grad_(False)
    return ref


class _Upcast:
    """Forward hooks of one module whose weights are stored in a low precision: before its
    forward they are replaced by ``compute``-dtype copies, after it the stored ones return."""

    def __init__(self, stored: dict[str, torch.nn.Parameter], compute: torch.dtype) -> None:
        self.stored = stored
        self.compute = compute

    def before(self, module: torch.nn.Module, args: Any) -> None:
        for name, p in self.stored.items():
            setattr(module, name, torch.nn.Parameter(p.to(self.compute), requires_grad=False))

    def after(self, module: torch.nn.Module, args: Any, output: Any) -> None:
        for name, p in self.stored.items():
            setattr(module, name, p)


def compact_copy(model: torch.nn.Module, store: torch.dtype = torch.bfloat16) -> torch.nn.Module:
    """A frozen copy of ``model`` in eval mode whose fp32 weights are stored as ``store`` (half
    the bytes for bf16); each module upcasts its own weights to fp32 for its forward only, so
    at most one module's fp32 weights exist at a time. No fp32 copy is made on the way; tied
    weights stay tied; weights in another dtype (a bf16 model) are cloned as they are."""
    memo: dict[int, Any] = {}
    shrunk: set[int] = set()  # ids of the copies stored as ``store`` (upcast for forwards)
    for p in model.parameters():
        if p.dtype == torch.float32 and store != torch.float32:
            memo[id(p)] = torch.nn.Parameter(p.detach().to(store), requires_grad=False)
            shrunk.add(id(memo[id(p)]))
        else:
            memo[id(p)] = torch.nn.Parameter(p.detach().clone(), requires_grad=False)
    snap = copy.deepcopy(model, memo)  # parameters come from the memo; buffers are copied
    snap.eval()
    for module in snap.modules():
        low = {n: p for n, p in module.named_parameters(recurse=False) if id(p) in shrunk}
        if low:
            hooks = _Upcast(low, torch.float32)
            module.register_forward_pre_hook(hooks.before)
            module.register_forward_hook(hooks.after, always_call=True)
    return snap


def pad_id(tokenizer: Any) -> int:
    """The tokenizer's pad id, else its EOS id."""
    pad = tokenizer.pad_token_id if isinstance(tokenizer, HasPadToken) else None
    if pad is None:
        eos = tokenizer.eos_token_id
        pad = eos[0] if isinstance(eos, list) else eos
    return int(pad)


__all__ = ["apply_lora", "autocast_dtype", "build_model", "compact_copy", "frozen_copy",
           "load_base", "pad_id", "pick_device", "pick_dtype"]
