"""A tiny random chat model and a byte-level tokenizer with the Qwen3 chat template, for smoke runs.

Nothing is downloaded: the tokenizer is 256 byte tokens plus the Qwen3 special tokens, built with
``tokenizers``; the chat template is the Qwen3 one TRL ships (so TRL recognises it and parses
``<tool_call>`` blocks); the model is a freshly initialised 2-layer Qwen3. It learns nothing
useful; it lets a TRL or verl run go end to end on a CPU in seconds.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from ..errors import missing_extra

SPECIAL_TOKENS = [
    "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>",
    "<tool_response>", "</tool_response>", "<think>", "</think>",
]


def _byte_unicode() -> dict[int, str]:
    """GPT-2's reversible byte -> printable character table."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    chars = keep[:]
    extra = 0
    for b in range(256):
        if b not in keep:
            keep.append(b)
            chars.append(256 + extra)
            extra += 1
    return {b: chr(c) for b, c in zip(keep, chars, strict=True)}


def qwen3_template() -> str:
    """The Qwen3 chat template file TRL ships, read without importing TRL (slow to import)."""
    found = importlib.util.find_spec("trl")
    if found is None or not found.submodule_search_locations:
        raise missing_extra("trl", "bench")
    path = Path(list(found.submodule_search_locations)[0]) / "chat_templates" / "qwen3.jinja"
    return path.read_text(encoding="utf-8")


def tiny_tokenizer() -> Any:
    """A byte-level fast tokenizer (259 + specials) with TRL's Qwen3 chat template."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {ch: i for i, ch in enumerate(_byte_unicode().values())}
    backend = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    backend.decoder = decoders.ByteLevel()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend, eos_token="<|im_end|>", pad_token="<|endoftext|>",
        additional_special_tokens=SPECIAL_TOKENS[1:],
    )
    tokenizer.add_special_tokens({"additional_special_tokens": SPECIAL_TOKENS})
    tokenizer.chat_template = qwen3_template()
    tokenizer.padding_side = "left"
    return tokenizer


def tiny_chat_model(seed: int = 0, hidden: int = 32, layers: int = 2) -> tuple[Any, Any]:
    """``(model, tokenizer)``: a random ``layers`` x ``hidden`` Qwen3 and :func:`tiny_tokenizer`."""
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    tokenizer = tiny_tokenizer()
    config = Qwen3Config(
        vocab_size=len(tokenizer), hidden_size=hidden, intermediate_size=2 * hidden,
        num_hidden_layers=layers, num_attention_heads=2, num_key_value_heads=2, head_dim=16,
        max_position_embeddings=4096, eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id, bos_token_id=None, tie_word_embeddings=True,
    )
    state = torch.random.get_rng_state()
    torch.manual_seed(seed)
    try:
        model = Qwen3ForCausalLM(config)
    finally:
        torch.random.set_rng_state(state)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model, tokenizer


__all__ = ["SPECIAL_TOKENS", "qwen3_template", "tiny_chat_model", "tiny_tokenizer"]
