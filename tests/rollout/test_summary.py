"""Summarised context (SUPO) in the engine: exact tokens per segment, the new context's start."""

from __future__ import annotations

import json
from typing import Any

import pytest

import agentgym
from agentgym import ConfigError
from agentgym.policies import SamplingParams
from agentgym.policies.base import EpisodeContext, Generation
from agentgym.policies.fake import FakePolicy
from agentgym.rollout import (
    ChatFormat,
    Engine,
    EpisodeRequest,
    RolloutConfig,
    SummaryConfig,
    Trajectory,
    TrajectoryStore,
)
from agentgym.rollout.summary import summary_for
from agentgym.rollout.viewer import render_episode

from .fake_envs import CounterEnv, counter_tasks

INSTRUCTION = "Summarise now."


def respond(messages: list[dict[str, Any]], episode: EpisodeContext | None) -> str:
    """'step' each turn, 'done' on the fifth; a numbered summary when asked for one."""
    if messages[-1]["content"] == INSTRUCTION:
        return f"SUM{sum(m['content'] == INSTRUCTION for m in messages)} t{episode.turn}"
    return "done" if episode is not None and episode.turn >= 4 else "step"


class RecordingPolicy(FakePolicy):
    """A fake policy that keeps every generation it returned."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.generations: list[Generation] = []

    async def agenerate(self, messages: list[dict[str, Any]], **kw: Any) -> Generation:
        gen = await super().agenerate(messages, **kw)
        gen.policy_version = len(self.generations)  # a distinct version per generation
        self.generations.append(gen)
        return gen


class TextPolicy(RecordingPolicy):
    """No tokenizer: text only (an HTTP server, say)."""

    async def agenerate(self, messages: list[dict[str, Any]], **kw: Any) -> Generation:
        self.calls.append({"messages": [dict(m) for m in messages]})
        return Generation(text=self._text(messages, kw.get("episode")))


def run(env_id: str, summary: SummaryConfig | None, *, tokens: bool = True,
        task: str = "t4") -> tuple[Trajectory, RecordingPolicy]:
    policy = RecordingPolicy(respond, logprob=-0.25) if tokens else TextPolicy(respond)
    if not tokens:
        policy.tokenizer = None  # type: ignore[assignment]
    config = RolloutConfig(max_turns=8, summary=summary,
                           sampling=SamplingParams(max_tokens=16, temperature=1.0))
    engine = Engine(env_id, policy, num_envs=1, config=config)
    [t] = engine.run([EpisodeRequest(task_id=task)])
    engine.close()
    t.check()
    return t, policy


SUMMARY = SummaryConfig(budget=150, instruction=INSTRUCTION, max_tokens=12, max_summaries=10)


def test_budget_forces_summaries_and_every_segment_holds_the_exact_generated_ids(
        counter_env: str) -> None:
    t, policy = run(counter_env, SUMMARY)
    assert t.terminated and t.reward == 1.0 and t.turns == 5
    assert len(t.segments) >= 2
    assert t.summaries == [s.summary for s in t.segments] and t.summaries[0].startswith("SUM1")
    # every generation, turns and summaries alike, sits verbatim in order across the contexts
    spans = [(c, a, b) for c in t.contexts for a, b in c.turn_spans]
    assert len(spans) == len(policy.generations) == 5 + len(t.segments)
    for (c, a, b), gen in zip(spans, policy.generations, strict=True):
        assert c.token_ids[a:b] == gen.token_ids
        assert c.logprobs[a:b] == [-0.25] * len(gen.token_ids)
        assert c.versions[a:b] == [gen.policy_version] * len(gen.token_ids)
    for c in t.contexts:  # loss mask 1 exactly on the generated spans of each context
        trained = {i for a, b in c.turn_spans for i in range(a, b)}
        assert [i for i, m in enumerate(c.loss_mask) if m] == sorted(trained)
        assert all(v == -1 for i, v in enumerate(c.versions) if i not in trained)
        assert len(c.token_ids) <= SUMMARY.budget + 40  # request + summary past the budget
    # each segment ends with its summary: the request's delta, then the summary's ids
    chat = ChatFormat(policy.tokenizer)
    for seg in t.segments:
        a, b = seg.turn_spans[-1]
        assert b == len(seg.token_ids) and seg.messages[-1]["content"] == seg.summary
        assert seg.messages[-2]["content"] == INSTRUCTION
        assert policy.tokenizer.decode(seg.token_ids[a:b], skip_special_tokens=True) == \
            seg.summary
    # a new context is the first prompt, the summary's exact ids (prompt now), the observation
    for before, after in zip(t.segments, t.contexts[1:], strict=False):
        a, b = before.turn_spans[-1]
        summary_ids = before.token_ids[a:b]
        head = [*t.prompt_ids, *summary_ids]
        assert after.token_ids[: len(head)] == head
        assert after.loss_mask[: len(head)] == [0] * len(head)
        obs = after.messages[3]
        assert [m["role"] for m in after.messages[:3]] == ["system", "user", "assistant"]
        assert after.messages[1]["content"] == "task t4" and after.messages[2]["content"] == \
            before.summary
        delta = chat.observation_ids(obs, summary_ids)
        assert after.token_ids[len(head): len(head) + len(delta)] == delta
    # the policy was prompted with exactly the current context each time
    for call, (c, a, _) in zip(policy.calls, spans, strict=True):
        assert call["prompt_token_ids"] == c.token_ids[:a]


def test_without_a_budget_nothing_changes(counter_env: str) -> None:
    t, policy = run(counter_env, None)
    assert t.segments == [] and t.terminated and len(policy.generations) == 5
    assert "segments" not in t.to_dict()


def test_summaries_run_out_and_the_episode_is_truncated(counter_env: str) -> None:
    t, _ = run(counter_env, SummaryConfig(budget=150, instruction=INSTRUCTION, max_summaries=1))
    assert t.truncated and not t.terminated and len(t.segments) == 1
    assert t.reason == "context budget 150 reached after 1 summaries"


def test_text_policy_new_context_is_task_summary_observation(counter_env: str) -> None:
    t, policy = run(counter_env, SummaryConfig(budget=20, instruction=INSTRUCTION,
                                               max_summaries=10), tokens=False)
    assert t.terminated and len(t.segments) >= 2 and t.token_ids == []
    seen = policy.calls[-1]["messages"]
    assert [m["content"] for m in seen[:2]] == [CounterEnv.instructions, "task t4"]
    assert seen[2]["role"] == "assistant" and seen[2]["content"] == t.summaries[-1]


def test_segments_round_trip_through_json_and_the_store(counter_env: str, tmp_path) -> None:
    t, _ = run(counter_env, SUMMARY)
    back = Trajectory.from_json(t.to_json())
    assert back.segments == t.segments and back.contexts == t.contexts
    with TrajectoryStore(tmp_path) as store:
        store.append(t)
    with TrajectoryStore(tmp_path, resume=True) as store:
        [stored] = list(store)
    assert stored.segments == t.segments and stored.num_generated_tokens == t.num_generated_tokens


def test_viewer_shows_each_context_and_its_summary(counter_env: str) -> None:
    t, _ = run(counter_env, SUMMARY)
    page = render_episode(t, [])
    assert page.count("context 1 of") == 1 and f"context {len(t.contexts)} of" in page
    for summary in t.summaries:
        assert summary in page
    assert page.count("summary request") == len(t.segments)


class SummarizingEnv(CounterEnv):
    """Asks for summarised context itself (reset info), with its own budget."""

    def _reset(self, options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        obs, info = super()._reset(options)
        return obs, {**info, "context": "summarize", "context_budget": 150}


class PhaseEnv(CounterEnv):
    """Asks for a summary after its second step, whatever the length."""

    def _step(self, action: Any) -> Any:
        obs, reward, terminated, truncated, info = super()._step(action)
        return obs, reward, terminated, truncated, (
            {**info, "context": "summarize"} if self.turn == 2 else info)


def test_env_can_ask_for_summaries_without_a_rollout_option() -> None:
    agentgym.register("testroll/summarizing-v0", SummarizingEnv, tasks=counter_tasks)
    agentgym.register("testroll/phase-v0", PhaseEnv, tasks=counter_tasks)
    t, _ = run("testroll/summarizing-v0", None)
    assert t.terminated and len(t.segments) >= 2  # the default instruction, the env's budget
    assert t.segments[0].messages[-2]["summary_request"]
    big = SummaryConfig(budget=100_000, instruction=INSTRUCTION)
    t, _ = run("testroll/phase-v0", big)
    assert t.terminated and len(t.segments) == 1 and t.segments[0].summary.startswith("SUM1")


def test_summary_settings_are_checked_and_env_info_is_data() -> None:
    with pytest.raises(ConfigError):
        SummaryConfig(budget=0)
    with pytest.raises(ConfigError):
        SummaryConfig(instruction=" ")
    assert summary_for({"context_budget": "lots"}, None) is None
    assert summary_for({"context": "summarize", "context_budget": -5}, None).budget == 2048
    assert summary_for({"context_budget": 64}, SUMMARY).budget == 64


def test_eval_summary_budget_reaches_the_episodes_and_resume_checks_it(counter_env: str,
                                                                        tmp_path) -> None:
    from agentgym.rollout.evaluate import EvalConfig, run_eval

    out = tmp_path / "eval"
    policy = RecordingPolicy(respond)
    run_eval(EvalConfig(counter_env, out=str(out), n=3, summary_budget=150, max_turns=8),
             policy=policy)
    with TrajectoryStore(out / "trajectories", resume=True) as store:
        trajs = list(store)
    assert any(t.segments for t in trajs)  # t4 takes five turns: past the budget
    assert json.loads((out / "run.json").read_text())["summary_budget"] == 150
    with pytest.raises(ConfigError, match="summary_budget"):
        run_eval(EvalConfig(counter_env, out=str(out), n=3, max_turns=8, resume=True),
                 policy=policy)
    with pytest.raises(ConfigError):
        EvalConfig(counter_env, summary_budget=-1)


def test_cli_eval_summary_budget(tmp_path) -> None:
    from typer.testing import CliRunner

    from agentgym.cli import app

    out = tmp_path / "cli"
    result = CliRunner().invoke(app, [
        "eval", "shop", "--policy", "fake:lookup(pen)", "-n", "2", "--max-turns", "4",
        "--summary-budget", "330", "--out", str(out)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    with TrajectoryStore(out / "trajectories", resume=True) as store:
        trajs = list(store)
    assert len(trajs) == 2 and all(t.segments for t in trajs)
    assert "context 2 of" in next((out / "viewer").glob("0*.html")).read_text()
    bad = CliRunner().invoke(app, ["eval", "shop", "--summary-budget", "-1"])
    assert bad.exit_code != 0
