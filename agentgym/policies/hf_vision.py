"""In-process vision-language policy: a transformers VLM served through its ``AutoProcessor``.

Select it as ``hf-vision:PATH`` (a local SmolVLM/Idefics3 folder, read with ``AutoProcessor``
and ``AutoModelForImageTextToText``) or ``hf-vision:pkg.mod:factory`` (a function returning
``(model, processor)``, such as :func:`agentgym.testing.tiny_vlm.tiny_idefics3`).

Everything of :class:`~agentgym.policies.hf.HFPolicy` holds (batched decoding, exact ids and
log-probs, weight versions); in addition the episode's observation images become placeholder
tokens in the exact ids (:class:`~agentgym.policies.vision.VisionChatFormat`) and the pixel
inputs of the first forward pass of each decode batch
(:func:`~agentgym.policies.vision.image_inputs`).
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import PolicyError, missing_extra
from ..settings import DEFAULT_DEVICE, resolve_device
from .hf import HFPolicy, _Pending
from .vision import VisionChatFormat, image_inputs

_FACTORY = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


def load_vision_model(name: str, *, device: str = "cpu") -> tuple[Any, Any]:
    """``(model, processor)`` from a ``pkg.mod:factory`` entry point or a model folder."""
    if _FACTORY.match(name):
        from ..specs import load_entry_point

        model, processor = load_entry_point(name)()
    else:
        try:
            import torch
            import transformers
        except ImportError as e:
            raise missing_extra("transformers", "train") from e
        processor = transformers.AutoProcessor.from_pretrained(name)
        model = transformers.AutoModelForImageTextToText.from_pretrained(
            name, dtype=torch.float32)
    model.to(device)
    model.eval()
    return model, processor


class HFVisionPolicy(HFPolicy):
    """A vision-language model from transformers: screenshots in, exact tokens out."""

    name = "hf-vision"

    def __init__(self, model: Any, processor: Any = None, *, device: str = DEFAULT_DEVICE,
                 **options: Any) -> None:
        if isinstance(model, str):
            device = resolve_device(device)  # the one decision; the base class gets the result
            model_name = model
            model, processor = load_vision_model(model, device=device)
        else:
            model_name = getattr(getattr(model, "config", None), "_name_or_path", "module")
        if processor is None or getattr(processor, "tokenizer", None) is None:
            raise PolicyError("HFVisionPolicy needs a processor with a tokenizer")
        super().__init__(model, processor.tokenizer, device=device, **options)
        self.model_name = model_name or "module"
        self.processor = processor
        self._format = VisionChatFormat(processor)

    @classmethod
    def from_spec(cls, arg: str | None = None, **options: Any) -> HFVisionPolicy:
        """``hf-vision:PATH_OR_FACTORY?device=auto&max_batch_size=8``."""
        if not arg:
            raise PolicyError("hf-vision needs a model: hf-vision:PATH or hf-vision:pkg.mod:fn")
        return cls(arg, **options)

    @classmethod
    def from_module(cls, model: Any, tokenizer: Any, **options: Any) -> HFVisionPolicy:
        """Decode from ``model`` with its processor, given as ``tokenizer`` (a trainer's module,
        shared)."""
        return cls(model, tokenizer, **options)

    def chat_format(self) -> VisionChatFormat:
        """The format that expands the episode's images into the model's placeholders."""
        return self._format

    def _prompt_images(self, prompt_ids: list[int], images: list[bytes]) -> list[bytes]:
        """The first N episode images, N the images the prompt's placeholders stand for."""
        wanted = self._format.count_images(prompt_ids)
        if wanted > len(images):
            raise PolicyError(f"the prompt holds {wanted} images but the policy was given "
                              f"{len(images)} (pass them through EpisodeContext.images)")
        return list(images[:wanted])

    def _prefill_inputs(self, batch: list[_Pending]) -> dict[str, Any] | None:
        """Pixel inputs of the batch's rows, padded to the row with the most images."""
        return image_inputs(self.processor, [p.images for p in batch]) or None


__all__ = ["HFVisionPolicy", "load_vision_model"]
