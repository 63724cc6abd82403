"""pyautogui code is parsed into an allow-list and never executed as host Python."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from agentgym.envs.gui import ActionError, Primitive, parse_pyautogui
from agentgym.envs.gui.pyautogui_ast import CALLS, MAX_CALLS

EXEC_EVENTS: list[str] = []


def _audit(event: str, args: tuple) -> None:
    # CPython opens the pseudo file name "<unknown>" to quote a SyntaxError's line: not a file
    if event == "open" and str(args[0]).startswith("<"):
        return
    if event in ("exec", "os.system", "subprocess.Popen", "os.exec", "os.posix_spawn", "open"):
        EXEC_EVENTS.append(event)


sys.addaudithook(_audit)


def test_allowed_calls():
    code = """
import pyautogui
import time
pyautogui.click(100, 200)
pyautogui.doubleClick(x=5, y=6)
pyautogui.rightClick(7, 8)
pyautogui.moveTo(1, 2, duration=0.5)
pyautogui.dragTo(30, 40, button='left')
pyautogui.write('hello', interval=0.05)
pyautogui.typewrite(['a', 'enter'])
pyautogui.press('tab', presses=2)
pyautogui.hotkey('ctrl', 'shift', 'z')
pyautogui.scroll(-3)
pyautogui.keyDown('shift'); pyautogui.keyUp('shift')
time.sleep(0.2)
"""
    prims = parse_pyautogui(code)
    assert prims[0] == Primitive("click", 100, 200)
    assert prims[1] == Primitive("click", 5, 6, clicks=2)
    assert prims[2] == Primitive("click", 7, 8, button=3)
    assert [p.kind for p in prims[3:]] == ["move", "drag", "type", "key", "key", "key", "key",
                                          "key", "scroll", "key_down", "key_up", "wait"]
    assert prims[6].keys == ("a",) and prims[7].keys == ("Return",)
    assert prims[10].keys == ("ctrl", "shift", "z")
    assert prims[11].dy == 3  # pyautogui: negative clicks scroll down


HOSTILE = [
    "__import__('os').system('touch /tmp/agentgym-canary')",
    "import os\nos.system('id')",
    "exec('print(1)')",
    "eval('1+1')",
    "open('/tmp/agentgym-canary', 'w').write('x')",
    "pyautogui.click(__import__('os').getpid(), 1)",
    "pyautogui.click(*[1, 2])",
    "pyautogui.click(**{'x': 1, 'y': 2})",
    "x = 5\npyautogui.click(x, x)",
    "for i in range(10**9):\n    pyautogui.click(1, 1)",
    "while True: pass",
    "pyautogui.click(1+1, 2)",
    "pyautogui.screenshot('/etc/passwd')",
    "pyautogui.__class__.__subclasses__()",
    "import subprocess\nsubprocess.run(['id'])",
    "from os import system",
    "import pyautogui as p\np.click(1, 2)",
    "def f():\n    pass\nf()",
    "lambda: 1",
    "pyautogui.click(1, 2) if True else None",
    "[pyautogui.click(1, 2) for _ in range(5)]",
    "pyautogui.click(x=(1).__class__, y=2)",
    "pyautogui.write(open('/etc/passwd').read())",
    "class A: pass",
    "with open('x') as f: pass",
    "pyautogui.click(1, 2, 3, 4, 5, 6, 7)",
    "pyautogui.click(1, 2, foo=3)",
    "pyautogui.hotkey('ctrl', key='c')",
    "time.time()",
    "pyautogui.click(1, 2)\n" * (MAX_CALLS + 1),
    "pyautogui.write('" + "a" * 3000 + "')",
    "(" * 200 + ")" * 200,
    "",
    "\x00",
]


@pytest.mark.parametrize("code", HOSTILE)
def test_hostile_code_is_refused(code):
    with pytest.raises(ActionError):
        parse_pyautogui(code)


def _mutant(rng: random.Random) -> str:
    pieces = ["pyautogui.", "__import__('os')", "os.system('x')", "exec(", "(", ")", "'", ",",
              "click", "write", "1", "-5", "x=", "\n", ";", "lambda:", "import os", "[", "]",
              "open(", "**", "*", ".__class__", "sleep(1)", "time.", "'''", "#", "\\", "{", "}"]
    return "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 25)))


def test_a_thousand_mutants_never_execute_python_or_raise_other_errors(tmp_path: Path):
    rng = random.Random(0)
    canary = Path("/tmp/agentgym-canary")
    canary.unlink(missing_ok=True)
    EXEC_EVENTS.clear()
    accepted = refused = 0
    for i in range(1000):
        code = HOSTILE[i % len(HOSTILE)] if i % 3 == 0 else _mutant(rng)
        try:
            prims = parse_pyautogui(code)
        except ActionError:
            refused += 1
            continue
        accepted += 1
        assert all(isinstance(p, Primitive) for p in prims)
    assert EXEC_EVENTS == [], "parsing must never exec, open files or start processes"
    assert not canary.exists()
    assert refused > 900 and accepted + refused == 1000


def test_every_allowed_call_has_a_builder():
    for name, (params, build) in CALLS.items():
        assert callable(build) and isinstance(params, tuple), name
