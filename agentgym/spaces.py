"""Gymnasium spaces for multi-turn text agents.

An observation is ``{"text": str, "images": tuple[bytes, ...]}`` (images as PNG bytes); an action
is the model's text, an OpenAI assistant message dict, or a list of :class:`ToolCall`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from .toolcalls import ToolCall

_ALPHABET = list("abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<>/{}[]():\"',.\n")


class Unicode(spaces.Space[str]):
    """Any Python string of at most ``max_length`` characters (gymnasium's Text limits charset)."""

    def __init__(self, max_length: int = 1_000_000, seed: int | None = None) -> None:
        super().__init__((), str, seed)
        self.max_length = max_length

    def contains(self, x: Any) -> bool:
        """True for a str no longer than ``max_length``."""
        return isinstance(x, str) and len(x) <= self.max_length

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """A random short string."""
        n = int(self.np_random.integers(0, 64))
        return "".join(self.np_random.choice(_ALPHABET, size=n))

    @property
    def is_np_flattenable(self) -> bool:
        """Strings cannot be flattened to arrays."""
        return False

    def __repr__(self) -> str:
        return f"Unicode({self.max_length})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unicode) and other.max_length == self.max_length


class PNGImages(spaces.Space[tuple]):
    """A tuple of PNG-encoded images (possibly empty)."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__((), tuple, seed)

    def contains(self, x: Any) -> bool:
        """True for a tuple of bytes each starting with the PNG signature."""
        return isinstance(x, tuple) and all(
            isinstance(i, bytes) and i.startswith(b"\x89PNG") for i in x
        )

    def sample(self, mask: Any = None, probability: Any = None) -> tuple:
        """The empty tuple (random PNGs are not useful samples)."""
        return ()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PNGImages)


def observation_space(max_length: int = 1_000_000) -> spaces.Dict:
    """The standard observation space: text plus PNG images."""
    return spaces.Dict({"text": Unicode(max_length), "images": PNGImages()})


class AgentAction(spaces.Space[Any]):
    """Model output: text, an OpenAI assistant message, or tool calls."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__((), object, seed)

    def contains(self, x: Any) -> bool:
        """True for str, dict messages, ToolCall and lists of ToolCall."""
        if isinstance(x, str | dict | ToolCall):
            return True
        return isinstance(x, list) and all(isinstance(c, ToolCall) for c in x)

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """Random text (envs must answer it with an error observation)."""
        return Unicode(256, seed=int(self.np_random.integers(2**31))).sample()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AgentAction)


def empty_images() -> tuple[bytes, ...]:
    """The empty image tuple, for text-only observations."""
    return ()


def as_uint8_image(png: bytes) -> np.ndarray:
    """Decode PNG bytes into an ``(H, W, C)`` uint8 array (needs Pillow)."""
    import io

    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
