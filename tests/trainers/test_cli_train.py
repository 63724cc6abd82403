"""``agentgym train CONFIG [key=value ...] [--resume]`` on the tiny model."""

from __future__ import annotations

import yaml
from typer.testing import CliRunner

from agentgym.cli import app


def test_train_command_runs_and_resumes(tiny_cfg, tmp_path):
    cfg = tiny_cfg("steps=1", "eval_every=1", "eval_samples=0")
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(cfg.to_dict()))
    result = CliRunner().invoke(app, ["train", str(path), "steps=2"])
    assert result.exit_code == 0, result.output
    assert "success_greedy" in result.output
    again = CliRunner().invoke(app, ["train", str(path), "steps=3", "--resume"])
    assert again.exit_code == 0, again.output
    rows = (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()
    assert [yaml.safe_load(r)["step"] for r in rows if '"train"' in r] == [1, 2, 3]


def test_train_command_errors_are_one_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("algorithm: nope\n")
    result = CliRunner().invoke(app, ["train", str(bad)])
    assert result.exit_code == 1 and "no trainer named 'nope'" in result.output
    result = CliRunner().invoke(app, ["train", str(tmp_path / "missing.yaml")])
    assert result.exit_code == 1 and "cannot read config" in result.output
    result = CliRunner().invoke(app, ["train", str(bad), "algorithm=grpo", "nokey=1"])
    assert result.exit_code == 1 and "unknown config keys: nokey" in result.output


def test_the_summary_table_shows_only_what_was_evaluated(capsys):
    from types import SimpleNamespace

    from agentgym.cli.train import _report

    _report(SimpleNamespace(baseline={}, final={}, output_dir=None, report_png=None), "grpo")
    out = capsys.readouterr().out
    assert "no held-out evaluation in this run" in out and "before" not in out
    _report(SimpleNamespace(baseline={"success_greedy": 0.0, "winrate_scripted": 0.1},
                            final={"success_greedy": 0.5, "winrate_scripted": 0.6},
                            output_dir=None, report_png=None), "grpo")
    out = capsys.readouterr().out
    assert "held-out evaluation" in out and "winrate_scripted" in out and "0.600" in out
