"""Docs that run: every ```python block in README.md and docs/ executes; every hook is documented
and exercised by a test."""

import re
from pathlib import Path

import pytest

from agentgym import hookspecs

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def _hooks() -> list[str]:
    return [n for n in dir(hookspecs) if n.startswith("agentgym_")]


@pytest.mark.parametrize("path", [p for p in DOCS if p.exists()], ids=lambda p: p.name)
def test_python_blocks_run(path, fresh_plugins):
    namespace: dict = {"__name__": f"docs_{path.stem}"}
    for i, block in enumerate(BLOCK.findall(path.read_text(encoding="utf-8"))):
        try:
            exec(compile(block, f"{path.name}[block {i}]", "exec"), namespace)
        except Exception as e:
            raise AssertionError(f"{path.name} block {i} failed: {e}\n{block}") from e


def test_every_hook_is_documented():
    text = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    missing = [h for h in _hooks() if f"`{h}(" not in text]
    assert not missing, f"hooks missing from docs/plugins.md: {missing}"


def test_every_hook_is_exercised_by_a_test():
    tests = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("*.py"))
    sources = tests + "\n".join(p.read_text() for p in (ROOT / "plugins").rglob("*.py"))
    missing = [h for h in _hooks() if h not in sources]
    assert not missing, f"hooks no test or plugin exercises: {missing}"
