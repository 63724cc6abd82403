"""``code/py-functions``: write a Python function; run code and tests in a sandbox; hidden tests
score the submission.

Tools: ``run_python`` (run a script, see its output), ``run_tests`` (the visible tests against a
solution) and ``submit`` (the hidden tests; ends the episode). Models without tool calling may
instead answer with a fenced ```python block defining the function, which counts as ``submit``.
Reward: 1 when every hidden test passes, else 0 (``reward_mode="all_pass"``, the default since
``code/py-functions-v1``: the pass@1 the field reports); ``reward_mode="fraction"``
(``code/py-functions-fraction-v1``) pays the share of hidden tests passed, where a constant
answer still earns the tests whose expected value it happens to equal.
The scorer is out of the solution's reach (:mod:`.harness`): in the sandbox a runner only calls
the function on each test's inputs and writes back the returned values as plain data; the
tests' checks run in this process on those values, so no report, marker or object the solution
controls can decide the reward.
All code runs in a sandbox (Docker when an engine is reachable, else bubblewrap). A run the
sandbox itself failed (``status == "sandbox_error"``: a killed container, a lost engine) is an
infrastructure failure: it is retried once on a fresh container, then the episode is aborted; it
is never scored as the model's failure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from agentgym import Task, TaskSet, TaskToolEnv, ToolCall, parse_tool_calls
from agentgym.errors import InfrastructureError, SandboxError, TaskError
from agentgym.sandbox import RunResult, RunStatus, Sandbox, SandboxLimits
from agentgym.sandboxes import check_backend, open_sandbox

from .cases import Case, CaseError, cases_from_asserts
from .harness import TestReport, judge, runner_command, runner_files

DATA = Path(__file__).parent / "data" / "tasks.jsonl"
_FENCE = re.compile(r"```(?:python|py)?\s*\n(.*?)```", re.DOTALL)
RUN_LIMITS = SandboxLimits(timeout_s=10.0, memory_mb=512, output_bytes=8192)
TEST_LIMITS = SandboxLimits(timeout_s=20.0, memory_mb=512, output_bytes=1 << 18)
PER_TEST_S = 2.0
"""Time budget of one call of the solution (the whole run has ``TEST_LIMITS.timeout_s``)."""

INSTRUCTIONS = """You are a Python programmer. Implement the function described by the user.
Tools:
- run_python(code): run a Python script in a sandbox and see stdout/stderr.
- run_tests(code): run your full solution against the visible tests.
- submit(code): submit your full solution (the complete function definition); hidden tests score it
  and the episode ends.
