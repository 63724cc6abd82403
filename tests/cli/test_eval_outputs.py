"""``agentgym eval``: what it writes and names, and the turn-level progress of long runs."""

import json

from typer.testing import CliRunner

from agentgym.cli import app
from agentgym.cli.eval_progress import LONG_RUN_S, episode_line, long_run_warning
from agentgym.rollout.evaluate import EvalConfig, run_eval
from agentgym.rollout.live import LiveEpisodes

runner = CliRunner()


def test_eval_names_every_output_and_the_report_links_the_viewer(tmp_path):
    out = tmp_path / "ev"
    result = runner.invoke(app, ["eval", "shop", "--policy", "random", "-n", "4", "--max-turns",
                                 "1", "--out", str(out)], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    index = out / "viewer" / "index.html"
    assert index.is_file() and f"trajectory viewer (open in a browser): {index}" in result.output
    assert f"{out}/report.png" in result.output and f"{out}/report.md" in result.output
    report = (out / "report.md").read_text()
    assert "[viewer/index.html](viewer/index.html)" in report
    results = json.loads((out / "results.json").read_text())
    assert results["agentgym_version"] and results["created"].startswith("20")
    ends = results["end_reasons"]  # how episodes ended, not only in the trajectory files
    assert sum(ends.values()) == 4 and any(k.startswith("turn limit 1") for k in ends), ends
    for reason, count in ends.items():
        assert f"| {reason} | {count} |" in report
    pages = sorted(p.name for p in (out / "viewer").glob("0*.html"))
    assert len(pages) == 4  # a text env gets its viewer too (one page per episode)


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_live_episodes_follow_turns_tokens_and_estimates():
    clock = Clock()
    live = LiveEpisodes(max_turns=4, concurrency=2, clock=clock)
    live.turn_started(("a", 0))
    clock.now = 10.0
    live.turn_done(("a", 0), 50)
    live.turn_started(("a", 0))
    live.turn_started(("b", 0))
    clock.now = 12.0
    rows = {r["task_id"]: r for r in live.rows()}
    assert rows["a"]["turn"] == 2 and rows["a"]["tokens"] == 50
    assert abs(rows["a"]["tokens_per_s"] - 50 / 12) < 1e-9
    assert rows["a"]["left_s"] == 3 * 10.0 - 2.0  # 3 turns left at 10 s, 2 s into this one
    assert rows["b"]["left_s"] == 4 * 10.0 - 2.0
    # before any episode finished: every episode may use every turn
    assert live.run_estimate_s(remaining=6) == 3 * 4 * 10.0
    live.episode_done(("a", 0))  # 12 s long
    assert live.run_estimate_s(remaining=5) == 3 * 12.0
    assert "turn 2/4" in episode_line(rows["a"], 4) and "50 tokens" in episode_line(rows["a"], 4)


def test_a_long_run_is_announced_with_what_shortens_it():
    clock = Clock()
    live = LiveEpisodes(max_turns=10, concurrency=2, clock=clock)
    live.turn_started(("a", 0))
    clock.now = 30.0
    live.turn_done(("a", 0), 64)
    message = long_run_warning(live, remaining=5)  # 3 rounds x 10 turns x 30 s = 15 min
    assert message is not None and "up to about 15m00s" in message and "-n" in message
    assert 3 * 10 * 30.0 > LONG_RUN_S >= 2 * 10 * 30.0
    assert long_run_warning(live, remaining=4) is None  # 10 minutes: no warning


def test_the_running_episodes_are_seen_turn_by_turn():
    seen = []

    def on_turn(live):
        seen.extend((r["task_id"], r["turns"]) for r in live.rows())

    results = run_eval(EvalConfig("shop", policy="scripted", n=2, num_envs=2), on_turn=on_turn)
    assert results["metrics"]["successes"] == 2
    tasks = {row["task_id"] for row in results["per_task"]}
    for task in tasks:  # each episode was shown after its 1st and 2nd turn (3 turns in all)
        assert (task, 1) in seen and (task, 2) in seen, seen


def test_the_bar_shows_a_line_per_running_episode_and_warns_once():
    import io

    from rich.console import Console

    from agentgym.cli.eval_progress import EvalProgress

    buffer = io.StringIO()
    bar = EvalProgress("eval shop", Console(file=buffer, width=120, force_terminal=False))
    bar.update(bar.job, total=50)
    clock = Clock()
    live = LiveEpisodes(max_turns=10, concurrency=2, clock=clock)
    live.turn_started(("shop-pen-3", 0))
    clock.now = 30.0
    live.turn_done(("shop-pen-3", 0), 64)
    live.turn_started(("shop-pen-3", 0))
    bar.turn_finished(live)
    bar.turn_finished(live)
    bar.console.print(bar.get_renderable())
    text = buffer.getvalue()
    assert "shop-pen-3: turn 2/10  64 tokens" in text and "left" in text
    assert text.count("warning:") == 1 and "-n, --max-turns" in text
