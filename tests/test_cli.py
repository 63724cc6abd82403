"""The command line: list, info, tools, play, and one-line errors."""

import json

from typer.testing import CliRunner

from agentgym.cli import app

runner = CliRunner()


def test_list_shows_families_and_split_sizes():
    result = runner.invoke(app, ["list", "--all"], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert "textgames/guess-number-v0" in result.output
    assert "train 80, test 20" in result.output


def test_info_shows_tools_and_instructions():
    result = runner.invoke(app, ["info", "wordle"])
    assert result.exit_code == 0, result.output
    assert "guess(word)" in result.output and "five-letter" in result.output


def test_tools_openai_and_mcp():
    out = runner.invoke(app, ["tools", "guess-number"])
    assert json.loads(out.stdout)[0]["function"]["name"] == "guess"
    out = runner.invoke(app, ["tools", "guess-number", "--format", "mcp"])
    assert json.loads(out.stdout)["tools"][0]["inputSchema"]["required"] == ["number"]


def test_play_an_episode_from_typed_actions():
    import agentgym

    env = agentgym.make("guess-number")
    env.reset(seed=0)
    target = env.unwrapped.task.data["target"]
    actions = [f'<tool_call>{{"name": "guess", "arguments": {{"number": {n}}}}}</tool_call>'
               for n in (target % 100 + 1, target)]
    result = runner.invoke(app, ["play", "guess-number", "--seed", "0"], input="\n".join(actions))
    assert "higher" in result.output or "lower" in result.output
    assert result.exit_code == 0, result.output
    assert "episode terminated" in result.output and "correct" in result.output


def test_errors_are_one_line_and_nonzero():
    result = runner.invoke(app, ["info", "no-such-env"])
    assert result.exit_code == 1
    assert "error: no environment registered as 'no-such-env'" in result.output
    result = runner.invoke(app, ["tools", "wordle", "--format", "xml"])
    assert result.exit_code == 1


def test_play_accepts_a_bare_answer():
    import agentgym

    env = agentgym.make("guess-number")
    env.reset(seed=3)
    target = env.unwrapped.task.data["target"]
    result = runner.invoke(app, ["play", "guess-number", "--seed", "3"],
                           input=f"{target % 100 + 1}\n{target}\n")
    assert result.exit_code == 0, result.output
    assert "-> guess" in result.output and "episode terminated" in result.output
    assert "'success': True" in result.output


def test_task_ids_shown_to_players_do_not_give_away_the_answer():
    import agentgym

    guesses = list(agentgym.make("guess-number").unwrapped.task_set)
    revealing = [t.task_id for t in guesses if t.task_id == f"guess-{t.data['target']:03d}"]
    assert len(revealing) <= 2, revealing  # a shuffle may leave a fixed point or two
    words = list(agentgym.make("wordle").unwrapped.task_set)
    assert not [t.task_id for t in words if t.data["answer"] in t.task_id]


def test_plugin_trace_is_visible_on_stderr():
    import os
    import subprocess
    import sys

    env = {**os.environ, "AGENTGYM_TRACE_PLUGINS": "1"}
    done = subprocess.run([sys.executable, "-m", "agentgym.cli", "list"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "agentgym plugin trace: agentgym_register_envs from plugin textgames" in done.stderr


def test_version():
    import agentgym

    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"agentgym {agentgym.__version__}"
