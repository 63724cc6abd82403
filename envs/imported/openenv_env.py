"""An OpenEnv server as an agentgym env: ``make("openenv:ws://host:port")`` (or ``http://``,
``token=`` for a bearer token), or ``make("openenv:<docker image>")`` (a container of the image,
:mod:`.openenv_docker`).

OpenEnv servers (openenv-core's ``create_app``, and ``agentgym serve --http``) hold one session
per WebSocket at ``/ws``: ``{"type": "reset"|"step"|"state", "data": ...}`` is answered with
``{"type": "observation", "data": {"observation", "reward", "done"}}`` or an ``error``. The
importer needs no OpenEnv package (it speaks the protocol with ``websockets``) and maps:

- **tools**: one tool, ``act``, whose parameters are the server's action schema (``GET
  /schema``'s ``action``); its arguments are the step's action. A reply without a tool call is
  the action's one string field when the schema has exactly one (``message``, ``code``,
  agentgym's ``content``); otherwise it is an error observation.
- **observation**: the observation's ``text`` field when it has one (with base64 PNG
  ``images``), else its fields as JSON. **reward**: the step's ``reward`` (``None`` -> 0).
  **done** -> ``terminated``; a ``truncated`` flag in the observation's metadata (agentgym
  servers) -> ``truncated``.
- **seeds**: ``reset(seed=s)`` sends ``{"seed": s}``; determinism is the server's.
  **splits**: ``split`` is sent with the reset (agentgym servers honour it; others ignore it).
- **faults**: a server that cannot be reached, a dropped connection, a reply past
  ``timeout_s`` or a server-side error other than a rejected action end the episode as
  ``aborted`` with the reason (``reset`` raises :class:`~agentgym.InfrastructureError`); an
  action the server rejects (``VALIDATION_ERROR``, ``INVALID_JSON``) is an error observation.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
from typing import Any

import httpx

from agentgym import AgentEnv, InfrastructureError, ToolSet, make_observation
from agentgym.env import Observation, StepResult
from agentgym.errors import ConfigError, ResetNeeded
from agentgym.serve.client import SchemaTool
from agentgym.toolcalls import parse_tool_calls

MODEL_ERRORS = {"VALIDATION_ERROR", "INVALID_JSON"}
"""Server error codes that mean the action was bad (the model's mistake, not a fault)."""
MAX_TEXT = 8000
"""Longer observations are cut (with a note) before they reach the model."""
MAX_MESSAGE = 16 * 2**20
"""The largest server message read (bytes); a larger one is a fault."""


def _urls(target: str) -> tuple[str, str]:
    """(http base, ws url) of an ``http(s)://`` or ``ws(s)://`` target."""
    url = target.rstrip("/")
    scheme, sep, rest = url.partition("://")
    if not sep or scheme not in ("http", "https", "ws", "wss") or not rest:
        raise ConfigError(f"openenv:{target}: expected an http(s):// or ws(s):// URL")
    secure = scheme in ("https", "wss")
    return (f"{'https' if secure else 'http'}://{rest}",
            f"{'wss' if secure else 'ws'}://{rest}/ws")


class OpenEnvEnv(AgentEnv):
    """One session of an OpenEnv server, stepped over its WebSocket: ``reset``/``step`` on a
    blocking connection in the caller's thread, ``areset``/``astep`` on an asyncio one on the
    caller's loop (the engine's). An episode keeps the transport its reset chose."""

    def __init__(self, url: str, split: str | None = None, timeout_s: float = 30.0,
                 token: str | None = None) -> None:
        super().__init__()
        self.url = url
        self.http_base, self.ws_url = _urls(url)
        self._headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.split = split
        self.timeout_s = float(timeout_s)
        self._ws: Any = None  # the asyncio connection (areset/astep)
        self._sws: Any = None  # the blocking connection (reset/step)
        self._done = True
        self._seed: int | None = None
        self.schema: dict[str, Any] = {}
        self.schema_error = ""
        try:
            reply = httpx.get(self.http_base + "/schema", headers=self._headers,
                              timeout=min(self.timeout_s, 10.0))
            reply.raise_for_status()
            self.schema = dict(reply.json().get("action") or {})
        except (httpx.HTTPError, ValueError, AttributeError) as e:  # reset() reports it
            self.schema_error = f"cannot read {self.http_base}/schema: {type(e).__name__}: {e}"
        params = {k: v for k, v in self.schema.items()
                  if k in ("properties", "required", "$defs")}
        self.tools = ToolSet([SchemaTool.from_openai({
            "name": "act", "parameters": {"type": "object", **params},
            "description": self.schema.get("description")
            or "Take one action in the environment (its action fields)."})])
        self.text_field = self._text_field()
        self.instructions = ("You act in an OpenEnv environment by calling the `act` tool with "
                             "an action's fields" + (f", or by replying with the text of its "
                                                     f"`{self.text_field}` field"
                                                     if self.text_field else "") + ".")

    def _text_field(self) -> str | None:
        props = self.schema.get("properties") or {}
        strings = [k for k, v in props.items() if isinstance(v, dict) and v.get("type") == "string"]
        required = [k for k in strings if k in (self.schema.get("required") or [])]
        pick = required or strings
        return pick[0] if len(pick) == 1 else None

    # -- the connections -------------------------------------------------------------------

    def _fault(self, e: BaseException) -> InfrastructureError:
        return InfrastructureError(f"OpenEnv server {self.ws_url}: {type(e).__name__}: {e}"[:400])

    def _checked(self, reply: Any) -> dict[str, Any]:
        if not isinstance(reply, dict):
            raise InfrastructureError(f"OpenEnv server {self.ws_url} answered {str(reply)[:200]}")
        return reply

    async def _send(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send one message on the asyncio connection and return the reply; faults raise
        :class:`InfrastructureError`."""
        from websockets.asyncio.client import connect
        from websockets.exceptions import WebSocketException

        try:
            if self._ws is None:
                self._ws = await connect(self.ws_url, open_timeout=self.timeout_s,
                                         max_size=MAX_MESSAGE, compression=None,
                                         additional_headers=self._headers or None)
            async with asyncio.timeout(self.timeout_s):  # no task per call, unlike wait_for
                await self._ws.send(json.dumps(message))
                reply = json.loads(await self._ws.recv())
        except (OSError, TimeoutError, WebSocketException, ValueError) as e:
            await self._drop()
            raise self._fault(e) from e
        return self._checked(reply)

    def _send_sync(self, message: dict[str, Any]) -> dict[str, Any]:
        """:meth:`_send` on the blocking connection (no loop, no thread hop)."""
        from websockets.exceptions import WebSocketException
        from websockets.sync.client import connect

        try:
            if self._sws is None:
                self._sws = connect(self.ws_url, open_timeout=self.timeout_s,
                                    max_size=MAX_MESSAGE, compression=None, close_timeout=2,
                                    additional_headers=self._headers or None, legacy=True)
            self._sws.send(json.dumps(message))
            reply = json.loads(self._sws.recv(timeout=self.timeout_s))
        except (OSError, TimeoutError, WebSocketException, ValueError) as e:
            self._drop_sync()
            raise self._fault(e) from e
        return self._checked(reply)

    async def _drop(self) -> None:
        ws, self._ws = self._ws, None
        if ws is not None:
            try:
                await ws.close()
            except Exception:  # closing a dead socket: nothing left to release
                pass

    def _drop_sync(self) -> None:
        ws, self._sws = self._sws, None
        if ws is not None:
            try:
                ws.close()
            except Exception:  # closing a dead socket: nothing left to release
                pass

    # -- the env ---------------------------------------------------------------------------

    def _reset_message(self, options: dict[str, Any]) -> dict[str, Any]:
        if self.schema_error and not self.schema:
            raise InfrastructureError(self.schema_error)
        data: dict[str, Any] = {k: v for k, v in options.items() if k in ("seed", "task_id")}
        if "seed" not in data and self._seed is not None:
            data["seed"] = self._seed
        if self.split is not None:
            data["split"] = self.split
        return {"type": "reset", "data": data}

    def _started(self, reply: dict[str, Any]) -> tuple[Observation, dict[str, Any]]:
        if reply.get("type") == "error":
            raise InfrastructureError(f"OpenEnv reset failed: {_error_text(reply)}")
        payload = dict(reply.get("data") or {})
        self._done = bool(payload.get("done", False))
        return _render(payload.get("observation")), {"server_metadata": _meta(payload)}

    def _reset(self, options: dict[str, Any]) -> tuple[Observation, dict[str, Any]]:
        message = self._reset_message(options)
        if self._ws is not None:  # the last episode ran on the asyncio connection
            self._ws = None  # its loop is not ours to drive; the server drops the session
        return self._started(self._send_sync(message))

    async def _areset(self, options: dict[str, Any]) -> tuple[Observation, dict[str, Any]]:
        message = self._reset_message(options)
        if self._sws is not None:  # the last episode ran on the blocking connection
            await asyncio.get_running_loop().run_in_executor(None, self._drop_sync)
        return self._started(await self._send(message))

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> (
        tuple[Observation, dict[str, Any]]
    ):
        """Start an episode on the server; ``seed`` is sent with the reset."""
        self._seed = seed
        return super().reset(seed=seed, options=options)

    async def areset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
                     ) -> tuple[Observation, dict[str, Any]]:
        """Async twin of :meth:`reset` (awaits the server on the caller's loop)."""
        self._seed = seed
        return await super().areset(seed=seed, options=options)

    def _action(self, action: Any) -> dict[str, Any] | str:
        """The action payload, or an error message for the model."""
        try:
            calls = parse_tool_calls(action)
        except Exception as e:  # a malformed call is the model's mistake
            return f"cannot read the tool call: {e}"
        if calls:
            call = calls[0]
            if call.name != "act":
                return f"unknown tool {call.name!r}; the only tool is 'act'"
            if not isinstance(call.arguments, dict):
                return "the act tool takes an object of action fields"
            return dict(call.arguments)
        text = action if isinstance(action, str) else (
            str(action.get("content") or "") if isinstance(action, dict) else None)
        if text is None:
            return f"an action is text or an 'act' tool call, not {type(action).__name__}"
        if self.text_field is None:
            return "no tool call found: call the `act` tool with the action's fields"
        return {self.text_field: text}

    def _step_message(self, action: Any) -> dict[str, Any] | StepResult:
        """The step message for ``action``, or the error observation of a bad action."""
        if self._done:
            raise ResetNeeded("call reset() before step(); the episode has ended")
        payload = self._action(action)
        if isinstance(payload, str):
            return make_observation(f"Error: {payload}"), 0.0, False, False, {"error": payload}
        return {"type": "step", "data": payload}

    def _stepped(self, reply: dict[str, Any]) -> StepResult:
        """The step result of the server's reply (an aborted one for a server fault)."""
        if reply.get("type") == "error":
            code = str((reply.get("data") or {}).get("code", ""))
            if code in MODEL_ERRORS:
                text = _error_text(reply)
                return make_observation(f"Error: {text}"), 0.0, False, False, {"error": text}
            return self._aborted(f"OpenEnv step failed: {_error_text(reply)}")
        data = dict(reply.get("data") or {})
        meta = _meta(data)
        truncated = bool(meta.get("truncated", False))
        terminated = bool(data.get("done", False)) and not truncated
        self._done = terminated or truncated
        reward = data.get("reward")
        info: dict[str, Any] = {"server_metadata": meta}
        if isinstance(meta.get("info"), dict):  # an agentgym server's own info
            info.update({k: v for k, v in meta["info"].items() if k in ("success", "task_id")})
        return (_render(data.get("observation")), float(reward) if isinstance(reward, int | float)
                else 0.0, terminated, truncated, info)

    def _step(self, action: Any) -> StepResult:
        message = self._step_message(action)
        if not isinstance(message, dict):
            return message
        try:
            result = self._stepped(self._send_sync(message))
        except InfrastructureError as e:
            result = self._aborted(str(e))
        if result[4].get("aborted"):
            self._drop_sync()
        return result

    async def _astep(self, action: Any) -> StepResult:
        message = self._step_message(action)
        if not isinstance(message, dict):
            return message
        try:
            result = self._stepped(await self._send(message))
        except InfrastructureError as e:
            result = self._aborted(str(e))
        if result[4].get("aborted"):
            await self._drop()
        return result

    def _aborted(self, reason: str) -> StepResult:
        self._done = True
        info = {"aborted": True, "abort_reason": reason, "truncated_reason": f"aborted: {reason}"}
        return (make_observation(f"The episode was aborted because of an infrastructure "
                                 f"failure: {reason}"), 0.0, False, True, info)

    def _close(self) -> None:
        self._drop_sync()

    async def _aclose(self) -> None:
        await self._drop()


def _meta(payload: dict[str, Any]) -> dict[str, Any]:
    obs = payload.get("observation")
    meta = payload.get("metadata") or (obs.get("metadata") if isinstance(obs, dict) else None)
    return dict(meta) if isinstance(meta, dict) else {}


def _error_text(reply: dict[str, Any]) -> str:
    data = reply.get("data") or {}
    return f"{data.get('code', 'ERROR')}: {data.get('message', data)}"[:500]


def _render(observation: Any) -> Observation:
    """An OpenEnv observation as an agentgym one (text, PNG images)."""
    if isinstance(observation, dict) and isinstance(observation.get("text"), str):
        images = []
        for item in observation.get("images") or ():
            try:
                images.append(base64.b64decode(str(item), validate=True))
            except (binascii.Error, ValueError):
                continue
        return make_observation(_cut(observation["text"]), tuple(images))
    if isinstance(observation, dict):
        shown = {k: v for k, v in observation.items() if k not in ("done", "reward", "metadata")}
        return make_observation(_cut(json.dumps(shown, default=str, ensure_ascii=False)))
    return make_observation(_cut(str(observation)))


def _cut(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + \
        f"\n... [truncated {len(text) - MAX_TEXT} chars]"


def make_env(url: str, *, max_turns: int | None = None, **kwargs: Any) -> Any:
    """``make("openenv:<url>")``: the env in :class:`agentgym.TurnLimit` (the limit from
    :func:`agentgym.settings.resolve_max_turns`); an image is :func:`.openenv_docker.make_env`."""
    from agentgym import TurnLimit
    from agentgym.settings import resolve_max_turns

    return TurnLimit(OpenEnvEnv(url, **kwargs), max_turns=resolve_max_turns(max_turns, None))


__all__ = ["MODEL_ERRORS", "OpenEnvEnv", "make_env"]
