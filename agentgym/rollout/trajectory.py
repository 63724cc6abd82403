"""The one trajectory type: token ids, loss mask, behaviour log-probs and versions move together.

``token_ids`` is the whole episode (first prompt, generated turns, env deltas) exactly as the
policy saw and produced it. Per token: ``loss_mask`` is 1 exactly on generated tokens,
``logprobs`` is the behaviour log-prob (0 where masked), ``versions`` the policy version that
generated it (-1 for prompt and env tokens). Only the builder methods below extend the four
lists, so they can never fall out of step (the bug behind slime #1440).

With summarised context (SUPO, :mod:`agentgym.rollout.summary`) an episode spans several
contexts: each closed one is a :class:`Segment` in ``segments`` (its own exact tokens, mask,
log-probs, versions, turn spans and messages, ending with the summary the policy wrote), and the
trajectory's own token lists and messages hold the last, current context.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from typing import Any

from ..errors import AgentGymError
from ..policies.base import Generation


def jsonable(value: Any) -> Any:
    """A JSON-safe copy of ``value``: dataclasses as dicts, bytes dropped, unknowns as repr."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if is_dataclass(value) and not isinstance(value, type):
        return jsonable(asdict(value))
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items() if not isinstance(v, bytes)}
    if isinstance(value, list | tuple | set):
        return [jsonable(v) for v in value if not isinstance(v, bytes)]
    if hasattr(value, "item"):  # numpy / torch scalars
        return jsonable(value.item())
    return repr(value)


@dataclass
class Segment:
    """One closed context of a summarised episode, with its exact tokens and messages."""

    token_ids: list[int] = field(default_factory=list)
    """The context as the policy saw it: the episode's first prompt, then turns and deltas."""
    loss_mask: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    versions: list[int] = field(default_factory=list)
    turn_spans: list[tuple[int, int]] = field(default_factory=list)
    """``[start, end)`` of each generated turn (the last one is the summary, when there is one)."""
    prompt_len: int = 0
    """Length of the first prompt every context starts with."""
    messages: list[dict[str, Any]] = field(default_factory=list)
    summary: str = ""
    """The summary that closed this context (empty for the current, open one)."""

    @property
    def prompt_ids(self) -> list[int]:
        """The first prompt's ids (identical in every context of the episode)."""
        return self.token_ids[: self.prompt_len]

    @property
    def num_generated_tokens(self) -> int:
        """Tokens the policy generated in this context."""
        return sum(self.loss_mask)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Segment:
        """Inverse of the JSON form (unknown keys are ignored)."""
        names = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in names}
        kwargs["turn_spans"] = [tuple(s) for s in kwargs.get("turn_spans", [])]
        return cls(**kwargs)


