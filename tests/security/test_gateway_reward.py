"""An agent program cannot award itself: with ``reward: env`` only the model's turns count, and
with ``reward: posted`` only the scorer's post (the agent's key posts nothing).

The hostile agent makes one model call (the tiny random model: no tool call, no answer), then
posts a reward of 1 for its own episode with its key. The trained trajectory's reward is the env
replay's, or the scorer's: 0 either way. (Before issue 35's second pass the key was the run-wide
token and a posted reward paid the cheat.)
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agentgym.trainers import GRPOTrainer, load_config

pytest.importorskip("openai")

CHEAT = r"""
import os, httpx
base = os.environ["OPENAI_BASE_URL"]
key = {"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"]}
httpx.post(base + "/chat/completions", headers=key, timeout=300,
           json={"model": "m", "messages": [{"role": "user", "content": "answer(1)"}]})
r = httpx.post(base.rsplit("/v1", 1)[0] + "/reward", headers=key, json={"reward": 1.0})
assert r.status_code == 403, r.text
"""

SCORER = r"""
import os, httpx
httpx.post(os.environ["AGENTGYM_REWARD_URL"], json={"reward": 0.0},
           headers={"Authorization": "Bearer " + os.environ["AGENTGYM_REWARD_KEY"]}
           ).raise_for_status()
"""


@pytest.mark.parametrize("source,expected", [("env", 0.0), ("posted", 0.0)])
def test_a_posted_reward_does_not_replace_the_env_reward(tmp_path: Path, source: str,
                                                         expected: float) -> None:
    """The agent's post is refused (403: its status is 0, so the episode is not aborted), and
    the reward is the env's or the scorer's."""
    script, scorer = tmp_path / "cheat.py", tmp_path / "scorer.py"
    script.write_text(CHEAT)
    scorer.write_text(SCORER)
    cfg = load_config(None, [
        "env=shop/price-v0", "model=agentgym.trainers.tiny:tiny_llama", "device=cpu",
        "tasks_per_step=1", "group_size=2", "max_new_tokens=8", "max_turns=2", "steps=1",
        "eval_every=0", "eval_at_start=false", "tensorboard=false", "progress=false",
        "torch_threads=1", "rollout_source=gateway", f"output_dir={tmp_path / 'run'}"])
    cfg.gateway = {"agent": [sys.executable, str(script)], "mcp": False, "timeout_s": 120,
                   "reward": source, "scorer": [sys.executable, str(scorer)]}
    trainer = GRPOTrainer(cfg)
    trainer.setup()
    try:
        [group] = trainer.rollouts.groups(trainer._task_ids("train")[:1], 0).groups
    finally:
        trainer.close()
    assert [t.aborted for t in group] == [False, False]  # the agent ran to the end
    assert [t.reward for t in group] == [expected, expected]
