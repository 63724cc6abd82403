"""Architecture rules: import direction, no import circles, plugin boundaries, string entry points
and a light ``import agentgym``.

Every rule reads the source with :mod:`ast`, so it sees imports inside functions and under
``TYPE_CHECKING`` too (a circle through a lazy import is still a circle), and the
``"pkg.mod:attr"`` strings a registry imports later (a wrong-way dependency hidden in a string
is still a wrong-way dependency).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "agentgym"
MAPPED = {"envs": "agentgym.envs", "sandboxes": "agentgym.sandboxes",
          "trainers": "agentgym.trainers"}
"""Top-level folders installed under ``agentgym.`` (setup.py)."""
DATA_ONLY = ROOT / "envs" / "terminal" / "tasks"
"""The terminal family's bundled Harbor tasks: their .py files are data for the agent."""
FORBIDDEN_FROM_CORE = ("agentgym.envs", "agentgym.sandboxes", "agentgym.trainers")
HEAVY = ("torch", "transformers", "playwright", "docker", "ray", "vllm", "psycopg", "bm25s")
DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?::[A-Za-z_][\w.]*)?$")
"""A string that is a dotted module path or a ``"pkg.mod:attr"`` entry point."""


def _plugin_packages() -> list[Path]:
    """The import packages of the plugins in plugins/ (not their tests or build folders)."""
    return sorted(p.parent for p in (ROOT / "plugins").glob("*/*/__init__.py")
                  if p.parent.name not in ("build", "tests") and ".egg-info" not in str(p))


def _source_files() -> dict[str, Path]:
    """Module name -> file, for agentgym/, envs/, sandboxes/, trainers/ and the plugins."""
    files: dict[str, Path] = {}
    roots = [(CORE, "agentgym"), *((ROOT / f, name) for f, name in MAPPED.items()),
             *((pkg, pkg.name) for pkg in _plugin_packages())]
    for folder, name in roots:
        for path in folder.rglob("*.py"):
            if DATA_ONLY in path.parents:  # task files (bugs on purpose), not modules
                continue
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            files[".".join([name, *parts])] = path
    return files


FILES = _source_files()


@cache
def _parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _package(module: str) -> str:
    """The package relative imports of ``module`` start from."""
    return module if FILES[module].name == "__init__.py" else module.rpartition(".")[0]


