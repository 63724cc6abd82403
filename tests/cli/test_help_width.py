"""``--help`` at 80 columns: paragraphs reflowed, no text cut, basic options before advanced."""

from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner

from agentgym.cli import app
from agentgym.cli.app import plain_help

runner = CliRunner()
WIDTH = 80


def _commands() -> dict:
    return dict(typer.main.get_command(app).commands)  # typer's own click: no isinstance


def _help(*args: str) -> str:
    result = runner.invoke(app, [*args, "--help"], env={"COLUMNS": str(WIDTH)})
    assert result.exit_code == 0, result.output
    return result.output


def _flat(text: str) -> str:
    return " ".join(text.split())


def _description(output: str) -> list[list[str]]:
    """The paragraphs between the usage line and the first section, as lists of lines."""
    lines = output.splitlines()
    body: list[str] = []
    for line in lines[1:]:
        if line and not line.startswith(" "):  # "Arguments:", "Options:", ...
            break
        body.append(line)
    paragraphs, current = [], []
    for line in body:
        if line.strip():
            current.append(line)
        elif current:
            paragraphs.append(current)
            current = []
    return [*paragraphs, *([current] if current else [])]


@pytest.mark.parametrize("name", ["", *_commands()])
def test_help_fits_80_columns_and_cuts_no_text(name):
    output = _help(*([name] if name else []))
    too_long = [line for line in output.splitlines() if len(line) > WIDTH]
    assert not too_long, too_long
    assert "…" not in output
    flat = _flat(output)
    command = _commands()[name] if name else typer.main.get_command(app)
    for param in command.params:
        text = plain_help(getattr(param, "help", None))
        if text:
            assert _flat(text) in flat, f"{name}: {param.name}'s help is cut"
    if name:
        for paragraph in (command.help or "").split("\n\n"):
            assert _flat(paragraph) in flat, f"{name}: a paragraph of its description is cut"


@pytest.mark.parametrize("name", list(_commands()))
def test_description_paragraphs_are_filled_not_broken_mid_sentence(name):
    for paragraph in _description(_help(name)):
        for line, after in zip(paragraph, paragraph[1:], strict=False):
            next_word = after.split()[0]
            assert len(line) + 1 + len(next_word) > WIDTH - 2, (
                f"{name}: the line {line!r} breaks before {next_word!r}, which fits")


def test_the_command_list_shows_each_summary_whole():
    output = _help()
    flat = _flat(output)
    for name, command in _commands().items():
        summary = _flat((command.help or "").split("\n\n")[0])
        assert summary in flat, f"{name}: its summary is cut in the command list"


def test_eval_help_groups_basic_then_advanced_options():
    output = _help("eval")
    assert len(output.splitlines()) <= 70  # 132 lines with rich's squeezed columns
    options, advanced = output.index("\nOptions:"), output.index("\nAdvanced options:")
    assert options < advanced
    for basic in ("--policy", "--split", "-n, --n", "--out", "--resume"):
        assert options < output.index(basic) < advanced, basic
    for rare in ("--num-envs", "--policy-timeout", "--summary-budget", "--sites"):
        assert output.index(rare) > advanced, rare
    assert "--no-resume" not in output  # a flag, not a pair that doubles the column
