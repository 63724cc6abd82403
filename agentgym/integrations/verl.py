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
from dataclasses import dataclass, field, replace
from typing import Any

from ..env import AgentEnv
from ..errors import MissingExtra, PolicyError
from ..policies.base import EpisodeContext, Generation, Policy, SamplingParams
from ..policies.chat import ChatFormat
from ..registry import make
from ..rollout.episode import Episode, EpisodeRequest, RolloutConfig
from ..rollout.workers import LocalEnvWorker


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


class _LoopChatFormat(ChatFormat):
    """The episode's ids as verl's own tool agent loop builds them: where a chat template
    rewrites earlier turns (Qwen3 drops past thinking), a new message is rendered alone with the
    generation prompt rather than refused. The record stays exact: it is what the model saw."""

    def message_text(self, message: dict[str, Any]) -> str:
        """Template text of ``message`` alone, followed by the generation prompt."""
        try:
            return super().message_text(message)
        except PolicyError:
            return self._render(self._plain([message]), generation_prompt=True)


class _ServerPolicy(Policy):
    """verl's server manager as a policy: each turn is generated from the episode's exact ids
    with verl's own sampling parameters (the server decides the length)."""

    name = "verl"

    def __init__(self, server_manager: Any, tokenizer: Any, sampling_params: dict[str, Any],
                 request_id: str) -> None:
        super().__init__()
        self.server_manager, self.tokenizer = server_manager, tokenizer
        self.sampling_params, self.request_id = sampling_params, request_id
        self.all_logprobs = True
        """Whether the server returned log-probs with every turn so far."""

    def chat_format(self) -> ChatFormat:
        """Ids built as verl's tool agent loop builds them (:class:`_LoopChatFormat`)."""
        return _LoopChatFormat(self.tokenizer)

    async def agenerate(self, messages: list[dict[str, Any]], *,
                        tools: list[dict[str, Any]] | None = None, sampling: SamplingParams,
                        prompt_token_ids: list[int] | None = None,
                        episode: EpisodeContext | None = None) -> Generation:
        """One turn from verl's server on ``prompt_token_ids``."""
        out = await self.server_manager.generate(
            self.request_id, prompt_ids=list(prompt_token_ids or []),
            sampling_params=self.sampling_params)
        ids, lps = _token_output(out)
        self.all_logprobs = self.all_logprobs and lps is not None
        text = self.tokenizer.decode(ids, skip_special_tokens=True)
        return Generation(text=text, token_ids=ids, logprobs=lps, prompt_token_ids=prompt_token_ids)


class AgentgymLoop:
    """The agent loop for one agentgym episode, independent of verl's classes.

    The episode runs through the project's one episode driver
    (:class:`~agentgym.rollout.episode.Episode`), with verl's server manager as its policy: the
    same exact-token record, return, turn limit, truncation and failure handling as the engine's
    episodes. An infrastructure failure (a dead env server, a crashed sandbox) or a timeout ends
    the episode ``aborted`` with reward 0; ``extra_fields["aborted"]`` and ``["reason"]`` say so,
    so a verl user can drop the sample rather than train on it as the model's failure.

    Args:
        server_manager: Has ``async generate(request_id, *, prompt_ids, sampling_params)``.
        tokenizer: A Hugging Face tokenizer with a chat template.
        max_turns: Turn limit of the envs :meth:`make_env` makes (None: the env spec's); the
            loop itself counts no turns: the env's :class:`~agentgym.TurnLimit` ends episodes.
        response_length: Cap on response tokens (generated plus environment tokens).
        config: Timeouts and the rest of the episode's limits, its ``max_tokens`` a cap on the
            whole sequence (defaults: no such cap, an hour per episode, generous per-turn
            limits for large models).
    """

    def __init__(
        self, server_manager: Any, tokenizer: Any, *, max_turns: int | None = None,
        response_length: int = 2048, config: RolloutConfig | None = None,
    ) -> None:
        self.server_manager = server_manager
        self.tokenizer = tokenizer
        self.max_turns = max_turns
        self.response_length = response_length
        base = config or RolloutConfig(max_tokens=1 << 30, episode_timeout_s=3600.0,
                                       policy_timeout_s=1800.0, env_timeout_s=600.0)
        self.config = replace(base, max_response_tokens=response_length, render_tools=True)

    def make_env(self, env_id: str) -> AgentEnv:
        """``agentgym.make(env_id)`` with this loop's turn limit (make decides and enforces it)."""
        return make(env_id, max_turns=self.max_turns)

    async def run(self, env: AgentEnv, sampling_params: dict[str, Any], *,
                  task_id: str | None = None, seed: int | None = None) -> LoopResult:
        """Play one episode of ``env`` (made by :func:`agentgym.make`, so turn-limited) with the
        served model; returns the token record."""
        policy = _ServerPolicy(self.server_manager, self.tokenizer, sampling_params,
                               uuid.uuid4().hex)
        request = EpisodeRequest(task_id=str(task_id) if task_id is not None else None, seed=seed)
        spec = getattr(env, "spec", None)
        episode = Episode(request, policy, self.config, env_id=str(getattr(spec, "id", "") or ""))
        await episode.run(LocalEnvWorker(env))
        traj = episode.result()
        n, start = self.response_length, len(traj.prompt_ids)
        if traj.terminated:
            reason = "terminated"
        elif traj.truncated and traj.reason.startswith("token limit"):
            reason = "response_length"
        else:
            reason = "aborted" if traj.aborted else "truncated"
        return LoopResult(
            prompt_ids=list(traj.prompt_ids), response_ids=traj.token_ids[start:][:n],
            response_mask=traj.loss_mask[start:][:n],
            response_logprobs=traj.logprobs[start:][:n] if policy.all_logprobs else None,
            reward_score=traj.reward, num_turns=len(traj.messages),
            extra_fields={"end_reason": reason, "model_turns": traj.turns,
                          "aborted": traj.aborted, "reason": traj.reason},
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
