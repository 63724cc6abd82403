"""The gateway's work behind the HTTP routes: episodes, exact prompts, generation, collection.

:class:`Gateway` is used in-process (tests, the trainer's rollout source, the benchmark) and by
the HTTP app of :mod:`agentgym.gateway.app`. One call of :meth:`Gateway.chat` finds the branch the
call extends (or opens one, see :mod:`agentgym.gateway.episodes`), builds the exact prompt ids,
asks the policy for one turn conditioned on exactly those ids, records the generated ids with
their log-probs and versions, and returns the OpenAI reply.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from ..policies.base import EpisodeContext, Policy, SamplingParams, derive_seed
from ..rollout.trajectory import Trajectory
from .credentials import Credentials, EpisodeKeys
from .episodes import Branch, Episode, GatewayError, Mismatch, record, template_messages
from .messages import Reply, render_text, split_reply, tools_key

logger = logging.getLogger(__name__)

EPISODE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
"""What an episode id may look like (it appears in URLs, logs and file names)."""


@dataclass(frozen=True)
class GatewayLimits:
    """What one agent may ask of the gateway (every agent is untrusted)."""

    max_new_tokens: int = 512
    """Most tokens one call may generate (a larger ``max_tokens`` is lowered to it)."""
    max_context_tokens: int = 8192
    """Longest branch (prompt and generated ids); a call past it is refused."""
    max_episodes: int = 4096
    """Episodes held at once (collected episodes are dropped)."""
    max_episodes_per_client: int = 256
    """Episodes one client (one credential: the run token, a client token, the trainer) holds
    at once, so no client fills :attr:`max_episodes` for the others."""
    max_branches: int = 64
    """Branches (history rewrites) per episode."""
    max_messages: int = 2048
    """Messages in one call."""


@dataclass
class ChatResult:
    """One answered call: the reply, its token counts, the branch and any mismatch."""

    reply: Reply
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    branch: int
    policy_version: int
    mismatch: Mismatch | None = None


class Gateway:
    """Serves a :class:`Policy` to external agents and records their episodes token-exactly."""

    def __init__(self, policy: Policy, *, limits: GatewayLimits | None = None,
                 model_name: str | None = None, temperature: float | None = None,
                 top_p: float | None = None, describe_tools: bool = True) -> None:
        self.policy = policy
        self.describe_tools = describe_tools
        """Describe a request's tools in the system prompt when the chat template ignores them;
        False when the agent's own prompt describes them (as an env's instructions do)."""
        self.temperature = temperature
        """Sampling temperature of every call, whatever the agent asks (a trainer sets it: the
        behaviour log-probs must be those of the temperature it trains with); None: the agent's."""
        self.top_p = top_p
        """Nucleus mass of every call, as :attr:`temperature`; None: the agent's."""
        self.limits = limits or GatewayLimits()
        self.model_name = model_name or str(policy.describe().get("model", policy.name))
        self.episodes: dict[str, Episode] = {}
        self.credentials = Credentials()
        """Client tokens and per-episode keys (see :mod:`agentgym.gateway.credentials`)."""
        self.format = policy.chat_format()
        self._template_has_tools = self._probe_tools()
        self._gen_prompt = self._generation_prompt()

    # -- templates -----------------------------------------------------------------------------

    def _probe_tools(self) -> bool:
        """Whether the chat template renders a request's ``tools`` itself."""
        if self.format is None:
            return True
        tok = self.format.tokenizer
        probe = [{"role": "user", "content": "x"}]
        tool = [{"type": "function", "function": {"name": "probe_tool_zz", "parameters": {}}}]
        try:
            with_tools = tok.apply_chat_template(probe, tokenize=False, tools=tool)
        except Exception:  # noqa: BLE001 - a template that rejects tools does not render them
            return False
        return "probe_tool_zz" in str(with_tools)

    def _generation_prompt(self) -> str:
        if self.format is None:
            return ""
        tok = self.format.tokenizer
        probe = [{"role": "user", "content": "x"}]
        bare = tok.apply_chat_template(probe, tokenize=False, add_generation_prompt=False)
        full = tok.apply_chat_template(probe, tokenize=False, add_generation_prompt=True)
        return str(full)[len(str(bare)):]

    def _delta_ids(self, branch: Branch, new: list[dict[str, Any]]) -> list[int]:
        """Ids of ``new`` messages appended after the branch's last generated turn."""
        fmt = self.format
        texts = [fmt.message_text({"role": m.get("role"), "content": render_text(m)}) for m in new]
        gp = self._gen_prompt
        for i, text in enumerate(texts[:-1]):
            if gp and not text.endswith(gp):
                raise GatewayError("the chat template does not end messages with the generation "
                                   "prompt; cannot append several messages", 500, "template")
            texts[i] = text[: len(text) - len(gp)]
        return fmt.encode(fmt.closing_text(branch.last_generated) + "".join(texts))

    # -- episodes ------------------------------------------------------------------------------

    def episode(self, episode_id: str, *, create: bool = True, client: str = "run") -> Episode:
        """The episode named ``episode_id`` (opened on first use for ``client`` when
        ``create``)."""
        if not EPISODE_ID.match(episode_id):
            raise GatewayError("an episode id is 1-128 of A-Z a-z 0-9 . _ - starting with a "
                               "letter or digit", 400, "episode")
        ep = self.episodes.get(episode_id)
        if ep is None:
            if not create:
                raise GatewayError(f"no episode {episode_id!r}", 404, "episode")
            if len(self.episodes) >= self.limits.max_episodes:
                raise GatewayError("too many open episodes", 429, "episodes")
            held = sum(1 for e in self.episodes.values() if e.client == client)
            if held >= self.limits.max_episodes_per_client:
                raise GatewayError(f"this client already holds {held} open episodes (at most "
                                   f"{self.limits.max_episodes_per_client})", 429, "episodes")
            ep = self.episodes[episode_id] = Episode(episode_id, client=client)
        return ep

    def open_episode(self, episode_id: str, *, task_id: str | None = None,
                     client: str = "run") -> EpisodeKeys:
        """Open ``episode_id`` for ``client`` and return its agent and reward keys.

        The agent key is all an agent program needs (its ``OPENAI_API_KEY``); the reward key
        stays with whoever scores the episode. Both are revoked by :meth:`collect`.
        """
        if episode_id in self.episodes:
            raise GatewayError(f"episode {episode_id!r} is already open", 409, "episode")
        ep = self.episode(episode_id, client=client)
        ep.task_id = task_id
        return self.credentials.episode(episode_id, client)

    def set_reward(self, episode_id: str, reward: float, *, done: bool = True) -> None:
        """Attach the episode's reward (and end it when ``done``)."""
        ep = self.episode(episode_id, create=False)
        ep.reward, ep.done = float(reward), ep.done or done

    def collect(self, episode_id: str) -> list[Trajectory]:
        """The episode's trajectories (one per branch); the episode and its keys are
        forgotten."""
        self.credentials.revoke_episode(episode_id)
        ep = self.episodes.pop(episode_id, None)
        return ep.trajectories() if ep is not None else []

    # -- calls ---------------------------------------------------------------------------------

    async def chat(self, episode_id: str, messages: list[dict[str, Any]],
                   tools: list[dict[str, Any]] | None = None, *, max_tokens: int | None = None,
                   temperature: float = 1.0, top_p: float = 1.0, seed: int | None = None,
                   stop: tuple[str, ...] = (), client: str | None = "run") -> ChatResult:
        """Answer one chat-completions call of ``episode_id`` and record it.

        A new episode is opened for ``client`` on first use; ``client=None`` (an agent key's
        call) only reaches an episode that is already open."""
        if not messages:
            raise GatewayError("messages must not be empty")
        if len(messages) > self.limits.max_messages:
            raise GatewayError(f"more than {self.limits.max_messages} messages")
        ep = self.episode(episode_id, create=client is not None, client=client or "run")
        async with ep.lock:  # one call at a time per episode: branches grow in order
            return await self._chat(ep, messages, tools, max_tokens=max_tokens,
                                    temperature=temperature, top_p=top_p, seed=seed, stop=stop)

    async def _chat(self, ep: Episode, messages: list[dict[str, Any]],
                    tools: list[dict[str, Any]] | None, *, max_tokens: int | None,
                    temperature: float, top_p: float, seed: int | None,
                    stop: tuple[str, ...]) -> ChatResult:
        key = tools_key(tools)
        branch = ep.find_branch(messages, key)
        mismatch = None
        prompt: list[int] | None = None
        delta: list[int] | None = None
        if branch is None:
            if len(ep.branches) >= self.limits.max_branches:
                raise GatewayError(f"more than {self.limits.max_branches} history rewrites in "
                                   "one episode", 400, "branches")
            plain = template_messages(ep, messages, tools,
                                      template_has_tools=self._template_has_tools
                                      or not self.describe_tools)
            branch = Branch(len(ep.branches), Trajectory(
                env_id="gateway", exact_tokens=self.format is not None), key)
            if ep.branches:
                mismatch = ep.diagnose(messages, key, branch.index)
            if self.format is not None:
                prompt = self.format.prompt_ids(plain, tools if self._template_has_tools else None)
            full = prompt
        else:
            plain = None
            if self.format is not None:
                delta = self._delta_ids(branch, messages[len(branch.history):])
                full = [*branch.trajectory.token_ids, *delta]
            else:
                full = None
        room = self.limits.max_context_tokens - (len(full) if full is not None else 0)
        if room <= 0:
            raise GatewayError(f"the episode is over {self.limits.max_context_tokens} tokens",
                               400, "context_length_exceeded")
        want = max_tokens if max_tokens is not None else self.limits.max_new_tokens
        sampling = SamplingParams(
            max_tokens=max(1, min(want, self.limits.max_new_tokens, room)),
            temperature=self.temperature if self.temperature is not None else temperature,
            top_p=self.top_p if self.top_p is not None else top_p, stop=stop,
            seed=seed if seed is not None else derive_seed(ep.id, branch.index, len(messages)))
        turn = len(branch.trajectory.turn_spans)
        gen = await self.policy.agenerate(
            plain if plain is not None else messages, tools=tools, sampling=sampling,
            prompt_token_ids=full, episode=EpisodeContext(ep.id, task_id=ep.task_id, turn=turn))
        if full is not None and gen.prompt_token_ids is not None and \
                list(gen.prompt_token_ids) != full:
            raise GatewayError("the policy generated from other ids than the prompt given",
                               500, "policy")
        reply = split_reply(gen.text, tools)
        if branch.index == len(ep.branches):
            ep.branches.append(branch)
            if mismatch is not None:
                ep.mismatches.append(mismatch)
                logger.warning("episode %s: %s; branch %d opened (re-tokenised, not trained "
                               "on)", ep.id, mismatch.detail, branch.index)
        record(branch, messages, prompt, delta, gen, reply)
        finish = "tool_calls" if reply.tool_calls else (
            "length" if gen.finish_reason == "length" else "stop")
        return ChatResult(reply, finish, len(full) if full is not None else 0,
                          len(gen.token_ids), branch.index, gen.policy_version, mismatch)


__all__ = ["EPISODE_ID", "ChatResult", "Gateway", "GatewayLimits"]
