"""``agentgym importers`` and ``agentgym list`` name the importers and what each offers."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from agentgym.cli import app

pytest.importorskip("reasoning_gym")
pytest.importorskip("textarena")

runner = CliRunner()


def test_importers_lists_each_prefix_with_its_count_and_install_line() -> None:
    result = runner.invoke(app, ["importers"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line for line in result.output.splitlines()
            if line.strip().endswith(("]'", "itself)"))}
    from reasoning_gym.factory import DATASETS

    assert f" {len(DATASETS)} " in rows["reasoning-gym:"]
    assert "agentgym[interop]" in rows["textarena:"] and "any URL" in rows["openenv:"]


def test_one_importers_ids_and_an_unknown_prefix() -> None:
    result = runner.invoke(app, ["importers", "reasoning-gym", "--json"])
    ids = json.loads(result.stdout)
    assert "reasoning-gym:leg_counting" in ids and len(ids) == len(set(ids)) > 50
    result = runner.invoke(app, ["importers", "textarena:"])
    assert "textarena:TicTacToe-v0" in result.stdout.splitlines()
    result = runner.invoke(app, ["importers", "nosuch"])
    assert result.exit_code == 1 and "no importer 'nosuch'" in result.output


def test_list_ends_with_the_importers() -> None:
    result = runner.invoke(app, ["list"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    tail = result.output[result.output.index("importers"):]
    assert all(p in tail for p in ("reasoning-gym:", "textarena:", "openenv:", "skyrl-gym:",
                                   "gem:"))
