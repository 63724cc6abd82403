"""The terminal family's env ids, the ``harbor:`` prefix and the ``oracle`` policy name."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from agentgym.errors import EnvNotFound
from agentgym.specs import EnvSpec

ENTRY = "agentgym.envs.terminal.env:TerminalEnv"
TASKS = "agentgym.envs.terminal.env:load_tasks"
PLUGIN = "builtin-envs"
MAX_TURNS = 30
DRILLS = "agentgym.envs.terminal.drills:DrillEnv"
DRILL_TASKS = "agentgym.envs.terminal.drills:load_drills"
DRILL_TURNS = 3
"""A drill's oracle needs two turns (the command, submit): one more is the model's retry."""


def register_terminal(register: Any) -> None:
    """Register ``terminal/train-v0``, ``terminal/test-v0``, ``terminal/easy-v0`` (and
    ``easy-test-v0``) and the drills ``terminal/drill-v0`` and ``terminal/drill-test-v0``."""
    register("terminal/train-v0", ENTRY, kwargs={"split": "train"}, family="terminal",
             aliases=("terminal", "terminal-train"), max_turns=MAX_TURNS, tasks=TASKS,
             description="Bundled Harbor-format shell tasks (files, text, git, sqlite, "
                         "debugging, archives, builds) in a bubblewrap shell; train split.")
    register("terminal/test-v0", ENTRY, kwargs={"split": "test"}, family="terminal",
             aliases=("terminal-test",), max_turns=MAX_TURNS, tasks=TASKS,
             description="The held-out split of the bundled terminal tasks.")
    register("terminal/easy-v0", ENTRY, kwargs={"split": "train", "difficulty": "easy"},
             family="terminal", aliases=("terminal-easy",), max_turns=12, tasks=TASKS,
             description="The easy train tasks (one or two commands each), for small models.")
    register("terminal/easy-test-v0", ENTRY, kwargs={"split": "test", "difficulty": "easy"},
             family="terminal", max_turns=12, tasks=TASKS,
             description="The easy held-out tasks.")
    register("terminal/drill-v0", DRILLS, kwargs={"split": "train"}, family="terminal",
             aliases=("terminal-drill",), max_turns=DRILL_TURNS, tasks=DRILL_TASKS,
             description="Templated one-command shell drills (count, copy, mkdir, head, sort) "
                         "with seeded parameters, for small models; train split (60 tasks).")
    register("terminal/drill-test-v0", DRILLS, kwargs={"split": "test"}, family="terminal",
             max_turns=DRILL_TURNS, tasks=DRILL_TASKS,
             description="The held-out drills (40): the same templates, unseen file names, "
                         "words and directories.")


def _make_harbor(path: str, **kwargs: Any) -> Any:
    from .env import TerminalEnv

    kwargs.setdefault("split", "all")
    return TerminalEnv(path, **kwargs)


class HarborResolver:
    """``harbor:<task folder or folder of tasks>``: Harbor task directories, natively."""

    prefix = "harbor"
    install = "nothing (bubblewrap: apt install bubblewrap)"

    @staticmethod
    def spec(id: str) -> EnvSpec:
        """The spec of the folder's tasks (all of them: split ``all`` unless asked)."""
        path = id.partition(":")[2].strip()
        if not path:
            raise EnvNotFound(f"{id!r} names no folder: write harbor:<task dir>")
        if not Path(path).expanduser().is_dir():
            raise EnvNotFound(f"{id!r}: no such folder {path!r}")
        folder = str(Path(path).expanduser().resolve())
        from .harbor import load_taskset

        return EnvSpec(id=f"harbor:{folder}", entry_point=functools.partial(_make_harbor, folder),
                       family="terminal", max_turns=MAX_TURNS, plugin=PLUGIN,
                       tasks=functools.partial(load_taskset, folder),
                       description=f"The Harbor tasks under {folder}.")

    @staticmethod
    def make(id: str, *, max_turns: int | None = None, **kwargs: Any) -> Any:
        """The env in a TurnLimit (a path is no Gymnasium id, so not built like a spec)."""
        from dataclasses import replace

        from agentgym import TurnLimit
        from agentgym.settings import resolve_max_turns

        spec = HarborResolver.spec(id)
        env = _make_harbor(spec.id.partition(":")[2], **kwargs)
        env.agentgym_spec = replace(spec, kwargs=dict(kwargs))
        env.agentgym_made = (HarborResolver.make, id, {"max_turns": max_turns, **kwargs})
        return TurnLimit(env, max_turns=resolve_max_turns(max_turns, MAX_TURNS))

    @staticmethod
    def names() -> list[str]:
        """None: any folder."""
        return []


def register_policies(register: Any) -> None:
    """``oracle``: replays each task's reference solution (the env's ``expert_actions``)."""
    register("oracle", "agentgym.policies.scripted:ScriptedPolicy.from_spec",
             description="Replays the env's reference solution (Harbor's solution/solve.sh "
                         "for terminal tasks); the same as 'scripted'.")