def _imports(module: str) -> list[str]:
    """Every name ``module`` imports, anywhere in the file, as absolute dotted names.

    ``from pkg import name`` yields ``pkg.name`` when that is a module of the tree, else ``pkg``.
    """
    names: list[str] = []
    for node in ast.walk(_parsed(FILES[module])):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _package(module).split(".")
                base = base[: len(base) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            subs = [f"{source}.{a.name}" for a in node.names if f"{source}.{a.name}" in FILES]
            names += subs or [source]
            if subs and len(subs) < len(node.names):
                names.append(source)
    return names


def _known(name: str) -> str | None:
    """The longest prefix of ``name`` that is a module of the tree."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in FILES:
            return candidate
        parts.pop()
    return None


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module in FILES:
        targets = {_known(n) for n in _imports(module)}
        graph[module] = {t for t in targets if t is not None and t != module}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def test_cycle_finder_sees_a_circle_through_a_lazy_import():
    """The finder itself: a two-module circle and a three-module one, nothing else."""
    graph = {"a": {"b"}, "b": {"a", "c"}, "c": set(), "x": {"y"}, "y": {"z"}, "z": {"x"}}
    assert _cycles(graph) == [["a", "b"], ["x", "y", "z"]]
    assert _imports("agentgym.registry")  # a real module has imports the graph reads
    assert "agentgym.errors" in _graph()["agentgym.specs"]


def test_no_import_circles_in_the_whole_tree():
    """No circle over agentgym/, envs/, sandboxes/, trainers/ and plugins/ (issue 25: the last
    three, registry <-> serve.client, browser <-> browser_session and desktop <->
    _desktop_setup, are gone)."""
    cycles = _cycles(_graph())
    assert not cycles, f"import circles: {cycles}"


def _core_modules() -> list[str]:
    return [m for m in FILES if m == "agentgym" or (m.startswith("agentgym.")
                                                    and not m.startswith(FORBIDDEN_FROM_CORE))]


def test_core_never_imports_families_sandboxes_or_trainers():
    bad = [f"{m} imports {n}" for m in _core_modules() for n in _imports(m)
           if n.startswith(FORBIDDEN_FROM_CORE)]
    assert not bad, bad


def _dotted_strings(module: str) -> list[str]:
    """The string constants of ``module`` that are module paths or entry points."""
    return [node.value for node in ast.walk(_parsed(FILES[module]))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and DOTTED.match(node.value)]


def test_core_names_no_family_sandbox_or_trainer_in_a_string():
    """``"agentgym.envs.search.service"`` in the core is a wrong-way import all the same.

    The core's own registration modules (``agentgym.policies.plugin``) name only core modules.
    """
    bad = [f"{m} names {s!r}" for m in _core_modules() for s in _dotted_strings(m)
           if s.startswith(FORBIDDEN_FROM_CORE)]
    assert not bad, bad


def test_string_check_catches_a_family_entry_point(tmp_path, monkeypatch):
    """The string rule fails on a core module naming a family (the check can fail)."""
    probe = tmp_path / "probe.py"
    probe.write_text('TARGET = "agentgym.envs.search.service:main"\nDOC = "a.b c"\n')
    monkeypatch.setitem(FILES, "agentgym.probe", probe)
    assert _dotted_strings("agentgym.probe") == ["agentgym.envs.search.service:main"]
    with pytest.raises(AssertionError, match="agentgym.probe names 'agentgym.envs.search"):
        test_core_names_no_family_sandbox_or_trainer_in_a_string()


PUBLIC_FOR_TRAINERS = ("agentgym", "agentgym.gateway", "agentgym.opponents", "agentgym.policies",
                       "agentgym.rollout", "agentgym.settings")
"""The packages and public modules whose ``__all__`` is the API trainers build on."""


def test_trainers_use_only_the_public_api():
    """Trainers import agentgym's public packages, never a private module of it."""
    bad = []
    for module in FILES:
        if not module.startswith("agentgym.trainers"):
            continue
        for name in _imports(module) + [s.partition(":")[0] for s in _dotted_strings(module)]:
            if name.startswith("agentgym.trainers"):
                continue  # the trainers' own modules
            if name.split(".")[0] == "agentgym" and name not in PUBLIC_FOR_TRAINERS:
                bad.append(f"{module} imports {name}")
    assert not bad, bad


def test_trainers_import_no_env_family_or_sandbox():
    """The trainer runs any env through ``agentgym.make``: no env family, no sandbox by name."""
    bad = [f"{m} imports {n}" for m in FILES if m.startswith("agentgym.trainers")
           for n in _imports(m) + _dotted_strings(m)
           if n.startswith(("agentgym.envs", "agentgym.sandboxes"))]
    assert not bad, bad


def test_envs_and_sandboxes_never_import_trainers():
    bad = [f"{m} imports {n}" for m in FILES
           if m.startswith(("agentgym.envs", "agentgym.sandboxes"))
           for n in _imports(m) + _dotted_strings(m) if n.startswith("agentgym.trainers")]
    assert not bad, bad


PUBLIC_FOR_PLUGINS = ("agentgym", "agentgym.env", "agentgym.errors", "agentgym.hookspecs",
                      "agentgym.registrars", "agentgym.sandbox", "agentgym.spaces",
                      "agentgym.taskenv", "agentgym.tasks", "agentgym.testing",
                      "agentgym.toolcalls", "agentgym.tools", "agentgym.wrappers",
                      "agentgym.policies", "agentgym.rollout", "agentgym.settings")
"""What a third-party plugin may import of agentgym (the public modules and packages)."""


def _declared_families(plugin: Path) -> set[str]:
    """Families a plugin declares in its dependencies: ``agentgym[gui]`` -> ``{"gui"}``."""
    project = tomllib.loads((plugin.parent / "pyproject.toml").read_text())["project"]
    found: set[str] = set()
    for dep in project.get("dependencies", []):
        m = re.match(r"^agentgym\[([\w,\s-]+)\]", dep)
        if m:
            found |= {x.strip() for x in m.group(1).split(",")}
    return found


def _plugin_violations(package: Path) -> list[str]:
    families = _declared_families(package)
    allowed = {*PUBLIC_FOR_PLUGINS, *(f"agentgym.envs.{f}" for f in families)}
    bad = []
    for module in [m for m in FILES if m.split(".")[0] == package.name]:
        for name in _imports(module) + [s.partition(":")[0] for s in _dotted_strings(module)]:
            if name.split(".")[0] == "agentgym" and name not in allowed:
                bad.append(f"{module} imports {name}")
    return bad


def test_plugins_use_only_the_public_api_or_a_declared_family():
    """A plugin imports agentgym's public modules, and a family's package (its ``__all__``,
    never a submodule) only when its pyproject depends on ``agentgym[<family>]``."""
    packages = _plugin_packages()
    assert {p.name for p in packages} >= {"agentgym_android", "agentgym_textgames"}
    bad = [v for p in packages for v in _plugin_violations(p)]
    assert not bad, bad


def test_plugin_rule_catches_an_undeclared_family(tmp_path, monkeypatch):
    """A plugin importing a family submodule, or a family it does not declare, is refused."""
    plugin = tmp_path / "agentgym-probe" / "probe_plugin"
    plugin.mkdir(parents=True)
    (plugin.parent / "pyproject.toml").write_text(
        '[project]\nname = "probe"\ndependencies = ["agentgym[gui]"]\n')
    source = plugin / "__init__.py"
    source.write_text("from agentgym.envs.gui import parse_android\n"
                      "from agentgym.envs.gui.backends import VNCBackend\n"
                      "ENV = 'agentgym.envs.sql.env:SQLEnv'\n")
    monkeypatch.setitem(FILES, "probe_plugin", source)
    assert _plugin_violations(plugin) == [
        "probe_plugin imports agentgym.envs.gui.backends",
        "probe_plugin imports agentgym.envs.sql.env",
    ]


def test_registered_string_entry_points_name_modules_of_the_tree():
    """Every built-in spec's ``"pkg.mod:attr"`` names a module that exists (checked without
    importing it: registration stays free)."""
    code = (
        "import json, agentgym\n"
        "print(json.dumps([[s.id, s.entry_point, s.tasks if isinstance(s.tasks, str) else None,"
        " s.viewer] for s in agentgym.all_specs() if isinstance(s.entry_point, str)]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    import json

    missing = []
    for env_id, *targets in json.loads(out.stdout):
        for target in filter(None, targets):
            module = target.partition(":")[0]
            if module.split(".")[0] in {"agentgym", *(p.name for p in _plugin_packages())} \
                    and module not in FILES:
                missing.append(f"{env_id}: {target}")
    assert not missing, missing


def test_import_agentgym_is_light():
    code = (
        "import sys, agentgym; agentgym.list_envs();"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"heavy modules imported: {out.stdout}"


REGISTRATION_MUST_NOT_IMPORT = ("playwright", "docker", "PIL", "torch", "transformers",
                                "agentgym.sandboxes.", "agentgym.envs.web.env",
                                "agentgym.envs.web.miniwob.env", "agentgym.envs.gui.env",
                                "agentgym.envs.search.env", "agentgym.envs.search.retrievers",
                                "agentgym.envs.webarena.env", "agentgym.envs.sql.env",
                                "agentgym.envs.code.env", "agentgym.policies.hf",
                                "agentgym_android.env")
"""Prefixes of modules that listing the envs must leave unimported: libraries, the sandboxes'
backends and every env class (their specs hold ``"pkg.mod:Class"`` strings)."""
REGISTRATION_MAY_IMPORT = ("agentgym.sandboxes", "agentgym.sandboxes.fake",
                           "agentgym.sandboxes.hooks", "agentgym.sandboxes.plugin")
"""The sandboxes package, its registration modules (their entries are strings too) and the fake
sandbox (plain Python, nothing started)."""


def _modules_after_listing() -> list[str]:
    """``sys.modules`` of a subprocess that imported agentgym, loaded every plugin and listed
    the envs."""
    code = (
        "import sys, agentgym\n"
        "ids = agentgym.list_envs()\n"
        "assert len(ids) > 100, len(ids)\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    return out.stdout.split()


def test_registering_envs_imports_only_specs():
    """Listing the envs imports no env class, no sandbox backend, no browser or Docker library."""
    bad = [m for m in _modules_after_listing() if m not in REGISTRATION_MAY_IMPORT
           and (m + ".").startswith(REGISTRATION_MUST_NOT_IMPORT)]
    assert not bad, f"listing the envs imported {bad}"


def test_registering_the_remote_resolver_imports_no_client():
    """The ``remote:`` resolver is registered as a string: listing loads no HTTP client."""
    loaded = set(_modules_after_listing())
    assert not loaded & {"agentgym.serve.client", "httpx"}, sorted(
        loaded & {"agentgym.serve.client", "httpx"})
