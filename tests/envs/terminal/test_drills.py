"""The templated drills (``terminal/drill-v0``, ``drill-test-v0``): a deterministic generator,
disjoint splits, a private cache checked on every load, and tasks whose oracle scores 1 while
doing nothing, constants and near misses score 0 (a sample by default; all of them ``slow``)."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
from pathlib import Path

import pytest

import agentgym
from agentgym.envs.terminal import drills as drills_module
from agentgym.envs.terminal.drills import (
    TEMPLATES,
    DrillEnv,
    drill_folder,
    drills,
    load_drills,
    task_files,
)
from agentgym.errors import UnsafeFolder
from agentgym.sandboxes.bubblewrap import bubblewrap_available
from agentgym.testing import check_rewards

needs_bwrap = pytest.mark.skipif(not bubblewrap_available(), reason="bubblewrap cannot run here")
SUBMIT = '<tool_call>{"name": "submit", "arguments": {}}</tool_call>'


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTGYM_CACHE", str(tmp_path / "cache"))


def _parameters(instruction: str) -> set[str]:
    """The names an instruction gives: files and directories under /app, and the word."""
    found = set(re.findall(r"/app/([a-z]+)", instruction))
    found |= set(re.findall(r"the word ([a-z]+)", instruction))
    return found - {"answer"}


def test_the_generator_is_deterministic_and_the_seed_matters():
    assert task_files(0) == task_files(0)
    assert task_files(1) != task_files(0)
    made = drills(0)
    assert {(d.split, d.template) for d in made} == {(s, t) for s in ("train", "test")
                                                     for t in TEMPLATES}
    splits = [d.split for d in made]
    assert splits.count("train") == 60 and splits.count("test") == 40
    assert len({d.instruction for d in made}) == len(made)


def test_held_out_parameters_never_appear_in_train():
    made = drills(0)
    train = set().union(*(_parameters(d.instruction) for d in made if d.split == "train"))
    test = set().union(*(_parameters(d.instruction) for d in made if d.split == "test"))
    assert train and test and not train & test


def test_no_word_hides_inside_another():
    """Counting lines that contain a word is exact only if no word is part of another."""
    words = drills_module._WORDS
    assert len(set(words)) == len(words)
    assert [(a, b) for a in words for b in words if a != b and a in b] == []


def test_answers_are_not_constants():
    """Each template's expected answers vary between tasks (a constant cannot pass them all)."""
    made = drills(0)
    for template in ("head", "sort", "copy"):
        checks = [(d.check, d.expected) for d in made if d.template == template]
        assert len(set(checks)) == len(checks), template
    counts = [re.search(r'= "(\d+)" \]', d.check)[1] for d in made if d.template == "count"]
    assert max(counts.count(n) for n in counts) <= len(counts) // 3  # no answer fits most


def test_the_cache_is_private_and_rewritten_when_it_differs(tmp_path):
    folder = drill_folder(0)
    assert folder.is_relative_to(tmp_path / "cache")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(folder.parent.stat().st_mode) == 0o700
    on_disk = {p.relative_to(folder).as_posix(): p.read_bytes()
               for p in folder.rglob("*") if p.is_file()}
    assert on_disk == task_files(0)
    planted = folder / "count-test-00" / "tests" / "test.sh"
    planted.write_text("#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n")
    (folder / "count-test-00" / "extra").write_text("x")
    assert drill_folder(0) == folder
    assert planted.read_bytes() == task_files(0)["count-test-00/tests/test.sh"]
    assert not (folder / "count-test-00" / "extra").exists()


def test_a_cache_others_may_write_or_the_sandbox_can_read_is_refused(tmp_path, monkeypatch):
    drill_folder(0)
    os.chmod(tmp_path / "cache" / "terminal-drills", 0o777)
    with pytest.raises(UnsafeFolder, match="writable by other users"):
        drill_folder(0)
    monkeypatch.setenv("AGENTGYM_CACHE", "/usr/share/agentgym-drills-never-made")
    with pytest.raises(UnsafeFolder, match="the sandbox can read it"):
        drill_folder(0)
    assert not os.path.exists("/usr/share/agentgym-drills-never-made")


