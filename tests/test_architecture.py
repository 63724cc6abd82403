"""Architecture rules: import direction and a light ``import agentgym``."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "agentgym"
FORBIDDEN_FROM_CORE = ("agentgym.envs", "agentgym.sandboxes", "agentgym.trainers")
HEAVY = ("torch", "transformers", "playwright", "docker", "ray", "vllm", "psycopg", "bm25s")


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = []
    pkg = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                names.append(".".join([*base, node.module or ""]).rstrip("."))
            else:
                names.append(node.module or "")
    return names


def test_core_never_imports_families_sandboxes_or_trainers():
    bad = []
    for path in CORE.rglob("*.py"):
        for name in _imports(path):
            if name.startswith(FORBIDDEN_FROM_CORE):
                bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not bad, bad


PUBLIC_FOR_TRAINERS = ("agentgym", "agentgym.policies", "agentgym.rollout")
"""The packages whose ``__all__`` is the public API trainers build on."""


def test_trainers_use_only_the_public_api():
    """Trainers import agentgym's public packages, never a private module of it."""
    bad = []
    for path in (ROOT / "trainers").rglob("*.py"):
        for name in _imports(path):
            if name.startswith("trainers") or name.startswith("agentgym.trainers"):
                continue  # the trainers' own modules (relative imports)
            if name.split(".")[0] == "agentgym" and name not in PUBLIC_FOR_TRAINERS:
                bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not bad, bad


def test_envs_never_import_trainers():
    bad = [
        f"{p.relative_to(ROOT)} imports {n}"
        for folder in ("envs", "sandboxes")
        for p in (ROOT / folder).rglob("*.py")
        for n in _imports(p)
        if n.startswith("agentgym.trainers")
    ]
    assert not bad, bad


def test_import_agentgym_is_light():
    code = (
        "import sys, agentgym; agentgym.list_envs();"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"heavy modules imported: {out.stdout}"
