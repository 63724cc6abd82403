"""``agentgym list`` at 80 columns: ids whole, families grouped, ``--all`` and ``--json``."""

import json

from typer.testing import CliRunner

from agentgym.cli import app
from agentgym.registry import all_specs

runner = CliRunner()
NARROW = {"COLUMNS": "80"}


def _words(output: str) -> set[str]:
    return {w.strip(",()") for w in output.split()}


def test_default_groups_families_in_one_screen_with_whole_ids():
    result = runner.invoke(app, ["list"], env=NARROW)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert len(lines) < 60, len(lines)  # 130 MiniWoB rows no longer fill the table
    assert max(len(line) for line in lines) <= 80
    assert "…" not in result.output
    words = _words(result.output)
    families = {s.family or "-" for s in all_specs()}  # a test env may have none
    assert families <= words
    # every env outside the big namespaces is named whole; MiniWoB is one counted entry
    for s in all_specs():
        if not s.id.startswith("miniwob/"):
            assert s.id in words, s.id
    assert "miniwob/*" in words


def test_all_lists_every_id_whole_at_80_columns():
    result = runner.invoke(app, ["list", "--all"], env=NARROW)
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    words = _words(result.output)
    missing = [s.id for s in all_specs() if s.id not in words]
    assert not missing, missing[:5]
    assert max(len(line) for line in result.output.splitlines()) <= 80


def test_family_filter_expands_that_family():
    result = runner.invoke(app, ["list", "--family", "sql"], env=NARROW)
    assert result.exit_code == 0, result.output
    assert "sql/spider-lite-easy-v0" in result.output and "arith/add-v0" not in result.output
    bad = runner.invoke(app, ["list", "--family", "sq"], env=NARROW)
    assert bad.exit_code == 1 and "did you mean sql" in bad.output


def test_json_is_one_record_per_env():
    result = runner.invoke(app, ["list", "--json"], env=NARROW)
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert len(rows) == len(all_specs())
    guess = next(r for r in rows if r["id"] == "textgames/guess-number-v0")
    assert guess["family"] == "game" and guess["splits"] == {"train": 80, "test": 20}
    assert guess["aliases"] == ["guess-number"] and guess["plugin"] == "textgames"
