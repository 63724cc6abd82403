"""``make demo``: a multi-turn tool task, its before/after in summary.json and report.png."""

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "configs" / "demo_shop_cpu.yaml"


def _demo():
    spec = importlib.util.spec_from_file_location("demo", ROOT / "scripts" / "demo.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_demo_trains_a_multi_turn_tool_task_with_before_and_after():
    from agentgym.registry import spec
    from agentgym.trainers import load_config

    cfg = load_config(CONFIG)
    demo = _demo()
    assert demo.CONFIG == "configs/demo_shop_cpu.yaml" and cfg.env == "shop/price-v0"
    assert spec(cfg.env).id == demo.ENV
    assert cfg.max_turns >= 3  # the expert needs three tool calls: a multi-turn task
    assert 0 < cfg.bc_steps < cfg.steps  # behaviour cloning, then GRPO
    assert cfg.eval_at_start and cfg.eval_greedy and cfg.eval_samples >= 1  # sampled: RL's share
    assert cfg.bc_steps % cfg.eval_every == 0  # an evaluation of BC alone, then of BC + GRPO
    assert cfg.eval_split == "test" and cfg.train_split == "train"


def test_a_short_demo_run_fills_summary_and_the_held_out_panel(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from agentgym.trainers import load_config, train

    cfg = load_config(CONFIG, [
        "model=agentgym.trainers.tiny:tiny_llama", "steps=2", "bc_steps=1", "eval_every=1",
        "eval_tasks=2", "tasks_per_step=2", "group_size=2", "bc_batch_size=4", "num_envs=4",
        "max_batch_size=8", "micro_batch_size=4", "torch_threads=1", "progress=false",
        f"output_dir={tmp_path / 'train'}"])
    train(cfg)
    summary = json.loads((tmp_path / "train" / "summary.json").read_text())
    assert "success_greedy" in summary["baseline"] and "success_greedy" in summary["final"]
    evals = [json.loads(line) for line in (tmp_path / "train" / "metrics.jsonl").open()
             if '"eval"' in line]
    assert (tmp_path / "train" / "report.png").stat().st_size > 10_000
    assert [e["step"] for e in evals] == [0, 1, 2]  # before, after BC, after BC + GRPO
    lines = _demo().report(tmp_path / "train", tmp_path / "no-eval", minutes=1.0)
    assert lines[0].startswith("held-out success on shop/price-v0 (2 tasks never trained on")
    assert "before" in lines[1] and "after BC" in lines[1] and "GRPO's own share" in lines[1]
    assert lines[1].lstrip().startswith("greedy") and lines[2].lstrip().startswith("sampled")
    assert lines[-2].startswith("demo_rl_share_sampled_points=")
    assert lines[-1].startswith("demo_gain_greedy=")