@dataclass
class Trajectory:
    """One episode: conversation, exact tokens with per-token mask/log-prob/version, outcome."""

    task_id: str | None = None
    sample_idx: int = 0
    group_id: str = ""
    env_id: str = ""
    seed: int | None = None
    prompt_ids: list[int] = field(default_factory=list)
    """Ids of the first prompt (system + first observation + generation prompt)."""
    token_ids: list[int] = field(default_factory=list)
    """The full sequence: ``prompt_ids`` then every generated turn and env delta."""
    loss_mask: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    versions: list[int] = field(default_factory=list)
    turn_spans: list[tuple[int, int]] = field(default_factory=list)
    """``[start, end)`` of each generated turn in ``token_ids``."""
    exact_tokens: bool = True
    """False when the policy had no tokenizer: ids then hold generated tokens only, if any."""
    response_logprobs: list[list[float]] = field(default_factory=list)
    """Per turn, log-probs a server returned without token ids (text-level policies only)."""
    messages: list[dict[str, Any]] = field(default_factory=list)
    final_observation: str = ""
    """The observation after the last step (not part of ``token_ids``)."""
    reward: float = 0.0
    """Episode return: the sum of ``step_rewards``."""
    step_rewards: list[float] = field(default_factory=list)
    finish_reasons: list[str] = field(default_factory=list)
    terminated: bool = False
    truncated: bool = False
    aborted: bool = False
    reason: str = ""
    """Why the episode was truncated or aborted (empty when it terminated)."""
    info: dict[str, Any] = field(default_factory=dict)
    """The env's last ``info`` (JSON-safe copy)."""
    turns: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    """``wall_s``, ``policy_s``, ``env_s``, ``queue_s`` (waiting for a free env)."""
    image_paths: list[str] = field(default_factory=list)
    """Files of the observation images, relative to the store (set by the store)."""
    images: list[bytes] = field(default_factory=list, repr=False, compare=False)
    """Observation images (PNG bytes) in order; not serialised, the store writes them as files."""
    segments: list[Segment] = field(default_factory=list)
    """Earlier contexts of a summarised episode, oldest first (empty without summaries); the
    lists above hold the current context."""

    # -- building ------------------------------------------------------------------------------

    def start(self, prompt_ids: list[int]) -> None:
        """Begin the sequence with the first prompt's ids."""
        if self.token_ids:
            raise AgentGymError("trajectory already started")
        self.prompt_ids = list(prompt_ids)
        self._extend(prompt_ids, 0, None, -1)

    def _extend(
        self, ids: list[int], mask: int, logprobs: list[float] | None, version: Any
    ) -> None:
        n = len(ids)
        self.token_ids.extend(ids)
        self.loss_mask.extend([mask] * n)
        self.logprobs.extend(logprobs if logprobs is not None else [0.0] * n)
        self.versions.extend(version if isinstance(version, list) else [version] * n)

    def add_generation(self, gen: Generation) -> None:
        """Append a model turn's generated ids verbatim (mask 1, its log-probs and versions)."""
        ids = list(gen.token_ids)
        lps = list(gen.logprobs) if gen.logprobs is not None else None
        if lps is not None and not ids:
            self.response_logprobs.append(lps)
            lps = None
        if lps is not None and len(lps) != len(ids):
            raise AgentGymError(f"generation has {len(ids)} tokens but {len(lps)} log-probs")
        start = len(self.token_ids)
        self._extend(ids, 1, lps, gen.token_versions())
        self.turn_spans.append((start, len(self.token_ids)))
        self.finish_reasons.append(gen.finish_reason)

    def add_env_tokens(self, ids: list[int]) -> None:
        """Append env/template ids (mask 0, log-prob 0, version -1)."""
        self._extend(list(ids), 0, None, -1)

    def replace_env_tokens(self, start: int, end: int, ids: list[int]) -> None:
        """Replace the env ids in ``[start, end)`` by ``ids`` (history compression).

        Only env/template tokens (mask 0) may be replaced; later turn spans shift.
        """
        if not 0 <= start <= end <= len(self.token_ids) or any(self.loss_mask[start:end]):
            raise AgentGymError(f"[{start}, {end}) is not a span of env tokens")
        n, shift = len(ids), len(ids) - (end - start)
        self.token_ids[start:end] = list(ids)
        self.loss_mask[start:end] = [0] * n
        self.logprobs[start:end] = [0.0] * n
        self.versions[start:end] = [-1] * n
        self.turn_spans = [(a + shift, b + shift) if a >= end else (a, b)
                           for a, b in self.turn_spans]

    def close_segment(self, summary: str) -> Segment:
        """Close the current context as a :class:`Segment` and empty the token lists and
        messages for the next context (``prompt_ids`` stay: the next context starts with them).
        """
        segment = Segment(
            token_ids=self.token_ids, loss_mask=self.loss_mask, logprobs=self.logprobs,
            versions=self.versions, turn_spans=self.turn_spans, prompt_len=len(self.prompt_ids),
            messages=self.messages, summary=summary)
        self.segments.append(segment)
        self.token_ids, self.loss_mask, self.logprobs, self.versions = [], [], [], []
        self.turn_spans, self.messages = [], []
        return segment

    def check(self) -> None:
        """Raise if the per-token lists disagree in length or the mask is not 0/1."""
        parts: list[Segment | Trajectory] = [*self.segments, self]
        for part in parts:
            n = len(part.token_ids)
            if not (len(part.loss_mask) == len(part.logprobs) == len(part.versions) == n):
                raise AgentGymError("trajectory token lists have different lengths")
            if any(m not in (0, 1) for m in part.loss_mask):
                raise AgentGymError("loss_mask must hold only 0 and 1")

    # -- views -----------------------------------------------------------------------------------

    @property
    def response_ids(self) -> list[int]:
        """Everything after the first prompt."""
        return self.token_ids[len(self.prompt_ids) :]

    @property
    def generated_ids(self) -> list[list[int]]:
        """The generated ids of each turn."""
        return [self.token_ids[a:b] for a, b in self.turn_spans]

    @property
    def num_generated_tokens(self) -> int:
        """How many tokens the policy generated (every context, summaries included)."""
        return sum(self.loss_mask) + sum(s.num_generated_tokens for s in self.segments)

    @property
    def contexts(self) -> list[Segment]:
        """Every context of the episode as a :class:`Segment`, the current one last (one
        context without summaries). The trainer makes one row of each."""
        current = Segment(
            token_ids=self.token_ids, loss_mask=self.loss_mask, logprobs=self.logprobs,
            versions=self.versions, turn_spans=self.turn_spans, prompt_len=len(self.prompt_ids),
            messages=self.messages)
        return [*self.segments, current]

    @property
    def summaries(self) -> list[str]:
        """The summaries the policy wrote, in order."""
        return [s.summary for s in self.segments]

    @property
    def success(self) -> bool:
        """``info["success"]`` when the env reports it, else ``reward >= 1``."""
        value = self.info.get("success")
        return bool(value) if value is not None else self.reward >= 1.0

    @property
    def key(self) -> tuple[str | None, int]:
        """``(task_id, sample_idx)``, the store's resume key."""
        return (self.task_id, self.sample_idx)

    # -- serialisation ---------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict (images excluded; see ``image_paths``)."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "images"}
        out["turn_spans"] = [list(s) for s in self.turn_spans]
        if not self.segments:
            del out["segments"]  # records without summaries stay as they were
        return jsonable(out)  # type: ignore[no-any-return]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Trajectory:
        """Inverse of :meth:`to_dict` (unknown keys are ignored)."""
        names = {f.name for f in fields(cls)} - {"images"}
        kwargs = {k: v for k, v in data.items() if k in names}
        kwargs["turn_spans"] = [tuple(s) for s in kwargs.get("turn_spans", [])]
        kwargs["segments"] = [Segment.from_dict(s) for s in kwargs.get("segments", [])]
        return cls(**kwargs)

    def to_json(self) -> str:
        """One JSON line."""
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, line: str) -> Trajectory:
        """Parse :meth:`to_json` output."""
        return cls.from_dict(json.loads(line))


__all__ = ["Segment", "Trajectory", "jsonable"]
