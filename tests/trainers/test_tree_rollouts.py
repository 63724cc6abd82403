"""Tree rollouts in the trainer: node advantages by hand, rows trained once, a tiny run."""

from __future__ import annotations

import pytest
import torch

from agentgym import ConfigError
from agentgym.rollout import Trajectory
from agentgym.trainers.tree_advantages import tree_rows


def _leaf(path: list[int], reward: float, group: str = "g") -> Trajectory:
    """A leaf of a tree that branched after token 4: prompt (2), turn (2), branch, turn (2)."""
    root, child = path
    t = Trajectory(group_id=group, reward=reward)
    t.prompt_ids = [1, 2]
    t.token_ids = [1, 2, 10 + root, 11 + root, 20 + 3 * root + child, 21]
    t.loss_mask = [0, 0, 1, 1, 1, 1]
    t.logprobs = [0.0, 0.0, -0.1, -0.2, -0.3, -0.4]
    t.versions = [-1, -1, 0, 0, 0, 0]
    t.info = {"tree": {"path": path, "branch_at": [4], "branch_turns": [1],
                       "own_env_steps": 2 if child == 0 else 1}}
    return t


def test_node_values_come_from_their_leaves():
    rewards = [1.0, 1.0, 0.0, 1.0]  # root 0 always wins; root 1 wins half its branches
    leaves = [_leaf([0, 0], 1.0), _leaf([0, 1], 1.0), _leaf([1, 0], 0.0), _leaf([1, 1], 1.0)]
    rows, adv = tree_rows(leaves, torch.tensor(rewards), normalise=False)
    # root rows first for each root, then its children: V(0)=1, V(1)=0.5, baseline 0.75
    masks = [r.loss_mask for r in rows]
    assert len(rows) == 6  # two prefixes trained once each, four leaf segments
    assert adv.tolist() == pytest.approx([0.25, 0.0, 0.0, -0.25, -0.5, 0.5])
    assert masks[0] == [0, 0, 1, 1] and rows[0].token_ids == [1, 2, 10, 11]
    assert masks[1] == [0, 0, 0, 0, 1, 1] and rows[1].token_ids == leaves[0].token_ids
    assert rows[1].logprobs[:4] == [0.0] * 4 and rows[1].logprobs[4:] == [-0.3, -0.4]
    # along every path the advantages add up to the chain advantage R - mean(R)
    per_path = {(0, 0): 0.25 + 0.0, (0, 1): 0.25 + 0.0, (1, 0): -0.25 - 0.5, (1, 1): -0.25 + 0.5}
    for leaf, r in zip(leaves, rewards, strict=True):
        assert per_path[tuple(leaf.info["tree"]["path"])] == pytest.approx(r - 0.75)


def test_normalised_by_the_groups_leaf_std_and_groups_kept_apart():
    leaves = [_leaf([0, 0], 1.0), _leaf([0, 1], 0.0), _leaf([1, 0], 0.0), _leaf([1, 1], 0.0),
              _leaf([0, 0], 1.0, "h"), _leaf([0, 1], 1.0, "h"), _leaf([1, 0], 1.0, "h"),
              _leaf([1, 1], 1.0, "h")]
    rewards = torch.tensor([t.reward for t in leaves])
    rows, adv = tree_rows(leaves, rewards, normalise=True, eps=0.0)
    std = float(torch.tensor([1.0, 0.0, 0.0, 0.0]).std())
    assert adv[:6].tolist() == pytest.approx(
        [x / std for x in (0.25, 0.5, -0.5, -0.25, 0.0, 0.0)])  # V(0)=.5, V(1)=0
    assert adv[6:].abs().sum() == 0  # every leaf of h equal: nothing to learn


def test_chain_trajectories_get_the_grpo_advantage():
    from agentgym.trainers.advantages import grpo_advantages

    trajs = [_leaf([0, 0], r) for r in (1.0, 0.0, 0.5)]
    for t in trajs:
        t.info = {}
    rewards = torch.tensor([1.0, 0.0, 0.5])
    rows, adv = tree_rows(trajs, rewards)
    assert rows[0].token_ids == trajs[0].token_ids and rows[0].loss_mask == trajs[0].loss_mask
    assert adv.tolist() == pytest.approx(grpo_advantages(rewards, ["g"] * 3).tolist(), abs=1e-5)


def test_tree_config_checks(tiny_cfg):
    cfg = tiny_cfg("rollout.mode=tree", "tree_width=2", "tree_branch_turns=[1]")
    assert cfg.rollout_mode == "tree"
    with pytest.raises(ConfigError, match="multiple"):
        tiny_cfg("rollout_mode=tree", "tree_width=3")
    with pytest.raises(ConfigError, match="summary_budget"):
        tiny_cfg("rollout_mode=tree", "summary_budget=200")
    with pytest.raises(ConfigError, match="chain or tree"):
        tiny_cfg("rollout_mode=forest")


def test_a_tree_run_trains_and_counts_env_steps(tiny_cfg):
    from agentgym.trainers import GRPOTrainer

    trainer = GRPOTrainer(tiny_cfg("rollout_mode=tree", "steps=2", "group_size=4"))
    result = trainer.train()
    assert result.steps == 2
    # the digits env lasts two turns; branching after turn 1: 3 tasks x (2 roots + 4 leaves)
    assert trainer.state.env_steps == 2 * 3 * (2 + 4)
    trajs = trainer.state.last_trajectories
    assert trajs and all("tree" in t.info for t in trajs)
