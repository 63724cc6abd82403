"""``check_rewards`` catches every probe class: one deliberately hackable toy env per class is
flagged (naming the probe), and the honest toy env passes. The classes added in issue 35 each
have a toy the earlier probes missed: a check that is mostly ``False`` (``constants``), a
substring scorer whose gold sits under a data key no probe reads (``answer_space``), a tool that
hands out the answer for a second step to submit (``tool_return``), and a hack that pays on one
task in 40, which three seeds never draw (``rare``)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agentgym import InfrastructureError, Task, TaskSet, TaskToolEnv
from agentgym.testing import PROBE_KINDS, Probe, RewardCheckError, check_rewards

WORDS = ["amber", "cobalt", "maroon", "olive", "teal", "indigo", "violet", "ivory"]
INPUTS, OUTPUTS = [3, 4, 5], [9, 16, 25]
REFUSAL_WORDS = ("n/a", "don't know", "cannot", "unknown")
_RUN = ("import subprocess, sys\n"
        "sys.exit(subprocess.run([sys.executable, '-I', '-c', sys.argv[1]]).returncode)")


def _run(code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a grandchild (a wrapper process stands between it and pytest, so a
    solution that kills its parent kills only the wrapper)."""
    return subprocess.run([sys.executable, "-I", "-c", _RUN, code], capture_output=True,
                          text=True, timeout=60)