def test_the_ids_are_registered_with_short_episodes():
    train, test = agentgym.make("terminal/drill-v0"), agentgym.make("terminal/drill-test-v0")
    try:
        assert isinstance(train.unwrapped, DrillEnv) and train.max_turns == 3
        assert len(train.unwrapped.task_set) == 60 and len(test.unwrapped.task_set) == 40
        assert {t.split for t in test.unwrapped.task_set} == {"test"}
        load_drills().check()  # no instruction in both splits
        assert train.unwrapped.command_timeout_s == 10.0
    finally:
        train.close()
        test.close()


def _play(env: DrillEnv, task_id: str, actions: list[str]) -> float:
    env.reset(options={"task_id": task_id})
    for action in [*actions, SUBMIT]:
        _, reward, terminated, _, info = env.step(action)
        assert not info.get("aborted"), info
        if terminated:
            return float(reward)
    raise AssertionError("submit did not end the episode")


def _sweep(names: list[str]) -> list[str]:
    env = DrillEnv("all")
    by_name = {d.name: d for d in drills(0)}
    bad = []
    try:
        for name in names:
            env.reset(options={"task_id": name})
            oracle = _play(env, name, env.expert_actions(env.task)[:-1])
            nothing = _play(env, name, [])
            wrong = [_play(env, name, [json.dumps({"name": "bash", "arguments": {"command": w}})])
                     for w in by_name[name].wrong]
            if oracle != 1.0 or nothing != 0.0 or any(wrong):
                bad.append(f"{name}: oracle {oracle}, nothing {nothing}, wrong {wrong}")
    finally:
        env.close()
    return bad


@needs_bwrap
def test_a_sample_oracle_one_nothing_and_wrong_zero():
    """One task of each template, from the held-out split."""
    assert _sweep([f"{t}-test-{i:02d}" for i, t in enumerate(TEMPLATES)]) == []


@pytest.mark.slow
@needs_bwrap
def test_every_drill_oracle_one_nothing_and_wrong_zero():
    assert _sweep([d.name for d in drills(0)]) == []


@needs_bwrap
def test_drill_rewards_cheap_probes():
    result = check_rewards("terminal/drill-test-v0", seeds=1, cheap=True, max_variants=2,
                           command_timeout_s=3)
    assert {"terminal-plant-reward", "terminal-tamper-tests"} <= {p.name for p in result.probes}
    result.raise_for_failures()


HARBOR_PYTHON = Path(__file__).resolve().parents[3] / ".venv-harbor" / "bin" / "python"
HARBOR_READ = r"""
import json, sys
from harbor.models.task.task import Task
out = {}
for folder in sys.argv[1:]:
    t = Task(folder)
    c = t.config
    out[folder] = [t.instruction, c.agent.timeout_sec, c.verifier.timeout_sec,
                   c.environment.memory_mb, (c.metadata or {}).get("split")]
print(json.dumps(out))
"""


@pytest.mark.skipif(not HARBOR_PYTHON.exists(), reason="no .venv-harbor "
                    "(scripts/setup_harbor_venv.sh)")
def test_harbors_own_task_model_reads_the_drills():
    from agentgym.envs.terminal.harbor import discover, load_task

    folders = discover(drill_folder(0))
    done = subprocess.run([str(HARBOR_PYTHON), "-c", HARBOR_READ, *map(str, folders)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    theirs = json.loads(done.stdout)
    assert len(theirs) == len(folders) == 100
    for folder in folders:
        ours = load_task(folder)
        assert theirs[str(folder)] == [
            ours.instruction, ours.steps[0].agent_timeout_s, ours.steps[0].verifier_timeout_s,
            ours.memory_mb, ours.metadata["split"]], folder
