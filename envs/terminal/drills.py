"""Templated one-command shell drills: ``terminal/drill-v0`` (train) and ``drill-test-v0``.

A 135M model cannot generalise across unlike shell tasks, so these are few templates (count
the lines holding a word, copy a file, make a directory, take the first line, sort a file),
each drawn many times with other parameters (file names, words, contents) from a seed. The
held-out split's file names, words and directory names come from pools the train split never
uses, so a held-out task is the same kind of command with unseen arguments.

The tasks are Harbor task folders (``task.toml`` with ``[metadata] split``, ``instruction.md``,
``environment/``, ``tests/test.sh`` writing ``/logs/verifier/reward.txt``,
``solution/solve.sh``), written at load time into a private cache folder
(``$AGENTGYM_CACHE/terminal-drills/v<VERSION>-s<seed>-<digest>``, mode 0700, checked against
the generator's output on every load and rewritten when it differs). Each check compares with
the exact answer computed from the task's own files, which only the tests folder holds (it is
copied in after the agent has finished).
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentgym import Task, TaskSet
from agentgym.errors import UnsafeFolder
from agentgym.models import cache_dir
from agentgym.private_dirs import private_dir

from .env import TerminalEnv, _call
from .harbor import get_task, load_taskset

VERSION = 1
"""Bump when a template changes: the cache folder's name carries it."""
TEMPLATES = ("count", "copy", "mkdir", "head", "sort")
SPLITS = {"train": 60, "test": 40}
INSTRUCTIONS = (
    "You are in a Linux shell. Call a tool with <tool_call>{\"name\": ..., \"arguments\": "
    "{...}}</tool_call>. Tools: bash(command) runs a command; submit() ends the task and has it "
    "checked. Do the task with one bash command, then submit."
)
_WORDS = """apple river stone cloud green ember frost maple ocean pearl tiger lemon candle
violet copper planet harbor meadow rocket silver garden falcon winter orange thunder marble
jungle castle spider pencil rabbit forest button mirror island bottle dragon saddle velvet
walnut anchor""".split()
_STEMS = """notes data items names report input records fruits colors animals cities tools
parts books songs users orders events hosts words lines values labels guests""".split()
_DIRS = """backup build cache output logs archive media drafts uploads reports configs
scripts assets exports imports staging results samples modules vendor fixtures temp snap
spool""".split()
_CHECK = {
    "count": '[ -f /app/answer.txt ] && [ "$(tr -d \'[:space:]\' < /app/answer.txt)" = "{n}" ]',
    "copy": "[ -f /app/{b} ] && [ ! -L /app/{b} ] && cmp -s /tests/expected /app/{b} "
            "&& cmp -s /tests/expected /app/{a}",
    "mkdir": "[ -d /app/{d} ] && [ ! -L /app/{d} ]",
    "head": '[ -f /app/answer.txt ] && [ "$(cat /app/answer.txt)" = "$(cat /tests/expected)" ]',
    "sort": "[ -f /app/{b} ] && cmp -s /tests/expected /app/{b}",
}
_TEST_SH = """#!/bin/bash
# Verifier: 1 only when the answer is exactly what the task's own files give.
mkdir -p /logs/verifier
if {check}; then reward=1; else reward=0; fi
echo "$reward" > /logs/verifier/reward.txt
"""
_TOML = """# agent timeout: every command of the episode together (a model asking bash for more
# cannot outlast the rollout's step deadline)
version = "1.0"

[metadata]
author_name = "agentgym"
difficulty = "easy"
category = "drill"
template = "{template}"
split = "{split}"

[verifier]
timeout_sec = 30.0

[agent]
timeout_sec = 30.0

[environment]
cpus = 1
memory_mb = 512
storage_mb = 64
"""
_KEYS = {"n", "a", "b", "d"}
"""The parameters a check names."""
_DOCKERFILE = "FROM debian:bookworm-slim\nWORKDIR /app\nCOPY files/ /app/\n"


@dataclass
class Drill:
    """One generated task: its instruction, starting files, oracle command and check."""

    name: str
    split: str
    template: str
    instruction: str
    files: dict[str, str]
    command: str
    check: str
    expected: str | None = None
    wrong: list[str] = field(default_factory=list)
    """Commands that must score 0 (constants, near misses, partial work)."""


