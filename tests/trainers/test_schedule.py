"""The phase schedule and the trainer as parts: ``phases: [{bc: 4}, {grpo: 8}]`` is what
``algorithm: bc_grpo`` was, every algorithm runs the same ``step``, capabilities are protocols."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agentgym import ConfigError

TRAINERS = Path(__file__).resolve().parents[2] / "trainers"


def test_phases_set_algorithm_bc_steps_and_steps(tiny_cfg) -> None:
    from agentgym.trainers.schedule import build_schedule

    cfg = tiny_cfg("phases=[{bc: 4}, {grpo: 8}]")
    assert (cfg.algorithm, cfg.bc_steps, cfg.steps) == ("grpo", 4, 12)
    legacy = tiny_cfg("algorithm=bc_grpo", "bc_steps=4", "steps=12")
    assert build_schedule(cfg) == build_schedule(legacy)
    assert [(p.name, p.steps, p.first_step) for p in build_schedule(cfg)] == [
        ("bc", 4, 0), ("grpo", 8, 4)]
    assert tiny_cfg("phases=[bc:2, rloo:3]").advantage == "rloo"  # the algorithm's preset
    assert [p.name for p in build_schedule(tiny_cfg("algorithm=semi_online", "bc_steps=1",
                                                    "steps=3"))] == ["bc", "semi_online"]
    assert [p.name for p in build_schedule(tiny_cfg("steps=3"))] == ["grpo"]


@pytest.mark.parametrize(("phases", "message"), [
    ("[{grpo: 4}, {bc: 2}]", "an optional bc phase then one learning phase"),
    ("[{grpo: 4}, {dapo: 2}]", "an optional bc phase then one learning phase"),
    ("[{bc: 0}, {grpo: 2}]", "steps must be at least 1"),
    ("[{bc: 2, grpo: 2}]", "a phase is one name and its steps"),
    ("[{bc: two}]", "steps must be an integer"),
])
def test_malformed_phases_are_refused(tiny_cfg, phases: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        tiny_cfg(f"phases={phases}")


def test_phases_that_contradict_other_keys_are_refused(tiny_cfg) -> None:
    with pytest.raises(ConfigError, match="steps: 10 contradicts phases"):
        tiny_cfg("phases=[{bc: 4}, {grpo: 8}]", "steps=10")
    with pytest.raises(ConfigError, match="algorithm: 'dapo' contradicts"):
        tiny_cfg("phases=[{bc: 4}, {grpo: 8}]", "algorithm=dapo")
    assert tiny_cfg("phases=[{bc: 4}, {grpo: 8}]", "algorithm=bc_grpo", "steps=12").steps == 12


def _train_rows(tiny_cfg, tmp_path: Path, name: str, *schedule: str) -> list[dict]:
    from agentgym.trainers import train

    cfg = tiny_cfg("env=shop/price-v0", "bc_batch_size=4", "max_turns=4", "max_new_tokens=8",
                   "tasks_per_step=2", "group_size=2", "bc_lr=0.01",
                   f"output_dir={tmp_path / name}", *schedule)
    train(cfg)
    rows = [json.loads(r) for r in (tmp_path / name / "metrics.jsonl").read_text().splitlines()]
    timing = re.compile(r"(_s|_per_s)$")
    return [{k: v for k, v in r.items() if not timing.search(k)} for r in rows]


def test_bc_grpo_and_its_phase_schedule_train_the_same(tiny_cfg, tmp_path: Path) -> None:
    """Same seeds, same figures: the earlier algorithm name and the phase list are one run."""
    legacy = _train_rows(tiny_cfg, tmp_path, "legacy", "algorithm=bc_grpo", "bc_steps=1",
                         "steps=2")
    phased = _train_rows(tiny_cfg, tmp_path, "phased", "phases=[{bc: 1}, {grpo: 1}]")
    assert [r["kind"] for r in legacy] == ["train", "train"]
    assert "bc_loss" in legacy[0] and "reward" in legacy[1]  # a BC step, then a GRPO step
    # behav_logp_abs_diff measures float noise itself (sampler against learner, ~1e-7): its last
    # bits follow the CPU's reduction order, so it is compared to that noise, the rest exactly
    noise = "behav_logp_abs_diff"
    assert legacy[1][noise] == pytest.approx(phased[1][noise], abs=1e-6)
    assert [{k: v for k, v in r.items() if k != noise} for r in legacy] == [
        {k: v for k, v in r.items() if k != noise} for r in phased]


def test_every_algorithm_runs_the_one_step() -> None:
    from agentgym.trainers.async_grpo import AsyncGRPOTrainer
    from agentgym.trainers.bc import BCWarmupTrainer
    from agentgym.trainers.grpo import GRPOTrainer
    from agentgym.trainers.semionline import SemiOnlineTrainer

    for cls in (AsyncGRPOTrainer, BCWarmupTrainer, SemiOnlineTrainer):
        assert cls.step is GRPOTrainer.step and cls.update is GRPOTrainer.update
    source = (TRAINERS / "grpo.py").read_text()
    step = source[source.index("    def step(self)"):source.index("    def _after(")]
    assert len(step.splitlines()) <= 26 and "algorithm" not in step
    assert "type(f\"Async" not in (TRAINERS / "async_grpo.py").read_text()


def test_the_step_path_probes_no_attribute() -> None:
    """Capabilities are protocols checked when a part is built, not getattr/hasattr probes."""
    files = [TRAINERS / "grpo.py", TRAINERS / "learner.py", TRAINERS / "bc.py",
             TRAINERS / "semionline.py", TRAINERS / "async_grpo.py", TRAINERS / "weight_sync.py",
             TRAINERS / "state.py", TRAINERS / "selfplay.py", TRAINERS / "distributed.py",
             TRAINERS / "update.py", TRAINERS / "modeling.py", TRAINERS / "experts.py",
             *(TRAINERS / "sources").glob("*.py"), *(TRAINERS / "scoring").glob("*.py")]
    probes = {f.name: len(re.findall(r"\b(?:getattr|hasattr)\(", f.read_text())) for f in files}
    assert sum(probes.values()) == 0, probes


def test_the_learner_finds_its_weight_push_once_from_protocols(tiny_cfg) -> None:
    from agentgym.trainers.distributed import DistInfo
    from agentgym.trainers.learner import Learner
    from agentgym.trainers.parts import PushesWeights, Versioned
    from agentgym.trainers.weight_sync import WeightSync

    class Remote:
        """A policy in another process: no version, no guard."""

    class Shared:
        """The in-process policy: it shares the module and guards it while it changes."""

        version = 3

        def updating_weights(self):
            raise AssertionError("not entered here")

    def learner(policy, sync=None):
        return Learner(tiny_cfg(), None, None, None, None, DistInfo(), None, None, policy,
                       sync=sync)

    shared = Shared()
    assert learner(shared).guard == shared.updating_weights and learner(shared).version(9) == 3
    remote = learner(Remote(), sync=WeightSync(Remote(), "unused"))
    assert remote.guard is None and remote.version(9) == 9  # no version: the step counts
    assert learner(shared, sync=WeightSync(shared, "unused")).guard is None  # pushed, not shared
    assert isinstance(WeightSync(shared, "unused"), PushesWeights)
    assert isinstance(shared, Versioned) and not isinstance(Remote(), Versioned)
