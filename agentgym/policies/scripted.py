"""Scripted policies: replay an env's expert solution, or recorded trajectories.

Expert protocol: the env's unwrapped object implements ``expert_actions(task) -> list[action]``
(an action is tool-call text, a :class:`~agentgym.ToolCall` or an OpenAI message dict), or the
task carries ``data["expert_actions"]``. The engine exposes it to the policy through
:attr:`EpisodeContext.expert_actions`, which also works when the env lives in a Ray actor.
An expert action may also be a callable: it is called with the latest observation's text and
returns the action (for web envs, whose element ids exist only once a page is loaded).

Summarised context (SUPO): asked for a summary (the last message carries ``summary_request``),
the expert writes :func:`expert_summary`, the actions of the context with what each returned, so
behaviour cloning on recorded experts teaches a model what a useful summary holds. Given a
``tokenizer``, the expert's turns come with exact token ids (the text's ids and EOS), so a
recording counts the context budget in the trained model's tokens, as its rollouts will.
"""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from ..errors import PolicyError
from ..toolcalls import ToolCall
from .base import EpisodeContext, Generation, Policy, SamplingParams


def action_to_text(action: Any) -> str:
    """Text form of an expert action, as the model would have written it."""
    if isinstance(action, str):
        return action
    if isinstance(action, ToolCall):
        return action.to_hermes()
    if isinstance(action, list) and all(isinstance(a, ToolCall) for a in action):
        return "\n".join(a.to_hermes() for a in action)
    if isinstance(action, dict):
        return str(action.get("content") or "")
    return str(action)


SUMMARY_RESULT_CHARS = 40
"""Characters of an observation kept in an expert summary (its first line)."""


def expert_summary(messages: list[dict[str, Any]]) -> str:
    """The expert's summary of a context: earlier summaries, then ``action=result`` per turn.

    Reads the context after its first prompt (system and task): an earlier summary is kept as it
    is, each assistant action is followed by ``=`` and the first line of the observation that
    answered it (cut to :data:`SUMMARY_RESULT_CHARS`); an action still waiting for its result
    (the observation withheld for the summary) ends the summary without one.
    """
    parts: list[str] = []
    waiting = False  # the last part is an action without its result yet
    body = [m for m in messages if m.get("role") != "system"][1:]  # after the task
    for m in body:
        content = m.get("content")
        text = " ".join(content.split()) if isinstance(content, str) else ""
        if m.get("summary_request") or not text:
            continue
        if m.get("role") == "assistant":
            parts.append(text)
            # an earlier summary may end with an action whose result came after it
            waiting = not m.get("summary") or "=" not in text.rsplit("; ", 1)[-1]
        elif waiting:
            first = content.strip().splitlines()[0] if isinstance(content, str) else text
            parts[-1] += "=" + first[:SUMMARY_RESULT_CHARS]
            waiting = False
    return "; ".join(p for p in parts if p)


def _last_observation(messages: list[dict[str, Any]]) -> str:
    """Text of the latest env message (what the model would act on)."""
    for m in reversed(messages):
        if m.get("role") != "assistant":
            content = m.get("content")
            return content if isinstance(content, str) else ""
    return ""


