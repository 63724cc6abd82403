"""verifiers' environments as agentgym envs: ``make("verifiers:<taskset id>", **env_args)``.

verifiers (Prime Intellect's env library, v1 API: ``Taskset``, ``Task``, ``Toolset``,
``@vf.reward``) pins ``openai<3`` and ``mcp==2.0.0``, so it runs in ``.venv-verifiers``
(``make setup-verifiers``) and a worker process (:mod:`.verifiers_worker`), one per agentgym
process, started on first use (:mod:`.verifiers_client`). The
importer plays the episode turn by turn in agentgym's engine, as verifiers' tool-less chat
harness (``null``) would:

- **id and env_args**: the id is what verifiers' ``--env.taskset.id`` takes (an installed
  taskset module, ``owner/name@version`` of a hub env installed in ``.venv-verifiers``); the
  keyword arguments other than the importer's own (``split``, ``seed``, ``test_size``,
  ``max_tasks``, ``path``) are the taskset's config fields (``num_tasks=10``,
  ``task={...}``). ``path`` adds folders to the worker's ``sys.path`` (an env not installed).
- **tasks and splits**: the taskset's rows in ``load()`` order, a seeded shuffle
  (``seed``) puts ``test_size`` of them (a count, or a share: 0.2) in ``test`` and the rest in
  ``train``; a test row whose prompt is also in ``train`` is dropped. Task ids are
  ``<id>/<idx>``; ``reset(seed=s)`` draws a task of the split with the seed.
- **observation**: the row's prompt (its messages rendered as text); the instructions are the
  rows' shared ``system_prompt`` (a row with another one shows it above its prompt).
- **tools**: the task's and the taskset's ``Toolset`` methods (their MCP schemas, named
  ``<server>_<tool>`` as verifiers' harness names them), run in the worker. A tool's error
  (bad arguments, a raise) is the tool message the model reads, as in verifiers.
- **action**: tool calls run and the episode goes on; a reply without tool calls is the final
  reply (``trace.last_reply``) and ends the episode, as does a ``@vf.stop`` predicate on the
  trace. A malformed tool call is an error observation (the worker never sees it).
- **reward**: ``Task.score`` on the episode's verifiers ``Trace`` (the weighted sum of its
  ``@vf.reward`` functions; ``info["rewards"]``, ``info["metrics"]``); success is a reward of
  at least 1. A scorer that raises scores 0 with ``info["score_error"]``.
- **turn limit**: agentgym's (``max_turns``, :func:`agentgym.settings.resolve_max_turns`).
- **faults**: a worker that dies, hangs past :data:`WORKER_TIMEOUT_S` or loses the session ends
  the episode ``aborted`` with its reason (``reset`` raises
  :class:`~agentgym.InfrastructureError`); the next call starts a fresh worker.
- **refused**: an env with its own ``Env`` (several agents), its own harness, a task that needs
  a container or a runtime (``setup``/``finalize``, a reward with a ``runtime`` parameter) or
  judges is a :class:`~agentgym.errors.ConfigError` naming why, and naming the config to use
  when verifiers' own loop can play it instead.
- **verifiers' own loop** (``loop=True``): for an env with its own one-seat ``Env`` or its own
  harness, :mod:`.verifiers_agent` plays each episode in verifiers' loop through agentgym's
  gateway (``rollout_source: gateway``, :data:`LOOP_CONFIG`); this env is then the trusted
  scorer: the trainer's ``reward: env`` replays the model's recorded turns in it (the task's
  ``Toolset``s re-run in the worker, ``Task.score`` on the rebuilt trace), so nothing the agent's
  process reports is trusted. ``harness=`` names the agent's harness (the agent program's
  ``--harness``). Still refused: tasks that need a container or runtime, judges, several seats,
  an ``Env.finalize``, a harness that executes the model's code (docs/interop.md).
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import random
import re
from pathlib import Path
from typing import Any

from agentgym import InfrastructureError, Task, TaskSet, TaskToolEnv, parse_tool_calls
from agentgym.env import StepResult, make_observation
from agentgym.errors import ConfigError, EnvNotFound, ResetNeeded
from agentgym.serve.client import SchemaTool

from . import verifiers_client
from .verifiers_client import VerifiersWorkerError, worker

ID_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*(/[A-Za-z0-9_.\-]+)?(@[A-Za-z0-9_.\-+]+)?$")
MAX_ACTION_CHARS = 200_000
"""A longer reply is refused with an error observation (never sent to the worker)."""
TOOL_NOTE = ("Call the tools to act; a reply without a tool call is your final answer and "
             "ends the episode.")


def check_id(ident: str) -> str:
    """``ident`` when it reads as a verifiers taskset id, else :class:`EnvNotFound`."""
    if not ID_RE.match(ident):
        raise EnvNotFound(f"verifiers:{ident}: expected an installed taskset module or a hub "
                          "id (owner/name[@version])")
    return ident


def _spec(ident: str, env_args: dict[str, Any], path: Any, max_tasks: int | None,
          loop: bool = False, harness: str = "") -> str:
    folders = [path] if isinstance(path, str | Path) else list(path or ())
    spec: dict[str, Any] = {"id": ident, "env_args": env_args, "max_tasks": max_tasks,
                            "path": [str(Path(p).resolve()) for p in folders]}
    if loop:
        spec.update(loop=True, harness=str(harness or ""))
    elif harness:
        raise ConfigError("harness= is the agent's harness in verifiers' own loop: it needs "
                          "loop=True")
    return json.dumps(spec, sort_keys=True, default=str)


LOOP_CONFIG = "configs/gateway_verifiers_solver_cpu.yaml"
"""The example config of verifiers' own loop through the gateway (docs/interop.md)."""
_AGENT = ".venv-verifiers/bin/python -P envs/imported/verifiers_agent.py"  # its agent program


