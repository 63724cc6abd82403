"""A tiny random Llama over agentgym's byte-level fake tokenizer, for fast trainer tests.

Use it as ``model: agentgym.trainers.tiny:tiny_llama`` in a config. It loads no files, so smoke
runs, the resume test and the data-parallel test need no model download and run in seconds.
"""

from __future__ import annotations

from typing import Any

import torch

from agentgym.policies import FakeTokenizer


def tiny_llama(seed: int = 1234, hidden: int = 32, layers: int = 2) -> tuple[Any, Any]:
    """A freshly initialised 2-layer Llama (hidden 32, vocab 259) and a :class:`FakeTokenizer`."""
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer = FakeTokenizer()
    config = LlamaConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=1024,
        bos_token_id=256,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
    )
    with torch.random.fork_rng(devices=[]):  # the global RNG is left as it was
        torch.manual_seed(seed)  # the same weights in every process, whatever the global seed
        model = LlamaForCausalLM(config)
    return model, tokenizer


__all__ = ["tiny_llama"]
