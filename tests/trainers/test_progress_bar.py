"""The training bar at 80 columns keeps its step counter and time, shows the figures whole on
their own line, and says when a held-out evaluation runs (the baseline one included)."""

from __future__ import annotations

from rich.console import Console

from agentgym.trainers.progress import RunProgress


def _render(bar: RunProgress, width: int) -> list[str]:
    console = Console(width=width, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    for renderable in bar._progress.get_renderables():
        console.print(renderable)
    return console.export_text().splitlines()


def test_the_step_counter_time_and_figures_survive_80_columns():
    bar = RunProgress(40, enabled=False)
    bar.update(3, {"reward": 0.5, "grad_norm": 1.23, "kl": 0.0012},
               {"success_greedy": 0.55, "success_sampled": 0.4})
    lines = _render(bar, 80)
    assert all(len(line) <= 80 for line in lines)
    assert "3/40" in lines[0] and "0:00:0" in lines[0] and "…" not in "".join(lines)
    text = " ".join(" ".join(lines).split())
    assert "reward 0.500 grad-norm 1.23 KL 0.0012 held-out greedy 0.550 sampled 0.400" in text
    with bar.evaluating(20):
        assert "held-out evaluation (20 tasks)" in _render(bar, 80)[0]
    assert "held-out evaluation" not in _render(bar, 80)[0]


def test_the_trainer_shows_each_evaluation_on_the_bar(tiny_cfg):
    from agentgym.trainers import GRPOTrainer

    trainer = GRPOTrainer(tiny_cfg("steps=1", "eval_at_start=true", "eval_every=1",
                                   "eval_tasks=2", "progress=true"))
    phases: list[str] = []
    real_setup = trainer.setup

    def setup() -> None:
        real_setup()
        real_evaluate = trainer.rollouts.evaluate

        def evaluate(*args, **kwargs):
            phases.append(trainer.bar.phase)
            return real_evaluate(*args, **kwargs)

        trainer.rollouts.evaluate = evaluate

    trainer.setup = setup
    trainer.train()
    assert phases == ["held-out evaluation (2 tasks)..."] * 2  # the baseline, then step 1
    assert trainer.bar.phase == ""
