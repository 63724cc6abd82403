"""A tiny randomly initialised SmolVLM-shaped model (Idefics3) for tests of vision policies.

No vision-language weights ship on the package registries, so tests build one from a config: a
1-layer SigLIP-style vision tower over 32x32 images in 8x8 patches, pixel-shuffled by 2 into 4
image tokens, and a 2-layer Llama over the bundled SmolLM2 tokenizer (with the Idefics3 tokens
added). The processor is built offline around that tokenizer. It loads in about a second once
transformers is imported; use it as ``hf-vision:agentgym.testing.tiny_vlm:tiny_idefics3``.
"""

from __future__ import annotations

import functools
from typing import Any

IMAGE_TOKENS = ("<fake_token_around_image>", "<image>", "<end_of_utterance>", "<global-img>")
"""Special tokens an Idefics3 processor expects in its tokenizer."""

PATCH_SIZE = 8
"""Side of the vision tower's square patches, in pixels."""


@functools.lru_cache(maxsize=4)
def tiny_processor(image_size: int = 32, scale_factor: int = 2) -> Any:
    """An ``Idefics3Processor`` over the SmolLM2 tokenizer; images resized to ``image_size``.

    The same object is returned for the same arguments (it is never changed after building).
    """
    from transformers import AutoTokenizer, Idefics3Processor
    from transformers.models.idefics3 import Idefics3ImageProcessorPil

    from ..models import resolve_model_path

    tokenizer = AutoTokenizer.from_pretrained(str(resolve_model_path("smollm2-135m")))
    tokenizer.add_special_tokens({"additional_special_tokens": list(IMAGE_TOKENS)})
    image_processor = Idefics3ImageProcessorPil(
        do_image_splitting=False,
        size={"longest_edge": image_size},
        max_image_size={"longest_edge": image_size},
    )
    seq_len = (image_size // PATCH_SIZE) ** 2 // scale_factor**2
    return Idefics3Processor(image_processor, tokenizer, image_seq_len=seq_len)


def tiny_idefics3(seed: int = 1234, hidden: int = 32, image_size: int = 32) -> tuple[Any, Any]:
    """``(model, processor)``: a fresh fp32 Idefics3 (about 1.6 M parameters) and its processor."""
    import torch
    from transformers import Idefics3Config, Idefics3ForConditionalGeneration

    processor = tiny_processor(image_size)
    tokenizer = processor.tokenizer
    config = Idefics3Config(
        vision_config={"hidden_size": hidden, "intermediate_size": 2 * hidden,
                       "num_hidden_layers": 1, "num_attention_heads": 2,
                       "image_size": image_size, "patch_size": PATCH_SIZE},
        text_config={"model_type": "llama", "vocab_size": len(tokenizer), "hidden_size": hidden,
                     "intermediate_size": 2 * hidden, "num_hidden_layers": 2,
                     "num_attention_heads": 2, "num_key_value_heads": 2,
                     "max_position_embeddings": 4096, "eos_token_id": tokenizer.eos_token_id,
                     "pad_token_id": tokenizer.pad_token_id, "tie_word_embeddings": True},
        scale_factor=2,
        image_token_id=processor.image_token_id,
        tie_word_embeddings=True,
    )
    with torch.random.fork_rng(devices=[]):  # the global RNG is left as it was
        torch.manual_seed(seed)  # the same weights in every process, whatever the global seed
        model = Idefics3ForConditionalGeneration(config)
    return model.eval(), processor


__all__ = ["IMAGE_TOKENS", "PATCH_SIZE", "tiny_idefics3", "tiny_processor"]
