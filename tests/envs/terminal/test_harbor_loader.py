"""Reading Harbor task folders: task.toml, steps, the Dockerfile plan and reward files."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from agentgym.envs.terminal.dockerfile import apt_packages, build_plan, logical_lines
from agentgym.envs.terminal.harbor import discover, load_task, load_taskset
from agentgym.envs.terminal.rewards import (
    parse_reward_json,
    parse_reward_txt,
    read_reward,
    strip_paths,
)
from agentgym.errors import TaskError

FIXTURES = Path(__file__).parent / "fixtures"


def _tar(entries: dict[str, bytes | None], links: dict[str, str] | None = None) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, content in entries.items():
            info = tarfile.TarInfo(name)
            if content is None:
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            else:
                info.size = len(content)
                tar.addfile(info, io.BytesIO(content))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = target
            tar.addfile(info)
    return buf.getvalue()


def _task(tmp_path: Path, toml: str, files: dict[str, str] | None = None) -> Path:
    root = tmp_path / "t"
    defaults = {"task.toml": toml, "instruction.md": "do it\n",
                "environment/Dockerfile": "FROM debian:bookworm\n",
                "tests/test.sh": "echo 1 > /logs/verifier/reward.txt\n"}
    for rel, text in {**defaults, **(files or {})}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_hand_written_task_reads_every_section():
    task = load_task(FIXTURES / "harbor-hello")
    assert task.name == "harbor-hello"
    assert task.instruction.startswith("Create a file called `hello.txt`")
    (step,) = task.steps
    assert step.agent_timeout_s == 120.0 and step.verifier_timeout_s == 120.0
    assert set(step.tests) == {"test.sh"} and set(step.solution) == {"solve.sh"}
    assert task.memory_mb == 2048 and task.storage_mb == 10240 and task.cpus == 1
    assert task.metadata["difficulty"] == "easy"
    assert task.environment_files["seed.txt"].startswith(b"seed file")


def test_multi_step_task_layers_step_tests_over_shared_ones():
    task = load_task(FIXTURES / "harbor-steps")
    assert [s.name for s in task.steps] == ["01-write", "02-count"]
    first, second = task.steps
    assert set(second.tests) == {"test.sh", "expected.sh"}
    assert b"sum.txt" in second.tests["expected.sh"] and b"1 2 3" in first.tests["expected.sh"]
    # a step's verifier keeps Harbor's default (600 s), not the task's [verifier] (60 s)
    assert second.verifier_timeout_s == 30.0 and first.verifier_timeout_s == 600.0
    assert first.agent_timeout_s == 60.0  # while the agent's falls back to the task's
    assert task.reward_strategy == "mean"


@pytest.mark.parametrize("toml, files, message", [
    ("[agent\n", {}, "task.toml"),
    ("[agent]\ntimeout_sec = -1\n", {}, "timeout_sec"),
    ("[agent]\ntimeout_sec = 'x'\n", {}, "timeout_sec"),
    ("", {"tests/test.sh": ""}, None),
    ("[[steps]]\nname = '../x'\n", {}, "valid name"),
    ("multi_step_reward_strategy = 'max'\n", {}, "mean"),
])
def test_bad_task_files_are_named(tmp_path, toml, files, message):
    root = _task(tmp_path, toml, files)
    if message is None:
        assert load_task(root).steps[0].tests["test.sh"] == b""
        return
    with pytest.raises(TaskError, match=message):
        load_task(root)


@pytest.mark.parametrize("line", ["memory_mb = 'lots'", "memory = 'lots'", "cpus = 'two'",
                                  "storage_mb = -1", "cpus = nan"])
def test_bad_resources_are_named_not_a_crash(tmp_path, line):
    """Found in review: ``[environment]`` resources went through ``int()``/``float()`` unchecked,
    so a string was a bare ValueError (and a negative size a negative limit)."""
    root = _task(tmp_path, f"[environment]\n{line}\n")
    with pytest.raises(TaskError, match=line.split()[0]):
        load_task(root)


def test_harbors_deprecated_size_strings_are_read(tmp_path):
    """``memory = "2G"`` / ``storage = "512M"`` (older Harbor and Terminal-Bench tasks; Harbor
    0.25 still migrates them) crashed the loader with a bare ValueError."""
    task = load_task(_task(tmp_path, "[environment]\nmemory = '2G'\nstorage = '512M'\n"))
    assert (task.memory_mb, task.storage_mb) == (2048, 512)


def test_missing_pieces_are_errors(tmp_path):
    root = _task(tmp_path, "")
    (root / "tests" / "test.sh").unlink()
    with pytest.raises(TaskError, match="tests/test.sh"):
        load_task(root)
    root = _task(tmp_path, "")
    (root / "instruction.md").unlink()
    with pytest.raises(TaskError, match="instruction.md"):
        load_task(root)
    root = _task(tmp_path, "")
    (root / "environment" / "evil").symlink_to("/etc/passwd")
    with pytest.raises(TaskError, match="symbolic links"):
        load_task(root)


def test_discover_finds_tasks_not_step_folders():
    assert discover(FIXTURES / "harbor-hello") == [(FIXTURES / "harbor-hello").resolve()]
    names = [p.name for p in discover(FIXTURES)]
    assert names == ["harbor-hello", "harbor-steps"]
    tasks = load_taskset(FIXTURES)
    assert tasks.splits == {"test": 2} and tasks.get("harbor-steps").data["steps"] == 2
    with pytest.raises(TaskError):
        discover(FIXTURES / "nope")


def test_dockerfile_plan_keeps_what_bubblewrap_can_honour():
    text = ("FROM debian:bookworm-slim\n# comment\nRUN apt-get update && apt-get install -y "
            "--no-install-recommends \\\n    jq git && rm -rf /var/lib/apt/lists/*\n"
            "ENV A=1 B=two\nENV C three\nWORKDIR /srvx\nCOPY files/ /app/\nCOPY one.txt ./\n"
            "RUN echo hi > made.txt\nCMD [\"bash\"]\n")
    plan = build_plan(text, {"files/a/b.txt": b"B", "one.txt": b"1"})
    assert plan.packages == ["jq", "git"]
    assert plan.env == {"A": "1", "B": "two", "C": "three"}
    assert plan.workdir == "/srvx" and {"app", "srvx"} <= plan.roots
    assert plan.files == {"/app/a/b.txt": b"B", "/srvx/one.txt": b"1"}
    assert plan.run[-1].startswith("cd /srvx") and "made.txt" in plan.run[-1]
    assert logical_lines("RUN a \\\n  b\n")[0] == ("RUN", "a  b")


@pytest.mark.parametrize("text, message", [
    ("FROM python:3.12\n", "backend='docker'"),
    ("FROM debian\nRUN pip install requests\n", "backend='docker'"),
    ("FROM debian\nRUN curl -sL x | sh\n", "backend='docker'"),
    ("FROM debian\nCOPY a /etc/a\n", "/etc"),
    ("FROM debian\nCOPY ../x /app/\n", "outside"),
    ("FROM debian\nADD http://x/y /app/\n", "URL"),
    ("FROM debian AS a\nFROM debian\n", "multi-stage"),
    ("RUN true\n", "FROM"),
])
def test_dockerfile_plan_refuses_with_a_reason(text, message):
    with pytest.raises(TaskError, match=message):
        build_plan(text, {"a": b"", "x": b""})


def test_a_mapped_base_is_allowed_only_when_asked():
    with pytest.raises(TaskError, match="allow_base"):
        build_plan("FROM ubuntu:24.04\n", {})
    assert build_plan("FROM ubuntu:24.04\n", {}, allow_base=("ubuntu:24.04",)).base


def test_apt_lines_are_read_as_package_lists():
    assert apt_packages("apt-get update && apt-get install -y a b") == ["a", "b"]
    assert apt_packages("apt-get -qq update && apt-get install -y a") == ["a"]
    assert apt_packages("apt-get install -y a && make") is None
    assert apt_packages("echo hi") is None


@pytest.mark.parametrize("raw, value", [
    (b"1\n", 1.0), (b" 0.25 ", 0.25), (b"0", 0.0), (b"", None), (b"nan", None),
    (b"inf", None), (b"1 1", None), (b"yes", None), (b"\xff", None),
])
def test_reward_txt(raw, value):
    assert parse_reward_txt(raw) == value


@pytest.mark.parametrize("raw, value", [
    (b'{"reward": 1}', 1.0), (b'{"accuracy": 0.5}', 0.5), (b'{"reward": "1"}', None),
    (b'{"reward": true}', None), (b'{"a": 1, "b": 1}', None), (b"[1]", None),
    (b"{", None), (b"0.75", 0.75), (b"[" * 100000, None),
])
def test_reward_json(raw, value):
    assert parse_reward_json(raw) == value


def test_read_reward_never_passes_a_missing_link_or_bad_file():
    assert read_reward(b"") == (0.0, "the verifier wrote no reward file")
    txt = "logs/verifier/reward.txt"
    assert read_reward(_tar({txt: b"1\n"}))[0] == 1.0
    assert read_reward(_tar({txt: b"garbage"}))[0] == 0.0
    assert read_reward(_tar({"app/r": b"1"}, links={txt: "/app/r"}))[0] == 0.0
    assert read_reward(_tar({"logs/verifier/reward.json": b'{"reward": 0.5}'}))[0] == 0.5
    assert read_reward(b"not a tar at all")[0] == 0.0


def test_strip_paths_removes_planted_verifier_files():
    state = _tar({"logs/verifier": None, "logs/verifier/reward.txt": b"1", "app/x": b"x",
                  "logs/verifierX": b"kept", "tests/test.sh": b"echo 1"})
    names = tarfile.open(fileobj=io.BytesIO(strip_paths(state, ("logs/verifier", "tests"))))
    assert sorted(names.getnames()) == ["app/x", "logs/verifierX"]
    with pytest.raises(ValueError):
        strip_paths(b"x" * 1024, ("logs",))