def _pools(split: str) -> tuple[list[str], list[str], list[str]]:
    """The words, file stems and directory names of ``split`` (the two splits' are disjoint)."""
    half = 0 if split == "train" else 1
    return _WORDS[half::2], _STEMS[half::2], _DIRS[half::2]


def _lines(rng: random.Random, n: int, avoid: str = "") -> list[str]:
    words = [w for w in _WORDS if w != avoid]
    return [" ".join(rng.sample(words, rng.randint(2, 4))) for _ in range(n)]


def _draw(template: str, rng: random.Random, split: str) -> dict[str, Any]:
    """The parameters of one drill of ``template`` (instruction, files, command, check)."""
    words, stems, dirs = _pools(split)
    a, b = (f"{s}.txt" for s in rng.sample(stems, 2))
    if template == "count":
        word, n = rng.choice(words), rng.randint(7, 11)
        lines, k = _lines(rng, n, avoid=word), rng.randint(2, n - 3)
        for i in rng.sample(range(n), k):
            parts = lines[i].split()
            parts.insert(rng.randint(0, len(parts)), word)
            lines[i] = " ".join(parts)
        return dict(instruction=f"Write the number of lines of /app/{a} that contain the word "
                    f"{word} to /app/answer.txt.", files={a: "\n".join(lines) + "\n"},
                    command=f"grep -c {word} /app/{a} > /app/answer.txt", n=k,
                    wrong=[f"wc -l < /app/{a} > /app/answer.txt", f"echo {k + 1} > /app/answer.txt",
                           f"grep {word} /app/{a} > /app/answer.txt"])
    if template == "copy":
        text = "\n".join(_lines(rng, rng.randint(3, 6))) + "\n"
        return dict(instruction=f"Copy /app/{a} to /app/{b}.", files={a: text}, expected=text,
                    command=f"cp /app/{a} /app/{b}", a=a, b=b,
                    wrong=[f"touch /app/{b}", f"head -n 1 /app/{a} > /app/{b}",
                           f"mv /app/{a} /app/{b}"])
    if template == "mkdir":
        d = rng.choice(dirs)
        return dict(instruction=f"Create the directory /app/{d}.", files={a: _lines(rng, 1)[0]},
                    command=f"mkdir -p /app/{d}", d=d,
                    wrong=[f"touch /app/{d}", f"mkdir /app/{d}x", f"ln -s /tmp /app/{d}"])
    if template == "head":
        lines = _lines(rng, rng.randint(4, 8))
        return dict(instruction=f"Write the first line of /app/{a} to /app/answer.txt.",
                    files={a: "\n".join(lines) + "\n"}, expected=lines[0] + "\n",
                    command=f"head -n 1 /app/{a} > /app/answer.txt",
                    wrong=[f"tail -n 1 /app/{a} > /app/answer.txt", f"cp /app/{a} /app/answer.txt",
                           f"head -n 2 /app/{a} > /app/answer.txt"])
    items = rng.sample(_WORDS, rng.randint(5, 8))
    while items == sorted(items):
        rng.shuffle(items)
    return dict(instruction=f"Sort the lines of /app/{a} alphabetically into /app/{b}.",
                files={a: "\n".join(items) + "\n"}, expected="\n".join(sorted(items)) + "\n",
                command=f"sort /app/{a} > /app/{b}", b=b,
                wrong=[f"cp /app/{a} /app/{b}", f"sort -r /app/{a} > /app/{b}",
                       f"sort /app/{a} | head -n -1 > /app/{b}"])


def drills(seed: int = 0) -> list[Drill]:
    """Every drill of both splits, deterministic in ``seed`` (no instruction repeats)."""
    out: list[Drill] = []
    seen: set[str] = set()
    for split, count in SPLITS.items():
        rng = random.Random(f"agentgym-drills-{VERSION}-{seed}-{split}")
        for i in range(count):
            template = TEMPLATES[i % len(TEMPLATES)]
            p = _draw(template, rng, split)
            while p["instruction"] in seen:
                p = _draw(template, rng, split)
            seen.add(p["instruction"])
            check = _CHECK[template].format(**{k: v for k, v in p.items() if k in _KEYS})
            out.append(Drill(f"{template}-{split}-{i:02d}", split, template, p["instruction"],
                             p["files"], p["command"], check, p.get("expected"), p["wrong"]))
    return out


