"""No imports back up: policies never import the rollout package (it imports them)."""

from __future__ import annotations

import ast
from pathlib import Path

import agentgym
from agentgym.policies import scripted
from agentgym.rollout import ChatFormat, store

POLICIES = Path(agentgym.__file__).parent / "policies"


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_policies_do_not_import_the_rollout_package() -> None:
    for path in sorted(POLICIES.glob("*.py")):
        bad = {n for n in _imports(path) if n.startswith(("..rollout", "agentgym.rollout"))}
        assert not bad, f"{path.name} imports {bad}"


def test_moved_names_keep_working() -> None:
    from agentgym.policies.chat import ChatFormat as Moved
    from agentgym.rollout.chat import ChatFormat as Old

    assert Moved is Old is ChatFormat
    assert scripted.RECORDS == store.RECORDS  # the replay policy finds a store's records
