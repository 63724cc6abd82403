"""The worker that plays verifiers' environments turn by turn, with verifiers' own classes.

verifiers pins ``openai<3`` and ``mcp==2.0.0``, which the project's ``.venv`` does not meet, so
it lives in ``.venv-verifiers`` (``make setup-verifiers``) and this file runs there as a script
(``python -P verifiers_worker.py``), importing only the standard library, verifiers and its
siblings :mod:`verifiers_session` (one episode) and :mod:`verifiers_agent` (what verifiers'
own loop can play with a sound reward).
:mod:`.verifiers_env` starts it (through the JSON-lines worker of the WebArena-Verified scorer)
and speaks to it.

Protocol: one JSON object a line on stdin, one JSON reply a line on stdout (verifiers' own
output goes to stderr). Every request names its env by ``spec`` (``{"id", "env_args",
"path", "max_tasks"}``, and ``"loop": true`` with the agent's ``"harness"`` for an env whose
episodes verifiers' own loop plays through the gateway: this worker then only replays the
model's recorded turns to score them, and refuses only what that replay cannot score soundly),
so a restarted worker loads it again.
Requests:

- ``{"op": "ping"}`` -> ``{"ok": true, "version": "0.4.0"}``;
- ``{"op": "load", "spec": ...}`` -> ``{"ok": true, "tasks": [...], "tools": [OpenAI tool
  schemas], "env": "<Env class>"}``, or ``{"ok": false, "error", "refused": true,
  "loop_refusal"}`` for an env that cannot run turn by turn (why, in the error; why it cannot
  run in verifiers' loop either, in ``loop_refusal``, empty when it can);
- ``{"op": "start", "spec": ..., "session": "s1", "idx": 3}``: a trace for task 3, the task's
  tool servers (its ``Toolset`` methods, served in-process) set up;
- ``{"op": "step", "session": "s1", "content": "...", "tool_calls": [{"id", "name",
  "arguments"}]}`` -> ``{"ok": true, "results": [{"id", "name", "content", "is_error"}],
  "done": bool, "stop": ..., "reward": float, "rewards": {...}, "metrics": {...}}``: the
  model's message joins the trace; its tool calls run; a message without tool calls (or a
  ``@vf.stop`` predicate that fires) ends the episode, which the task's ``@vf.reward`` and
  ``@vf.metric`` functions score (``Task.score`` on the trace, as verifiers' rollout does);
- ``{"op": "end", "session": "s1"}``: tear the session's tool servers down.

A request that fails gets ``{"ok": false, "error": "..."}``; the worker goes on. An unknown
session (a restarted worker) answers ``"lost": true``.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # its sibling, run with -P
from verifiers_agent import config as loop_config  # noqa: E402
from verifiers_agent import loop_refusal  # noqa: E402
from verifiers_session import Session, _vf  # noqa: E402

MAX_LINE = 16 * 1024 * 1024
"""The longest request read."""


def _key(spec: dict[str, Any]) -> str:
    return json.dumps(spec, sort_keys=True)


def _overrides(obj: Any, name: str) -> bool:
    """Whether ``obj``'s class overrides verifiers' ``Task.<name>``."""
    from verifiers.v1.task import Task

    return getattr(type(obj), name) is not getattr(Task, name)


def _needs_runtime(fn: Any) -> bool:
    param = inspect.signature(fn).parameters.get("runtime")
    return param is not None and param.default is inspect.Parameter.empty


class Loaded:
    """One verifiers env loaded from its spec: the taskset, its tasks and why it may not run."""

    def __init__(self, spec: dict[str, Any]) -> None:
        vf = _vf()
        for folder in spec.get("path") or ():
            if folder not in sys.path:
                sys.path.insert(0, str(folder))
        from verifiers.v1.envs.single_agent import SingleAgentEnv
        from verifiers.v1.utils.loaders import default_harness_id, environment_class

        ident = str(spec["id"])
        env_args = dict(spec.get("env_args") or {})
        config = vf.resolve_env_config({"taskset": {"id": ident, **env_args}})
        env_cls = environment_class(ident, config.id)
        self.refusal = ""
        """Why the env cannot run turn by turn (empty: it can)."""
        try:
            self.loop_refusal = loop_refusal(ident, env_cls, loop_config(
                ident, env_args, str(spec.get("harness") or ""), None))
        except Exception as e:  # the turn-by-turn importer must not fail on the loop's check
            self.loop_refusal = f"its loop config does not resolve: {type(e).__name__}: {e}"
        """Why verifiers' own loop through the gateway cannot be scored soundly (empty: it can)."""
        if not issubclass(env_cls, SingleAgentEnv):
            self.refusal = (f"{ident} brings its own Env ({env_cls.__name__}: several agents or "
                            "its own episode loop)")
        harness = default_harness_id(ident)
        if not self.refusal and harness not in ("bash", "null"):
            self.refusal = f"{ident} ships its own harness ({harness}), a program of its own"
        self.taskset = vf.load_taskset(config.taskset)
        limit = spec.get("max_tasks")
        if self.taskset.INFINITE and limit is None:
            raise ValueError(f"{ident}'s taskset is infinite: pass max_tasks=N")
        self.tasks: list[Any] = []
        for task in self.taskset:
            if limit is not None and len(self.tasks) >= int(limit):
                break
            self.tasks.append(task)
        if self.tasks:
            self.loop_refusal = self.loop_refusal or self._task_refusal(self.tasks[0])
            self.refusal = self.refusal or self._task_refusal(self.tasks[0])
        if spec.get("loop"):  # episodes played by verifiers' loop, scored here by replay
            self.refusal = self.loop_refusal
        self.env_name = env_cls.__name__

    @staticmethod
    def _task_refusal(task: Any) -> str:
        name = type(task).__name__
        if getattr(task, "NEEDS_CONTAINER", False):
            return f"{name} needs a container (NEEDS_CONTAINER)"
        for hook in ("setup", "finalize", "stage_verifier"):
            if _overrides(task, hook):
                return f"{name} has its own {hook}() (it prepares a runtime)"
        for attr in ("reward", "metric"):
            for fn in task.hooks(attr):
                if _needs_runtime(fn):
                    return f"{name}'s {attr} {fn.__name__} needs a runtime"
        if task.config.judges:
            return f"{name} is scored by judges (a model of their own)"
        return ""

    def row(self, task: Any) -> dict[str, Any]:
        """The task as the importer shows it (its data as JSON, the prompt's messages)."""
        data = task.data.model_dump(mode="json", exclude_none=True)
        prompt = task.data.prompt
        messages = ([{"role": "user", "content": prompt}] if isinstance(prompt, str)
                    else [m.model_dump(mode="json", exclude_none=True) for m in prompt or []])
        return {"idx": task.data.idx, "id": task.data.id, "name": task.data.name,
                "system_prompt": task.data.system_prompt, "messages": messages,
                "prompt_text": task.data.prompt_text, "key": task.key,
                "data": {k: v for k, v in data.items() if k not in ("prompt", "system_prompt")}}


