"""An agent program cannot award itself: with ``reward: env`` only the model's turns count.

The hostile agent makes one model call (the tiny random model: no tool call, no answer), then
posts a reward of 1 for its own episode with the run's token. The trained trajectory's reward is
the env replay's, 0.
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
assert r.status_code == 200, r.text
"""


@pytest.mark.parametrize("source,expected", [("env", 0.0), ("posted", 1.0)])
def test_a_posted_reward_does_not_replace_the_env_reward(tmp_path: Path, source: str,
                                                         expected: float) -> None:
    """With ``reward: posted`` the cheat pays (the user chose to trust the poster), which shows
    the attack works when nothing stops it; with ``reward: env`` it is worth nothing."""
    script = tmp_path / "cheat.py"
    script.write_text(CHEAT)
    cfg = load_config(None, [
        "env=shop/price-v0", "model=agentgym.trainers.tiny:tiny_llama", "device=cpu",
        "tasks_per_step=1", "group_size=2", "max_new_tokens=8", "max_turns=2", "steps=1",
        "eval_every=0", "eval_at_start=false", "tensorboard=false", "progress=false",
        "torch_threads=1", "rollout_source=gateway", f"output_dir={tmp_path / 'run'}"])
    cfg.gateway = {"agent": [sys.executable, str(script)], "mcp": False, "timeout_s": 120,
                   "reward": source}
    trainer = GRPOTrainer(cfg)
    trainer.setup()
    try:
        [group] = trainer.rollouts.groups(trainer._task_ids("train")[:1], 0).groups
    finally:
        trainer.close()
    assert [t.aborted for t in group] == [False, False]  # the agent ran to the end
    assert [t.reward for t in group] == [expected, expected]