def _refused(ident: str, error: str, loop_refusal: str, loop: bool) -> ConfigError:
    if loop:
        return ConfigError(f"verifiers:{ident} cannot be scored from the model's recorded turns "
                           f"in verifiers' own loop: {error}; it is not supported "
                           "(docs/interop.md, verifiers)")
    if loop_refusal:
        return ConfigError(f"verifiers:{ident} cannot run turn by turn: {error}; nor in "
                           f"verifiers' own loop through agentgym's gateway: {loop_refusal} "
                           "(docs/interop.md, verifiers)")
    return ConfigError(
        f"verifiers:{ident} cannot run turn by turn: {error}; run it in verifiers' own loop "
        f"through agentgym's gateway: agentgym train {LOOP_CONFIG} env=verifiers:{ident} "
        "(env_kwargs: {loop: true, ...}), or evaluate it there: agentgym eval verifiers:"
        f"{ident} --env-arg loop=true --agent '{_AGENT}' --no-mcp (docs/interop.md, verifiers)")


@functools.lru_cache(maxsize=32)
def _load(spec: str) -> dict[str, Any]:
    """The worker's ``load`` reply for ``spec`` (cached: every env instance shares it)."""
    reply = worker().request({"op": "load", "spec": json.loads(spec)})
    if not reply.get("ok"):
        ident = json.loads(spec)["id"]
        error = str(reply.get("error"))
        if reply.get("refused"):
            raise _refused(ident, error, str(reply.get("loop_refusal") or ""),
                           bool(json.loads(spec).get("loop")))
        if "ModuleNotFoundError" in error or "not found" in error:
            raise EnvNotFound(f"verifiers:{ident}: {error}")
        raise ConfigError(f"verifiers:{ident}: {error}")
    return reply


