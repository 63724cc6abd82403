"""One episode as three bounded phases: begin (reset), policy turn, env turn.

Both the asynchronous engine and the lock-step baseline drive episodes through these phases, so
they produce the same trajectories. Every await is bounded by its own timeout and by the
episode's wall-clock deadline. Failures are classified once here:

- env raised or hung (reset or step): ``aborted``, and the env worker must be replaced;
- env reported an infrastructure failure (``info["aborted"]`` on a step, or an
  :class:`~agentgym.errors.InfrastructureError` raised): ``aborted`` with the reason prefixed
  ``infrastructure:``, and the env worker is replaced;
- policy raised or hung: ``aborted`` (the env stays healthy);
- token, context-budget or wall-clock limit reached: ``truncated`` with the reason; the turn
  limit is the env's
  (the :class:`~agentgym.TurnLimit` wrapper ``make`` applies truncates the step that reaches it,
  and its reason is recorded), so episodes never count turns themselves.
"""

from __future__ import annotations

import asyncio
import time
from copy import deepcopy
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import PolicyError, is_infrastructure_error
from ..policies.base import EpisodeContext, Generation, Policy, SamplingParams, derive_seed
from .chat import ChatFormat
from .history import REPLACE_CONTEXT, HistoryCompression, observations_to_compress
from .returns import EpisodeReturn
from .stats import BusyTracker
from .summary import (
    SUMMARIZE,
    SummaryConfig,
    estimated_tokens,
    request_message,
    summary_for,
    summary_message,
)
from .trajectory import Trajectory, jsonable
from .workers import EnvWorker


@dataclass(frozen=True)
class EpisodeRequest:
    """One episode to run: which task, which sample of it, and its group."""

    task_id: str | None = None
    sample_idx: int = 0
    seed: int | None = None
    """Env reset seed (picks the task when ``task_id`` is None)."""
    group_id: str = ""
    options: dict[str, Any] = field(default_factory=dict, hash=False)
    """Extra reset options."""


@dataclass(frozen=True)
class RolloutConfig:
    """Per-episode limits, timeouts and sampling shared by every episode of a run."""

    max_turns: int | None = None
    """Model turns per episode, passed to :func:`agentgym.make` (None: the env spec's, else
    :data:`agentgym.settings.DEFAULT_MAX_TURNS`); the env's TurnLimit truncates at it."""
    max_tokens: int = 4096
    """Total sequence length (prompt, generated and env tokens); reaching it truncates."""
    max_response_tokens: int | None = None
    """Tokens after the first prompt (generated and env), when that is the tighter cap (verl's
    ``response_length``); None: only ``max_tokens``."""
    episode_timeout_s: float = 600.0
    """Wall-clock limit of one episode; reaching it truncates."""
    env_timeout_s: float = 60.0
    """Limit of one reset or step; exceeding it aborts the episode and replaces the env."""
    policy_timeout_s: float = 300.0
    """Limit of one policy turn; exceeding it aborts the episode."""
    acquire_timeout_s: float = 3600.0
    """Longest wait for a free env worker."""
    sampling: SamplingParams = field(default_factory=SamplingParams)
    seed: int = 0
    """Base seed from which each turn's sampling seed is derived."""
    observation_role: str = "auto"
    """``tool``, ``user`` or ``auto`` (``tool`` after tool calls, else ``user``)."""
    render_tools: bool = False
    """Pass the tool schemas to the chat template (the env's instructions describe them too)."""
    history: HistoryCompression | None = None
    """Replace earlier observations by a placeholder before each new one (WebAgent-R1)."""
    summary: SummaryConfig | None = None
    """Summarised context (SUPO): past a token budget the policy summarises, the history is
    replaced by the task + the summary (:mod:`agentgym.rollout.summary`)."""


class _Timeout(Exception):
    def __init__(self, what: str, limit: float, deadline_hit: bool) -> None:
        super().__init__(what)
        self.what, self.limit, self.deadline_hit = what, limit, deadline_hit


