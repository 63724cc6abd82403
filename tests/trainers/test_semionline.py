"""Semi-online rollouts (patch module, masks, SOP), BC trajectories, and trainer smoke runs."""

from __future__ import annotations

from typing import Any

import pytest

from agentgym.policies import FakeTokenizer
from agentgym.policies.base import EpisodeContext, Generation, Policy, SamplingParams
from agentgym.rollout import ChatFormat
from agentgym.rollout.experts import ExpertStep, ExpertTrajectory
from agentgym.rollout.semionline import SemiOnlineRollout, matcher_for_env
from agentgym.rollout.sop import sop_metrics
from agentgym.trainers.bc import expert_training_trajectory

EXPERT = ExpertTrajectory(
    task_id="shop-pen-3",
    instructions="You are a shop assistant.",
    steps=[ExpertStep("How much do 3 pens cost?", "lookup(pen)", role="user"),
           ExpertStep("4", "calc(4*3)", thought="times three"),
           ExpertStep("12", "answer(12)")],
)


class TablePolicy(Policy):
    """Answers ``table[(copy, step)]`` with exact ids from the fake tokenizer."""

    def __init__(self, table: dict[tuple[int, int], str]) -> None:
        super().__init__()
        self.tokenizer = FakeTokenizer()
        self.table = table
        self.prompts: dict[tuple[int, int], list[int]] = {}

    async def agenerate(self, messages: list[dict[str, Any]], *, tools: Any = None,
                        sampling: SamplingParams, prompt_token_ids: list[int] | None = None,
                        episode: EpisodeContext | None = None) -> Generation:
        if episode is None:  # the on-policy thought request
            return Generation(text="the expert knows")
        key = (episode.sample_idx, episode.turn)
        self.prompts[key] = list(prompt_token_ids or [])
        text = self.table[key]
        ids = [*self.tokenizer.encode(text), self.tokenizer.eos_token_id]
        return Generation(text=text, token_ids=ids, logprobs=[-0.5] * len(ids))


def _decode(ids: list[int]) -> str:
    return FakeTokenizer().decode(ids)


@pytest.fixture(scope="module")
def matcher():
    return matcher_for_env("shop/price-v0")


def test_action_matcher_scores(matcher):
    assert matcher.score("calc( 4*3 )", "calc(4*3)") == 1.0
    assert matcher.score("<think>x</think>\nlookup(PEN)", "lookup(pen)") == 1.0
    assert matcher.score("calc(3*4)", "calc(4*3)") == 0.5
    assert matcher.score("lookup(cup)", "calc(4*3)") == 0.1
    assert matcher.score("I think it is twelve", "answer(12)") == 0.0


def test_patch_module_threshold_one(matcher):
    table = {(0, 0): "lookup(pen)", (0, 1): "calc(3*4)", (0, 2): "answer(12)",
             (1, 0): "hello", (1, 1): "lookup(cup)"}
    policy = TablePolicy(table)
    rollout = SemiOnlineRollout(policy, matcher, sampling=SamplingParams(max_tokens=20),
                                patch_threshold=1)
    [[c0, c1]] = rollout.run([EXPERT], n_copies=2)
    assert [s.reward for s in c0.steps] == pytest.approx([0.9, 0.45, 0.9])
    assert [s.matched for s in c0.steps] == [True, False, True]
    assert [s.patched for s in c0.steps] == [False, True, False]
    # the patched history holds the expert's action (thought-free), not the model's
    step2 = _decode(policy.prompts[(0, 2)])
    assert "calc(4*3)" in step2 and "calc(3*4)" not in step2 and "times three" not in step2
    assert step2.endswith("<|im_start|>tool\n12<|im_end|>\n<|im_start|>assistant\n")
    # copy 1: patched at step 0 (error 1), then a mismatch at the threshold ends it
    assert [s.reward for s in c1.steps] == pytest.approx([0.0, 0.09])
    assert [s.patched for s in c1.steps] == [True, False]
    assert (c0.matched_steps, c1.matched_steps) == (1, 0)
    # each sample's prompt is exactly what the policy saw; its generation follows it
    s = c0.steps[1]
    assert s.prompt_ids == policy.prompts[(0, 1)]
    assert "lookup(pen)<|im_end|>" in _decode(s.prompt_ids)  # its own step-0 ids, unchanged


