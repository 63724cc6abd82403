"""Use any agentgym env from verl's agent loop (``verl.experimental.agent_loop``).

verl runs one ``AgentLoopBase`` instance per sample: its ``run(sampling_params, **row)`` talks to
the rollout servers through ``server_manager.generate(request_id, prompt_ids=...,
sampling_params=...)`` and returns an ``AgentLoopOutput`` (prompt ids, response ids with a mask
that is 1 on generated tokens and 0 on environment tokens, optional log-probs, the reward, the
number of turns). :class:`AgentgymLoop` is that loop for an agentgym env:

1. ``env = agentgym.make(row["env_id"])`` (local, or ``remote:http://...`` on CPU hosts), reset on
   the row's ``task_id`` (else ``seed``);
2. the prompt is the chat template over the env's instructions and first observation, with the
   env's tools passed to the template;
3. each turn: generate, decode, ``env.astep(text)``, append the observation's tokens (rendered by
   the chat template as a ``tool`` or ``user`` message) with mask 0; stop when the episode ends
   (the env's turn limit, applied by ``make``, truncates it) or at ``response_length`` tokens;
4. ``reward_score`` is the episode's total reward, so verl's reward manager is not needed.

The loop logic lives in :class:`AgentgymLoop` and depends on nothing from verl (unit-tested with a
fake server manager). :func:`verl_agent_loop_class` builds the ``AgentLoopBase`` subclass and
registers it as ``agentgym`` (verl imported only then). In verl's config::

    actor_rollout_ref.rollout.mode=async
    actor_rollout_ref.rollout.agent.agent_loop_config_path=agentgym_loop.yaml
    # agentgym_loop.yaml:  - name: agentgym
    #                        _target_: agentgym.integrations.verl.AgentgymVerlLoop

and give the dataset an ``agent_name`` column equal to ``agentgym`` plus ``env_id`` and
``task_id`` columns (:func:`verl_rows`).
"""

from __future__ import annotations

import functools
import uuid
from dataclasses import dataclass, field
from typing import Any

from ..env import AgentEnv
from ..errors import MissingExtra
from ..registry import make
from ..rollout.returns import EpisodeReturn
from ..toolcalls import parse_tool_calls


@dataclass
class LoopResult:
    """What one episode produced, in verl's ``AgentLoopOutput`` terms."""

    prompt_ids: list[int]
    response_ids: list[int]
    response_mask: list[int]
    response_logprobs: list[float] | None
    reward_score: float
    num_turns: int
    extra_fields: dict[str, Any] = field(default_factory=dict)


def _token_output(out: Any) -> tuple[list[int], list[float] | None]:
    """verl's ``TokenOutput`` (``token_ids``, ``log_probs``) or a plain id list."""
    if isinstance(out, list):
        return [int(t) for t in out], None
    ids = [int(t) for t in out.token_ids]
    logprobs = getattr(out, "log_probs", None)
    return ids, [float(x) for x in logprobs] if logprobs is not None else None