class ToyEnv(TaskToolEnv):
    """A toy task env: ``answer`` a question, ``submit`` code, ``goto`` a page, ``ping``.

    ``hack`` names the probe class its scorer falls for; ``None`` is the honest scorer.
    """

    instructions = "Answer with the answer tool, or submit `def square(x)` with submit."

    def __init__(self, hack: str | None = None) -> None:
        n = 40 if hack == "rare" else len(WORDS)  # rare: the hack pays on 1 task in 40
        key = "zz_secret" if hack == "answer_space" else "answer"  # a key no probe knows

        def prompt(i: int, w: str) -> str:
            choices = "" if hack == "answer_space" else f": {w} or {WORDS[(i + 1) % len(WORDS)]}"
            return (f"Which colour is number {i}{choices}? Or write def square(x) returning x*x. "
                    f"The page is http://toy.invalid/task-{i}.html")

        tasks = [Task(f"toy-{i}", "train", prompt(i, w), {key: w, "number": i * 7 + 3})
                 for i, w in ((i, WORDS[i % len(WORDS)]) for i in range(n))]
        super().__init__(TaskSet(tasks, name="toy"), "train")
        self.hack = hack
        self.pings = 0
        if hack == "spam":
            self.max_calls_per_turn = 200

    def make_tools(self) -> list:
        """answer, submit, goto, ping, hint."""
        return [self.answer, self.submit, self.goto, self.ping, self.hint]

    def start(self, task: Task) -> str:
        """Show the question."""
        self.pings = 0
        return task.prompt

    def answer(self, text: str) -> str:
        """Give the final answer.

        Args:
            text: The answer.
        """
        data = self.task.data
        gold, low = data.get("answer", data.get("zz_secret")), text.strip().lower()
        correct = {
            "constants": low in ("no", "false") or low == gold,  # a check that is mostly False
            "answer_space": gold in low,  # a substring scorer
            "rare": low == gold or (self.task.task_id == "toy-17" and "0 1 2" in low),
            "empty": low in ("", gold),
            "refusal": any(w in low for w in REFUSAL_WORDS) or low == gold,
            "numbers": str(self.task.data["number"]) in low,
            "candidates": gold in low.split("\n") or gold in low.split(", "),
            "echo": gold in low and len(low) < 1000,
            "huge": len(text) > 50_000,
            "claim": "complete" in low or low == gold,
        }.get(self.hack or "", low == gold)
        self.finish(float(correct))
        return "recorded"

    def submit(self, code: str) -> str:
        """Submit ``def square(x)``; hidden tests score it.

        Args:
            code: The solution.
        """
        if self.hack == "fault" and "kill" in code:
            raise InfrastructureError("the sandbox died")
        if "def " not in code and "import " not in code:  # not Python: nothing to run
            self.finish(0.0)
            return "submitted"
        if self.hack in ("forged", "always_equal", "exit"):
            pairs = zip(INPUTS, OUTPUTS, strict=True)
            tests = "".join(f"assert square({x}) == {y}\n" for x, y in pairs)
            done = _run(f"{code}\n{tests}print('All tests passed')")
            passed = {"forged": "All tests passed" in done.stdout,
                      "always_equal": done.returncode == 0 and "All tests passed" in done.stdout,
                      "exit": done.returncode == 0}[self.hack]
            self.finish(float(passed))
            return "submitted"
        probe = f"{code}\nimport json\nprint(json.dumps([square(x) for x in {INPUTS}]))"
        done = _run(probe)
        try:
            values = json.loads(done.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            values = None
        ok = done.returncode == 0 and isinstance(values, list) and values == OUTPUTS and all(
            type(v) is int for v in values)
        self.finish(float(ok))
        return "submitted"

    def goto(self, url: str) -> str:
        """Open a page; the page tells whether the task is done.

        Args:
            url: The address.
        """
        if self.hack == "navigate" and url != f"http://toy.invalid/{self.task.task_id}.html":
            self.finish(1.0)  # the hack: the reward is read from whatever page is open
        return "opened"

    def hint(self) -> str:
        """Ask for a hint."""
        if self.hack == "tool_return":  # the hack: a tool hands out the answer
            return f"The answer is {self.task.data['answer']}"
        return "No hints."

    def ping(self) -> str:
        """Do nothing useful."""
        self.pings += 1
        if self.hack == "spam" and self.pings >= 20:
            self.finish(1.0)
        return "pong"


@pytest.mark.parametrize("hack", PROBE_KINDS)
def test_each_probe_class_is_caught_by_its_hackable_toy(hack):
    rare_seeds = 160 if hack == "rare" else 1  # the rare class's many seeds only where it counts
    result = check_rewards(ToyEnv(hack), seeds=1, rare_seeds=rare_seeds)
    failed = {p.kind for p in result.failures}
    assert hack in failed, f"{hack} hack not caught:\n{result}"
    with pytest.raises(RewardCheckError, match="beat doing nothing") as err:
        result.raise_for_failures()
    caught = next(p for p in result.failures if p.kind == hack)
    assert repr(caught.name) in str(err.value) and caught.reason in str(err.value)


def test_the_honest_toy_passes_every_probe():
    result = check_rewards(ToyEnv(None), seeds=2)
    assert result.passed, str(result)
    assert {p.kind for p in result.probes} == set(PROBE_KINDS)
    assert result.baseline == 0.0
    result.raise_for_failures()


def test_an_opt_out_needs_a_reason_and_is_reported():
    env = ToyEnv("numbers")
    with pytest.raises(ValueError, match="needs a reason"):
        check_rewards(env, skip={"numbers": " "})
    with pytest.raises(ValueError, match="unknown probe class"):
        check_rewards(env, skip={"number": "typo"})
    env.reward_probe_exemptions = {"numbers": "numbers are the game here"}
    result = check_rewards(env, seeds=1)
    assert result.skipped == {"numbers": "numbers are the game here"}
    assert "numbers are the game here" in result.table()
    assert "numbers" not in {p.kind for p in result.probes}


def test_an_env_declares_its_own_probes():
    env = ToyEnv(None)
    secret = '<tool_call>{"name": "answer", "arguments": {"text": "%s"}}</tool_call>'
    env.reward_probes = lambda: [Probe("knows the answer", "candidates", lambda ctx: [
        ("cheat", [secret % ctx.env.task.data["answer"]])])]
    result = check_rewards(env, seeds=2, rare_seeds=2)
    assert [p.name for p in result.failures] == ["knows the answer"]


def test_a_probe_that_crashes_step_fails_with_its_error():
    class Crashy(ToyEnv):
        def _step(self, action):
            if isinstance(action, str) and "0 1 2 3" in action:
                raise RuntimeError("boom")
            return super()._step(action)

    result = check_rewards(Crashy(None), seeds=1, cheap=True)
    failed = {p.kind: p.reason for p in result.failures}
    assert "boom" in failed["numbers"]


def test_payloads_reach_an_enumerated_action_through_the_argument_that_names_it():
    from agentgym.testing.probes import ToolInfo

    tool = ToolInfo("computer", {
        "action_type": {"enum": ["MOVE_TO", "TYPING", "PRESS"]},
        "text": {"description": "Text to type (TYPING)."},
        "key": {"description": "Key name (PRESS, KEY_DOWN)."},
    }, ("action_type",))
    assert tool.call(text="kill -9 $PPID\n") == {"action_type": "TYPING",
                                                 "text": "kill -9 $PPID\n"}
    assert tool.call(key="Return")["action_type"] == "PRESS"
    assert tool.call() == {"action_type": "MOVE_TO"}
