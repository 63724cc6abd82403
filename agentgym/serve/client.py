"""A served env that looks local: :class:`RemoteEnv` and ``make("remote:http://host:port/ENV")``.

:class:`RemoteEnv` is an :class:`~agentgym.AgentEnv` whose episodes run on an
``agentgym serve ENV --http`` server over one WebSocket session. Tools and instructions come from
the server's ``/metadata``, task ids from ``/tasks``, so the rollout engine, ``agentgym eval`` and
the trainer use it like any env. It is async-native; the sync ``reset``/``step`` run it on the
env's private loop (use one instance either sync or async, as for every env).

Failures never hang: every request is bounded by ``timeout_s``. A connection lost mid-episode
(server restart, network) raises :class:`RemoteEnvError`, which the engine records as an
``aborted`` episode with the reason; the next ``reset`` reconnects.

A server that needs a bearer token gets it from ``token=`` or ``$AGENTGYM_SERVE_TOKEN``
(``AGENTGYM_SERVE_TOKEN=... agentgym eval remote:http://host:port/sql``). The scripted policy
works through a remote env: :meth:`RemoteEnv.expert_actions` asks the server (``GET /expert``).
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

import httpx
import pydantic

from ..env import AgentEnv, Observation, StepResult
from ..errors import EnvError, ResetNeeded, missing_extra
from ..specs import EnvSpec
from ..tasks import Task, TaskSet
from ..toolcalls import ToolCall
from ..tools import Tool, ToolSet
from .guard import TOKEN_ENV
from .wire import action_from_wire, action_to_wire, reset_from_wire, step_from_wire

REMOTE_PREFIX = "remote:"


class RemoteEnvError(EnvError):
    """The env server could not be reached, lost the connection or answered with an error."""


@dataclass
class SchemaTool(Tool):
    """A tool known only by its JSON Schema (it runs on the server, through ``step``)."""

    schema: dict[str, Any] | None = None

    @property
    def parameters(self) -> dict[str, Any]:
        """The JSON Schema the server published."""
        return dict(self.schema or {"type": "object", "properties": {}})

    @classmethod
    def from_openai(cls, entry: dict[str, Any]) -> SchemaTool:
        """Build from an OpenAI ``tools`` entry."""
        fn = entry.get("function", entry)
        name = str(fn["name"])

        def _remote_only(**_: Any) -> Any:
            raise EnvError(f"tool {name!r} runs on the env server: call it through step()")

        config = pydantic.ConfigDict(extra="allow")
        model = pydantic.create_model(f"{name}_arguments", __config__=config)
        return cls(name, str(fn.get("description", "")), _remote_only, model,
                   schema=fn.get("parameters"))


def _endpoints(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise EnvError(f"remote env URL must look like http://host:port/ENV, got {url!r}")
    path = parts.path.rstrip("/")
    http_base = urlunsplit((parts.scheme, parts.netloc, path, "", ""))
    ws_scheme = "wss" if parts.scheme == "https" else "ws"
    return http_base, urlunsplit((ws_scheme, parts.netloc, path + "/ws", "", ""))


class RemoteEnv(AgentEnv):
    """An env served by ``agentgym serve ENV --http``, played over a WebSocket session.

    Args:
        url: The server and env, ``http://host:port`` or ``http://host:port/<env id>``.
        split: Task split of the server-side env (default: the server's).
        timeout_s: Longest wait for one reset or step answer.
        connect_timeout_s: Longest wait to (re)connect.
        token: Bearer token the server requires (default: ``$AGENTGYM_SERVE_TOKEN``).
        max_turns: The session's turn limit, enforced by the server's env (default: the
            server's); the client does not count turns again.
    """

    def __init__(
        self, url: str, *, split: str | None = None, timeout_s: float = 300.0,
        connect_timeout_s: float = 10.0, token: str | None = None, max_turns: int | None = None,
    ) -> None:
        super().__init__()
        self.url = url
        token = token or os.environ.get(TOKEN_ENV) or None
        self._headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http_base, self.ws_url = _endpoints(url)
        self._query = f"?{urlencode({'split': split})}" if split is not None else ""
        session = {k: v for k, v in (("split", split), ("max_turns", max_turns)) if v is not None}
        self.ws_url += f"?{urlencode(session)}" if session else ""
        self.timeout_s = timeout_s
        self.connect_timeout_s = connect_timeout_s
        self._ws: Any = None
        self._episode_open = False
        self._pending_seed: int | None = None
        self.session_id: str | None = None
        """The server's session id of the current connection."""
        meta = self._get("/metadata")
        self.name = str(meta.get("name", ""))
        self.instructions = str(meta.get("instructions", ""))
        self.tools = ToolSet(SchemaTool.from_openai(t) for t in meta.get("tools", []))
        self.max_turns = max_turns if max_turns is not None else meta.get("max_turns")
        self.split = str(meta.get("split") or "")
        self.agentgym_spec = EnvSpec(
            id=f"{REMOTE_PREFIX}{url}", entry_point=make_remote, family="remote",
            description=str(meta.get("description", "")), max_turns=self.max_turns,
        )
        tasks = self._get("/tasks")
        self.split = str(tasks.get("split") or self.split)
        self.task_set = TaskSet(Task(str(t), self.split or "train", "") for t in tasks["task_ids"])
        self.task: Task | None = None
        """The task of the current episode (from the server's reset info)."""

    def _get(self, path: str, query: str | None = None, timeout_s: float | None = None
             ) -> dict[str, Any]:
        try:
            response = httpx.get(self.http_base + path + (self._query if query is None else query),
                                 timeout=timeout_s or self.connect_timeout_s,
                                 headers=self._headers)
        except httpx.HTTPError as e:
            raise RemoteEnvError(f"cannot reach env server {self.http_base}: {e}") from e
        if response.status_code != 200:
            raise RemoteEnvError(
                f"env server {self.http_base}{path} answered {response.status_code}: "
                f"{response.text[:300]}"
            )
        try:
            body = response.json()
        except ValueError as e:
            raise RemoteEnvError(f"env server {self.http_base}{path} sent no JSON") from e
        if not isinstance(body, dict):
            raise RemoteEnvError(f"env server {self.http_base}{path} sent a malformed answer")
        return body

    def expert_actions(self, task: Task) -> list[Any]:
        """The server-side expert's actions for the current episode (``GET /expert``).

        Raises :class:`RemoteEnvError` when the server offers none (``--no-expert``, an env
        without an expert), so the episode is aborted with the server's reason.
        """
        if self.session_id is None:
            raise ResetNeeded("call reset() before asking for the expert")
        body = self._get("/expert", f"?{urlencode({'session_id': self.session_id})}",
                         self.timeout_s)
        actions = body.get("actions")
        if not isinstance(actions, list):
            raise RemoteEnvError(f"env server {self.http_base}/expert sent a malformed answer")
        try:
            return [_expert_action(a) for a in actions]
        except (ValueError, TypeError, AttributeError) as e:  # InvalidAction is a ValueError
            raise RemoteEnvError(f"env server {self.http_base}/expert sent a malformed "
                                 f"action: {e}") from e

    # -- connection --------------------------------------------------------------------------

    async def _connect(self) -> Any:
        try:
            from websockets.asyncio.client import connect
        except ImportError as e:
            raise missing_extra("websockets", "serve") from e
        try:
            return await asyncio.wait_for(
                connect(self.ws_url, max_size=64 * 2**20, open_timeout=self.connect_timeout_s,
                        additional_headers=self._headers),
                self.connect_timeout_s,
            )
        except Exception as e:  # refused, unreachable, timed out, bad handshake
            raise RemoteEnvError(f"cannot connect to env server {self.ws_url}: {e}") from e

    async def _drop(self) -> None:
        ws, self._ws = self._ws, None
        self._episode_open = False
        if ws is not None:
            try:
                await asyncio.wait_for(ws.close(), 2.0)
            except Exception:  # the connection is being discarded anyway
                pass

    async def _request(self, message: dict[str, Any]) -> dict[str, Any]:
        ws = self._ws
        try:
            await asyncio.wait_for(ws.send(json.dumps(message)), self.timeout_s)
            raw = await asyncio.wait_for(ws.recv(), self.timeout_s)
        except TimeoutError as e:
            await self._drop()
            raise RemoteEnvError(
                f"env server {self.ws_url} did not answer {message['type']} within "
                f"{self.timeout_s:g}s; episode aborted"
            ) from e
        except Exception as e:  # closed connection (server restart, network): abort the episode
            await self._drop()
            raise RemoteEnvError(
                f"connection to env server {self.ws_url} lost during {message['type']}: "
                f"{type(e).__name__}: {e}; episode aborted"
            ) from e
        try:
            reply = json.loads(raw)
        except (ValueError, TypeError, RecursionError) as e:
            await self._drop()
            raise RemoteEnvError(f"env server {self.ws_url} sent a malformed answer to "
                                 f"{message['type']}; episode aborted") from e
        if not isinstance(reply, dict) or not isinstance(reply.get("data"), dict | None):
            await self._drop()
            raise RemoteEnvError(f"env server {self.ws_url} sent a malformed answer to "
                                 f"{message['type']}; episode aborted")
        if reply.get("type") == "error":
            data = reply.get("data") or {}
            text = f"env server: {data.get('message', reply)}"
            if data.get("code") == "VALIDATION_ERROR":  # the request was wrong, not the server
                raise EnvError(text)
            if data.get("code") in ("SESSION_ERROR", "CAPACITY_REACHED", "FACTORY_ERROR"):
                await self._drop()
            raise RemoteEnvError(text)
        return reply  # type: ignore[no-any-return]

    # -- AgentEnv hooks ----------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Start an episode on the server; ``seed`` or ``options={"task_id": ...}`` picks it."""
        self._pending_seed = seed
        return super().reset(seed=seed, options=options)

    async def areset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Async twin of :meth:`reset`."""
        self._pending_seed = seed
        return await super().areset(seed=seed, options=options)

    async def _areset(self, options: dict[str, Any]) -> tuple[Observation, dict[str, Any]]:
        data: dict[str, Any] = {"options": {k: v for k, v in options.items() if k != "task_id"}}
        if "task_id" in options:
            data["task_id"] = str(options["task_id"])
        seed, self._pending_seed = self._pending_seed, None
        if seed is not None:
            data["seed"] = int(seed)
        for attempt in (0, 1):
            if self._ws is None:
                self._ws = await self._connect()
            try:
                reply = await self._request({"type": "reset", "data": data})
                break
            except RemoteEnvError:
                if attempt or self._ws is not None:
                    raise  # an error answer, or a second lost connection
        obs, info = _parse_reply(reset_from_wire, reply, self.ws_url)
        self.session_id = (reply["data"].get("metadata") or {}).get("session_id")
        task_id = info.get("task_id")
        self.task = Task(str(task_id), self.split or "train", "") if task_id is not None else None
        self._episode_open = True
        return obs, info

    async def _astep(self, action: Any) -> StepResult:
        if self._ws is None or not self._episode_open:
            raise ResetNeeded("call reset() before step(); the episode has ended")
        reply = await self._request({"type": "step", "data": action_to_wire(action)})
        result = _parse_reply(step_from_wire, reply, self.ws_url)
        if result[2] or result[3]:
            self._episode_open = False
        return result

    async def _aclose(self) -> None:
        if self._ws is not None:
            try:
                await asyncio.wait_for(self._ws.send(json.dumps({"type": "close"})), 2.0)
            except Exception:  # closing a dead connection
                pass
        await self._drop()


def _parse_reply(parse: Any, reply: dict[str, Any], where: str) -> Any:
    """``parse(reply["data"])``; a reply of the wrong shape is the server's fault (an abort)."""
    try:
        return parse(reply.get("data") or {})
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        raise RemoteEnvError(f"env server {where} sent a malformed observation: {e}; "
                             "episode aborted") from e


def _expert_action(wire: Any) -> Any:
    """A served expert action back as the env's action: tool calls as :class:`ToolCall`."""
    action = action_from_wire(wire)
    if isinstance(action, dict):
        calls = []
        for call in action.get("tool_calls") or []:
            fn = call.get("function", call) if isinstance(call, dict) else {}
            arguments = fn.get("arguments") or {}
            if isinstance(arguments, str):
                arguments = json.loads(arguments)
            calls.append(ToolCall(str(fn.get("name")), dict(arguments)))
        return calls
    return action


def remote_spec(target: str) -> EnvSpec:
    """``spec("remote:URL")``: the served env's spec, read from the server's ``/metadata``."""
    url = target[len(REMOTE_PREFIX):] if target.startswith(REMOTE_PREFIX) else target
    http_base, _ = _endpoints(url)
    token = os.environ.get(TOKEN_ENV)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        response = httpx.get(http_base + "/metadata", timeout=10.0, headers=headers)
    except httpx.HTTPError as e:
        raise RemoteEnvError(f"cannot reach env server {http_base}: {e}") from e
    if response.status_code != 200:
        raise RemoteEnvError(f"env server {http_base}/metadata answered {response.status_code}")
    meta = response.json()
    return EnvSpec(
        id=f"{REMOTE_PREFIX}{url}", entry_point=make_remote, family="remote",
        description=str(meta.get("description", "")), max_turns=meta.get("max_turns"),
    )


def make_remote(target: str, *, max_turns: int | None = None, **kwargs: Any) -> AgentEnv:
    """``make("remote:URL")``: a :class:`RemoteEnv` (``kwargs`` go to it).

    ``max_turns`` goes to the server, whose ``make`` enforces it for the session (the one place
    the limit is enforced).
    """
    url = target[len(REMOTE_PREFIX):] if target.startswith(REMOTE_PREFIX) else target
    return RemoteEnv(url, max_turns=max_turns, **kwargs)


class RemoteResolver:
    """The ``remote:`` resolver (registered by :mod:`agentgym.serve.plugin`): what
    :func:`agentgym.make` and :func:`agentgym.spec` call for ``remote:URL`` ids."""

    @staticmethod
    def spec(target: str) -> EnvSpec:
        """The served env's spec (:func:`remote_spec`)."""
        return remote_spec(target)

    @staticmethod
    def make(target: str, *, max_turns: int | None = None, **kwargs: Any) -> AgentEnv:
        """A :class:`RemoteEnv` (:func:`make_remote`)."""
        return make_remote(target, max_turns=max_turns, **kwargs)


__all__ = [
    "REMOTE_PREFIX", "RemoteEnv", "RemoteEnvError", "RemoteResolver", "SchemaTool", "make_remote",
    "remote_spec",
]
