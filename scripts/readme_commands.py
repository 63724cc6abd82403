"""Run the README's shell commands exactly as written, as a new user on a fresh machine would.

Every ```bash block of README.md runs in one ``bash -e`` session (so a ``source`` in one block
holds for the next), in the repository root, with a PATH that holds no virtual environment
(the PATH of someone who has not activated one). A block's command fails the run.

    python3 scripts/readme_commands.py              # everything, `make demo` and `make test` too
    python3 scripts/readme_commands.py --skip-make  # the rest (what the test suite runs)
    python3 scripts/readme_commands.py --blocks 1   # the first block only

CI runs it in a fresh clone (``.ci/run``); ``tests/test_docs.py`` runs it with ``--skip-make``
(``make test`` is that suite itself). Standard library only: it runs before ``.venv`` exists.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"```bash\n(.*?)```", re.DOTALL)


def bash_blocks(text: str) -> list[str]:
    """The ```bash blocks of a Markdown text, in order."""
    return BLOCK.findall(text)


def commands(block: str) -> list[str]:
    """The command lines of a block (comment-only and blank lines dropped)."""
    return [line for line in block.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def fresh_path(path: str | None = None) -> str:
    """``path`` (default: $PATH) without any virtual environment's ``bin`` folder."""
    venvs = {os.environ.get("VIRTUAL_ENV"), sys.prefix if sys.prefix != sys.base_prefix else None}
    kept = []
    for entry in (path if path is not None else os.environ.get("PATH", "")).split(os.pathsep):
        folder = Path(entry)
        in_venv = any(v and folder.parent == Path(v) for v in venvs)
        if in_venv or (folder.parent / "pyvenv.cfg").is_file():
            continue
        kept.append(entry)
    return os.pathsep.join(kept)


def script(blocks: list[str], *, skip_make: bool) -> str:
    """One bash script of ``blocks`` (``make`` lines left out when ``skip_make``), echoing each."""
    lines = ["set -euo pipefail"]
    for block in blocks:
        for line in commands(block):
            if skip_make and line.lstrip().startswith("make "):
                continue
            lines.append(f"echo '$ '{_quote(line)}")
            lines.append(line)
    return "\n".join(lines) + "\n"


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def run(*, skip_make: bool = False, blocks: int | None = None, readme: Path | None = None,
        timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """Run the README's blocks (the first ``blocks`` of them, default all) in a fresh-PATH bash."""
    text = (readme or ROOT / "README.md").read_text(encoding="utf-8")
    chosen = bash_blocks(text)[:blocks]
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = fresh_path()
    return subprocess.run(["bash", "-c", script(chosen, skip_make=skip_make)], cwd=ROOT, env=env,
                          stdin=subprocess.DEVNULL, text=True, timeout=timeout,
                          stdout=None if timeout is None else subprocess.PIPE,
                          stderr=None if timeout is None else subprocess.STDOUT)


def main() -> int:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-make", action="store_true", help="leave out the make commands")
    parser.add_argument("--blocks", type=int, default=None, help="run only the first N blocks")
    args = parser.parse_args()
    return run(skip_make=args.skip_make, blocks=args.blocks).returncode


if __name__ == "__main__":
    sys.exit(main())