Tests call your function on their inputs; return plain Python data (None, bool, int, float, str,
bytes, and lists, tuples, dicts and sets of them).
Call one tool per turn, for example
<tool_call>{"name": "run_tests", "arguments": {"code": "def f(x):\\n    return x"}}</tool_call>
or answer with the solution in a ```python code block, which counts as submit."""


@cache
def load_tasks() -> TaskSet:
    """The bundled code tasks (train and test splits)."""
    tasks = TaskSet.from_file(DATA, name="py-functions")
    return tasks


def task_cases(task: Task, which: str) -> tuple[Case, ...]:
    """The ``visible`` or ``hidden`` tests of ``task`` as cases (built once, then cached).

    Each ``assert`` becomes calls and a check (:mod:`.cases`); the env builds a task's cases
    when an episode starts on it, so a test the scorer could not check is an error at reset,
    never a silent pass (tests/envs/code converts every bundled task).
    """
    tests = task.data["visible_tests"] if which == "visible" else task.data["hidden_tests"]
    if isinstance(tests, str):
        tests = split_tests(tests)
    try:
        return cases_from_asserts(tuple(tests), task.data["entry_point"])
    except CaseError as e:
        raise TaskError(f"{task.task_id}: a {which} test cannot be scored: {e}") from e


def split_tests(source: str) -> list[str]:
    """Split a block of ``assert`` lines into single tests (continuation lines stay attached)."""
    tests: list[str] = []
    for line in source.splitlines():
        if not line.strip():
            continue
        if line.startswith((" ", "\t")) and tests:
            tests[-1] += "\n" + line
        else:
            tests.append(line)
    return tests


class CodeEnv(TaskToolEnv):
    """Write a function that passes hidden tests, with a sandbox to try code in."""

    instructions = INSTRUCTIONS
    fork_fields = ()
    """Forked by copying its state (:mod:`agentgym.fork`): an episode's state is its task,
    turn and outcome; every sandbox run starts from a fresh work folder, so nothing of it lives
    in the sandbox between turns."""

    def __init__(
        self, split: str = "train", sandbox: str = "auto", reward_mode: str = "all_pass"
    ) -> None:
        if reward_mode not in ("fraction", "all_pass"):
            raise ValueError(f"reward_mode must be 'fraction' or 'all_pass', not {reward_mode!r}")
        self.sandbox_backend = check_backend(sandbox)
        self.reward_mode = reward_mode
        self.reward_probe_exemptions: dict[str, str] = {} if reward_mode == "all_pass" else {
            kind: "the fraction variant pays the share of hidden tests a constant happens to "
            "pass, by design (docs/sandboxes.md); code/py-functions-v1 pays all-pass"
            for kind in ("constants", "rare")}
        """Probe classes the fraction variant opts out of, with the reason (check_rewards)."""
        self._sandbox: Sandbox | None = None
        super().__init__(load_tasks(), split)

    # -- episode -----------------------------------------------------------------------------

    def make_tools(self) -> list[Any]:
        """run_python, run_tests, submit."""
        return [self.run_python, self.run_tests, self.submit]

    def start(self, task: Task) -> str:
        """Show the stub and the visible tests (and build the task's cases)."""
        task_cases(task, "visible")
        task_cases(task, "hidden")
        return (
            f"Implement `{task.data['entry_point']}`:\n```python\n{task.prompt.rstrip()}\n```\n"
            f"Visible tests:\n```python\n{task.data['visible_tests'].rstrip()}\n```"
        )

    def parse_action(self, action: Any) -> list[ToolCall]:
        """Tool calls, or a fenced python block treated as ``submit``."""
        calls = parse_tool_calls(action)
        if calls or not isinstance(action, str):
            return calls
        blocks = _FENCE.findall(action)
        if blocks:
            return [ToolCall("submit", {"code": blocks[-1]})]
        return []

    @property
    def sandbox(self) -> Sandbox:
        """The env's sandbox, opened on first use."""
        if self._sandbox is None:
            try:
                self._sandbox = open_sandbox(self.sandbox_backend)
            except SandboxError as e:
                raise InfrastructureError(f"cannot open a sandbox: {e}") from e
        return self._sandbox

    def _sandbox_run(
        self, command: list[str], files: Mapping[str, bytes | str], limits: SandboxLimits
    ) -> RunResult:
        """Run in the sandbox; a failure of the sandbox itself raises InfrastructureError."""
        try:
            result = self.sandbox.run(command, files=dict(files), limits=limits)
        except SandboxError as e:
            raise InfrastructureError(f"sandbox failed: {e}", retryable=True) from e
        if result.status is RunStatus.SANDBOX_ERROR:
            raise InfrastructureError(result.summary(), retryable=True)
        return result

    def fork_clone(self) -> CodeEnv:
        """A state fork (:meth:`agentgym.TaskToolEnv.fork_clone`) with a sandbox of its own,
        opened on first use: closing a branch never closes its parent's."""
        child = super().fork_clone()
        assert isinstance(child, CodeEnv)  # noqa: S101 -- a copy of this class
        child._sandbox = None
        return child

    def _close(self) -> None:
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None

    def evaluate(self, code: str, cases: Sequence[Case], entry_point: str) -> TestReport:
        """Call ``code``'s ``entry_point`` on the cases' inputs in the sandbox; check out here.

        Only the inputs go in and only the returned values (as plain-data literals) come out;
        the checks run in this process on the decoded values (see :mod:`.harness`).
        """
        files = runner_files(code, cases)
        result = self._sandbox_run(runner_command(entry_point, PER_TEST_S), files, TEST_LIMITS)
        clean = result.status is RunStatus.OK and not result.output_truncated
        return judge(result.stdout, cases, result.summary(), ended_cleanly=clean)

    # -- tools -------------------------------------------------------------------------------

    def run_python(self, code: str) -> str:
        """Run a Python script in the sandbox and return its output.

        Args:
            code: The full script to run.
        """
        result = self._sandbox_run(["python3", "main.py"], {"main.py": code}, RUN_LIMITS)
        parts = [f"[{result.summary()}]"]
        if result.stdout:
            parts.append(f"stdout:\n{result.stdout.rstrip()}")
        if result.stderr:
            parts.append(f"stderr:\n{result.stderr.rstrip()[-2000:]}")
        return "\n".join(parts)

    def run_tests(self, code: str) -> str:
        """Run your solution against the visible tests.

        Args:
            code: Your complete solution (the function definition and any helpers).
        """
        task = self.task
        if task is None:
            return "Error: no task"
        report = self.evaluate(code, task_cases(task, "visible"), task.data["entry_point"])
        lines = [f"{report.passed}/{report.total} visible tests passed."]
        if not report.loaded and report.error:
            lines.append(f"Your code failed to load: {report.error}")
        lines += [f"FAILED {t.strip()}  -> {err}" for t, err in report.failures[:5]]
        return "\n".join(lines)

    def submit(self, code: str) -> str:
        """Submit your final solution; hidden tests score it and the episode ends.

        Args:
            code: Your complete solution (the function definition and any helpers).
        """
        task = self.task
        if task is None:
            return "Error: no task"
        report = self.evaluate(code, task_cases(task, "hidden"), task.data["entry_point"])
        all_pass = report.total > 0 and report.passed == report.total
        reward = report.fraction if self.reward_mode == "fraction" else float(all_pass)
        self.finish(reward, success=all_pass, tests_passed=report.passed,
                    tests_total=report.total)
        text = f"Submitted: {report.passed}/{report.total} hidden tests passed."
        if not report.loaded and report.error:
            text += f" Your code failed to load: {report.error}"
        return text

    # -- expert ------------------------------------------------------------------------------

    def expert_actions(self, task: Task) -> list[ToolCall]:
        """Reference solution: run the visible tests, then submit."""
        code = task.data["canonical_solution"]
        return [ToolCall("run_tests", {"code": code}), ToolCall("submit", {"code": code})]
