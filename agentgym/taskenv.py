"""A base for task-driven tool environments: pick a task, answer tool calls, score on finish.

Most families (SQL, code, search, text games) share one loop: ``reset`` picks a task from a split
and shows it, each ``step`` parses the model's tool calls, runs them and renders the results, and
a final tool (``submit``, ``answer``) ends the episode with a reward. :class:`TaskToolEnv` owns
that loop once, including the rule that bad input never raises out of ``step``: unparseable text,
unknown tools, invalid arguments and tool crashes all become error observations.

It also owns the infrastructure rule (:class:`agentgym.errors.InfrastructureError`): a tool that
raises one is retried once when the error is ``retryable``; otherwise, or when the retry fails
too, the episode ends with ``truncated=True``, reward 0, ``info["aborted"] = True`` and
``info["abort_reason"]``, which the rollout engine records as an aborted episode. A tool that
raises a fault of the runtime (:data:`agentgym.errors.RUNTIME_FAULTS`: no such backend, a missing
extra, a sandbox that cannot start) aborts the same way: only the model's own bad input (a
:class:`~agentgym.errors.ToolError`, a failed run of its code) is answered as an error.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import types
from collections.abc import Callable
from typing import Any

from .env import AgentEnv, Observation, StepResult, make_observation
from .errors import (
    ForkError,
    InfrastructureError,
    ResetNeeded,
    TaskError,
    ToolError,
    is_runtime_fault,
)
from .tasks import Task, TaskSet
from .toolcalls import ToolCall, ToolResult, parse_tool_calls
from .tools import Tool, ToolSet

logger = logging.getLogger(__name__)

MAX_RESULT_CHARS = 4000


class TaskToolEnv(AgentEnv):
    """Base class for envs whose episodes are one task solved through tool calls.

    Subclasses implement :meth:`make_tools`, :meth:`start` and call :meth:`finish` from their final
    tool. They may override :meth:`parse_action` to accept an extra text protocol.
    """

    max_calls_per_turn: int = 8
    """Calls beyond this many in one turn are answered with an error."""
    infra_retries: int = 1
    """Repeats of a tool call that raised a ``retryable`` :class:`InfrastructureError`."""
    fork_fields: tuple[str, ...] | None = None
    """Fields of a subclass's own that change within an episode (beyond the task, turn, reward
    and outcome every task env has): a subclass that sets this (``()`` when it has none) is
    forked by copying its state (:meth:`fork_state`); None = forked by replay."""
    _FORK_BASE = ("task", "done", "reward", "turn", "outcome", "_np_random")

    def __init__(self, tasks: TaskSet, split: str = "train") -> None:
        super().__init__()
        self.split = split
        self.task_set = tasks.split(split)
        self.tools = ToolSet(self.make_tools())
        self.task: Task | None = None
        self.done = True
        self.reward = 0.0
        self.turn = 0
        self.outcome: dict[str, Any] = {}

    # -- forking (agentgym.fork) ---------------------------------------------------------------

    def fork_state(self) -> dict[str, Any]:
        """A deep copy of the episode's state: the base fields and :attr:`fork_fields`."""
        names = self._FORK_BASE + tuple(self.fork_fields or ())
        return {name: copy.deepcopy(getattr(self, name)) for name in names if hasattr(self, name)}

    def load_fork_state(self, state: dict[str, Any]) -> None:
        """Take a :meth:`fork_state` (on a clone: :meth:`fork_clone`)."""
        for name, value in state.items():
            setattr(self, name, value)

    def fork_clone(self) -> TaskToolEnv:
        """A copy of this env in its current state, without building a new one.

        The copy shares what an episode only reads (the task set, configuration, executors of
        read-only databases) and owns a deep copy of what it changes (:meth:`fork_state`), its
        own tool set bound to itself (tools added by :func:`agentgym.make` carried over) and no
        event loop. Only envs that declare :attr:`fork_fields` are cloned this way.
        """
        child = copy.copy(self)
        child._loop = child._loop_thread = None
        own = ToolSet()
        for t in self.tools:  # the same schemas; methods of this env rebound to the copy
            fn = t.function
            if getattr(fn, "__self__", None) is self:
                fn = types.MethodType(fn.__func__, child)  # type: ignore[attr-defined]
            elif any(getattr(c, "cell_contents", None) is self
                     for c in getattr(fn, "__closure__", None) or ()):
                raise ForkError(f"tool {t.name!r} of {type(self).__name__} is a closure over "
                                "the env: a clone would act on the parent; use a method")
            own.add(dataclasses.replace(t, function=fn))
        child.tools = own
        child.load_fork_state(self.fork_state())  # fork_state is a deep copy already
        return child

    # -- for subclasses ----------------------------------------------------------------------

    def make_tools(self) -> list[Tool | Callable[..., Any]]:
        """Tools of this env, usually bound methods with typed signatures and docstrings."""
        return []

    def start(self, task: Task) -> str:
        """Prepare ``task`` and return the first observation's text."""
        raise NotImplementedError

    def parse_action(self, action: Any) -> list[ToolCall]:
        """Turn the model's action into tool calls (default: the standard tool-call formats)."""
        return parse_tool_calls(action)

    def no_call_message(self) -> str:
        """Observation shown when a turn holds no tool call."""
        names = ", ".join(self.tools.names())
        return (
            "Error: no tool call found. Call exactly one tool per turn, for example "
            f'<tool_call>{{"name": "<tool>", "arguments": {{...}}}}</tool_call>. Tools: {names}.'
        )

    def finish(self, reward: float, **outcome: Any) -> None:
        """End the episode with ``reward``; ``outcome`` is merged into the final ``info``."""
        self.done = True
        self.reward = float(reward)
        self.outcome = outcome

    # -- the loop ----------------------------------------------------------------------------

    def select_task(self, options: dict[str, Any]) -> Task:
        """``options["task_id"]``, else ``options["index"]``, else a task drawn with the seed."""
        if not len(self.task_set):
            raise TaskError(f"split {self.split!r} has no tasks")
        if "task_id" in options:
            return self.task_set.get(str(options["task_id"]))
        if "index" in options:
            return self.task_set[int(options["index"]) % len(self.task_set)]
        return self.task_set[int(self.np_random.integers(len(self.task_set)))]

    def _info(self) -> dict[str, Any]:
        return {
            "task_id": self.task.task_id if self.task else None,
            "split": self.split,
            "turn": self.turn,
        }

    def _reset(self, options: dict[str, Any]) -> tuple[Observation, dict[str, Any]]:
        self.task = self.select_task(options)
        self.done = False
        self.reward = 0.0
        self.turn = 0
        self.outcome = {}
        text = self.start(self.task)
        return make_observation(text), self._info()

    def _run_call(self, call: ToolCall) -> ToolResult:
        """Run one call; an :class:`InfrastructureError` propagates after the allowed retries."""
        attempt = 0
        while True:
            try:
                return self._call_once(call)
            except InfrastructureError as e:
                if not e.retryable or attempt >= self.infra_retries:
                    raise
                attempt += 1
                logger.warning("tool %r: %s; retrying", call.name, e)

    def abort(self, reason: str) -> StepResult:
        """End the episode as aborted (not the model's failure) and build the step's result."""
        self.done = True
        self.reward = 0.0
        self.outcome = {}
        info = self._info()
        info.update(aborted=True, abort_reason=reason, truncated_reason=f"aborted: {reason}")
        logger.warning("episode of task %s aborted: %s", info["task_id"], reason)
        text = f"The episode was aborted because of an infrastructure failure: {reason}"
        return make_observation(text), 0.0, False, True, info

    def _call_once(self, call: ToolCall) -> ToolResult:
        try:
            out = self.tools.get(call.name)(call.arguments)
            return ToolResult(call.id, call.name, _render(out))
        except InfrastructureError:
            raise
        except ToolError as e:
            return ToolResult(call.id, call.name, f"Error: {e}", is_error=True)
        except Exception as e:  # a tool bug must not end the run
            if is_runtime_fault(e):  # no backend, no extra, a dead sandbox: not the model's
                raise InfrastructureError(f"{type(e).__name__}: {e}") from e
            logger.exception("tool %r crashed", call.name)
            return ToolResult(
                call.id, call.name, f"Error: tool {call.name!r} failed: {type(e).__name__}: {e}",
                is_error=True,
            )

    def _step(self, action: Any) -> StepResult:
        if self.done or self.task is None:
            raise ResetNeeded("call reset() before step(); the episode has ended")
        self.turn += 1
        info = self._info()
        try:
            calls = self.parse_action(action)
        except ToolError as e:
            info["error"] = str(e)
            return make_observation(f"Error: {e}"), 0.0, False, False, info
        except Exception as e:  # a parser bug must not end the run
            logger.exception("action parser crashed")
            info["error"] = f"{type(e).__name__}: {e}"
            return make_observation(f"Error: cannot parse action: {e}"), 0.0, False, False, info
        if not calls:
            info["error"] = "no tool call"
            return make_observation(self.no_call_message()), 0.0, False, False, info
        results = []
        for i, call in enumerate(calls):
            if self.done:
                break
            if i >= self.max_calls_per_turn:
                results.append(
                    ToolResult(call.id, call.name, "Error: too many tool calls in one turn", True)
                )
                continue
            try:
                results.append(self._run_call(call))
            except InfrastructureError as e:
                return self.abort(f"{type(e).__name__}: {e}"[:500])
        info["tool_results"] = results
        if any(r.is_error for r in results):
            info["error"] = "; ".join(r.content for r in results if r.is_error)[:500]
        text = "\n\n".join(r.content for r in results)
        reward = 0.0
        if self.done:
            info.update(self.outcome)
            info["success"] = bool(self.outcome.get("success", self.reward >= 1.0))
            reward = self.reward
        return make_observation(text), reward, self.done, False, info


def _render(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    if len(text) > MAX_RESULT_CHARS:
        text = text[:MAX_RESULT_CHARS] + f"\n... [truncated {len(text) - MAX_RESULT_CHARS} chars]"
    return text
