"""Semi-online rollouts (UI-S1): the model acts on recorded expert observations.

For each expert trajectory, N copies run step by step. At step ``t`` a copy's prompt holds the
task, the copy's own earlier responses (exact generated ids) and the EXPERT's observation at
``t``. The model's action is scored against the expert's by an action matcher:

    1.0 exact match, 0.5 right action type (tool) only, 0.1 parses but wrong type, 0 unparseable

and the step reward is ``r_t = 0.1 * format + 0.9 * action`` (format = 1 when the reasoning
block is non-empty). The patch module then decides (:func:`should_patch`): a mismatched step
whose copy has ``error_num < patch_threshold`` (``-1`` = unlimited, ``0`` = never) gets the
expert's response in its history instead of its own, ``error_num += 1``, and the copy goes on
to ``t + 1``; otherwise the copy ends there. The failing step stays a training sample with its
low reward. Patch variants: ``thought_free`` (the expert action only), ``off_policy`` (expert
thought + action), ``on_policy`` (the model writes a thought for the expert action, given it as
a hint).

Every step is its own sample: its token ids are the prompt at ``t`` then the generated ids
(``loss_mask`` 1 on those only). Returns and advantages are computed by the trainer
(``agentgym.trainers.semionline``). SOP (:mod:`agentgym.rollout.sop`) runs the same rollout
with one greedy copy and no patching.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..policies.base import EpisodeContext, Generation, Policy, SamplingParams, derive_seed
from ..policies.chat import ChatFormat
from .experts import ExpertTrajectory

ACTION_EXACT, ACTION_TYPE, ACTION_PARSED, ACTION_NONE = 1.0, 0.5, 0.1, 0.0
PATCH_MODES = ("thought_free", "off_policy", "on_policy")
_THINK = re.compile(r"<think>(.*?)</think>", re.DOTALL)
_THOUGHT = re.compile(r"^\s*Thought\s*:\s*(.*?)(?=^\s*(?:Action\s*:|<tool_call>)|\Z)",
                      re.DOTALL | re.MULTILINE)
HINT = "The correct next action is: {action}\nIn one sentence, explain why it is right."


def split_thought(text: str) -> tuple[str, str]:
    """``(thought, rest)``: a ``<think>`` block or a ``Thought:`` section, else ``("", text)``."""
    m = _THINK.search(text)
    if m:
        return m.group(1).strip(), (text[: m.start()] + text[m.end():]).strip()
    m = _THOUGHT.search(text)
    if m and m.group(1).strip():
        return m.group(1).strip(), text[m.end():].strip()
    return "", text.strip()


def _norm(value: Any) -> str:
    return " ".join(str(value).split()).lower()


class ActionMatcher:
    """Scores a model action against the expert's with a family's own action parser.

    ``parse(text) -> list[ToolCall]`` is the env's ``parse_action``; it may raise for
    unparseable text. An env may instead define ``match_action(model_text, expert_text)``
    returning one of the four scores, which :func:`matcher_for_env` then uses.
    """

    def __init__(self, parse: Callable[[str], Sequence[Any]],
                 custom: Callable[[str, str], float] | None = None) -> None:
        self.parse, self.custom = parse, custom

    def _calls(self, text: str) -> list[Any] | None:
        try:
            calls = list(self.parse(text))
        except Exception:  # any parser error means "unparseable" (score 0)
            return None
        return calls or None

    def score(self, model_text: str, expert_text: str) -> float:
        """1.0 exact, 0.5 same action type, 0.1 parsed but wrong type, 0.0 unparseable."""
        if self.custom is not None:
            return float(self.custom(model_text, expert_text))
        _, model_action = split_thought(model_text)
        _, expert_action = split_thought(expert_text)
        got, want = self._calls(model_action), self._calls(expert_action)
        if got is None:
            return ACTION_NONE
        if want is None or [c.name for c in got] != [c.name for c in want]:
            return ACTION_PARSED
        same = all(
            {k: _norm(v) for k, v in g.arguments.items()}
            == {k: _norm(v) for k, v in w.arguments.items()}
            for g, w in zip(got, want, strict=True)
        )
        return ACTION_EXACT if same else ACTION_TYPE


def matcher_for_env(env_id: str, env_kwargs: dict[str, Any] | None = None) -> ActionMatcher:
    """The action matcher of ``env_id``'s family (its ``match_action`` or ``parse_action``)."""
    import agentgym

    env = agentgym.make(env_id, **(env_kwargs or {}))
    base = env.unwrapped
    custom = getattr(base, "match_action", None)
    parse = getattr(base, "parse_action", None)
    if parse is None:
        from ..toolcalls import parse_tool_calls

        parse = parse_tool_calls
    return ActionMatcher(parse, custom)


