"""A training checkpoint (``<run>/checkpoints/step-N``) as a model a policy can load.

A checkpoint holds the trained weights (``model.safetensors``: every weight in full fine-tuning,
the LoRA adapters otherwise) but no model config or tokenizer: those come from the base model
the run's ``config.yaml`` names (``model:``), loaded the way the trainer loads it (an alias, a
folder, a hub id or a ``pkg.mod:function`` entry point). The checkpoint's weights then replace
the base's; LoRA adapters are merged into it (peft, the ``[train]`` extra). So
``--policy hf:runs/x/checkpoints/step-000002`` evaluates the model as it was after step 2.
A run's ``final/`` that cannot load alone (LoRA adapters only, or a model without its
tokenizer) is completed from the same base.

A folder that holds no model (a run folder, ``checkpoints/``, a half-written ``step-N.tmp``)
is refused in one line naming what to pass instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import MissingExtra, PolicyError

_ENTRY_POINT = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
_WEIGHT_FILES = ("model.safetensors", "model.pt")
_MODEL_FILES = ("config.json", "adapter_config.json")
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "tokenizer.model", "vocab.json")


def is_training_checkpoint(path: Path) -> bool:
    """Whether ``path`` is a complete checkpoint folder a trainer wrote (weights, no model
    config, the ``COMPLETE`` marker)."""
    return (
        (path / "COMPLETE").is_file()
        and not any((path / f).is_file() for f in _MODEL_FILES)
        and any((path / f).is_file() for f in _WEIGHT_FILES)
        and (path / "trainer.pt").is_file()
    )


def _newest_step(folder: Path) -> Path | None:
    steps = sorted(p for p in folder.glob("step-*") if (p / "COMPLETE").is_file())
    return steps[-1] if steps else None


def refuse_folder(path: Path) -> None:
    """Raise, naming what to pass instead, when folder ``path`` holds no loadable model."""
    if any((path / f).is_file() for f in _MODEL_FILES):
        return
    if (path / "final" / "config.json").is_file() or (path / "checkpoints").is_dir():
        newest = _newest_step(path / "checkpoints")
        also = f" or a checkpoint (hf:{newest})" if newest else ""
        raise PolicyError(f"{path} is a training run folder, not a model: pass its final model "
                          f"(hf:{path / 'final'}){also}")
    newest = _newest_step(path)
    if newest is not None:
        raise PolicyError(f"{path} holds checkpoints, not a model: pass one of them, e.g. "
                          f"hf:{newest}")
    if path.name.endswith(".tmp") or (path / "trainer.pt").is_file():
        raise PolicyError(f"{path} is an incomplete checkpoint (its save was interrupted); pass "
                          "a complete one (a step-N folder holding COMPLETE)")
    raise PolicyError(f"{path} holds no model (no config.json): pass a folder written by "
                      "save_pretrained, a run's final/ or one of its checkpoints/step-N")


def is_partial_final(path: Path) -> bool:
    """Whether ``path`` is a run's ``final/`` that needs the run's base model to load: LoRA
    adapters only (``adapter_config.json``, no ``config.json``), or no tokenizer files (a base
    model made by an entry point, whose tokenizer is not saved)."""
    if path.name != "final" or not (path.parent / "config.yaml").is_file():
        return False
    adapters_only = (path / "adapter_config.json").is_file() and not (
        path / "config.json").is_file()
    return adapters_only or not any((path / f).is_file() for f in _TOKENIZER_FILES)


def _run_config(path: Path) -> dict[str, Any]:
    run = path.parent.parent
    config = run / "config.yaml"
    if path.parent.name != "checkpoints" or not config.is_file():
        raise PolicyError(f"{path} is a training checkpoint outside its run folder (no "
                          f"{config}), so its base model is unknown: keep it in "
                          "<run>/checkpoints/ or pass the run's final model (hf:<run>/final)")
    return _read_config(config)


def _read_config(config: Path) -> dict[str, Any]:
    import yaml

    data = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict) or not isinstance(data.get("model"), str):
        raise PolicyError(f"{config} names no base model (model: ...)")
    return data


def _load_base(name: str, load_named: Callable[[str], tuple[Any, Any]]) -> tuple[Any, Any]:
    if _ENTRY_POINT.match(name):
        from .specs import load_entry_point

        model, tokenizer = load_entry_point(name)()
        return model, tokenizer
    return load_named(name)


def _weights(path: Path) -> dict[str, Any]:
    if (path / "model.safetensors").is_file():
        from safetensors.torch import load_file

        return load_file(str(path / "model.safetensors"))
    import torch

    weights: dict[str, Any] = torch.load(path / "model.pt", weights_only=True)
    return weights


def _with_lora(model: Any, cfg: dict[str, Any]) -> Any:
    try:
        from peft import LoraConfig, get_peft_model
    except ImportError as e:
        raise MissingExtra("this checkpoint holds LoRA adapters; loading them needs 'peft': "
                           "pip install 'agentgym[train]'") from e
    lora = LoraConfig(r=int(cfg.get("lora_r", 8)), lora_alpha=cfg.get("lora_alpha", 16),
                      lora_dropout=0.0, target_modules=list(cfg.get("lora_target_modules", [])),
                      task_type="CAUSAL_LM")
    return get_peft_model(model, lora)


def load_checkpoint_model(path: Path, load_named: Callable[[str], tuple[Any, Any]], *,
                          device: str = "cpu", dtype: Any = None) -> tuple[Any, Any]:
    """The run's base model with checkpoint ``path``'s weights (LoRA merged), and its tokenizer.

    ``load_named`` loads a base model by name (an alias, folder or hub id) on the CPU:
    :func:`agentgym.models.load_model_and_tokenizer`, passed in by it.
    """
    import torch

    cfg = _run_config(path)
    model, tokenizer = _load_base(cfg["model"], load_named)
    model = model.float()
    lora = bool(cfg.get("lora"))
    if lora:
        model = _with_lora(model, cfg)
    weights = _weights(path)
    result = model.load_state_dict(weights, strict=False)
    if result.unexpected_keys or not weights:
        raise PolicyError(f"checkpoint {path} does not fit its run's base model "
                          f"{cfg['model']!r}: unknown weights {result.unexpected_keys[:3]}")
    if lora:
        model = model.merge_and_unload()
    model.to(device=device, dtype=dtype or torch.float32)
    model.eval()
    return model, tokenizer


def load_final_model(path: Path, load_named: Callable[[str], tuple[Any, Any]], *,
                     device: str = "cpu", dtype: Any = None) -> tuple[Any, Any]:
    """A run's ``final/`` (:func:`is_partial_final`) with what it lacks from the base model:
    the base's weights under LoRA adapters (merged), or the base's tokenizer."""
    import torch

    cfg = _read_config(path.parent / "config.yaml")
    base, tokenizer = _load_base(cfg["model"], load_named)
    model: Any
    if (path / "config.json").is_file():
        import transformers

        model = transformers.AutoModelForCausalLM.from_pretrained(str(path),
                                                                  dtype=torch.float32)
    else:
        try:
            from peft import PeftModel
        except ImportError as e:
            raise MissingExtra(f"{path} holds LoRA adapters; loading them needs 'peft': "
                               "pip install 'agentgym[train]'") from e
        model = PeftModel.from_pretrained(base.float(), str(path)).merge_and_unload()
    model.to(device=device, dtype=dtype or torch.float32)
    model.eval()
    return model, tokenizer


__all__ = ["is_partial_final", "is_training_checkpoint", "load_checkpoint_model",
           "load_final_model", "refuse_folder"]
