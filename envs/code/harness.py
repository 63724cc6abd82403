"""The scorer's two halves: a runner inside the sandbox that only calls, a judge outside it.

Inside the sandbox, ``runner.py`` (standard library only, run by the sandbox's ``python3``) loads
the solution, calls the entry point on each input of ``calls.txt`` and writes one line per call:
``<i> ok <json>`` with the value it returned as plain data in the wire form of :mod:`.plain`,
or ``<i> err <message>``. The solution's own stdout goes to stderr; forking is refused
(``RLIMIT_NPROC`` 0) and each call has a time budget (``SIGALRM``). The runner decides nothing:
no expected value, test, marker or report enters the sandbox.

Outside, :func:`judge` reads those lines as untrusted data. Each call's value is decoded into
fresh builtins (anything that is not plain data fails), and each case's check (:mod:`.cases`)
runs here on the decoded values. A call with no line, an error, two different lines or
unreadable data fail their case, and a run that does not end by itself within its limits
(exit, hang, output flood) fails every case; so a solution that exits, hangs, forks, floods its
output or forges lines cannot pass a test it did not compute.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .cases import Case
from .plain import PlainDataError, decode

RUNNER_SOURCE = r'''
"""agentgym code runner: call the solution on each input and write what it returned."""
import json, math, os, resource, signal, sys

SIMPLE = (str, int, bool, type(None))
SIMPLE_SET = frozenset(SIMPLE)
UNTAG = {"$t": tuple, "$s": set, "$f": frozenset}
FLOATS = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def tag(value, depth=0):
    """value as tagged JSON data of exact builtin types (see envs/code/plain.py)."""
    kind = type(value)
    if depth > 100:
        raise ValueError("the value is nested more than 100 deep")
    if kind in SIMPLE:
        return value
    if (kind is list or kind is tuple) and set(map(type, value)) <= SIMPLE_SET:
        return list(value) if kind is list else {"$t": list(value)}  # long flat lists, fast
    if isinstance(value, float):
        value = float.__float__(value)
        return value if math.isfinite(value) else {"$x": repr(value)}
    if isinstance(value, int):
        return int.__index__(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, list):
        return [tag(x, depth + 1) for x in list.__iter__(value)]
    if isinstance(value, tuple):
        return {"$t": [tag(x, depth + 1) for x in tuple.__iter__(value)]}
    if isinstance(value, (set, frozenset)):
        items = (set.__iter__ if isinstance(value, set) else frozenset.__iter__)(value)
        return {"$s" if isinstance(value, set) else "$f": [tag(x, depth + 1) for x in items]}
    if isinstance(value, dict):
        pairs = [(tag(k, depth + 1), tag(v, depth + 1)) for k, v in dict.items(value)]
        if all(type(k) is str and not k.startswith("$") for k, _ in pairs):
            return dict(pairs)
        return {"$d": [[k, v] for k, v in pairs]}
    if kind is bytes:
        return {"$b": value.hex()}
    if kind is complex:
        return {"$c": [tag(value.real), tag(value.imag)]}
    raise TypeError("returned a %s; return plain data (None, bool, int, float, str, bytes, "
                    "lists, tuples, dicts, sets)" % kind.__name__)


def untag(obj):
    if len(obj) == 1:
        (key, body), = obj.items()
        if key in UNTAG:
            return UNTAG[key](body)
        if key == "$d":
            return {k: v for k, v in body}
        if key == "$b":
            return bytes.fromhex(body)
        if key == "$c":
            return complex(*body)
        if key == "$x":
            return FLOATS[body]
    return obj


def describe(error):
    try:
        return "%s: %s" % (type(error).__name__, str(error)[:300])
    except BaseException:
        return type(error).__name__


def main():
    entry, per_call = sys.argv[1], float(sys.argv[2])
    with open("calls.txt", encoding="utf-8") as f:
        lines = f.read().splitlines()
    with open("solution.py", encoding="utf-8") as f:
        source = f.read()
    sys.stdout.flush()
    out = os.dup(1)
    os.dup2(2, 1)  # the solution's prints go to stderr; results go to `out` only
    loads, dumps, write = json.loads, json.dumps, os.write
    setitimer, REAL = signal.setitimer, signal.ITIMER_REAL

    def emit(text):
        data = (text + "\n").encode("ascii", "backslashreplace")
        while data:
            data = data[write(out, data):]

    def alarm(signum, frame):
        raise TimeoutError("took longer than %g s" % per_call)

    signal.signal(signal.SIGALRM, alarm)
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))  # no fork, no threads
    namespace = {"__name__": "solution"}
    try:
        setitimer(REAL, per_call)
        exec(compile(source, "solution.py", "exec"), namespace)
        setitimer(REAL, 0)
        func = namespace.get(entry)
        if not callable(func):
            raise NameError("the solution defines no function %r" % entry)
    except BaseException as e:
        setitimer(REAL, 0)
        emit("load err " + dumps(describe(e)))
        emit("done")
        return
    emit("load ok")
    returned = []
    for i, line in enumerate(lines):
        try:
            args, kwargs, refs = loads(line, object_hook=untag)
            for position, index in refs:
                if returned[index] is None:
                    raise RuntimeError("the call it takes its argument from failed")
                args[position] = loads(returned[index], object_hook=untag)
            setitimer(REAL, per_call)
            try:
                value = func(*args, **kwargs)
            finally:
                setitimer(REAL, 0)
            text = dumps(tag(value), allow_nan=False)
            returned.append(text)
            emit("%d ok %s" % (i, text))
        except BaseException as e:
            setitimer(REAL, 0)
            returned.append(None)
            emit("%d err %s" % (i, dumps(describe(e))))
    emit("done")


main()
'''
RUNNER_FILE = "runner.py"


@dataclass
class TestReport:
    """Outcome of running a solution against a list of tests."""

    passed: int
    total: int
    failures: list[tuple[str, str]]
    """(test source, why it failed) for each failed test."""
    loaded: bool
    """The solution compiled, ran at top level and defined the entry point (by its runner)."""
    error: str = ""
    """Why the solution did not load, or why the runner gave no output."""

    @property
    def fraction(self) -> float:
        """Share of tests passed (0 when there are none)."""
        return self.passed / self.total if self.total else 0.0


def runner_files(solution: str, cases: Sequence[Case]) -> dict[str, str]:
    """The files of one run: the runner, the solution and the inputs of every case's calls."""
    lines, offset = [], 0
    for case in cases:
        lines += [call.line(offset) for call in case.calls]
        offset += len(case.calls)
    return {RUNNER_FILE: RUNNER_SOURCE, "solution.py": solution, "calls.txt": "\n".join(lines)}


