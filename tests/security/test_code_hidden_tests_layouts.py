"""Attack: read the code family's hidden tests from inside the sandbox through the installed
package. bubblewrap binds ``/usr``; agentgym installed system-wide (under ``/usr/local``, as many
images install packages) keeps its task file there. Here agentgym is laid out as a system-wide
install under ``/usr/local/lib`` and imported from there in a child process; the model's program
looks for the task file at the package path and anywhere under that tree."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from agentgym.sandboxes._masks import mask_args, package_dirs
from agentgym.sandboxes.bubblewrap import bubblewrap_available

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not bubblewrap_available(), reason="bubblewrap cannot run here")

CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import agentgym
assert agentgym.__file__.startswith(sys.argv[1]), agentgym.__file__
from agentgym.envs.code.env import CodeEnv
env = CodeEnv(split="test", sandbox="bubblewrap")
env.reset(seed=0)
task = env.task
data = sys.argv[1] + "/agentgym/envs/code/data/tasks.jsonl"
probe = "\n".join([
    "import glob, os",
    f"hits = [{data!r}] + glob.glob({sys.argv[2]!r} + '/**/tasks.jsonl', recursive=True)",
    "for path in hits:",
    "    try:",
    "        print('READ', path, open(path).read()[:100000])",
    "    except OSError as e:",
    "        print('DENIED', path, type(e).__name__)",
])
out = env.run_python(probe)
env.close()
print(json.dumps({"out": out, "hidden": task.data["hidden_tests"][0]}))
"""


@pytest.fixture
def system_wide_install():
    """agentgym copied into a ``site-packages`` folder under ``/usr/local/lib``."""
    parent = Path("/usr/local/lib")
    if not os.access(parent, os.W_OK):
        pytest.skip("cannot write under /usr/local/lib to lay out a system-wide install")
    top = parent / f"agentgym-layout-test-{uuid.uuid4().hex[:8]}"
    site = top / "site-packages"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "agentgym", site / "agentgym", ignore=ignore)
    for folder in ("envs", "sandboxes", "trainers"):
        shutil.copytree(ROOT / folder, site / "agentgym" / folder, ignore=ignore)
    top.chmod(0o755)
    try:
        yield site
    finally:
        shutil.rmtree(top)


def test_a_program_in_the_sandbox_cannot_read_a_system_wide_installs_hidden_tests(
        system_wide_install: Path) -> None:
    done = subprocess.run([sys.executable, "-c", CHILD, str(system_wide_install),
                           str(system_wide_install.parent)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    out, hidden = result["out"], result["hidden"]
    assert "Exited with code 0" in out, out[:2000]
    assert hidden not in out and "hidden_tests" not in out, "hidden tests leaked into the sandbox"
    assert "READ" not in out, out[:2000]


def test_masks_cover_package_folders_inside_binds_and_nothing_else(tmp_path: Path) -> None:
    inside = tmp_path / "usr" / "lib" / "python3" / "agentgym"
    inside.mkdir(parents=True)
    outside = tmp_path / "home" / "agentgym"
    outside.mkdir(parents=True)
    args = mask_args([str(tmp_path / "usr")], dirs=[str(inside), str(outside)])
    assert str(inside) in args and str(outside) not in args
    assert args[args.index(str(inside)) + 1:][:2] == ["--remount-ro", str(inside)]


def test_the_package_folders_are_found_where_this_process_imports_them() -> None:
    import agentgym.envs.code

    code_dir = os.path.realpath(Path(agentgym.envs.code.__file__).parent)
    assert any(code_dir.startswith(d + "/") for d in package_dirs())
