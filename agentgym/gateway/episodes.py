"""Episodes of the gateway: branches of exact token ids, built without re-tokenising a reply.

An episode holds one or more branches; each branch is one :class:`Trajectory`. A call whose
history is a branch's history (the gateway's replies sent back unedited) followed by new
non-assistant messages (tool results, user turns) extends that branch: the ids of the new
messages alone are appended after the recorded ids, exactly as the rollout engine does
(:class:`~agentgym.policies.chat.ChatFormat` deltas), so the ids trained on are the ids sampled.

Any other call opens a new branch whose prompt is the template over the whole history (mask 0:
never trained on), and, when the episode already had a branch, records a :class:`Mismatch`
naming what changed: ``edited`` (an assistant turn differs from the reply the gateway returned,
or the gateway never returned it), ``rewritten`` (an earlier non-assistant message changed or
went missing), ``tools`` (the tool list changed). Earlier branches are kept as they were.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from ..errors import AgentGymError
from ..policies.base import Generation
from ..rollout.trajectory import Trajectory
from .messages import Reply, render_text, same_message, same_reply, tools_prompt


class GatewayError(AgentGymError):
    """A request the gateway cannot serve; ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400, code: str = "invalid_request") -> None:
        super().__init__(message)
        self.status = status
        self.code = code


@dataclass
class Mismatch:
    """A call whose history did not extend any branch: its turns were re-tokenised as prompt."""

    kind: str
    """``edited``, ``rewritten`` or ``tools``."""
    message_index: int
    """Index in the call's messages of the first message that differs (-1 for ``tools``)."""
    detail: str
    branch: int
    """The branch opened for the call."""


@dataclass
class Branch:
    """One line of calls: a trajectory and the history (with the gateway's replies) it covers."""

    index: int
    trajectory: Trajectory
    tools: str
    """:func:`~agentgym.gateway.messages.tools_key` of the tools the branch was prompted with."""
    history: list[dict[str, Any] | Reply] = field(default_factory=list)
    """The messages of the branch in order: the agent's as dicts, the gateway's as replies."""
    last_generated: list[int] = field(default_factory=list)

    def extends(self, messages: list[dict[str, Any]], tools: str) -> bool:
        """Whether ``messages`` is this branch's history plus new non-assistant messages."""
        n = len(self.history)
        if tools != self.tools or len(messages) <= n:
            return False
        if any(m.get("role") == "assistant" for m in messages[n:]):
            return False
        return all(_matches(m, h) for m, h in zip(messages, self.history, strict=False))

    def common_prefix(self, messages: list[dict[str, Any]]) -> int:
        """How many leading messages of ``messages`` match this branch's history."""
        n = 0
        for m, h in zip(messages, self.history, strict=False):
            if not _matches(m, h):
                break
            n += 1
        return n


def _matches(given: dict[str, Any], recorded: dict[str, Any] | Reply) -> bool:
    if isinstance(recorded, Reply):
        return same_reply(given, recorded)
    return given.get("role") != "assistant" and same_message(given, recorded)


@dataclass
class Episode:
    """Everything recorded for one episode id."""

    id: str
    task_id: str | None = None
    client: str = "run"
    """The client that opened it (its per-client cap counts this episode)."""
    branches: list[Branch] = field(default_factory=list)
    mismatches: list[Mismatch] = field(default_factory=list)
    reward: float | None = None
    """Set by ``POST /episodes/<id>/reward``, a reward function or an env."""
    done: bool = False
    info: dict[str, Any] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)
    started: float = field(default_factory=time.monotonic)

    def replies(self) -> list[Reply]:
        """Every reply the gateway returned in this episode."""
        return [h for b in self.branches for h in b.history if isinstance(h, Reply) and h.own]

    def find_branch(self, messages: list[dict[str, Any]], tools: str) -> Branch | None:
        """The most recent branch that ``messages`` extends, if any."""
        for branch in reversed(self.branches):
            if branch.extends(messages, tools):
                return branch
        return None

    def diagnose(self, messages: list[dict[str, Any]], tools: str, branch: int) -> Mismatch:
        """Why ``messages`` extends no branch (compared with the closest one)."""
        best = max(self.branches, key=lambda b: b.common_prefix(messages))
        if best.tools != tools:
            return Mismatch("tools", -1, "the tool list differs from the branch's", branch)
        at = best.common_prefix(messages)
        given = messages[at] if at < len(messages) else None
        recorded = best.history[at] if at < len(best.history) else None
        if given is not None and given.get("role") == "assistant":
            what = ("differs from the reply the gateway returned"
                    if isinstance(recorded, Reply) and recorded.own
                    else "was never returned by the gateway")
            return Mismatch("edited", at, f"assistant message {at} {what}", branch)
        if given is None:
            detail = f"the history stops at message {at}, before the branch's end"
        else:
            detail = f"message {at} ({given.get('role')}) differs from the branch's"
        return Mismatch("rewritten", at, detail, branch)

    def trajectories(self) -> list[Trajectory]:
        """One trajectory per branch, with the episode's reward and outcome."""
        out = []
        reward = self.reward if self.reward is not None else 0.0
        for b in self.branches:
            t = b.trajectory
            t.task_id = self.task_id if self.task_id is not None else t.task_id
            t.reward, t.step_rewards = reward, [reward]
            t.terminated = self.done and not t.aborted
            t.messages = [h.message() if isinstance(h, Reply) else h for h in b.history]
            t.turns = len(t.turn_spans)
            t.timings["wall_s"] = time.monotonic() - self.started
            t.info = {**self.info, "gateway": {
                "episode": self.id, "branch": b.index, "branches": len(self.branches),
                "texts": [h.text for h in b.history if isinstance(h, Reply) and h.own],
                "mismatches": [vars(m) for m in self.mismatches if m.branch == b.index]}}
            t.check()
            out.append(t)
        return out


def template_messages(episode: Episode, messages: list[dict[str, Any]],
                      tools: list[dict[str, Any]] | None, *, template_has_tools: bool
                      ) -> list[dict[str, Any]]:
    """The history as the chat template gets it for a new branch's prompt.

    An assistant message that is one of the gateway's replies stands for the model's own text
    (tool-call blocks included); any other one is rendered with Hermes blocks. A template that
    ignores ``tools`` gets them described in the system message.
    """
    replies = episode.replies()
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.get("role") == "assistant":
            own = next((r for r in replies if same_reply(m, r)), None)
            out.append({"role": "assistant", "content": own.text if own else render_text(m)})
        else:
            out.append({"role": m.get("role"), "content": render_text(m)})
    if tools and not template_has_tools:
        note = tools_prompt(tools)
        if out and out[0]["role"] == "system":
            out[0] = {"role": "system", "content": f"{out[0]['content']}\n\n{note}"}
        else:
            out.insert(0, {"role": "system", "content": note})
    return out


def record(branch: Branch, messages: list[dict[str, Any]], prompt: list[int] | None,
           delta: list[int] | None, gen: Generation, reply: Reply) -> None:
    """Add a call to ``branch``: its new messages, the delta or first prompt, the generation."""
    t = branch.trajectory
    if delta is not None:
        t.add_env_tokens(delta)
    elif prompt is not None:
        t.start(prompt)
    t.add_generation(gen)
    branch.history.extend(Reply.foreign(m) if m.get("role") == "assistant" else m
                          for m in messages[len(branch.history):])
    branch.history.append(reply)
    branch.last_generated = list(gen.token_ids)


__all__ = ["Branch", "Episode", "GatewayError", "Mismatch", "record", "template_messages"]