def runner_command(entry_point: str, per_call_s: float) -> list[str]:
    """The command that runs the runner on ``entry_point`` with a per-call time budget."""
    return ["python3", RUNNER_FILE, entry_point, f"{per_call_s:g}"]


@dataclass
class _Outputs:
    """What the runner's lines say, untrusted: the load outcome and each call's outcome."""

    load: str | None  # None: no load line; "" loaded; else the load error
    calls: dict[int, tuple[bool, str]]  # index -> (ok, value's text or error message)
    done: bool  # the runner got past the last call


def _message(text: str) -> str:
    try:
        value = decode(text)
    except PlainDataError:
        return text[:300]
    return value[:300] if isinstance(value, str) else text[:300]


def _read(stdout: str, n_calls: int) -> _Outputs:
    load: str | None = None
    calls: dict[int, tuple[bool, str]] = {}
    clashes: set[int] = set()
    done = False
    for line in stdout.splitlines():
        head, _, rest = line.partition(" ")
        status, _, body = rest.partition(" ")
        done = done or line == "done"
        if head == "load" and load is None and status in ("ok", "err"):
            load = "" if status == "ok" else _message(body) or "the solution did not load"
        elif head.isdigit() and int(head) < n_calls and status in ("ok", "err"):
            index, outcome = int(head), (status == "ok", body if status == "ok" else _message(body))
            if calls.setdefault(index, outcome) != outcome:
                clashes.add(index)
    for index in clashes:
        calls[index] = (False, "two different results for one call")
    return _Outputs(load, calls, done)


def judge(
    stdout: str, cases: Sequence[Case], run_summary: str, *, ended_cleanly: bool = True
) -> TestReport:
    """Score the runner's output: each case's check on its calls' decoded values.

    ``ended_cleanly``: the run exited by itself with status 0 and within the output cap. A run
    that did not (killed at the time limit or for memory, an ``os._exit`` or a crash midway, an
    output flood), or whose runner never got past its last call, fails every test, as when the
    tests ran inside the solution's process and its report was lost.
    """
    got = _read(stdout, sum(len(case.calls) for case in cases))
    finished = ended_cleanly and got.done
    if got.load is None:
        error = f"the program ended before the tests ran ({run_summary})"
    elif not finished:
        error = got.load or f"the program did not finish the tests ({run_summary})"
    else:
        error = got.load
    if got.load is None or not finished:
        failures = [(case.source, error) for case in cases]
        return TestReport(0, len(cases), failures, got.load == "", error)
    passed, failures, offset = 0, [], 0
    for case in cases:
        values: list[Any] = []
        why = ""
        for index in range(offset, offset + len(case.calls)):
            missing = "the solution did not load" if error else "no result"
            ok, body = got.calls.get(index, (False, missing))
            if not ok:
                why = body
                break
            try:
                values.append(decode(body))
            except PlainDataError as e:
                why = f"the result is not plain data: {e}"
                break
        offset += len(case.calls)
        if not why:
            ok, why = case.passes(values)
            if ok:
                passed += 1
                continue
        failures.append((case.source, why))
    return TestReport(passed, len(cases), failures, got.load == "", error)
