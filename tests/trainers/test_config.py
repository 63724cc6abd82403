"""Config: defaults, presets, YAML, overrides and errors."""

from __future__ import annotations

import dataclasses

import pytest

from agentgym import ConfigError
from agentgym.trainers.config import TrainConfig, load_config, parse_overrides, save_config


def test_every_field_has_a_docstring():
    import ast
    import inspect

    from agentgym.trainers import config

    tree = ast.parse(inspect.getsource(config.TrainConfig))
    body = tree.body[0].body
    documented = {
        node.target.id for node, nxt in zip(body, body[1:], strict=False)
        if isinstance(node, ast.AnnAssign) and isinstance(nxt, ast.Expr)
        and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str)
    }
    assert {f.name for f in dataclasses.fields(TrainConfig)} <= documented


def test_overrides_parse_as_yaml():
    assert parse_overrides(["lr=0.5", "lora=true", "lora_target_modules=[q_proj,v_proj]",
                            "--steps=4"]) == {
        "lr": 0.5, "lora": True, "lora_target_modules": ["q_proj", "v_proj"], "steps": 4}
    assert load_config(None, ["lr=3e-6", "kl_coef=1"]).lr == 3e-6
    with pytest.raises(ConfigError, match="key=value"):
        parse_overrides(["steps"])


@pytest.mark.parametrize(
    ("algorithm", "expected"),
    [
        ("grpo", {"advantage": "grpo", "loss_agg": "seq_mean_token_mean", "clip_eps_high": 0.2}),
        ("dr_grpo", {"advantage": "dr_grpo", "loss_agg": "seq_mean_token_sum_norm"}),
        ("dapo", {"clip_eps_high": 0.28, "loss_agg": "token_mean", "dynamic_sampling": True,
                  "overlong_buffer": -1}),
        ("gspo", {"loss": "gspo", "clip_eps_low": 3e-4, "clip_eps_high": 4e-4}),
    ],
)
def test_presets(algorithm, expected):
    cfg = load_config(None, [f"algorithm={algorithm}"])
    assert {k: getattr(cfg, k) for k in expected} == expected


def test_yaml_then_overrides_win_over_preset(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("algorithm: dapo\nclip_eps_high: 0.3\nlr: 1.0e-6\nsteps: 7\n")
    cfg = load_config(path, ["steps=9"])
    assert (cfg.clip_eps_high, cfg.lr, cfg.steps, cfg.loss_agg) == (0.3, 1e-6, 9, "token_mean")
    save_config(cfg, tmp_path / "back.yaml")
    assert load_config(tmp_path / "back.yaml") == cfg


def test_errors(tmp_path):
    with pytest.raises(ConfigError, match="unknown config keys: nope"):
        load_config(None, ["nope=1"])
    with pytest.raises(ConfigError, match="steps must be int"):
        load_config(None, ["steps=many"])
    with pytest.raises(ConfigError, match="true or false"):
        load_config(None, ["lora=3"])
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.yaml")
    (tmp_path / "list.yaml").write_text("- 1\n")
    with pytest.raises(ConfigError, match="mapping"):
        load_config(tmp_path / "list.yaml")


def test_shipped_configs_load():
    from pathlib import Path

    root = Path(__file__).parents[2] / "configs"
    paths = sorted(root.glob("*.yaml"))
    assert paths
    for path in paths:
        load_config(path)
