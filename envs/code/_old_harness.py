"""The code env's first harness, kept for ``benchmarks/sandbox.py`` only (never used to score).

It ran the tests in the solution's own process and trusted the report line the process printed,
so a solution could forge the report, tamper with the harness through ``__main__`` or return an
object equal to anything (issue 24); :mod:`.harness` replaced it. The benchmark times it beside
the new harness to show what the isolation costs.

The harness is shipped into the sandbox as a file and run with the sandbox's own ``python3``, so it
uses only the standard library. It prints one line, ``<marker><json>``, with per-test outcomes;
each test has its own time budget (``SIGALRM``) so one endless loop fails one test, not all.
"""

from __future__ import annotations

import json
import secrets

from .harness import TestReport

_OLD_HARNESS_SOURCE = r'''
import json, signal, sys

MARK = sys.argv[1]
PER_TEST_S = float(sys.argv[2])


def _alarm(signum, frame):
    raise TimeoutError("test took longer than %.1f s" % PER_TEST_S)


signal.signal(signal.SIGALRM, _alarm)
source = open("solution.py", encoding="utf-8").read()
tests = json.load(open("tests.json", encoding="utf-8"))
out = {"compiled": True, "error": "", "results": []}
namespace = {"__name__": "solution"}
try:
    signal.setitimer(signal.ITIMER_REAL, PER_TEST_S)
    exec(compile(source, "solution.py", "exec"), namespace)
except BaseException as e:
    out["compiled"] = False
    out["error"] = "%s: %s" % (type(e).__name__, str(e)[:300])
finally:
    signal.setitimer(signal.ITIMER_REAL, 0)
for test in tests:
    if not out["compiled"]:
        out["results"].append([False, "solution did not load"])
        continue
    try:
        signal.setitimer(signal.ITIMER_REAL, PER_TEST_S)
        exec(compile(test, "test", "exec"), dict(namespace))
        out["results"].append([True, ""])
    except BaseException as e:
        out["results"].append([False, "%s: %s" % (type(e).__name__, str(e)[:200])])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
sys.stdout.flush()
print()
print(MARK + json.dumps(out))
'''


def _old_harness_files(solution: str, tests: list[str]) -> tuple[dict[str, str], str]:
    """Files to put in the sandbox and the random marker the report line starts with."""
    marker = f"@@agentgym-{secrets.token_hex(8)}@@"
    files = {
        "harness.py": _OLD_HARNESS_SOURCE,
        "solution.py": solution,
        "tests.json": json.dumps(tests),
    }
    return files, marker


def _old_parse_report(
    stdout: str, marker: str, tests: list[str], fallback_error: str
) -> TestReport:
    """Read the harness's report line; a missing line counts as every test failed."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(marker):
            try:
                data = json.loads(line[len(marker):])
                results = [(bool(ok), str(err)) for ok, err in data["results"]]
            except (ValueError, KeyError, TypeError):
                break
            failures = [(t, err) for t, (ok, err) in zip(tests, results, strict=False) if not ok]
            passed = sum(ok for ok, _ in results[: len(tests)])
            return TestReport(passed, len(tests), failures, bool(data.get("compiled")),
                              str(data.get("error", "")))
    error = f"the program ended before the tests ran ({fallback_error})"
    return TestReport(0, len(tests), [(t, error) for t in tests], False, error)
