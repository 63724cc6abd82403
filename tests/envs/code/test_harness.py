"""The judge reads the runner's lines as untrusted data (unit tests on hand-written output)."""

from __future__ import annotations

from agentgym.envs.code.cases import case_from_assert
from agentgym.envs.code.harness import RUNNER_SOURCE, judge, runner_command, runner_files

CASES = (
    case_from_assert("assert f('ab') == 'ba'", "f"),
    case_from_assert("assert f('') == ''", "f"),
    case_from_assert("assert f(f('xy')) == 'xy'", "f"),
)


def test_runner_files_hold_inputs_but_no_expected_value() -> None:
    files = runner_files("def f(s): return s[::-1]", CASES)
    assert files["calls.txt"].splitlines() == [
        '[["ab"], {}, []]', '[[""], {}, []]', '[["xy"], {}, []]', "[[null], {}, [[0, 2]]]",
    ]  # fmt: skip
    assert files["runner.py"] == RUNNER_SOURCE and '"ba"' not in "".join(files.values())
    assert runner_command("f", 2.0) == ["python3", "runner.py", "f", "2"]


def test_correct_lines_pass() -> None:
    out = 'load ok\n0 ok "ba"\n1 ok ""\n2 ok "yx"\n3 ok "xy"\ndone\n'
    report = judge(out, CASES, "Exited with code 0")
    assert (report.passed, report.total, report.loaded, report.failures) == (3, 3, True, [])


def test_a_missing_line_fails_its_test() -> None:
    report = judge('load ok\n0 ok "ba"\ndone\n', CASES, "Exited with code 0")
    assert report.passed == 1 and report.failures[0] == ("assert f('') == ''", "no result")


def test_a_run_that_did_not_finish_fails_every_test() -> None:
    out = 'load ok\n0 ok "ba"\n1 ok ""\n2 ok "yx"\n3 ok "xy"\n'
    for done, clean in (("", True), ("done\n", False)):
        report = judge(out + done, CASES, "Timed out after 20 s", ended_cleanly=clean)
        assert report.passed == 0 and report.loaded
        assert report.error == "the program did not finish the tests (Timed out after 20 s)"


def test_no_output_at_all_says_the_program_ended() -> None:
    report = judge("", CASES, "Exited with code 0")
    assert report.passed == 0 and not report.loaded
    assert report.error == "the program ended before the tests ran (Exited with code 0)"


def test_load_error_and_call_errors_are_reported() -> None:
    report = judge('load err "NameError: no f"\ndone\n', CASES, "Exited with code 0")
    assert not report.loaded and report.error == "NameError: no f" and report.passed == 0
    assert report.failures[0][1] == "the solution did not load"
    report = judge('load ok\n0 err "TimeoutError: took longer than 2 s"\ndone\n', CASES, "ok")
    assert report.failures[0][1] == "TimeoutError: took longer than 2 s"


def test_two_different_lines_for_one_call_fail_it() -> None:
    out = 'load ok\n0 ok "ba"\n0 ok "zz"\n1 ok ""\n1 ok ""\ndone\n'
    report = judge(out, CASES, "ok")
    assert report.failures[0] == ("assert f('ab') == 'ba'", "two different results for one call")
    assert report.passed == 1  # an identical repeat is just the same value


def test_garbage_lines_are_ignored_and_non_literals_fail() -> None:
    out = (
        'load ok\nnoise\n99 ok "ba"\n-1 ok "ba"\n0 maybe "ba"\n'
        "0 ok __import__('os').getcwd()\n1 ok \"\"\ndone\n"
    )
    report = judge(out, CASES, "ok")
    assert report.passed == 1
    assert report.failures[0][1].startswith("the result is not plain data")