def step_reward(format_ok: bool, action_score: float) -> float:
    """``r_t = 0.1 * format + 0.9 * action``."""
    return 0.1 * float(format_ok) + 0.9 * action_score


def should_patch(matched: bool, error_num: int, patch_threshold: int) -> bool:
    """Patch a mismatched step while ``error_num < patch_threshold`` (-1: always, 0: never)."""
    if matched:
        return False
    return patch_threshold < 0 or error_num < patch_threshold


@dataclass
class StepSample:
    """One semi-online step of one copy: the prompt, the model's turn and its score."""

    task_id: str
    copy: int
    step: int
    prompt_ids: list[int]
    generation: Generation
    action_score: float
    format_ok: bool
    reward: float
    matched: bool
    patched: bool = False


@dataclass
class CopyResult:
    """The steps one copy took through its expert trajectory."""

    task_id: str
    copy: int
    num_expert_steps: int
    steps: list[StepSample] = field(default_factory=list)
    truncated: bool = False
    """Ended by the token limit rather than a mismatch or the last step."""

    @property
    def matched_steps(self) -> int:
        """Steps matched before the first mismatch (SOP's progress numerator)."""
        n = 0
        for s in self.steps:
            if not s.matched:
                break
            n += 1
        return n

    @property
    def fully_matched(self) -> bool:
        """Every expert step matched, with no patch."""
        return self.matched_steps == self.num_expert_steps


@dataclass
class _Copy:
    expert: ExpertTrajectory
    result: CopyResult
    ids: list[int]
    messages: list[dict[str, Any]]
    error_num: int = 0
    alive: bool = True


