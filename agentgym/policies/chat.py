"""Chat templating for token-in-token-out rollouts: a first prompt, then deltas only.

The episode's ids are built once and only ever appended to:

1. the first prompt is the chat template applied to ``[system, user]`` with the generation prompt;
2. each model turn appends the generated ids verbatim;
3. each env observation appends the ids of that one message alone: the template's text that
   closes the assistant turn (``<|im_end|>\\n`` in ChatML, minus the end-of-turn token when the
   model already generated it), the message, and the next generation prompt.

The delta text is found by rendering a fixed probe conversation with and without the new message
and taking the difference, so any chat template works, and earlier turns are never re-tokenized.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import PolicyError

_PROBE_CONTENT = "\x1fprobe-assistant\x1f"
_PROBE = [
    {"role": "system", "content": "probe-system"},
    {"role": "user", "content": "probe-user"},
    {"role": "assistant", "content": _PROBE_CONTENT},
]


class ChatFormat:
    """Turns messages into ids for one tokenizer, appending deltas without re-tokenizing."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        eos = getattr(tokenizer, "eos_token_id", None)
        eos_list = eos if isinstance(eos, list) else [eos] if eos is not None else []
        self.eos_ids: set[int] = set(eos_list)
        self._eos_text = getattr(tokenizer, "eos_token", None) or ""
        base = self._render(_PROBE, generation_prompt=False)
        at = base.rfind(_PROBE_CONTENT)
        if at < 0:
            raise PolicyError("the chat template drops assistant content; cannot build deltas")
        self._probe_text = base
        self.turn_close = base[at + len(_PROBE_CONTENT) :]
        """Template text after an assistant message's content (``<|im_end|>\\n`` in ChatML)."""

    def _render(self, messages: list[dict[str, Any]], *, generation_prompt: bool,
                tools: list[dict[str, Any]] | None = None) -> str:
        kwargs: dict[str, Any] = {"tokenize": False, "add_generation_prompt": generation_prompt}
        if tools:
            kwargs["tools"] = tools
        text = self.tokenizer.apply_chat_template(messages, **kwargs)
        if not isinstance(text, str):
            raise PolicyError(f"apply_chat_template returned {type(text).__name__}, not text")
        return text

    def encode(self, text: str) -> list[int]:
        """Ids of ``text`` with no special tokens added (special-token strings are kept)."""
        return list(self.tokenizer.encode(text, add_special_tokens=False))

    def prompt_ids(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
        images: Sequence[bytes] = (),
    ) -> list[int]:
        """Ids of the first prompt: the template over ``messages`` plus the generation prompt.

        ``images`` (the episode's observation images, which messages name by index) are ignored
        here: a text model sees only the text. :class:`~agentgym.policies.vision.VisionChatFormat`
        puts them in.
        """
        return self.encode(self._render(self._plain(messages), generation_prompt=True, tools=tools))

    def closing_text(self, generated: list[int]) -> str:
        """Template text still needed to close an assistant turn that produced ``generated``."""
        ended = bool(generated) and generated[-1] in self.eos_ids
        if ended and self._eos_text and self.turn_close.startswith(self._eos_text):
            return self.turn_close[len(self._eos_text) :]
        return self.turn_close

    def message_text(self, message: dict[str, Any]) -> str:
        """Template text of ``message`` alone, followed by the generation prompt."""
        full = self._render([*_PROBE, *self._plain([message])], generation_prompt=True)
        if not full.startswith(self._probe_text):
            raise PolicyError("the chat template rewrites earlier turns; deltas are not stable")
        return full[len(self._probe_text) :]

    def _plain(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The messages as the chat template gets them (a text model: role and text only)."""
        return _text_only(messages)

    def observation_ids(self, message: dict[str, Any], generated: list[int],
                        images: Sequence[bytes] = ()) -> list[int]:
        """Delta ids after a model turn that produced ``generated``: close it, add ``message``.

        ``images`` as in :meth:`prompt_ids` (ignored by a text model).
        """
        return self.encode(self.closing_text(generated) + self.message_text(message))


def _text_only(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages reduced to role and text content (images and tool-call fields dropped)."""
    out = []
    for m in messages:
        content = m.get("content")
        out.append({"role": m["role"], "content": content if isinstance(content, str) else ""})
    return out


__all__ = ["ChatFormat"]