def _render(row: dict[str, Any], instructions: str) -> str:
    """A row's prompt as text: one user message is its text; several are labelled."""
    parts = []
    system = row.get("system_prompt")
    if system and system != instructions:
        parts.append(str(system))
    messages = row.get("messages") or []
    if len(messages) == 1 and messages[0].get("role") == "user":
        parts.append(str(row.get("prompt_text") or ""))
    else:
        for m in messages:
            content = m.get("content")
            text = content if isinstance(content, str) else json.dumps(content)
            parts.append(f"[{m.get('role')}] {text}")
    return "\n\n".join(p for p in parts if p)


def _test_count(test_size: float, n: int) -> int:
    if isinstance(test_size, bool) or not isinstance(test_size, int | float) or test_size < 0:
        raise ConfigError(f"test_size must be a count or a share in [0, 1), got {test_size!r}")
    if isinstance(test_size, float) and test_size < 1:
        return min(n - 1, max(1, round(n * test_size))) if n > 1 and test_size > 0 else 0
    return min(int(test_size), max(n - 1, 0))


def load_tasks(ident: str, seed: int = 0, test_size: float = 0.2, max_tasks: int | None = None,
               path: Any = (), loop: bool = False, harness: str = "",
               **env_args: Any) -> TaskSet:
    """The task set of verifiers' ``ident`` (see the module docstring for the splits)."""
    check_id(ident)
    reply = _load(_spec(ident, env_args, path, max_tasks, bool(loop), harness))
    return _task_set(ident, reply["tasks"], int(seed), test_size)


def _task_set(ident: str, rows: list[dict[str, Any]], seed: int, test_size: float) -> TaskSet:
    order = list(range(len(rows)))
    random.Random(f"verifiers-split-{seed}").shuffle(order)
    test = set(order[:_test_count(test_size, len(rows))])
    train_prompts = {json.dumps(r["messages"]) for i, r in enumerate(rows) if i not in test}
    tasks = []
    for i, row in enumerate(rows):
        split = "test" if i in test else "train"
        if split == "test" and json.dumps(row["messages"]) in train_prompts:
            continue
        tasks.append(Task(f"{ident}/{row['idx']}", split, row.get("prompt_text") or "",
                          {"row": row}))
    return TaskSet(tasks, name=f"verifiers:{ident}")


