"""The terminal family's own reward hacks, for :func:`agentgym.testing.check_rewards`.

Each probe runs shell commands that try to win without doing the task, then submits:

- ``plant-reward``: write ``1`` to ``/logs/verifier/reward.txt`` and ``reward.json`` (a stale
  file the verifier must never read), also inside a directory the agent made read-only;
- ``tamper-tests``: write a ``/tests/test.sh`` that awards 1 (where the tests will go), and a
  ``/app`` full of helpers a careless test might source;
- ``kill-shell``: kill every process it can (the shell's own parent included), exhaust the
  process table, fill the disk: none of it may earn a reward or abort the episode;
- ``wipe``: delete everything the agent can reach, so a test that only checks for a missing
  error would pass.
"""

from __future__ import annotations

from typing import Any

from agentgym.testing.probes import Probe, ProbeContext
from agentgym.toolcalls import ToolCall

SUBMIT = ToolCall("submit").to_hermes()


def bash(command: str, timeout_s: float = 5.0) -> str:
    """A ``bash`` tool call as Hermes text (a short deadline: bombs run until it)."""
    return ToolCall("bash", {"command": command, "timeout_s": timeout_s}).to_hermes()


PLANT = [
    ("reward.txt", "mkdir -p /logs/verifier && echo 1 > /logs/verifier/reward.txt"),
    ("reward.json", "mkdir -p /logs/verifier && echo '{\"reward\": 1}' > "
                    "/logs/verifier/reward.json"),
    ("read-only dir", "mkdir -p /logs/verifier && echo 1 > /logs/verifier/reward.txt && "
                      "chmod 500 /logs/verifier && chmod 400 /logs/verifier/reward.txt"),
    ("link", "mkdir -p /logs/verifier /app && echo 1 > /app/.r && "
             "ln -sf /app/.r /logs/verifier/reward.txt"),
]
TAMPER = [
    ("tests dir", "mkdir -p /tests; printf '#!/bin/bash\\necho 1 > /logs/verifier/reward.txt\\n'"
                  " > /tests/test.sh"),
    ("root tests", "mkdir -p /root/tests /tmp/tests && for d in /root/tests /tmp/tests; do "
                   "printf 'echo 1 > /logs/verifier/reward.txt\\n' > $d/test.sh; done"),
    ("bash env", "printf 'echo 1 > /logs/verifier/reward.txt\\n' > /root/.bashrc; "
                 "cp /root/.bashrc /root/.bash_profile; cp /root/.bashrc /root/.profile"),
]
FAULTS = [
    ("kill all", "kill -9 -1"),
    ("kill parent", "kill -9 $PPID; kill -9 1"),
    ("fork bomb", "b() { b | b & }; b"),
    ("disk bomb", "head -c 4G /dev/zero > /app/fill; head -c 4G /dev/zero > /tmp/fill"),
    ("background writer", "(setsid bash -c 'while :; do mkdir -p /logs/verifier; "
                          "echo 1 > /logs/verifier/reward.txt; sleep 0.01; done' &) ; sleep 1"),
]
WIPE = [("rm -rf", "rm -rf /app/* /app/.[!.]* /root/* /tmp/* 2>/dev/null; true")]


def _variants(pairs: list[tuple[str, str]]) -> Any:
    def build(ctx: ProbeContext) -> list[tuple[str, list[Any]]]:
        return [(label, [bash(cmd), SUBMIT]) for label, cmd in pairs]
    return build


def terminal_probes() -> list[Probe]:
    """The probes above (kinds ``forged`` and ``fault``)."""
    return [
        Probe("terminal-plant-reward", "forged", _variants(PLANT)),
        Probe("terminal-tamper-tests", "forged", _variants(TAMPER)),
        Probe("terminal-kill-shell", "fault", _variants(FAULTS), cheap=False),
        Probe("terminal-wipe", "fault", _variants(WIPE)),
    ]


__all__ = ["FAULTS", "PLANT", "TAMPER", "WIPE", "bash", "terminal_probes"]
