"""Run a command, press Ctrl-C (SIGINT) once it is ready, and time how long it takes to stop."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Interrupted:
    """What happened after the SIGINT."""

    stopped_s: float
    """Seconds from the signal to the process's exit."""
    returncode: int
    stderr: str


def interrupt_when(cmd: list[str], ready: Callable[[str], bool], log: Path, *,
                   settle_s: float = 0.0, ready_timeout_s: float = 400.0,
                   cwd: Path | None = None, env: dict[str, str] | None = None,
                   before_signal: Callable[[], None] | None = None) -> Interrupted:
    """Start ``cmd``, wait until ``ready(stderr so far)``, wait ``settle_s``, send SIGINT.

    Stderr goes to ``log`` (a file, not a pipe: the child never blocks on it). The child gets
    the default SIGINT action: a job started by a non-interactive shell's ``&`` (CI runners,
    ``nohup``) inherits SIGINT ignored, and Ctrl-C could not reach it.
    """
    env = {**os.environ, "COLUMNS": "300", **(env or {})}
    with open(log, "w") as err_file:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                                stderr=err_file, preexec_fn=_default_sigint)
        try:
            deadline = time.monotonic() + ready_timeout_s
            while not ready(log.read_text()):
                assert proc.poll() is None, log.read_text()[-2000:]
                assert time.monotonic() < deadline, "the command never became ready"
                time.sleep(0.05)
            time.sleep(settle_s)
            if before_signal is not None:
                before_signal()
            os.kill(proc.pid, signal.SIGINT)
            t0 = time.monotonic()
            proc.wait(timeout=120)
            stopped = time.monotonic() - t0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return Interrupted(stopped, proc.returncode, log.read_text())


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