class AgentgymLoop:
    """The agent loop for one agentgym episode, independent of verl's classes.

    Args:
        server_manager: Has ``async generate(request_id, *, prompt_ids, sampling_params)``.
        tokenizer: A Hugging Face tokenizer with a chat template.
        max_turns: Turn limit of the envs :meth:`make_env` makes (None: the env spec's); the
            loop itself counts no turns: the env's :class:`~agentgym.TurnLimit` ends episodes.
        response_length: Cap on response tokens (generated plus environment tokens).
    """

    def __init__(
        self, server_manager: Any, tokenizer: Any, *, max_turns: int | None = None,
        response_length: int = 2048,
    ) -> None:
        self.server_manager = server_manager
        self.tokenizer = tokenizer
        self.max_turns = max_turns
        self.response_length = response_length

    def make_env(self, env_id: str) -> AgentEnv:
        """``agentgym.make(env_id)`` with this loop's turn limit (make decides and enforces it)."""
        return make(env_id, max_turns=self.max_turns)

    def _render(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                generation_prompt: bool) -> list[int]:
        ids = self.tokenizer.apply_chat_template(
            messages, tools=tools or None, add_generation_prompt=generation_prompt, tokenize=True
        )
        if not isinstance(ids, list):  # transformers >= 5 returns a BatchEncoding
            ids = ids["input_ids"]
        return [int(t) for t in ids]

    def _observation_ids(self, messages: list[dict[str, Any]], obs_message: dict[str, Any],
                         tools: list[dict[str, Any]] | None) -> list[int]:
        """Tokens the template adds for ``obs_message`` and the next generation prompt."""
        before = self._render(messages, tools, False)
        after = self._render([*messages, obs_message], tools, True)
        if after[: len(before)] == before:
            return after[len(before):]
        return self._render([obs_message], None, True)  # template not prefix-preserving

    async def run(self, env: AgentEnv, sampling_params: dict[str, Any], *,
                  task_id: str | None = None, seed: int | None = None) -> LoopResult:
        """Play one episode of ``env`` (made by :func:`agentgym.make`, so turn-limited) with the
        served model; returns the token record."""
        options = {"task_id": str(task_id)} if task_id is not None else {}
        obs, _ = await env.areset(seed=seed, options=options)
        toolset = getattr(env, "tools", None)
        tools = toolset.to_openai() if toolset is not None and len(toolset) else None
        messages: list[dict[str, Any]] = []
        if env.instructions:
            messages.append({"role": "system", "content": env.instructions})
        messages.append({"role": "user", "content": obs["text"]})
        prompt_ids = self._render(messages, tools, True)
        response: list[int] = []
        mask: list[int] = []
        logprobs: list[float] = []
        have_logprobs = True
        returns, turns, ended, reason = EpisodeReturn(), 0, False, "response_length"
        request_id = uuid.uuid4().hex
        while not ended and len(response) < self.response_length:
            out = await self.server_manager.generate(
                request_id, prompt_ids=prompt_ids + response, sampling_params=sampling_params
            )
            ids, lps = _token_output(out)
            turns += 1
            response += ids
            mask += [1] * len(ids)
            have_logprobs = have_logprobs and lps is not None
            logprobs += lps if lps is not None else [0.0] * len(ids)
            text = self.tokenizer.decode(ids, skip_special_tokens=True)
            messages.append({"role": "assistant", "content": text})
            _, step_reward, terminated, truncated, _ = result = await env.astep(text)
            returns.add(step_reward)
            if terminated or truncated:
                ended, reason = True, "terminated" if terminated else "truncated"
                break
            try:
                role = "tool" if parse_tool_calls(text) else "user"
            except Exception:  # malformed calls: the env answered with an error as a user turn
                role = "user"
            obs_message = {"role": role, "content": result[0]["text"]}
            obs_ids = self._observation_ids(messages, obs_message, tools)
            messages.append(obs_message)
            response += obs_ids
            mask += [0] * len(obs_ids)
            logprobs += [0.0] * len(obs_ids)
        if len(response) > self.response_length:
            reason = "response_length" if not ended else reason
        n = self.response_length
        return LoopResult(
            prompt_ids=prompt_ids, response_ids=response[:n], response_mask=mask[:n],
            response_logprobs=logprobs[:n] if have_logprobs else None, reward_score=returns.total,
            num_turns=len(messages), extra_fields={"end_reason": reason, "model_turns": turns},
        )


def verl_rows(env_id: str, split: str = "train", *, agent_name: str = "agentgym") -> list[dict]:
    """Dataset rows for verl: ``agent_name``, ``env_id``, ``task_id`` (one per task), ``prompt``."""
    env = make(env_id, split=split)
    try:
        task_set = getattr(env.unwrapped, "task_set", None)
        ids = list(task_set.ids()) if task_set is not None else []
        instructions = env.instructions
    finally:
        env.close()
    prompt = [{"role": "system", "content": instructions}]
    return [{"agent_name": agent_name, "env_id": env_id, "task_id": t, "prompt": prompt}
            for t in ids]


@functools.cache
def verl_agent_loop_class() -> type:
    """verl's ``AgentLoopBase`` subclass running :class:`AgentgymLoop` (registered ``agentgym``)."""
    try:
        from verl.experimental.agent_loop.agent_loop import (
            AgentLoopBase,
            AgentLoopMetrics,
            AgentLoopOutput,
            register,
        )
    except ImportError as e:
        raise MissingExtra("verl is not installed; install it with: pip install verl") from e

    @register("agentgym")
    class AgentgymVerlLoop(AgentLoopBase):  # type: ignore[misc, valid-type]
        """One agentgym episode per verl sample (row columns ``env_id``, ``task_id``, ``seed``)."""

        async def run(self, sampling_params: dict[str, Any], **row: Any) -> Any:
            rollout = self.config.actor_rollout_ref.rollout
            multi_turn = getattr(rollout, "multi_turn", None)
            asked = getattr(multi_turn, "max_assistant_turns", None)
            loop = AgentgymLoop(
                self.server_manager, self.tokenizer,
                max_turns=int(asked) if asked else None,  # None: the env spec's limit
                response_length=int(rollout.response_length),
            )
            env = loop.make_env(str(row["env_id"]))
            try:
                result = await loop.run(env, sampling_params, task_id=row.get("task_id"),
                                        seed=row.get("seed"))
            finally:
                await env.aclose()
            return AgentLoopOutput(
                prompt_ids=result.prompt_ids, response_ids=result.response_ids,
                response_mask=result.response_mask, response_logprobs=result.response_logprobs,
                reward_score=result.reward_score, num_turns=result.num_turns,
                metrics=AgentLoopMetrics(), extra_fields=result.extra_fields,
            )

    return AgentgymVerlLoop


def __getattr__(name: str) -> Any:
    """``AgentgymVerlLoop`` (for verl's ``_target_``) is built on first access."""
    if name == "AgentgymVerlLoop":
        return verl_agent_loop_class()
    raise AttributeError(name)


__all__ = ["AgentgymLoop", "LoopResult", "verl_agent_loop_class", "verl_rows"]
