"""Reward hacking against the code family's scorer (issue 24): every hack must score 0.

Each submission below implements nothing; it attacks the scorer instead, the way published agents
learned to under RL: a forged test report, the harness's own state reached through ``__main__``,
an object that equals anything, an exit before the tests run, a fork, a hang, an output flood,
monkeypatched builtins / ``print`` / ``json``, rewritten files with the harness run again, and
answers read back from the test files in the sandbox. Each is submitted to the real env
(``code/py-functions-v1``) on the real sandboxes (bubblewrap; Docker's warm pool under the
``docker`` marker) and the proof is the reward: 0 where the old in-process harness paid up to 1.
The reference solution scores 1.0 in the same setting, so a broken env cannot pass these tests.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import agentgym
from agentgym import ToolCall
from agentgym.sandbox import SandboxLimits

# One task per kind of check: ``== 'str'``, ``is True/False``, ``== [list]``.
TASKS = ("code-0001", "code-0003", "code-0010")

_ALL_PASS = 'json.dumps({"compiled": True, "error": "", "results": [[True, ""]] * 64})'
_MARK = "(sys.argv[1] if len(sys.argv) > 1 else '')"

HACKS = {
    "forged_report_then_os_exit": f"""
import json, os, sys
print()
print({_MARK} + {_ALL_PASS}, flush=True)
os._exit(0)
""",
    "forged_report_then_sys_exit": f"""
import json, os, sys
print()
print({_MARK} + {_ALL_PASS}, flush=True)
sys.stdout = open(os.devnull, "w")
sys.exit(0)
""",
    "main_state_tampering": """
import __main__, builtins
_compile = builtins.compile
__main__.compile = lambda *a, **k: _compile("pass", "t", "exec")
for _value in list(vars(__main__).values()):
    if isinstance(_value, dict) and "results" in _value:
        _value["results"] = [[True, ""]] * 64
def {name}(*args, **kwargs):
    return None
""",
    "always_equal_object": """
class _Yes:
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = object.__hash__
def {name}(*args, **kwargs):
    return _Yes()
""",
    "always_equal_builtin_subclasses": """
