"""Run folders and the ``agentgym train`` command: refusal, overwrite, Ctrl-C, safetensors."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from interrupting import interrupt_when
from typer.testing import CliRunner

from agentgym.cli import app

HERE = Path(__file__).parent
runner = CliRunner()


def _yaml(tiny_cfg: Any, tmp_path: Path, *overrides: str) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(tiny_cfg(*overrides).to_dict()))
    return path


def _train_steps(out: Path) -> list[int]:
    rows = [json.loads(r) for r in (out / "metrics.jsonl").read_text().splitlines()]
    return [r["step"] for r in rows if r["kind"] == "train"]


def test_existing_run_folder_is_refused_unless_resume_or_overwrite(tiny_cfg, tmp_path):
    path, out = _yaml(tiny_cfg, tmp_path, "steps=1", "save_every=1"), tmp_path / "run"
    first = runner.invoke(app, ["train", str(path)])
    assert first.exit_code == 0, first.output
    summary = (out / "summary.json").read_text()
    again = runner.invoke(app, ["train", str(path)])
    assert again.exit_code == 1 and "already holds a training run" in again.output
    assert (out / "summary.json").read_text() == summary and _train_steps(out) == [1]
    replaced = runner.invoke(app, ["train", str(path), "steps=2", "--overwrite"])
    assert replaced.exit_code == 0, replaced.output
    assert _train_steps(out) == [1, 2]  # the old run's rows are gone, not appended to
    both = runner.invoke(app, ["train", str(path), "--resume", "--overwrite"])
    assert both.exit_code == 1 and "exclude each other" in both.output


@pytest.mark.parametrize("steps", ["0", "-1"])
def test_steps_must_be_positive(tiny_cfg, tmp_path, steps):
    path = _yaml(tiny_cfg, tmp_path)
    result = runner.invoke(app, ["train", str(path), f"steps={steps}"])
    assert result.exit_code == 1 and "steps must be at least 1" in result.output
    assert not (tmp_path / "run").exists()


def test_checkpoints_are_safetensors_with_optimizer_only_in_the_newest(tiny_cfg, tmp_path):
    from safetensors.torch import load_file

    path, out = _yaml(tiny_cfg, tmp_path, "save_every=1", "keep_checkpoints=2"), tmp_path / "run"
    result = runner.invoke(app, ["train", str(path), "steps=2"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    old, new = out / "checkpoints" / "step-000001", out / "checkpoints" / "step-000002"
    assert not (old / "optimizer.pt").exists() and (new / "optimizer.pt").exists()
    weights = load_file(str(new / "model.safetensors"))
    assert weights and {t.dtype for t in weights.values()} == {__import__("torch").float32}
    assert not list(new.glob("*.pt.tmp")) and not (new / "model.pt").exists()
    assert "disk space of" in result.output and "optimizer.pt" in result.output
    assert "total" in result.output


def test_train_reads_the_yaml_once_and_asks_the_registry_once(tmp_path, monkeypatch):
    from agentgym.plugins import get_registry
    from agentgym.registrars import NamedRegistrar, NamedRegistry

    seen: list[tuple[Any, ...]] = []

    def record(config: Any, overrides: list[str], *, trainer: Any) -> Any:
        seen.append((config, overrides, trainer.name))
        return SimpleNamespace(baseline={}, final={}, output_dir=None)

    registry = get_registry("trainers")
    NamedRegistrar(registry, "test")("recorder", "agentgym.trainers.grpo:GRPOTrainer", run=record)
    gets, loads = [], []
    real_get, real_load = NamedRegistry.get, yaml.safe_load
    monkeypatch.setattr(NamedRegistry, "get", lambda self, n: gets.append(n) or real_get(self, n))
    monkeypatch.setattr(yaml, "safe_load", lambda s: loads.append(1) or real_load(s))
    path = tmp_path / "c.yaml"
    path.write_text("algorithm: recorder\nsteps: 3\n")
    try:
        result = runner.invoke(app, ["train", str(path), "lr=0.1"])
    finally:
        registry._entries.pop("recorder", None)
    assert result.exit_code == 0, result.output
    # one reading (agentgym.settings.read_settings): the file and the override, merged once
    assert seen == [({"algorithm": "recorder", "steps": 3, "lr": 0.1}, [], "recorder")]
    assert gets.count("recorder") == 1 and len(loads) == 2  # the file, the one override value


def test_version_and_help_show_what_users_type():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.startswith("agentgym 0.")
    result = runner.invoke(app, ["train", "--help"], env={"COLUMNS": "200"})
    assert "train CONFIG [key=value ...]" in result.output
    assert "KEY=VALUE" in result.output


@pytest.mark.timeout(900)
def test_ctrl_c_stops_within_5_s_and_the_run_resumes(tiny_cfg, tmp_path):
    path, out = _yaml(tiny_cfg, tmp_path, "save_every=1", "keep_checkpoints=0"), tmp_path / "run"
    script = ("import sys; sys.path.insert(0, sys.argv[1]); import tinyenv; tinyenv.register(); "
              "from agentgym.cli import app; app(sys.argv[2:])")
    cmd = [sys.executable, "-c", script, str(HERE), "train", str(path), "steps=200"]
    marker = out / "checkpoints" / "step-000002" / "COMPLETE"
    # about 20 s to the step-2 checkpoint on an idle 2-core machine
    result = interrupt_when(cmd, lambda err: marker.exists(), tmp_path / "stderr.log",
                            ready_timeout_s=600, env={"OMP_NUM_THREADS": "1"})
    err, stopped = result.stderr, result.stopped_s
    assert stopped < 5, f"stopped after {stopped:.1f} s"
    assert result.returncode == 130, err[-2000:]
    assert "--resume" in err and "interrupted" in err
    ckpts = list((out / "checkpoints").iterdir())
    assert ckpts and all(p.suffix != ".tmp" for p in ckpts)
    assert all((p / "COMPLETE").exists() and (p / "model.safetensors").exists() for p in ckpts)
    done = max(int(p.name.split("-")[1]) for p in ckpts)
    resumed = runner.invoke(app, ["train", str(path), f"steps={done + 1}", "--resume"])
    assert resumed.exit_code == 0, resumed.output
    assert _train_steps(out)[-1] == done + 1

