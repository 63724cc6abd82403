"""Typos in env ids and config keys get a suggestion of the real name."""

import pytest
from typer.testing import CliRunner

from agentgym.cli import app
from agentgym.errors import ConfigError

runner = CliRunner()


@pytest.mark.parametrize(("typed", "meant"), [
    ("sqll", "sql"),
    ("miniwob/click-buton-v0", "miniwob/click-button-v0"),
    ("webarena-lit", "web/webarena-lite-v0"),
    ("wordel", "wordle"),
])
def test_eval_and_info_suggest_the_env_meant(typed, meant):
    for args in (["eval", typed, "-n", "1"], ["info", typed]):
        result = runner.invoke(app, args, env={"COLUMNS": "200"})
        assert result.exit_code == 1, result.output
        assert "did you mean" in result.output and meant in result.output, result.output


def test_nonsense_gets_no_made_up_suggestion():
    result = runner.invoke(app, ["info", "zzzqqq"], env={"COLUMNS": "200"})
    assert result.exit_code == 1 and "did you mean" not in result.output
    assert "agentgym list" in result.output


@pytest.mark.parametrize(("override", "meant"), [
    ("step=3", "steps"), ("learning_rate=1e-5", "lr"), ("group_sise=4", "group_size"),
])
def test_config_key_typos_suggest_the_real_key(override, meant):
    from agentgym.trainers import load_config

    with pytest.raises(ConfigError, match=f"did you mean {meant}"):
        load_config(None, [override])


def test_config_file_key_typo_suggests_the_real_key(tmp_path):
    from agentgym.trainers import load_config

    path = tmp_path / "c.yaml"
    path.write_text("step: 3\nlr: 1.0e-5\n")
    with pytest.raises(ConfigError, match="unknown config keys: step; did you mean steps"):
        load_config(path)
