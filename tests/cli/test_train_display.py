"""What the train bar and the train report show."""

from agentgym.trainers.progress import step_summary

GRPO_STEP = {"reward": 0.875, "loss": 3.49e-09, "entropy": 0.127, "kl": 0.0, "grad_norm": 2.36}


def test_an_rl_step_shows_reward_and_gradient_norm_not_a_zero_loss():
    text = step_summary(GRPO_STEP)
    assert "reward 0.875" in text and "grad-norm 2.36" in text and "entropy 0.127" in text
    assert "loss" not in text


def test_a_kl_is_shown_when_measured_and_bc_steps_show_their_loss():
    assert "KL 0.0123" in step_summary({**GRPO_STEP, "kl": 0.0123})
    assert step_summary({"bc_loss": 0.745, "grad_norm": 12.2}) == "BC loss 0.745  grad-norm 12.20"
