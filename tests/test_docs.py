"""Docs that run: every ```python block in README.md and docs/ executes; every hook is documented
and exercised by a test."""

import os
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


def _readme_runner():
    import importlib.util

    spec = importlib.util.spec_from_file_location("readme_commands",
                                                  ROOT / "scripts" / "readme_commands.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_make_commands_are_makefile_targets():
    readme = _readme_runner()
    targets = set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.MULTILINE))
    lines = [c for b in readme.bash_blocks((ROOT / "README.md").read_text()) for c in
             readme.commands(b) if c.startswith("make ")]
    assert lines, "the README shows no make command"
    for line in lines:
        assert line.split()[1] in targets, f"README: {line!r} is no Makefile target"


def test_readme_first_commands_run_as_written_on_a_fresh_path():
    """The README's first block (its make lines are CI's: `.ci/run` runs them in a fresh clone)
    runs with a PATH that holds no virtual environment, as a new user's shell has."""
    readme = _readme_runner()
    if not (ROOT / ".venv" / "bin" / "agentgym").exists():
        pytest.skip("no .venv (make setup) in this checkout")
    result = readme.run(skip_make=True, blocks=1, timeout=120)
    assert result.returncode == 0, result.stdout
    from agentgym import __version__

    assert f"agentgym {__version__}" in result.stdout


def test_setup_ends_by_saying_how_to_put_agentgym_on_path(tmp_path):
    """setup.sh's last line (also when there is nothing to do) says to activate .venv."""
    import hashlib
    import shutil
    import subprocess

    script = (ROOT / "scripts" / "setup.sh").read_text()
    packages = re.search(r"SYSTEM_PACKAGES=\((.*?)\)", script, re.DOTALL).group(1).split()
    dpkg = shutil.which("dpkg")
    if dpkg is None or subprocess.run([dpkg, "-s", *packages], capture_output=True).returncode:
        pytest.skip("the system packages of setup.sh are not all installed here")
    parts = ["pyproject.toml", "setup.py", *sorted(
        str(p.relative_to(ROOT)) for p in (ROOT / "plugins").glob("*/pyproject.toml")),
        "scripts/setup.sh"]
    want = hashlib.sha256(b"".join((ROOT / p).read_bytes() for p in parts)).hexdigest()[:16]
    venv = tmp_path / "venv"
    venv.mkdir()
    (venv / ".agentgym-installed").write_text(want + "\n")  # set up already: nothing to install
    result = subprocess.run(["bash", str(ROOT / "scripts" / "setup.sh")], capture_output=True,
                            text=True, env={**os.environ, "VENV": str(venv)},
                            timeout=60)
    assert result.returncode == 0, result.stderr
    last = result.stdout.strip().splitlines()[-1]
    assert f"source {venv}/bin/activate" in last, last


def test_readme_extras_table_names_every_extra():
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    table = (ROOT / "README.md").read_text().split("## Extras", 1)[1]
    missing = [name for name in extras if f"| `[{name}]` |" not in table]
    assert not missing, f"extras missing from the README's table: {missing}"


BROWSER_BLOCK = re.compile(r"```python browser\n(.*?)```", re.DOTALL)


@pytest.mark.parametrize("path", [p for p in DOCS if p.exists() and "```python browser" in
                                  p.read_text(encoding="utf-8")], ids=lambda p: p.name)
def test_browser_blocks_run_against_chromium(path, tmp_path, monkeypatch):
    """```python browser blocks drive real Chromium (and the WebArena sites, started in a
    private folder and stopped after); they are skipped only where Chromium is missing."""
    from agentgym.sandboxes.browser import chromium_available

    if not chromium_available():
        pytest.skip("Chromium or Playwright is not installed (scripts/setup.sh)")
    from agentgym.envs.webarena.sites.server import stop_sites

    monkeypatch.setenv("AGENTGYM_WEBARENA_RUNTIME", str(tmp_path / "sites"))
    try:
        for i, block in enumerate(BROWSER_BLOCK.findall(path.read_text(encoding="utf-8"))):
            namespace: dict = {"__name__": f"docs_{path.stem}_browser"}
            try:
                exec(compile(block, f"{path.name}[browser block {i}]", "exec"), namespace)
            except Exception as e:
                raise AssertionError(f"{path.name} browser block {i} failed: {e}\n{block}") from e
    finally:
        stop_sites(tmp_path / "sites")


@pytest.mark.slow
def test_every_readme_command_runs_as_written_on_a_fresh_path():
    """Every README block in one shell (make lines aside: CI's fresh clone runs those), the
    Use block's `agentgym train` included (minutes on a CPU)."""
    readme = _readme_runner()
    if not (ROOT / ".venv" / "bin" / "agentgym").exists():
        pytest.skip("no .venv (make setup) in this checkout")
    result = readme.run(skip_make=True, timeout=3000)
    assert result.returncode == 0, result.stdout[-4000:]
    assert "held-out evaluation" in result.stdout  # the train command's report
