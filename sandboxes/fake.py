"""An in-process :class:`~agentgym.sandbox.Sandbox` that runs nothing and returns scripted results.

For unit tests of code that uses a sandbox (envs, tools, rewards), the way httpx's
``MockTransport`` serves tests of HTTP clients::

    sandbox = FakeSandbox(lambda call: RunResult(stdout="4\\n") if "2+2" in call.code else None)
    sandbox.run_python("print(2+2)").stdout      # "4\\n"
    sandbox.calls[0].command                     # ["python3", "main.py"]

A handler returning ``None`` falls back to ``default`` (an ``ok`` result with empty output).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from agentgym.sandbox import RunResult, Sandbox, SandboxLimits


@dataclass
class FakeCall:
    """One recorded call to :meth:`FakeSandbox.run`."""

    command: list[str]
    stdin: bytes
    files: dict[str, bytes]
    fetch: list[str]
    limits: SandboxLimits
    code: str = field(default="")
    """The content of ``main.py`` for :meth:`~agentgym.sandbox.Sandbox.run_python` calls."""


Handler = Callable[[FakeCall], "RunResult | None"]


class FakeSandbox(Sandbox):
    """Records every run and answers from ``results`` (in order), a handler, or ``default``.

    ``results`` is consumed first; each result is copied, so one instance may be reused.
    Fetched paths that exist among the run's files are returned as ``files`` unless the
    scripted result already sets them.
    """

    name = "fake"

    def __init__(
        self,
        handler: Handler | Iterable[RunResult] | None = None,
        *,
        default: RunResult | None = None,
        limits: SandboxLimits | None = None,
    ) -> None:
        super().__init__(limits)
        self._handler: Handler | None = None
        self._queue: list[RunResult] = []
        if callable(handler):
            self._handler = handler
        elif handler is not None:
            self._queue = list(handler)
        self.default = default or RunResult()
        self.calls: list[FakeCall] = []

    def _run(
        self,
        command: list[str],
        stdin: bytes,
        files: dict[str, bytes],
        fetch: list[str],
        limits: SandboxLimits,
    ) -> RunResult:
        code = files.get("main.py", b"").decode(errors="replace") if "main.py" in command else ""
        call = FakeCall(list(command), stdin, dict(files), list(fetch), limits, code)
        self.calls.append(call)
        result: RunResult | None = None
        if self._queue:
            result = self._queue.pop(0)
        elif self._handler is not None:
            result = self._handler(call)
        result = copy.deepcopy(result or self.default)
        if not result.files:
            result.files = {p: files[p] for p in fetch if p in files}
        return result