def test_no_patching_stops_at_first_mismatch_and_unlimited_goes_on(matcher):
    table = {(0, 0): "lookup(pen)", (0, 1): "calc(9*9)", (0, 2): "answer(99)"}
    [[c]] = SemiOnlineRollout(TablePolicy(table), matcher, sampling=SamplingParams(),
                              patch_threshold=0).run([EXPERT], 1)
    assert len(c.steps) == 2 and not c.fully_matched
    [[c]] = SemiOnlineRollout(TablePolicy(table), matcher, sampling=SamplingParams(),
                              patch_threshold=-1).run([EXPERT], 1)
    assert [s.patched for s in c.steps] == [False, True, False] and len(c.steps) == 3


def test_off_and_on_policy_thought_patches(matcher):
    table = {(0, 0): "lookup(pen)", (0, 1): "calc(1*1)", (0, 2): "answer(12)"}
    policy = TablePolicy(table)
    SemiOnlineRollout(policy, matcher, sampling=SamplingParams(), patch_threshold=1,
                      patch_mode="off_policy").run([EXPERT], 1)
    assert "times three\ncalc(4*3)" in _decode(policy.prompts[(0, 2)])
    policy = TablePolicy(table)
    SemiOnlineRollout(policy, matcher, sampling=SamplingParams(), patch_threshold=1,
                      patch_mode="on_policy").run([EXPERT], 1)
    assert "<think>the expert knows</think>\ncalc(4*3)" in _decode(policy.prompts[(0, 2)])
    with pytest.raises(ValueError):
        SemiOnlineRollout(policy, matcher, sampling=SamplingParams(), patch_mode="nope")


def test_sop_metrics_from_copies(matcher):
    good = {(0, 0): "lookup(pen)", (0, 1): "calc(4*3)", (0, 2): "answer(12)"}
    half = {(0, 0): "lookup(pen)", (0, 1): "calc(4*4)", (0, 2): "answer(16)"}
    results = []
    for table in (good, half):
        [[c]] = SemiOnlineRollout(TablePolicy(table), matcher, sampling=SamplingParams(),
                                  patch_threshold=0).run([EXPERT], 1)
        results.append(c)
    m = sop_metrics(results)
    assert (m["tsr"], m["pg"], m["sop_tasks"]) == (0.5, pytest.approx((1 + 1 / 3) / 2), 2)
    assert m["sop"] == pytest.approx((0.5 + (1 + 1 / 3) / 2) / 2)
    assert sop_metrics([])["sop"] == 0.0


def test_bc_trajectory_has_rl_masks():
    tok = FakeTokenizer()
    traj = expert_training_trajectory(EXPERT, ChatFormat(tok), tok.eos_token_id)
    trained = [traj.token_ids[a:b] for a, b in traj.turn_spans]
    assert [_decode(ids) for ids in trained] == [
        "lookup(pen)<|im_end|>", "times three\ncalc(4*3)<|im_end|>", "answer(12)<|im_end|>"]
    assert sum(traj.loss_mask) == sum(len(ids) for ids in trained)
    text = _decode(traj.token_ids)
    assert text.count("<|im_start|>tool\n") == 2 and "You are a shop assistant." in text
    # the engine would build exactly these ids had the model generated the expert's turns
    assert text.endswith("answer(12)<|im_end|>")


def test_sop_for_tasks_records_the_expert_and_scores_a_policy():
    from agentgym.envs.shop.env import load_tasks
    from agentgym.rollout.sop import sop_for_tasks

    test_ids = load_tasks().split("test").ids()
    bag = [i for i in test_ids if i.startswith("shop-bag-")][:1]
    other = [i for i in test_ids if not i.startswith("shop-bag-")][:1]
    result = sop_for_tasks("shop/price-v0", "fake:lookup(bag)", bag + other, split="test",
                           max_new_tokens=16)
    # the bag task matches its first of 3 steps, the other task none
    assert result["sop_tasks"] == 2 and result["tsr"] == 0.0
    assert result["pg"] == pytest.approx((1 / 3 + 0) / 2)