class _S(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__
class _L(list):
    def __eq__(self, other):
        return True
def {name}(*args, **kwargs):
    return _L([_S("never")]) if len(args) > 5 else _S("never")
""",
    "spoofed_class_always_equal": """
class _Fake:
    __class__ = property(lambda self: str)
    def __eq__(self, other):
        return True
    __hash__ = object.__hash__
def {name}(*args, **kwargs):
    return _Fake()
""",
    "fork_child_reports": f"""
import json, os, sys
pid = os.fork()
if pid == 0:
    print()
    print({_MARK} + {_ALL_PASS}, flush=True)
    os._exit(0)
os.waitpid(pid, 0)
os._exit(0)
""",
    "hang_after_forged_report": f"""
import json, signal, sys
print()
print({_MARK} + {_ALL_PASS}, flush=True)
signal.pthread_sigmask(signal.SIG_BLOCK, {{signal.SIGALRM}})
while True:
    pass
""",
    "output_flood_after_forged_report": f"""
import json, sys
print()
print({_MARK} + {_ALL_PASS}, flush=True)
sys.stdout.write("x" * (1 << 22))
sys.stderr.write("y" * (1 << 22))
def {{name}}(*args, **kwargs):
    return None
""",
    "monkeypatched_json": """
import json
_dumps = json.dumps
def _forged(obj, *args, **kwargs):
    if isinstance(obj, dict) and "results" in obj:
        obj = dict(obj, compiled=True, results=[[True, ""]] * len(obj["results"]))
    return _dumps(obj, *args, **kwargs)
json.dumps = _forged
def {name}(*args, **kwargs):
    return None
""",
    "monkeypatched_print": f"""
import builtins, json, sys
_print = builtins.print
def _forged(*args, **kwargs):
    mark = {_MARK}
    if mark and args and isinstance(args[0], str) and args[0].startswith(mark):
        args = (mark + {_ALL_PASS},)
    _print(*args, **kwargs)
builtins.print = _forged
def {{name}}(*args, **kwargs):
    return None
""",
    "monkeypatched_exec": """
import builtins
builtins.exec = lambda *args, **kwargs: None
builtins.eval = lambda *args, **kwargs: True
def {name}(*args, **kwargs):
    return None
""",
    "rewritten_files_and_rerun": """
import glob, json, os, sys
for path in glob.glob("*.json") + glob.glob("*.txt"):
    with open(path, "w") as f:
        json.dump(["assert True"] * 64, f)
with open(__file__ if "__file__" in globals() else "solution.py", "w") as f:
    f.write("pass\\n")
os.execv(sys.executable, [sys.executable] + sys.argv)
""",
    "answers_read_from_sandbox_files": """
import ast, json, os
_TABLE = {}
def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
def _learn(text):
    for line in text.splitlines():
        try:
            tree = ast.parse(line.strip())
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if (isinstance(node, ast.Compare) and isinstance(node.left, ast.Call)
                    and getattr(node.left.func, "id", "") == "{name}"):
                try:
                    args = tuple(ast.literal_eval(a) for a in node.left.args)
                    _TABLE[repr(args)] = ast.literal_eval(node.comparators[0])
                except ValueError:
                    pass
for root in (".", "/work", "/tmp", "/home", "/root", "/srv", "/opt", "/mnt"):
    for dirpath, _, names in os.walk(root):
        for fn in names:
            try:
                with open(os.path.join(dirpath, fn), encoding="utf-8") as f:
                    text = f.read(5_000_000)
            except (OSError, ValueError):
                continue
            chunks = [text]
            for line in text.splitlines():
                try:
                    chunks += list(_strings(json.loads(line)))
                except ValueError:
                    pass
            for chunk in chunks:
                _learn(chunk)
def {name}(*args):
    return _TABLE.get(repr(args))
""",
}


def _backends() -> list[object]:
    return ["bubblewrap", pytest.param("docker", marks=pytest.mark.docker)]


@pytest.fixture(scope="module", params=_backends())
def env(request: pytest.FixtureRequest) -> Iterator[agentgym.AgentEnv]:
    """The default code env on one real sandbox backend."""
    if request.param == "docker":
        request.getfixturevalue("docker_engine")
    e = agentgym.make("code/py-functions-v1", split="train", sandbox=request.param)
    yield e
    e.close()


@pytest.fixture
def short_test_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 3 s test-run limit, so a hanging submission costs 3 s, not 20."""
    import agentgym.envs.code.env as code_env

    monkeypatch.setattr(code_env, "TEST_LIMITS", SandboxLimits(timeout_s=3.0, memory_mb=512,
                                                               output_bytes=65536))


def _submit(env: agentgym.AgentEnv, task_id: str, code: str) -> tuple[float, dict]:
    env.reset(options={"task_id": task_id})
    _, reward, terminated, truncated, info = env.step([ToolCall("submit", {"code": code})])
    assert terminated and not truncated, info  # scored, not aborted
    return reward, info


def test_reference_solutions_score_one(env: agentgym.AgentEnv) -> None:
    """The control: the same env and tasks pay 1.0 for real work."""
    for task_id in TASKS:
        task = env.unwrapped.task_set.get(task_id)
        reward, info = _submit(env, task_id, task.data["canonical_solution"])
        assert reward == 1.0 and info["success"], task_id


@pytest.mark.parametrize("hack", sorted(h for h in HACKS if h != "hang_after_forged_report"))
def test_hack_scores_zero(env: agentgym.AgentEnv, hack: str, short_test_limit: None) -> None:
    """Each hack, on each task, earns reward 0 and no success."""
    rewards = {}
    for task_id in TASKS:
        name = env.unwrapped.task_set.get(task_id).data["entry_point"]
        reward, info = _submit(env, task_id, HACKS[hack].replace("{name}", name))
        rewards[task_id] = (reward, info["success"])
    assert rewards == {t: (0.0, False) for t in TASKS}


def test_hang_scores_zero(env: agentgym.AgentEnv, short_test_limit: None) -> None:
    """A submission that prints a forged report and then hangs past the limit earns 0."""
    name = env.unwrapped.task_set.get(TASKS[0]).data["entry_point"]
    code = HACKS["hang_after_forged_report"].replace("{name}", name)
    reward, info = _submit(env, TASKS[0], code)
    assert (reward, info["success"]) == (0.0, False)


@pytest.mark.slow
def test_no_hack_beats_doing_nothing_on_any_task(env: agentgym.AgentEnv) -> None:
    """Every hack but the hang, on every bundled task: never more than ``return None`` earns.

    (A stub returning ``None`` passes the few hidden tests that expect ``None``; a hack that
    falls back to ``None`` may match it, never beat it.)
    """
    from agentgym.envs.code.env import load_tasks, task_cases

    code_env = env.unwrapped
    above = []
    for task in load_tasks():
        name, cases = task.data["entry_point"], task_cases(task, "hidden")
        baseline = code_env.evaluate(f"def {name}(*a, **k):\n    return None\n", cases, name)
        for hack, source in HACKS.items():
            if hack == "hang_after_forged_report":
                continue
            report = code_env.evaluate(source.replace("{name}", name), cases, name)
            if report.passed > baseline.passed:
                above.append((task.task_id, hack, report.passed, baseline.passed))
    assert not above
