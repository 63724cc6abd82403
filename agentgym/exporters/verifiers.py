"""``agentgym export verifiers ENV DIR``: ENV as an installable verifiers (v1) environment.

The package holds a ``vf.Taskset`` whose tasks are ENV's (the first observation as the prompt,
the env's instructions as the system prompt, written into ``tasks.json`` at export), a
``vf.Toolset`` whose tools are ENV's (their JSON schemas), verifiers' tool-less chat harness
(``null``) as its default, and ``load_environment(**kwargs)`` returning the verifiers env. It
plays the episodes on ``agentgym serve ENV --http`` (its HTTP session API): the task's
``setup`` opens a session on the task (``POST /reset``), each tool call is one ``POST /step``
with that call, and the reward steps the model's final reply (when the episode has not ended)
and pays the sum of the session's step rewards, so the reward is agentgym's own for the same
actions. The package needs only verifiers and httpx (it runs in verifiers' environment, not
agentgym's).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..errors import ConfigError


def package_name(env_id: str) -> str:
    """The Python package name of ENV's export (``sql/spider-lite-v0`` ->
    ``agentgym_sql_spider_lite_v0``)."""
    return "agentgym_" + re.sub(r"[^0-9a-zA-Z]+", "_", env_id).strip("_").lower()


def export_verifiers(env_id: str, folder: str | Path, *, split: str = "test",
                     url: str = "http://127.0.0.1:8000", overwrite: bool = False) -> Path:
    """Write ENV's verifiers package into ``folder``; return it."""
    from ..registry import make

    out = Path(folder)
    if out.exists() and any(out.iterdir()) and not overwrite:
        raise ConfigError(f"{out} is not empty (pass overwrite=True / --overwrite)")
    env = make(env_id, split=split)
    try:
        base: Any = env.unwrapped
        task_set = getattr(base, "task_set", None)
        if task_set is None:
            raise ConfigError(f"{env_id} has no task set to export")
        tasks = []
        for task in task_set:
            obs, _ = env.reset(options={"task_id": task.task_id})
            tasks.append({"task_id": task.task_id, "prompt": obs["text"]})
        data = {"env_id": base.agentgym_spec.id, "split": split, "url": url,
                "instructions": base.instructions, "tools": base.tools.to_openai(),
                "tasks": tasks}
    finally:
        env.close()
    name = package_name(data["env_id"])
    pkg = out / name
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "tasks.json").write_text(json.dumps(data, indent=1), encoding="utf-8")
    (pkg / "__init__.py").write_text(_PACKAGE.replace("__ENV_ID__", data["env_id"])
                                     .replace("__PACKAGE__", name), encoding="utf-8")
    (pkg / "tools.py").write_text(_TOOLS, encoding="utf-8")
    (out / "pyproject.toml").write_text(_PYPROJECT.format(dist=name.replace("_", "-"),
                                                          pkg=name, env=data["env_id"]),
                                        encoding="utf-8")
    (out / "README.md").write_text(_README.format(pkg=name, env=data["env_id"], url=url,
                                                  n=len(tasks), split=split), encoding="utf-8")
    return out


_PYPROJECT = """[project]
name = "{dist}"
version = "0.1.0"
description = "agentgym's {env} as a verifiers environment (played on `agentgym serve`)."
requires-python = ">=3.11"
dependencies = ["verifiers>=0.4,<0.5", "httpx"]

[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[tool.setuptools]
packages = ["{pkg}"]

[tool.setuptools.package-data]
{pkg} = ["tasks.json"]
"""

_README = """# {pkg}

agentgym's `{env}` ({n} tasks of its `{split}` split) as a verifiers (v1) environment, written
by `agentgym export verifiers`. Episodes run on agentgym's server:

```bash
agentgym serve {env} --http --port 8000 &        # {url}
pip install -e .                                 # in verifiers' environment
vf-eval {pkg} --env.agent.runtime.type subprocess -m MODEL --client.base-url URL
```

`--env.taskset.task.tools.agentgym-url` points at another server; `load_environment(url=...)`
returns the env.
The reward is the sum of the agentgym session's step rewards for the model's tool calls and
its final reply.
"""

