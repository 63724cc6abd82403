"""Exact token ids with images: a vision-language model's placeholders and pixel inputs.

A vision-language model (SmolVLM/Idefics3 family) reads an image as a run of placeholder
tokens in the text, whose embeddings the model replaces by the image's vision features. The
rollout keeps its token-in-token-out guarantee with images as follows:

1. an observation message names its images by index into the episode's image list
   (``message["images"] == [3]``, the PNG bytes in ``Trajectory.images``);
2. :class:`VisionChatFormat` renders such a message with one placeholder per image before its
   text and lets the processor expand each placeholder into the model's full image sequence
   (``<fake_token_around_image><global-img><image>...<fake_token_around_image>`` for Idefics3),
   so the episode's ids hold every placeholder token the model consumes;
3. the images themselves stay beside the ids, in order (``Trajectory.images``), and
   :func:`image_inputs` turns the images of several sequences into the batch-first tensors the
   model takes with them (``pixel_values`` ``(B, N, C, H, W)``, ``pixel_attention_mask``); a
   sequence with fewer images is padded with all-zero images, which Idefics3 drops.

The trainer recomputes log-probs from the same ids and the same images.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from ..errors import PolicyError
from .chat import ChatFormat, _text_only


def decode_image(data: bytes) -> Any:
    """A PNG/JPEG observation image as an RGB ``PIL.Image``; a clear error when it is not one."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            return image.convert("RGB")
    except (UnidentifiedImageError, OSError) as e:
        raise PolicyError(f"observation image is not a readable image: {e}") from e


def image_inputs(processor: Any, rows: Sequence[Sequence[bytes]]) -> dict[str, Any]:
    """Batch-first image tensors for ``rows`` (each the images of one sequence, in order).

    Returns ``{}`` when no row has an image (the model then runs on text alone).
    """
    if not any(rows):
        return {}
    images = [[decode_image(b) for b in row] for row in rows]
    out = processor.image_processor(images=images, return_tensors="pt")
    return dict(out)


def image_marker_id(processor: Any) -> int:
    """Id of the token that occurs exactly once in each image's expansion.

    Idefics3/SmolVLM: ``<global-img>`` (one per image, also when the image is split in tiles).
    """
    marker = getattr(processor, "global_image_token_id", None)
    if not isinstance(marker, int):
        raise PolicyError(
            f"{type(processor).__name__} is not a supported vision processor "
            "(expected the Idefics3/SmolVLM family, with a <global-img> token)"
        )
    return marker


class VisionChatFormat(ChatFormat):
    """A :class:`ChatFormat` whose messages carry their images as the model's placeholders."""

    def __init__(self, processor: Any) -> None:
        super().__init__(processor.tokenizer)
        self.processor = processor
        self.placeholder: str = str(processor.image_token)
        """The text one image is written as before the processor expands it (``<image>``)."""
        self.marker_id = image_marker_id(processor)

    def _plain(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Role and text, the text preceded by one placeholder per image of the message.

        A placeholder string inside the text itself (an env showing HTML, say) is broken up,
        so the processor never expands it into an image the model was not given.
        """
        out = []
        for m, plain in zip(messages, _text_only(messages), strict=True):
            text = plain["content"].replace(self.placeholder, " ".join(self.placeholder))
            count = len(m.get("images", ()))
            out.append({**plain, "content": self.placeholder * count + ("\n" if count else "")
                        + text})
        return out

    def _encode_with(self, text: str, messages: list[dict[str, Any]],
                     images: Sequence[bytes]) -> list[int]:
        """Ids of ``text`` with the placeholders of ``messages``' images expanded."""
        wanted = [i for m in messages for i in m.get("images", ())]
        if not wanted:
            return self.encode(text)
        if any(not 0 <= i < len(images) for i in wanted):
            raise PolicyError(f"a message names images {wanted} but the episode has "
                              f"{len(images)}")
        pictures = [decode_image(images[i]) for i in wanted]
        out = self.processor(text=[text], images=[pictures], add_special_tokens=False)
        return list(out["input_ids"][0])

    def prompt_ids(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
        images: Sequence[bytes] = (),
    ) -> list[int]:
        """Ids of the first prompt, each image of ``messages`` expanded into its placeholders."""
        text = self._render(self._plain(messages), generation_prompt=True, tools=tools)
        return self._encode_with(text, messages, images)

    def observation_ids(self, message: dict[str, Any], generated: list[int],
                        images: Sequence[bytes] = ()) -> list[int]:
        """Delta ids closing the turn and adding ``message`` with its images' placeholders."""
        text = self.closing_text(generated) + self.message_text(message)
        return self._encode_with(text, [message], images)

    def count_images(self, ids: Sequence[int]) -> int:
        """How many images the sequence ``ids`` holds (occurrences of the marker token)."""
        return sum(1 for i in ids if i == self.marker_id)


__all__ = ["VisionChatFormat", "decode_image", "image_inputs", "image_marker_id"]