def task_files(seed: int = 0) -> dict[str, bytes]:
    """The Harbor folders of :func:`drills` as relative path -> content."""
    files: dict[str, bytes] = {}
    for d in drills(seed):
        tree = {"task.toml": _TOML.format(template=d.template, split=d.split),
                "instruction.md": d.instruction + "\n",
                "environment/Dockerfile": _DOCKERFILE,
                "tests/test.sh": _TEST_SH.format(check=d.check),
                "solution/solve.sh": f"#!/bin/bash\n{d.command}\n",
                **{f"environment/files/{k}": v for k, v in d.files.items()}}
        if d.expected is not None:
            tree["tests/expected"] = d.expected
        files.update({f"{d.name}/{k}": v.encode() for k, v in tree.items()})
    return files


_VISIBLE = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", sys.base_prefix)
"""Host folders a sandbox mounts (read-only): the drills' answers must not lie under them."""


def _on_disk(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in folder.rglob("*") if p.is_file() and not p.is_symlink()}


def drill_folder(seed: int = 0) -> Path:
    """The drills' task folder in the private cache, written (or rewritten) when missing or
    different from the generator's output; never under a host folder the sandbox mounts."""
    base = (cache_dir() / "terminal-drills").resolve()
    if any(base.is_relative_to(Path(v).resolve()) for v in _VISIBLE):
        raise UnsafeFolder(f"{base}: the sandbox can read it; point AGENTGYM_CACHE elsewhere")
    private_dir(base, parents=True)
    files = task_files(seed)
    digest = hashlib.sha256(repr(sorted(files.items())).encode()).hexdigest()[:12]
    folder = base / f"v{VERSION}-s{seed}-{digest}"
    if folder.is_dir() and not folder.is_symlink() and _on_disk(folder) == files:
        return private_dir(folder)
    tmp = Path(tempfile.mkdtemp(dir=base, prefix=".tmp-"))
    for rel, content in files.items():
        path = tmp / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        if rel.endswith(".sh"):
            path.chmod(0o755)
    if folder.is_symlink() or folder.is_file():
        folder.unlink()
    elif folder.exists():
        shutil.rmtree(folder, ignore_errors=True)
    try:
        os.rename(tmp, folder)
    except OSError:  # another process wrote it meanwhile: keep theirs if it is right
        shutil.rmtree(tmp, ignore_errors=True)
        if _on_disk(folder) != files:
            raise
    return private_dir(folder)


def load_drills(seed: int = 0) -> TaskSet:
    """Both splits of the drills as a task set (``data["template"]`` names the kind)."""
    tasks = load_taskset(drill_folder(seed), name="terminal-drill")
    return TaskSet([Task(t.task_id, t.split, t.prompt,
                         {**t.data, "template": t.task_id.split("-")[0]}) for t in tasks],
                   name="terminal-drill")


class DrillEnv(TerminalEnv):
    """The drills as a :class:`TerminalEnv` (``split``: ``train``, ``test`` or ``all``) with a
    short system prompt, a 10 s command deadline and a 1,000-character output cap, so an
    episode fits in about 500 tokens. Its oracle is the one command, then ``submit``."""

    instructions = INSTRUCTIONS

    def __init__(self, split: str = "train", *, seed: int = 0, command_timeout_s: float = 10.0,
                 max_output_chars: int = 1000, **kwargs: Any) -> None:
        super().__init__(drill_folder(seed), split, command_timeout_s=command_timeout_s,
                         max_output_chars=max_output_chars, **kwargs)

    def expert_actions(self, task: Task) -> list[str]:
        """``bash(<the one command of solve.sh>)``, then ``submit()``."""
        solve = get_task(task.data["path"]).steps[0].solution["solve.sh"].decode()
        command = "; ".join(line for line in solve.splitlines() if not line.startswith("#"))
        return [_call("bash", command=command), _call("submit")]


__all__ = ["INSTRUCTIONS", "TEMPLATES", "VERSION", "Drill", "DrillEnv", "drill_folder",
           "drills", "load_drills", "task_files"]