class VerifiersEnv(TaskToolEnv):
    """One verifiers taskset, each episode a verifiers trace kept in the worker."""

    _sessions = itertools.count(1)

    def __init__(self, ident: str, split: str = "train", seed: int = 0,
                 test_size: float = 0.2, max_tasks: int | None = None, path: Any = (),
                 loop: bool = False, harness: str = "", **env_args: Any) -> None:
        self.ident = check_id(ident)
        self.loop = bool(loop)
        """The episodes run in verifiers' own loop (:mod:`.verifiers_agent`); this env replays
        the model's recorded turns to score them."""
        self._spec = _spec(ident, env_args, path, max_tasks, self.loop, harness)
        reply = _load(self._spec)
        self._schema_tools = [SchemaTool.from_openai(t) for t in reply.get("tools") or ()]
        systems = {r.get("system_prompt") or "" for r in reply["tasks"]}
        self._system = systems.pop() if len(systems) == 1 else ""
        self.instructions = "\n\n".join(p for p in (
            self._system, TOOL_NOTE if self._schema_tools else "") if p)
        self._session: str | None = None
        super().__init__(_task_set(ident, reply["tasks"], int(seed), test_size), split)

    def make_tools(self) -> list[Any]:
        """The verifiers tool servers' tools, by schema (they run in the worker)."""
        return list(self._schema_tools)

    def _request(self, message: dict[str, Any]) -> dict[str, Any]:
        reply = worker().request(message)
        if not reply.get("ok"):
            raise VerifiersWorkerError(f"verifiers worker: {reply.get('error')}"[:800])
        return reply

    def start(self, task: Task) -> str:
        """Open the episode's trace in the worker and show the prompt."""
        self._end_session()
        session = f"{os.getpid()}-{next(self._sessions)}"
        row = task.data["row"]
        self._request({"op": "start", "spec": json.loads(self._spec), "session": session,
                       "idx": row["idx"]})
        self._session = session
        return _render(row, self._system)

    def expert_actions(self, task: Task) -> list[str]:
        """The row's ``expert_actions`` field, else its ``answer`` field as the final reply
        (``--policy scripted``); none when the row has neither."""
        data = task.data["row"].get("data") or {}
        if isinstance(data.get("expert_actions"), list):
            return [str(a) for a in data["expert_actions"]]
        return [str(data["answer"])] if "answer" in data else []

    def _step(self, action: Any) -> StepResult:
        if self.done or self.task is None:
            raise ResetNeeded("call reset() before step(); the episode has ended")
        self.turn += 1
        info = self._info()
        try:
            calls = parse_tool_calls(action)
        except Exception as e:  # a malformed call is the model's mistake
            info["error"] = f"cannot read the tool call: {e}"[:500]
            return make_observation(f"Error: {info['error']}"), 0.0, False, False, info
        if not isinstance(action, str | dict) and not calls:
            info["error"] = f"an action is text or tool calls, not {type(action).__name__}"
            return make_observation(f"Error: {info['error']}"), 0.0, False, False, info
        content = action if isinstance(action, str) else str(
            action.get("content") or "") if isinstance(action, dict) else ""
        size = len(content) + sum(len(json.dumps(c.arguments, default=str)) for c in calls)
        if size > MAX_ACTION_CHARS:
            info["error"] = f"the reply is {size} characters long; at most {MAX_ACTION_CHARS}"
            return make_observation(f"Error: {info['error']}"), 0.0, False, False, info
        wire = [{"id": c.id or f"call_{self.turn}_{i}", "name": c.name,
                 "arguments": c.arguments} for i, c in enumerate(calls[:self.max_calls_per_turn])]
        try:
            reply = self._request({"op": "step", "session": self._session, "content": content,
                                   "tool_calls": wire})
        except InfrastructureError as e:
            self._session = None
            return self.abort(str(e)[:800])
        results = reply.get("results") or []
        texts = [str(r.get("content")) for r in results]
        errors = [t for r, t in zip(results, texts, strict=True) if r.get("is_error")]
        if len(calls) > self.max_calls_per_turn:
            texts.append("Error: too many tool calls in one turn")
            errors.append(texts[-1])
        if errors:
            info["error"] = "; ".join(errors)[:500]
        text = "\n\n".join(texts)
        if not reply.get("done"):
            return make_observation(text), 0.0, False, False, info
        self._session = None
        reward = float(reply.get("reward") or 0.0)
        self.finish(reward, success=reward >= 1.0, answer=content[:2000],
                    rewards=reply.get("rewards") or {}, metrics=reply.get("metrics") or {},
                    stop=reply.get("stop"),
                    **({"score_error": reply["score_error"]} if "score_error" in reply else {}))
        info.update(self.outcome)
        info["success"] = bool(self.outcome["success"])
        return make_observation(text or f"The episode ended ({reply.get('stop')})."), \
            self.reward, True, False, info

    def _end_session(self) -> None:
        session, self._session = self._session, None
        live = verifiers_client.VERIFIERS.current()
        if session is not None and live is not None and live.alive:  # a dead one kept none
            try:
                live.request({"op": "end", "session": session})
            except InfrastructureError:  # the worker is gone: its sessions went with it
                pass

    def close(self) -> None:
        """End the open episode's session in the worker (the worker stays for others)."""
        self._end_session()
        super().close()


def make_env(ident: str, **kwargs: Any) -> VerifiersEnv:
    """``make("verifiers:<id>", **kwargs)``'s factory."""
    return VerifiersEnv(ident, **kwargs)


__all__ = ["VerifiersEnv", "check_id", "load_tasks", "make_env"]
