"""History compression: earlier observations replaced by a short placeholder (WebAgent-R1).

Web observations are long (an accessibility tree per turn), and a multi-turn episode soon
outgrows the context. WebAgent-R1 keeps only the latest observation in full and replaces every
earlier one by ``** Simplified html **``, in the conversation text and in the token ids alike.
:class:`HistoryCompression` is that option for any env: set ``RolloutConfig(history=...)`` and
the episode applies it before each new observation is appended.

With exact tokens (a policy with a tokenizer) an earlier observation's delta ids are replaced by
the ids of the compressed message (same template closing and generation prompt around it), so
the trajectory stays exactly what the policy saw at its last turn; earlier turns were generated
while that observation was still in full, as in WebAgent-R1.

An env can ask for the same on its own: a step whose ``info["context"] == "replace"`` says the
new observation supersedes every earlier one (MemSearcher's question + memory + newest results),
and the episode then applies :data:`REPLACE_CONTEXT` before appending it, whatever
``RolloutConfig.history`` says.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

OBSERVATION_ROLES = ("user", "tool")


@dataclass(frozen=True)
class HistoryCompression:
    """Which earlier observations to replace, and by what."""

    placeholder: str = "** Simplified html **"
    """Text that replaces a compressed observation."""
    keep_last: int = 1
    """Observations kept in full, counting the one being added (1: only the newest)."""
    keep_first: bool = True
    """Keep the first observation (it usually states the task)."""
    keep_lines: int = 0
    """Keep this many leading lines of a compressed observation (e.g. its URL line)."""

    def compress(self, text: str) -> str:
        """The compressed form of one observation."""
        head = text.splitlines()[: self.keep_lines] if self.keep_lines else []
        return "\n".join([*head, self.placeholder])


def observations_to_compress(messages: list[dict[str, Any]],
                             history: HistoryCompression) -> list[int]:
    """Indices of observation messages to compress before one more observation is appended."""
    obs = [i for i, m in enumerate(messages) if m.get("role") in OBSERVATION_ROLES]
    if history.keep_first and obs:
        obs = obs[1:]
    keep = max(0, history.keep_last - 1)
    candidates = obs[: len(obs) - keep] if keep else obs
    return [i for i in candidates
            if messages[i].get("content") != history.compress(str(messages[i].get("content")))]


REPLACE_CONTEXT = HistoryCompression(placeholder="** superseded by a newer observation **")
"""Applied before an observation whose step info says ``context == "replace"`` (the first
observation, which states the task, stays: exact token ids cannot change the first prompt)."""


__all__ = ["REPLACE_CONTEXT", "HistoryCompression", "observations_to_compress"]