_PACKAGE = '''"""agentgym's __ENV_ID__ as a verifiers (v1) env (``agentgym export verifiers``).

Episodes run on ``agentgym serve __ENV_ID__ --http``: ``setup`` opens a session on the task, each
tool call is one ``POST /step``, and the reward is the sum of the session's step rewards once
the model's final reply (when the episode is still open) was stepped too.
"""

from typing import Any

import verifiers.v1 as vf
from verifiers.v1.harnesses.null import NullHarness

from .tools import DATA, AgentgymState, AgentgymToolset, AgentgymToolsetConfig, _act, _post

__all__ = ["AgentgymHarness", "AgentgymTaskset", "load_environment"]


class AgentgymData(vf.TaskData):
    task_id: str


class AgentgymTaskConfig(vf.TaskConfig):
    tools: AgentgymToolsetConfig = AgentgymToolsetConfig()


class AgentgymTask(vf.Task[AgentgymData, AgentgymState, AgentgymTaskConfig]):
    @classmethod
    def toolsets(cls, config: AgentgymTaskConfig) -> list:
        return [AgentgymToolset(config.tools)]

    async def setup(self, trace: vf.Trace, runtime: vf.Runtime) -> None:
        reply = _post(self.config.tools.agentgym_url, "/reset",
                      {"task_id": self.data.task_id, "split": DATA["split"]})
        trace.state.session_id = str(reply["metadata"]["session_id"])

    @vf.reward
    async def agentgym(self, trace: vf.Trace) -> float:
        state = trace.state
        url = self.config.tools.agentgym_url
        if state.session_id:
            if not state.done:
                _act(url, state, {"content": trace.last_reply})
            _post(url, "/close", {"session_id": state.session_id})
        return sum(state.rewards)


class AgentgymTasksetConfig(vf.TasksetConfig):
    task: AgentgymTaskConfig = AgentgymTaskConfig()


class AgentgymTaskset(vf.Taskset[AgentgymTask, AgentgymTasksetConfig]):
    def load(self):
        for row in DATA["tasks"]:
            yield AgentgymTask(AgentgymData(prompt=row["prompt"], id=row["task_id"],
                                            system_prompt=DATA["instructions"] or None,
                                            task_id=row["task_id"]), self.config.task)


class AgentgymHarness(NullHarness):
    """verifiers' tool-less chat loop: the env's tools come from the toolset."""


def load_environment(url: str | None = None, **taskset: Any):
    """The verifiers env (``url``: another agentgym server)."""
    if url is not None:
        taskset["task"] = {"tools": {"agentgym_url": url}}
    return vf.load_environment(vf.resolve_env_config({"taskset": {"id": "__PACKAGE__",
                                                                  **taskset}}))

'''

_TOOLS = '''"""The env's tools as a verifiers tool server: a call is one agentgym session step."""

import inspect
import json
from pathlib import Path
from typing import Any

import httpx
import verifiers.v1 as vf

DATA = json.loads(Path(__file__).with_name("tasks.json").read_text(encoding="utf-8"))
TYPES = {"string": str, "integer": int, "number": float, "boolean": bool, "array": list,
         "object": dict}


class AgentgymState(vf.State):
    session_id: str = ""
    rewards: list[float] = []
    done: bool = False


def _post(url: str, path: str, body: dict) -> dict:
    reply = httpx.post(url.rstrip("/") + path, json=body, timeout=300)
    reply.raise_for_status()
    return reply.json()


def _act(url: str, state: AgentgymState, action: dict) -> str:
    """One agentgym step of the session; its observation's text."""
    if state.done or not state.session_id:
        return "The episode has ended."
    reply = _post(url, "/step", {"session_id": state.session_id, "action": action})
    state.rewards = [*state.rewards, float(reply.get("reward") or 0.0)]
    state.done = bool(reply.get("done"))
    return str((reply.get("observation") or {}).get("text", ""))


class AgentgymToolsetConfig(vf.ToolsetConfig):
    agentgym_url: str = DATA["url"]
    """The ``agentgym serve --http`` server (``url`` is verifiers' own: a running MCP server)."""


class AgentgymToolset(vf.Toolset[AgentgymToolsetConfig, AgentgymState]):
    TOOL_PREFIX = None  # the env's own tool names

    def register(self, mcp) -> None:
        for spec in DATA["tools"]:
            fn = spec["function"]
            mcp.add_tool(self._with_state(self._tool(fn["name"], fn.get("parameters") or {})),
                         name=fn["name"], description=fn.get("description") or None)

    def _tool(self, name: str, schema: dict):
        required = set(schema.get("required") or ())
        params = []
        for key, prop in (schema.get("properties") or {}).items():
            kind = TYPES.get(prop.get("type") if isinstance(prop, dict) else None, Any)
            params.append(inspect.Parameter(
                key, inspect.Parameter.KEYWORD_ONLY, annotation=kind if key in required
                else kind | None, default=inspect.Parameter.empty if key in required else None))

        def call(**arguments: Any) -> str:
            args = {k: v for k, v in arguments.items() if v is not None or k in required}
            return _act(self.config.agentgym_url, self.state, {"content": "", "tool_calls": [
                {"name": name, "arguments": args}]})

        call.__signature__ = inspect.Signature(params, return_annotation=str)
        call.__annotations__ = {**{p.name: p.annotation for p in params}, "return": str}
        call.__name__ = name
        return call


if __name__ == "__main__":  # verifiers starts a tool server with `python -m <its module>`
    AgentgymToolset.run()
'''


__all__ = ["export_verifiers", "package_name"]