class Worker:
    """The loaded envs (by spec) and the live sessions."""

    def __init__(self) -> None:
        self.loaded: dict[str, Loaded] = {}
        self.sessions: dict[str, Session] = {}

    def env(self, spec: dict[str, Any]) -> Loaded:
        key = _key(spec)
        if key not in self.loaded:
            self.loaded[key] = Loaded(spec)
        return self.loaded[key]

    async def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request.get("op")
        if op == "ping":
            import verifiers

            return {"ok": True, "version": verifiers.__version__}
        if op == "load":
            loaded = self.env(dict(request["spec"]))
            if loaded.refusal:
                return {"ok": False, "refused": True, "error": loaded.refusal,
                        "loop_refusal": loaded.loop_refusal}
            tools: list[dict[str, Any]] = []
            if loaded.tasks:
                probe = Session(loaded, loaded.tasks[0].data.idx)
                try:
                    await probe.open()
                    tools = probe.schemas
                finally:
                    await probe.close()
            return {"ok": True, "tasks": [loaded.row(t) for t in loaded.tasks],
                    "tools": tools, "env": loaded.env_name}
        if op == "start":
            loaded = self.env(dict(request["spec"]))
            if loaded.refusal:
                return {"ok": False, "refused": True, "error": loaded.refusal}
            sid = str(request["session"])
            old = self.sessions.pop(sid, None)
            if old is not None:
                await old.close()
            session = Session(loaded, int(request["idx"]))
            await session.open()
            self.sessions[sid] = session
            return {"ok": True}
        if op in ("step", "end"):
            sid = str(request.get("session"))
            if sid not in self.sessions:
                return {"ok": False, "lost": True, "error": f"no session {sid!r} in the worker"}
            if op == "end":
                await self.sessions.pop(sid).close()
                return {"ok": True}
            calls = request.get("tool_calls") or []
            return await self.sessions[sid].step(str(request.get("content") or ""), calls)
        return {"ok": False, "error": f"unknown op {op!r}"}


def main() -> None:
    """Answer requests until stdin closes."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    # the replies get their own copy of stdout; anything else written there (a tool's print, a
    # child process) goes to stderr instead of between the replies
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    worker = Worker()
    loop = asyncio.new_event_loop()
    for line in sys.stdin:
        if len(line) > MAX_LINE:
            reply: dict[str, Any] = {"ok": False, "error": "request too long"}
        else:
            try:
                request = json.loads(line)
                if not isinstance(request, dict):
                    raise ValueError("a request is a JSON object")
                reply = loop.run_until_complete(worker.handle(request))
            except Exception as e:  # one bad request must not end the worker
                logging.getLogger(__name__).exception("request failed")
                reply = {"ok": False, "error": f"{type(e).__name__}: {e}"[:2000]}
        replies.write(json.dumps(reply, default=str) + "\n")
        replies.flush()


if __name__ == "__main__":
    main()
