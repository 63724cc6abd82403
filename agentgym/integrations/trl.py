"""Use any agentgym env from TRL's ``GRPOTrainer`` through its ``environment_factory`` hook.

TRL (>= 1.0) runs multi-turn tool use itself: it renders the tools of an environment class in the
prompt, parses the model's tool calls, calls the matching methods and appends their results, then
asks the environment for the reward. :func:`trl_environment` builds such a class for an env id:

- one agentgym env per instance (``agentgym.make``, local or ``remote:http://...``);
- ``reset(**row)`` starts the episode named by the dataset row (``task_id``, else ``seed``) and
  returns the task text, which TRL appends to the row's prompt;
- one method per env tool, with the tool's typed signature and a Google-style docstring (TRL reads
  both to render the tool schema); a call is one env ``step`` with that tool call, and returns the
  observation text (errors too: a bad call is the model's mistake, shown to it);
- ``get_reward()``: the sum of the episode's rewards (0 until the episode scores), or None for an
  episode an infrastructure failure aborted (a dead env server, a crashed sandbox: the tool call
  says so and ends the episode), which TRL leaves out rather than scoring as the model's failure.

:func:`trl_dataset` gives the matching training set: one row per task with the env's
instructions as the prompt and the ``task_id`` column. TRL is imported lazily
(``pip install 'agentgym[bench]'``).

    >>> from trl import GRPOConfig, GRPOTrainer                          # doctest: +SKIP
    >>> trainer = GRPOTrainer(model, args=GRPOConfig(...),               # doctest: +SKIP
    ...     train_dataset=trl_dataset("sql"), environment_factory=trl_environment("sql"))
"""

from __future__ import annotations

import inspect
import keyword
from typing import Any

from ..env import AgentEnv
from ..errors import ToolSchemaError, missing_extra
from ..registry import make
from ..rollout.returns import EpisodeReturn
from ..toolcalls import ToolCall

_JSON_TYPES: dict[str, Any] = {
    "string": str, "integer": int, "number": float, "boolean": bool, "array": list, "object": dict,
}
_RESERVED = {"reset", "get_reward"}