class ScriptedPolicy(Policy):
    """Plays the env's expert actions in order, one per turn."""

    name = "scripted"

    def __init__(self, timeout_s: float = 60.0, tokenizer: Any = None) -> None:
        super().__init__()
        self.timeout_s = timeout_s
        self.tokenizer = tokenizer
        """Optional: with one, every turn carries exact ids (see the module docstring)."""

    @classmethod
    def from_spec(cls, arg: str | None = None, **options: Any) -> ScriptedPolicy:
        """``scripted`` (no argument)."""
        return cls(**options)

    async def agenerate(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        sampling: SamplingParams,
        prompt_token_ids: list[int] | None = None,
        episode: EpisodeContext | None = None,
    ) -> Generation:
        """The expert action of this turn (empty text once the script is exhausted), or the
        expert's summary when the context asks for one."""
        if messages and messages[-1].get("summary_request"):
            return self._reply(expert_summary(messages), None, sampling, prompt_token_ids)
        if episode is None or episode.expert_actions is None:
            raise PolicyError("the scripted policy needs an episode context from the engine")
        if "expert" not in episode.state:
            try:
                actions = await asyncio.wait_for(episode.expert_actions(), self.timeout_s)
            except TimeoutError as e:
                raise PolicyError("the env's expert did not answer in time") from e
            if actions is None:
                raise PolicyError(
                    "this env offers no expert: implement expert_actions(task) on the env or "
                    "put 'expert_actions' in the task data"
                )
            episode.state["expert"] = list(actions)
        script = episode.state["expert"]
        if episode.turn >= len(script):
            return self._reply("", None, sampling, prompt_token_ids)
        action = script[episode.turn]
        if callable(action):  # a deferred step, resolved against the latest observation
            action = action(_last_observation(messages))
        return self._reply(action_to_text(action), action, sampling, prompt_token_ids)

    def _reply(self, text: str, action: Any, sampling: SamplingParams,
               prompt_token_ids: list[int] | None) -> Generation:
        """The turn as a :class:`Generation`: text only, or exact ids with a tokenizer (cut to
        ``sampling.max_tokens`` like a model's turn)."""
        if self.tokenizer is None:
            return Generation(text=text, finish_reason="stop", policy_version=self.version,
                              action=action)
        chat = self.chat_format()
        eos = self.tokenizer.eos_token_id
        ids = [*chat.encode(text), int(eos[0] if isinstance(eos, list) else eos)]
        finish = "stop"
        if len(ids) > sampling.max_tokens:
            ids, finish, action = ids[: sampling.max_tokens], "length", None
            text = self.tokenizer.decode(ids, skip_special_tokens=True)
        return Generation(text=text, token_ids=ids, logprobs=[0.0] * len(ids),
                          finish_reason=finish, policy_version=self.version, action=action,
                          prompt_token_ids=prompt_token_ids)


RECORDS = "trajectories.jsonl"
"""File name of a trajectory store's records (``agentgym.rollout.store.RECORDS``)."""


class ReplayPolicy(Policy):
    """Replays the assistant turns of recorded trajectories, matched by task and sample."""

    name = "replay"

    def __init__(self, trajectories: Any) -> None:
        """``trajectories``: :class:`~agentgym.rollout.Trajectory` objects or their JSON dicts."""
        super().__init__()
        self.turns: dict[tuple[str | None, int], list[str]] = defaultdict(list)
        for traj in trajectories:
            record = traj if isinstance(traj, dict) else vars(traj)
            messages = record.get("messages") or []
            texts = [m.get("content") or "" for m in messages if m.get("role") == "assistant"]
            self.turns[(record.get("task_id"), int(record.get("sample_idx", 0)))] = texts

    @classmethod
    def from_spec(cls, arg: str | None = None, **options: Any) -> ReplayPolicy:
        """``replay:PATH``: a store folder, an ``agentgym eval --out`` folder or a JSONL file.

        Reads the JSON lines itself (the fields ``task_id``, ``sample_idx`` and ``messages`` of
        a trajectory record), so policies do not depend on the rollout package.
        """
        if not arg:
            raise PolicyError("replay needs a path: replay:/path/to/store-or-file.jsonl")
        path = Path(arg)
        if path.is_dir():
            nested = path / "trajectories" / RECORDS  # the store inside an eval --out folder
            path = nested if not (path / RECORDS).exists() and nested.exists() else path / RECORDS
        if not path.is_file():
            raise PolicyError(f"no recorded trajectories at {path}")
        with open(path, encoding="utf-8") as fh:
            records = [json.loads(line) for line in fh if line.strip()]
        return cls(records, **options)

    async def agenerate(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        sampling: SamplingParams,
        prompt_token_ids: list[int] | None = None,
        episode: EpisodeContext | None = None,
    ) -> Generation:
        """The recorded turn for this task, sample and turn (sample 0 if that one is missing)."""
        if episode is None:
            raise PolicyError("the replay policy needs an episode context from the engine")
        texts = self.turns.get((episode.task_id, episode.sample_idx)) or self.turns.get(
            (episode.task_id, 0)
        )
        if texts is None:
            raise PolicyError(f"no recorded trajectory for task {episode.task_id!r}")
        text = texts[episode.turn] if episode.turn < len(texts) else ""
        return Generation(text=text, finish_reason="stop", policy_version=self.version)


__all__ = ["ReplayPolicy", "ScriptedPolicy", "action_to_text", "expert_summary"]