class SemiOnlineRollout:
    """Runs N copies per expert trajectory with the patch module (see the module docstring)."""

    def __init__(self, policy: Policy, matcher: ActionMatcher, *, sampling: SamplingParams,
                 patch_threshold: int = 2, patch_mode: str = "thought_free",
                 max_tokens: int = 4096, seed: int = 0) -> None:
        if patch_mode not in PATCH_MODES:
            raise ValueError(f"patch_mode must be one of {', '.join(PATCH_MODES)}")
        if policy.tokenizer is None:
            raise ValueError("semi-online rollouts need a policy with a tokenizer (exact ids)")
        self.policy, self.matcher, self.sampling = policy, matcher, sampling
        self.patch_threshold, self.patch_mode = patch_threshold, patch_mode
        self.max_tokens, self.seed = max_tokens, seed
        self.chat = ChatFormat(policy.tokenizer)
        eos = policy.tokenizer.eos_token_id
        self.eos_id = int(eos[0] if isinstance(eos, list) else eos)

    def _start(self, expert: ExpertTrajectory, copy: int) -> _Copy:
        first = expert.steps[0]
        messages = [{"role": "system", "content": expert.instructions},
                    {"role": "user", "content": first.observation}]
        result = CopyResult(expert.task_id, copy, len(expert.steps))
        return _Copy(expert, result, self.chat.prompt_ids(messages), messages)

    def expert_ids(self, text: str) -> list[int]:
        """Ids of an expert response as if generated: its text then the end-of-turn token."""
        return [*self.chat.encode(text), self.eos_id]

    async def _patch_text(self, c: _Copy, t: int, round: int) -> str:
        step = c.expert.steps[t]
        if self.patch_mode == "thought_free":
            return step.action
        if self.patch_mode == "off_policy":
            return step.response(with_thought=True)
        hint = {"role": "user", "content": HINT.format(action=step.action)}
        seed = derive_seed(self.seed, "hint", round, c.expert.task_id, c.result.copy, t)
        gen = await self.policy.agenerate([*c.messages, hint],
                                          sampling=self.sampling.with_(seed=seed))
        thought = " ".join(gen.text.split())
        return f"<think>{thought}</think>\n{step.action}" if thought else step.action

    async def _turn(self, c: _Copy, t: int, round: int) -> None:
        expert_step = c.expert.steps[t]
        seed = derive_seed(self.seed, "semi", round, c.expert.task_id, c.result.copy, t)
        room = self.max_tokens - len(c.ids)
        if room < 1:
            c.alive, c.result.truncated = False, True
            return
        sampling = self.sampling.with_(seed=seed, max_tokens=min(self.sampling.max_tokens, room))
        ctx = EpisodeContext(episode_id=f"semi/{round}/{c.expert.task_id}/{c.result.copy}",
                             task_id=c.expert.task_id, sample_idx=c.result.copy, turn=t,
                             seed=seed)
        gen = await self.policy.agenerate(c.messages, sampling=sampling,
                                          prompt_token_ids=list(c.ids), episode=ctx)
        score = self.matcher.score(gen.text, expert_step.action)
        thought, _ = split_thought(gen.text)
        matched = score == ACTION_EXACT
        sample = StepSample(c.expert.task_id, c.result.copy, t, list(c.ids), gen, score,
                            bool(thought), step_reward(bool(thought), score), matched)
        c.result.steps.append(sample)
        if t + 1 >= len(c.expert.steps):
            c.alive = False
            return
        if matched:
            response_text, response_ids = gen.text, list(gen.token_ids)
        elif should_patch(matched, c.error_num, self.patch_threshold):
            response_text = await self._patch_text(c, t, round)
            response_ids = self.expert_ids(response_text)
            c.error_num += 1
            sample.patched = True
        else:
            c.alive = False
            return
        nxt = c.expert.steps[t + 1]
        message = {"role": nxt.role, "content": nxt.observation}
        c.ids += response_ids + self.chat.observation_ids(message, response_ids)
        c.messages += [{"role": "assistant", "content": response_text}, message]

    async def arun(self, experts: Sequence[ExpertTrajectory], n_copies: int,
                   round: int = 0) -> list[list[CopyResult]]:
        """``n_copies`` copies of each expert trajectory; one list of copies per trajectory."""
        copies = [[self._start(e, i) for i in range(n_copies)] for e in experts if e.steps]
        flat = [c for group in copies for c in group]
        t = 0
        while any(c.alive for c in flat):
            live = [c for c in flat if c.alive and t < len(c.expert.steps)]
            await asyncio.gather(*(self._turn(c, t, round) for c in live))
            for c in flat:
                if t + 1 >= len(c.expert.steps):
                    c.alive = False
            t += 1
        return [[c.result for c in group] for group in copies]

    def run(self, experts: Sequence[ExpertTrajectory], n_copies: int,
            round: int = 0) -> list[list[CopyResult]]:
        """Sync twin of :meth:`arun` (releases the policy's loop-bound resources after)."""

        async def main() -> list[list[CopyResult]]:
            try:
                return await self.arun(experts, n_copies, round)
            finally:
                await self.policy.aclose()

        return asyncio.run(main())


__all__ = ["ACTION_EXACT", "ACTION_NONE", "ACTION_PARSED", "ACTION_TYPE", "HINT", "PATCH_MODES",
           "ActionMatcher", "CopyResult", "SemiOnlineRollout", "StepSample", "matcher_for_env",
           "should_patch", "split_thought", "step_reward"]