def _python_type(schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    if isinstance(kind, list):  # ["string", "null"]
        kind = next((k for k in kind if k != "null"), "string")
    if kind is None and "anyOf" in schema:
        kinds = [s.get("type") for s in schema["anyOf"] if s.get("type") != "null"]
        kind = kinds[0] if kinds else "string"
    return _JSON_TYPES.get(str(kind), str)


def _tool_method(name: str, description: str, parameters: dict[str, Any]) -> Any:
    """A method ``name(self, **args)`` whose signature and docstring describe the tool."""
    props: dict[str, Any] = parameters.get("properties", {})
    required = set(parameters.get("required", []))
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    lines = [description or name, "", "Args:"]
    for arg, schema in props.items():
        if not arg.isidentifier() or keyword.iskeyword(arg):
            raise ToolSchemaError(f"tool {name!r}: argument {arg!r} is not a Python identifier")
        hint = _python_type(schema)
        annotations[arg] = hint
        default = inspect.Parameter.empty if arg in required else schema.get("default")
        params.append(inspect.Parameter(
            arg, inspect.Parameter.KEYWORD_ONLY, annotation=hint, default=default
        ))
        lines.append(f"    {arg}: {schema.get('description') or arg}")
    if not props:
        lines = lines[:-2]
    lines += ["", "Returns:", "    The environment's answer."]

    def method(self: TRLEnvironment, **arguments: Any) -> str:
        return self._call(name, arguments)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = "\n".join(lines)
    method.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    method.__annotations__ = {**annotations, "return": str}
    return method


class TRLEnvironment:
    """Base of the classes :func:`trl_environment` builds; one agentgym env per instance."""

    env_id: str = ""
    env_kwargs: dict[str, Any] = {}  # noqa: RUF012 - replaced per built class

    def __init__(self) -> None:
        self.env: AgentEnv = make(self.env_id, **self.env_kwargs)
        self.reward = 0.0
        self.done = True
        self.turns = 0
        self.aborted = ""
        """Why the episode was aborted (an infrastructure failure, never the model's), or ""."""
        self.returns = EpisodeReturn()

    def reset(self, **row: Any) -> str:
        """Start the episode of a dataset row (its ``task_id`` or ``seed``); returns the task."""
        options = {"task_id": str(row["task_id"])} if row.get("task_id") is not None else {}
        seed = row.get("seed")
        self.reward, self.done, self.turns, self.aborted = 0.0, False, 0, ""
        self.returns = EpisodeReturn()  # the one place an episode's return is summed
        try:
            obs, _ = self.env.reset(seed=int(seed) if seed is not None else None,
                                    options=options)
        except Exception as e:  # the env could not start: no task, no score
            return "\n\n" + self._abort(f"env reset failed: {type(e).__name__}: {e}")
        return "\n\n" + str(obs["text"])

    def _abort(self, reason: str) -> str:
        """End the episode as aborted (``get_reward`` is then None: TRL ignores the sample)."""
        self.done, self.aborted, self.reward = True, reason[:500], 0.0
        return f"Error: the environment failed ({self.aborted}); the episode has ended."

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        if self.done:
            return "Error: the episode has ended; no more tool calls are accepted."
        args = {k: v for k, v in arguments.items() if v is not None}
        try:
            obs, reward, terminated, truncated, info = self.env.step([ToolCall(name, args)])
        except Exception as e:  # a step never raises on bad input: the env itself failed
            return self._abort(f"env step failed: {type(e).__name__}: {e}")
        self.turns += 1
        if info.get("aborted"):  # the env reported an infrastructure failure
            return self._abort(f"infrastructure: {info.get('abort_reason', '')}")
        self.reward = self.returns.add(reward)
        self.done = bool(terminated or truncated)
        return str(obs["text"])

    def get_reward(self) -> float | None:
        """The episode's total reward so far (TRL calls this once per rollout); None when the
        episode was aborted by an infrastructure failure, which TRL turns into NaN and leaves
        out of the rewards rather than scoring it as the model's failure."""
        return None if self.aborted else self.reward


def trl_environment(env_id: str, **env_kwargs: Any) -> type[TRLEnvironment]:
    """A class for ``GRPOTrainer(environment_factory=...)`` playing ``env_id`` (see the module)."""
    probe = make(env_id, **env_kwargs)
    try:
        tools = list(getattr(probe, "tools", []) or [])
    finally:
        probe.close()
    namespace: dict[str, Any] = {"env_id": env_id, "env_kwargs": dict(env_kwargs)}
    for tool in tools:
        if tool.name in _RESERVED or tool.name.startswith("_") or not tool.name.isidentifier():
            raise ToolSchemaError(f"tool {tool.name!r} of {env_id} cannot be a TRL method name")
        namespace[tool.name] = _tool_method(tool.name, tool.description, tool.parameters)
    class_name = "".join(p.capitalize() for p in env_id.replace("/", "-").split("-") if p.isalnum())
    return type(f"{class_name or 'Agentgym'}Environment", (TRLEnvironment,), namespace)


def trl_dataset(
    env_id: str, split: str = "train", *, limit: int | None = None, **env_kwargs: Any
) -> Any:
    """A ``datasets.Dataset`` with one row per task: ``prompt`` (instructions) and ``task_id``."""
    try:
        import datasets
    except ImportError as e:
        raise missing_extra("datasets", "bench") from e
    remote = env_id.startswith("remote:")
    env = make(env_id, **env_kwargs) if remote else make(env_id, split=split, **env_kwargs)
    try:
        instructions = env.instructions
        task_set = getattr(env.unwrapped, "task_set", None)
        ids = list(task_set.ids()) if task_set is not None else []
    finally:
        env.close()
    ids = ids[:limit] if limit is not None else ids
    prompt = [{"role": "user", "content": instructions}]
    return datasets.Dataset.from_dict({"prompt": [prompt] * len(ids), "task_id": ids})


__all__ = ["TRLEnvironment", "trl_dataset", "trl_environment"]