class Episode:
    """The state of one running episode; drive it with begin / policy_turn / env_turn."""

    def __init__(
        self,
        request: EpisodeRequest,
        policy: Policy,
        config: RolloutConfig,
        env_id: str = "",
        tracker: BusyTracker | None = None,
    ) -> None:
        self.request, self.policy, self.config = request, policy, config
        self.chat: ChatFormat | None = policy.chat_format()
        self.traj = Trajectory(
            task_id=request.task_id, sample_idx=request.sample_idx, group_id=request.group_id,
            env_id=env_id, seed=request.seed, exact_tokens=self.chat is not None,
        )
        self.tracker = tracker or BusyTracker()
        self.done = False
        self.env_failed = False
        self.worker: EnvWorker | None = None
        self._t0 = time.monotonic()
        self._deadline = self._t0 + config.episode_timeout_s
        self.timings = {"policy_s": 0.0, "env_s": 0.0, "queue_s": 0.0}
        self.returns = EpisodeReturn()
        """The episode's return, summed in the one place that sums returns."""
        self._last_info: dict[str, Any] = {}
        self._policy_state: dict[str, Any] = {}
        self._env_spans: dict[int, tuple[int, int, list[int]]] = {}
        """Message index -> (start, end) of its env delta ids and the turn ids it closes."""
        self.summary: SummaryConfig | None = config.summary
        """The summary setting of this episode (the env's info may turn it on)."""
        self._task: list[dict[str, Any]] = []
        """System message and first observation: every new context starts with them."""

    # -- helpers -----------------------------------------------------------------------------

    async def _bounded(self, coro: Any, limit: float, what: str, clock: str) -> Any:
        remaining = self._deadline - time.monotonic()
        budget = min(limit, remaining)
        t = time.monotonic()
        try:
            if budget <= 0:
                raise TimeoutError
            return await asyncio.wait_for(coro, budget)
        except TimeoutError as e:
            raise _Timeout(what, budget, deadline_hit=remaining <= limit) from e
        finally:
            if budget <= 0 and asyncio.iscoroutine(coro):
                coro.close()
            self.timings[clock] += time.monotonic() - t

    @property
    def token_limit(self) -> int:
        """The sequence length that truncates this episode: ``max_tokens``, or the first
        prompt's length plus ``max_response_tokens`` when that is lower."""
        cfg = self.config
        if cfg.max_response_tokens is None:
            return cfg.max_tokens
        return min(cfg.max_tokens, len(self.traj.prompt_ids) + cfg.max_response_tokens)

    def _end(self, *, terminated: bool = False, truncated: bool = False, aborted: bool = False,
             reason: str = "") -> None:
        self.done = True
        t = self.traj
        t.terminated, t.truncated, t.aborted, t.reason = terminated, truncated, aborted, reason

    def _fail(self, e: BaseException, phase: str, env: bool) -> None:
        if isinstance(e, _Timeout) and e.deadline_hit:
            self.env_failed = env
            self._end(truncated=True, reason=f"time limit {self.config.episode_timeout_s:g}s")
        elif isinstance(e, _Timeout):
            self.env_failed = env
            self._end(aborted=True, reason=f"{phase} timed out after {e.limit:.1f}s")
        elif is_infrastructure_error(e):
            self.env_failed = env
            reason = f"infrastructure: {phase}: {type(e).__name__}: {e}"
            self._end(aborted=True, reason=reason[:500])
        else:
            self.env_failed = env
            self._end(aborted=True, reason=f"{phase} failed: {type(e).__name__}: {e}"[:500])

    def _observe(self, obs: dict[str, Any], role: str) -> dict[str, Any]:
        message: dict[str, Any] = {"role": role, "content": obs.get("text", "")}
        images = [im for im in obs.get("images", ()) if isinstance(im, bytes | bytearray)]
        if images:
            first = len(self.traj.images)
            message["images"] = list(range(first, first + len(images)))
            self.traj.images.extend(bytes(im) for im in images)
        return message

    # -- phases ------------------------------------------------------------------------------

    async def run(self, worker: EnvWorker) -> None:
        """Play the whole episode on ``worker``: :meth:`begin`, then policy and env turns until
        it ends (the engine, verl's agent loop and the gateway's replay drive episodes so)."""
        await self.begin(worker)
        while not self.done:
            gen = await self.policy_turn()
            if gen is None:
                break
            await self.env_turn(gen)

    async def begin(self, worker: EnvWorker) -> None:
        """Reset the env and build the first prompt."""
        self.worker = worker
        req = self.request
        options = dict(req.options)
        if req.task_id is not None:
            options.setdefault("task_id", req.task_id)
        try:
            obs, info = await self._bounded(
                worker.reset(req.seed, options), self.config.env_timeout_s, "reset", "env_s")
        except Exception as e:  # any env failure aborts this episode only
            self._fail(e, "env reset", env=True)
            return
        self._last_info = info
        self.summary = summary_for(info, self.summary, self.config.summary)
        self.traj.task_id = info.get("task_id", req.task_id)
        system = {"role": "system", "content": worker.instructions}
        self.traj.messages = [system, self._observe(obs, "user")]
        self._task = list(self.traj.messages)
        if self.chat is not None:
            tools = worker.tools if self.config.render_tools else None
            try:
                self.traj.start(self.chat.prompt_ids(self.traj.messages, tools,
                                                     images=self.traj.images))
            except PolicyError as e:  # e.g. an observation image the model cannot read
                self._fail(e, "policy prompt", env=False)

    def _sampling(self) -> SamplingParams | None:
        cfg, t = self.config, self.traj
        used = len(t.token_ids) if self.chat is not None else sum(t.loss_mask)  # this context
        remaining = self.token_limit - used
        if remaining < 1:
            return None
        seed = cfg.sampling.seed
        if seed is None:
            seed = derive_seed(cfg.seed, t.group_id, t.task_id, t.sample_idx, t.turns)
        return cfg.sampling.with_(max_tokens=min(cfg.sampling.max_tokens, remaining), seed=seed)

    async def policy_turn(self) -> Generation | None:
        """Generate the next model turn (None when the episode ended instead)."""
        if self.done:
            return None
        sampling = self._sampling()
        if sampling is None:
            self._end(truncated=True, reason=f"token limit {self.token_limit}")
            return None
        gen = await self._generate(sampling)
        if gen is None:
            return None
        t = self.traj
        t.add_generation(gen)
        message: dict[str, Any] = {"role": "assistant", "content": gen.text}
        if gen.tool_calls:
            message["tool_calls"] = gen.tool_calls
        t.messages.append(message)
        t.turns += 1
        return gen

    async def _generate(self, sampling: SamplingParams) -> Generation | None:
        """One policy call on the current context (None when it failed: the episode aborted)."""
        t, worker = self.traj, self.worker
        ctx = EpisodeContext(
            episode_id=f"{t.group_id}/{t.task_id}/{t.sample_idx}", task_id=t.task_id,
            sample_idx=t.sample_idx, turn=t.turns, seed=sampling.seed,
            expert_actions=worker.expert_actions if worker is not None else None,
            images=t.images, state=self._policy_state,
        )
        try:
            with self.tracker.busy():
                return await self._bounded(  # type: ignore[no-any-return]
                    self.policy.agenerate(
                        t.messages, tools=worker.tools if worker else None, sampling=sampling,
                        prompt_token_ids=list(t.token_ids) if self.chat is not None else None,
                        episode=ctx,
                    ),
                    self.config.policy_timeout_s, "policy", "policy_s",
                )
        except Exception as e:  # a policy failure aborts this episode only
            self._fail(e, "policy", env=False)
            return None

    async def env_turn(self, gen: Generation) -> None:
        """Step the env with the turn's action and append the observation."""
        if self.done or self.worker is None:
            return
        t = self.traj
        action = gen.action if gen.action is not None else (
            t.messages[-1] if gen.tool_calls else gen.text)
        try:
            obs, reward, terminated, truncated, info = await self._bounded(
                self.worker.step(action), self.config.env_timeout_s, "step", "env_s")
        except Exception as e:  # any env failure aborts this episode only
            self._fail(e, "env step", env=True)
            return
        self._last_info = info
        t.reward = self.returns.add(reward)
        t.step_rewards = list(self.returns.steps)
        if self.returns.error:
            t.info["reward_error"] = self.returns.error
        if info.get("aborted"):
            t.final_observation = obs.get("text", "")
            self.env_failed = True
            self._end(aborted=True, reason=f"infrastructure: {info.get('abort_reason', '')}"[:500])
            return
        if terminated or truncated:
            t.final_observation = obs.get("text", "")
            reason = "" if terminated else str(info.get("truncated_reason", "env truncated"))
            self._end(terminated=bool(terminated), truncated=bool(truncated) and not terminated,
                      reason=reason)
            return
        role = self.config.observation_role
        if role == "auto":
            role = "tool" if info.get("tool_results") or gen.tool_calls else "user"
        message = self._observe(obs, role)
        history = REPLACE_CONTEXT if info.get("context") == "replace" else self.config.history
        if history is not None:
            self._compress_history(history)
        self.summary = summary_for(info, self.summary, self.config.summary)
        delta: list[int] = []
        if self.chat is not None:
            generated = t.token_ids[slice(*t.turn_spans[-1])]
            ids = self._env_ids(message, generated)
            if ids is None:
                return
            delta = ids
        if self.summary is not None and (info.get("context") == SUMMARIZE
                                         or self._over_budget(self.summary, message, delta)):
            await self._summarise(self.summary, message)
            return
        if self.chat is not None:
            if len(t.token_ids) + len(delta) >= self.token_limit:
                t.final_observation = message["content"]
                del t.images[len(t.images) - len(message.get("images", ())):]  # never seen
                self._end(truncated=True, reason=f"token limit {self.token_limit}")
                return
            self._env_spans[len(t.messages)] = (len(t.token_ids), len(t.token_ids) + len(delta),
                                                generated)
            t.add_env_tokens(delta)
        t.messages.append(message)

    def _over_budget(self, summary: SummaryConfig, message: dict[str, Any],
                     delta: list[int]) -> bool:
        """Whether appending the observation would take the context past the summary budget."""
        t = self.traj
        if self.chat is not None:
            return len(t.token_ids) + len(delta) > summary.budget
        return estimated_tokens([*t.messages, message]) > summary.budget

    def _env_ids(self, message: dict[str, Any], generated: list[int]) -> list[int] | None:
        """The exact ids of ``message`` after the turn ``generated``; None when the policy
        cannot build them (the episode is then ended as a policy failure)."""
        assert self.chat is not None  # exact-token episodes only
        try:
            return list(self.chat.observation_ids(message, generated, images=self.traj.images))
        except PolicyError as e:
            self._fail(e, "policy prompt", env=False)
            return None

    def _truncate_before(self, message: dict[str, Any], reason: str) -> None:
        """End the episode truncated, ``message`` (the withheld observation) never seen."""
        t = self.traj
        t.final_observation = message["content"]
        del t.images[len(t.images) - len(message.get("images", ())):]  # never seen
        self._end(truncated=True, reason=reason)

    async def _summarise(self, summary: SummaryConfig, message: dict[str, Any]) -> None:
        """Ask for a summary, close the context as a segment, start the next one with the
        task, the summary and the withheld observation ``message``."""
        t, chat, limit = self.traj, self.chat, self.token_limit
        if len(t.segments) >= summary.max_summaries:
            self._truncate_before(message, f"context budget {summary.budget} reached after "
                                           f"{len(t.segments)} summaries")
            return
        request = request_message(summary)
        if chat is not None:
            ids = self._env_ids(request, t.token_ids[slice(*t.turn_spans[-1])])
            if ids is None:
                return
            if len(t.token_ids) + len(ids) >= limit:
                self._truncate_before(message, f"token limit {limit}")
                return
            t.add_env_tokens(ids)
        t.messages.append(request)
        sampling = self._sampling()
        if sampling is None:
            self._truncate_before(message, f"token limit {limit}")
            return
        seed = self.config.sampling.seed
        if seed is None:
            seed = derive_seed(self.config.seed, t.group_id, t.task_id, t.sample_idx, t.turns,
                               "summary")
        gen = await self._generate(
            sampling.with_(max_tokens=min(sampling.max_tokens, summary.max_tokens), seed=seed))
        if gen is None:
            return
        t.add_generation(gen)  # model tokens: loss mask 1, behaviour log-probs and versions
        t.messages.append(summary_message(gen.text))
        summary_ids = list(gen.token_ids)
        t.close_segment(gen.text)
        t.messages = [*self._task, summary_message(gen.text)]
        self._env_spans = {}
        if chat is not None:  # the first prompt's ids, the summary's exact ids, then the delta
            t.start(t.prompt_ids)
            t.add_env_tokens(summary_ids)
            delta = self._env_ids(message, summary_ids)
            if delta is None:
                return
            if len(t.token_ids) + len(delta) >= limit:
                self._truncate_before(message, f"token limit {limit}")
                return
            self._env_spans[len(t.messages)] = (len(t.token_ids), len(t.token_ids) + len(delta),
                                                summary_ids)
            t.add_env_tokens(delta)
        t.messages.append(message)

    def _compress_history(self, history: HistoryCompression) -> None:
        """Replace earlier observations (text, and their ids when exact) by the placeholder."""
        t = self.traj
        for i in observations_to_compress(t.messages, history):
            if self.chat is not None and i not in self._env_spans:
                continue  # the first prompt's observation cannot change under exact tokens
            message = {**t.messages[i], "content": history.compress(str(t.messages[i]["content"]))}
            t.messages[i] = message
            if self.chat is None:
                continue
            start, end, generated = self._env_spans[i]
            ids = self.chat.observation_ids(message, generated, images=t.images)
            t.replace_env_tokens(start, end, ids)
            shift = len(ids) - (end - start)
            self._env_spans = {k: ((a + shift, b + shift, g) if a >= end else (a, b, g))
                               for k, (a, b, g) in self._env_spans.items()}
            self._env_spans[i] = (start, start + len(ids), generated)

    def stop(self, reason: str) -> None:
        """End the episode truncated with ``reason``: its driver has no more turns to play (a
        replay of recorded turns that ran out before the env ended the episode)."""
        if not self.done:
            self._end(truncated=True, reason=reason)

    def fork(self, worker: EnvWorker | None, sample_idx: int) -> Episode:
        """A copy of this episode continuing on ``worker`` (a fork of its env) as sample
        ``sample_idx``: the same exact tokens, messages, log-probs, versions, return and policy
        state, nothing shared that either copy changes. Tree rollouts use it
        (:mod:`agentgym.rollout.tree`); the copy samples its own continuation, since sampling
        seeds follow ``sample_idx``."""
        copy = object.__new__(Episode)
        shared = {"request", "policy", "config", "chat", "tracker", "worker"}
        for name, value in vars(self).items():
            setattr(copy, name, value if name in shared else deepcopy(value))
        copy.worker = worker
        copy.traj.sample_idx = sample_idx
        copy.request = replace(self.request, sample_idx=sample_idx)
        return copy

    def result(self) -> Trajectory:
        """The finished trajectory with info and timings filled in."""
        t = self.traj
        if not self.done:
            self._end(aborted=True, reason="episode interrupted")
        t.info = jsonable(self._last_info)
        t.timings = {"wall_s": time.monotonic() - self._t0, **self.timings}
        t.check()
        return t


__all__ = ["Episode", "EpisodeRequest", "RolloutConfig"]
