"""Every bundled task: Harbor layout, the oracle scores 1, doing nothing and the recorded wrong
answers (constants, partial work) score 0. The full sweep is ``slow``; a few run by default."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agentgym.envs.terminal.env import BUNDLED, TerminalEnv
from agentgym.envs.terminal.harbor import discover, load_taskset
from agentgym.sandboxes.bubblewrap import bubblewrap_available

ROOT = Path(__file__).resolve().parents[3]
FAST = ("count-error-lines", "sh-fix-exit-code", "sqlite-top-customer", "nested-archive",
        "configure-service", "git-partial-commit")
SUBMIT = '<tool_call>{"name": "submit", "arguments": {}}</tool_call>'


def test_bundled_tasks_are_many_split_and_in_harbor_layout():
    tasks = load_taskset(BUNDLED)
    assert len(tasks) >= 60
    assert set(tasks.splits) == {"train", "test"} and tasks.splits["test"] >= 15
    assert {t.data["difficulty"] for t in tasks} == {"easy", "medium", "hard"}
    assert len({t.data["category"] for t in tasks}) >= 8
    tasks.check()  # no instruction in both splits
    for folder in discover(BUNDLED):
        assert (folder / "environment" / "Dockerfile").is_file()
        assert (folder / "tests" / "test.sh").stat().st_mode & 0o111
        assert (folder / "instruction.md").is_file() or (folder / "steps").is_dir()
        if not (folder / "steps").is_dir():
            assert (folder / "solution" / "solve.sh").is_file()
            assert (folder / "wrong_answers.json").is_file(), folder.name


def test_generated_folders_match_the_generator(tmp_path):
    """The committed folders are what scripts/gen_terminal_tasks.py writes (seeded data)."""
    out = tmp_path / "tasks"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_terminal_tasks.py"), str(out)],
                   check=True, capture_output=True)
    made = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    kept = {p.relative_to(BUNDLED): p.read_bytes() for p in BUNDLED.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}
    assert made.keys() == kept.keys()
    assert [k for k in made if made[k] != kept[k]] == []


def _play(env: TerminalEnv, task_id: str, actions: list[str]) -> float:
    env.reset(options={"task_id": task_id})
    reward = 0.0
    for action in actions:
        _, reward, terminated, truncated, info = env.step(action)
        assert not info.get("aborted"), info
        if terminated:
            return reward
    for _ in range(len(env.harbor.steps)):  # then submit every step left
        _, reward, terminated, _, _ = env.step(SUBMIT)
        if terminated:
            break
    return reward


def _sweep(task_ids: list[str]) -> list[str]:
    env = TerminalEnv(split="all")
    bad = []
    for task_id in task_ids:
        env.reset(options={"task_id": task_id})
        oracle = _play(env, task_id, env.expert_actions(env.task))
        nothing = _play(env, task_id, [])
        wrong_file = Path(env.task.data["path"]) / "wrong_answers.json"
        wrongs = json.loads(wrong_file.read_text()) if wrong_file.is_file() else []
        scores = [_play(env, task_id, [json.dumps({"name": "bash", "arguments": {
            "command": w}})]) for w in wrongs]
        if oracle != 1.0 or nothing != 0.0 or any(scores):
            bad.append(f"{task_id}: oracle {oracle}, nothing {nothing}, wrong {scores}")
    env.close()
    return bad


@pytest.mark.skipif(not bubblewrap_available(), reason="bubblewrap cannot run here")
def test_a_few_tasks_oracle_one_nothing_and_wrong_zero():
    assert _sweep(list(FAST)) == []


@pytest.mark.slow
@pytest.mark.skipif(not bubblewrap_available(), reason="bubblewrap cannot run here")
def test_every_task_oracle_one_nothing_and_wrong_zero():
    assert _sweep(load_taskset(BUNDLED).ids()) == []
