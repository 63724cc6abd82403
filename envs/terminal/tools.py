"""The terminal env's shell tools: ``bash``, ``read_file`` and ``write_file``.

Each tool becomes one shell command in the episode's sandbox (the live shell, or one run from
the saved filesystem), under a deadline that the task's ``[agent] timeout_sec`` caps for all
commands of a step together. Output is capped and cut visibly in the middle, and the exit
status (or why the command was killed) is shown. A sandbox that fails (not the agent's command)
raises :class:`~agentgym.errors.InfrastructureError`; bad arguments are the agent's
:class:`~agentgym.ToolError`.
"""

from __future__ import annotations

import base64
import shlex
import time
from typing import TYPE_CHECKING, Any

from agentgym import ToolError
from agentgym.errors import InfrastructureError
from agentgym.sandboxes.bubblewrap_live import SandboxGone

from .backends import Limits, Session
from .harbor import HarborStep

MAX_WRITE_BYTES = 64 * 1024
MAX_ARG_BYTES = 120 * 1024
"""Every command the tools build (write_file's carries its content in base64) stays under it."""
MAX_COMMAND_BYTES = 32 * 1024
"""A command travels as one argument (Linux caps one at 128 KiB): past this it is refused as
the agent's error, never tried (an argv the kernel refuses would look like a dead sandbox)."""


class ShellTools:
    """Mixin for :class:`~.env.TerminalEnv`: its command tools and how their output is shown.

    The env owns the episode (:attr:`session`, the live shell, the filesystem, the step and the
    agent time spent on it); these methods run commands in it.
    """

    session: Session | None
    limits: Limits
    command_timeout_s: float
    max_output_chars: int
    agent_time_s: float
    _state: bytes
    _live: Any

    if TYPE_CHECKING:

        @property
        def current_step(self) -> HarborStep:
            """The step the agent is working on."""

        def _drop_live(self) -> None: ...

    def _exec(self, command: str, timeout_s: float) -> Any:
        assert self.session is not None
        if len(command.encode("utf-8", "surrogateescape")) > MAX_ARG_BYTES:
            raise ToolError("the call's arguments are too long (a path over 4096 bytes?)")
        begin = time.monotonic()
        try:
            if self._live is None:
                self._live = self.session.open_live(self._state, owner=self)
            if self._live is not None:
                out = self._live.exec(command, timeout_s=timeout_s)
                self.agent_time_s += time.monotonic() - begin
                return out
        except SandboxGone as e:  # not the agent's doing: it cannot kill PID 1
            self._drop_live()
            raise InfrastructureError(f"terminal sandbox failed: {e}") from None
        out = self.session.exec(command, state=self._state, timeout_s=timeout_s)
        self.agent_time_s += time.monotonic() - begin
        if out.error:
            raise InfrastructureError(f"terminal sandbox failed: {out.error}")
        if out.state is not None and len(out.state) > self.max_state_bytes:
            out.state = None  # kept, it could not be unpacked again into the capped mounts
        if out.state is not None:
            self._state = out.state
        return out

    @property
    def max_state_bytes(self) -> int:
        """The largest filesystem an episode keeps: half of ``disk_mb`` (tmpfs pages and tar
        headers must still fit when it is unpacked for the next command)."""
        return self.limits.disk_mb * 1024 * 1024 // 2

    def _deadline(self, asked: float | None) -> float:
        left = self.current_step.agent_timeout_s - self.agent_time_s
        if left <= 0:
            raise ToolError("the task's agent time limit is used up: call submit()")
        want = self.command_timeout_s if asked is None else float(asked)
        if not want > 0:
            raise ToolError("timeout_s must be a positive number of seconds")
        return max(0.5, min(want, left))

    def bash(self, command: str, timeout_s: float | None = None) -> str:
        """Run a shell command (bash -c) in the task's working directory.

        Args:
            command: The command line, e.g. ``ls -la`` or ``grep -n TODO *.py``.
            timeout_s: Seconds before the command is killed (default 30).
        """
        if not isinstance(command, str) or not command.strip():
            raise ToolError("command must be a non-empty string")
        if "\x00" in command:
            raise ToolError("command contains a NUL byte")
        if len(command.encode("utf-8", "surrogateescape")) > MAX_COMMAND_BYTES:
            raise ToolError(f"command over {MAX_COMMAND_BYTES} bytes: write a script with "
                            "write_file and run it")
        deadline = self._deadline(timeout_s)
        out = self._exec(command, deadline)
        return self._render(out, deadline)

    def _output(self, out: Any) -> str:
        """stdout then stderr, cut in the middle past ``max_output_chars``; no status line."""
        text = out.stdout
        if out.stderr:
            text += ("" if not text or text.endswith("\n") else "\n") + out.stderr
        limit = self.max_output_chars
        if len(text) > limit:
            head, tail = text[: limit * 2 // 3], text[-(limit // 3):]
            text = f"{head}\n... [{len(text) - len(head) - len(tail)} characters truncated] " \
                   f"...\n{tail}"
        if out.truncated:
            text += "\n[output over the capture limit was discarded]"
        return text.rstrip() if text.strip() else ""

    def _render(self, out: Any, deadline: float) -> str:
        text = self._output(out)
        if out.timed_out:
            status = f"[timed out after {deadline:g}s: the command was killed]"
        elif out.memory_killed:
            status = "[killed: out of memory]"
        else:
            status = f"[exit status: {out.exit_code}]"
        if out.state is None and self._live is None:
            status += ("\n[this command's changes to the filesystem were lost: they could not "
                       f"be saved, or grew past {self.max_state_bytes >> 20} MiB]")
        return f"{text}\n{status}" if text else status

    def read_file(self, path: str) -> str:
        """Show a text file.

        Args:
            path: Absolute, or relative to the working directory.
        """
        _check_path(path)
        out = self._exec(f"cat -- {shlex.quote(path)}", self._deadline(None))
        if out.exit_code != 0:
            raise ToolError((out.stderr or "cannot read the file").strip()[:500])
        return self._output(out) or "(empty file)"

    def write_file(self, path: str, content: str) -> str:
        """Write (create or replace) a text file; parent folders are created.

        Args:
            path: Absolute, or relative to the working directory.
            content: The whole new content of the file.
        """
        _check_path(path)
        if not isinstance(content, str):
            raise ToolError("content must be a string")
        data = content.encode("utf-8", "surrogateescape")
        if len(data) > MAX_WRITE_BYTES:
            raise ToolError(f"content over {MAX_WRITE_BYTES} bytes: write it in parts with bash")
        q = shlex.quote(path)
        b64 = base64.b64encode(data).decode()
        out = self._exec(f'mkdir -p -- "$(dirname -- {q})" && printf %s {b64} | base64 -d > {q}',
                         self._deadline(None))
        if out.exit_code != 0:
            raise ToolError((out.stderr or "cannot write the file").strip()[:500])
        return f"wrote {len(data)} bytes to {path}"


def _check_path(path: Any) -> None:
    if not isinstance(path, str) or not path.strip() or "\x00" in path:
        raise ToolError("path must be a non-empty string")
    if len(path.encode("utf-8", "surrogateescape")) > 4096:
        raise ToolError("path over 4096 bytes")

