"""Behaviour cloning under summarised context (SUPO): the expert summarises, BC clones each context.

The scripted expert, asked for a summary, writes the actions of its context with their results;
recorded with the trained model's tokens (a tokenizer on the scripted policy), every context of
an expert episode becomes a BC sequence whose ids and masks are exactly those the engine built
for the episode, the summary trained where it was written and given (mask 0) where it opens the
next context.
"""

from __future__ import annotations

import json
import math

from agentgym.policies.fake import FakeTokenizer
from agentgym.policies.scripted import ScriptedPolicy, expert_summary
from agentgym.rollout import (
    ChatFormat,
    Engine,
    EpisodeRequest,
    ExpertTrajectory,
    RolloutConfig,
    SummaryConfig,
    load_experts,
)
from agentgym.trainers.bc import expert_training_trajectory


def _play(policy: ScriptedPolicy, summary: SummaryConfig | None):
    engine = Engine("shop/price-v0", policy, num_envs=1,
                    config=RolloutConfig(max_turns=4, summary=summary),
                    env_kwargs={"split": "test"})
    try:
        [traj] = engine.run([EpisodeRequest(seed=0)])
    finally:
        engine.close()
    return traj


def test_expert_summary_carries_each_action_and_its_result() -> None:
    context = [
        {"role": "system", "content": "You are a shop assistant."},
        {"role": "user", "content": "How much do 4 jars cost?"},
        {"role": "assistant", "content": "lookup(jar)"},
        {"role": "tool", "content": "4\n(unit price)"},
        {"role": "assistant", "content": "calc(4*4)"},
        {"role": "user", "content": "Summarise.", "summary_request": True},
    ]
    assert expert_summary(context) == "lookup(jar)=4; calc(4*4)"
    # the next context opens with that summary; calc's withheld result completes it
    later = [*context[:2], {"role": "assistant", "content": "lookup(jar)=4; calc(4*4)",
                            "summary": True},
             {"role": "tool", "content": "16"}, {"role": "assistant", "content": "note(x)"},
             {"role": "user", "content": "Summarise.", "summary_request": True}]
    assert expert_summary(later) == "lookup(jar)=4; calc(4*4)=16; note(x)"


def test_recorded_summarised_expert_clones_into_the_engines_exact_contexts() -> None:
    tok = FakeTokenizer()
    policy = ScriptedPolicy(tokenizer=tok)
    full = _play(policy, None)
    assert full.success and not full.segments
    # a budget halfway through the episode: one summary, after lookup and calc
    budget = (len(full.prompt_ids) + len(full.token_ids)) // 2
    traj = _play(policy, SummaryConfig(budget=budget, max_tokens=64))
    assert traj.success, traj.reason
    assert len(traj.segments) == 1 and traj.summaries[0].startswith("lookup(")

    expert = ExpertTrajectory.from_trajectory(traj)
    contexts = expert.all_contexts()
    assert len(contexts) == 2
    assert [s.given for s in contexts[1].steps] == [True, False]  # the summary opens context 2
    assert contexts[0].steps[-1].action == contexts[1].steps[0].action == traj.summaries[0]
    chat = ChatFormat(tok)
    for context, engine_context in zip(contexts, traj.contexts, strict=True):
        cloned = expert_training_trajectory(context, chat, tok.eos_token_id)
        assert cloned.token_ids == engine_context.token_ids
        assert cloned.loss_mask == engine_context.loss_mask  # the given summary: mask 0

    # the demonstration format keeps the contexts and the given flag
    again = ExpertTrajectory.from_dict(json.loads(expert.to_json()))
    assert [[(s.action, s.given) for s in c.steps] for c in again.all_contexts()] == \
        [[(s.action, s.given) for s in c.steps] for c in contexts]


def test_bc_warmup_records_the_expert_under_the_runs_budget(tiny_cfg) -> None:
    from agentgym.trainers.bc import BCWarmupTrainer

    cfg = tiny_cfg("env=shop/price-v0", "algorithm=bc_grpo", "bc_steps=1", "steps=1",
                   "bc_batch_size=4", "max_turns=4", "max_new_tokens=48", "max_tokens=2048",
                   "summary_budget=300", "summary_max_tokens=48", "summary_max=3")
    trainer = BCWarmupTrainer(cfg)
    trainer.setup()
    try:
        experts = load_experts(cfg.output_dir + "/experts-train")
        summarised = [e for e in experts if e.contexts]
        assert experts and len(summarised) == len(experts), "every expert episode summarises"
        assert all(e.success for e in experts)
        metrics = trainer.bc_step()
        # each sampled task contributes every one of its contexts
        assert metrics["bc_episodes"] > cfg.bc_batch_size
        assert math.isfinite(metrics["bc_loss"])
    finally:
        trainer.close()
