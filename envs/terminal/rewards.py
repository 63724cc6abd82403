"""Reading a Harbor verifier's reward out of the filesystem state it left.

``/logs/verifier/reward.txt`` holds one number; ``/logs/verifier/reward.json`` holds
``{"reward": x}`` (or a single named number). Either must be a regular file with a finite
number: a missing file, a link, text that is not a number, NaN or infinity is a failure (reward
0) with the reason, never a pass. ``reward.txt`` is read first when both exist. :data:`VERIFY`
is the command that runs the verifier so that nothing it started outlives it to rewrite that
file.
"""

from __future__ import annotations

import json
import math
import tarfile

from agentgym.sandboxes.bubblewrap_session import drop_paths, read_state_file

TXT = "/logs/verifier/reward.txt"
JSON = "/logs/verifier/reward.json"
MAX_REWARD_BYTES = 65536
KILLED = 86
LEFTOVERS = 87
VERIFY = (
    "chmod -R u+rwX /logs/verifier 2>/dev/null; rm -rf /logs/verifier; mkdir -p /logs/verifier"
    " && bash /tests/test.sh; rc=$?\n"
    # The reward files as test.sh left them, kept in this shell's memory: what anything still
    # running writes from now on is thrown away.
    "for n in txt json; do f=/logs/verifier/reward.$n; eval \"h_$n=0\"\n"
    "  if [ -f $f ] && [ ! -L $f ]; then\n"
    "    eval \"h_$n=1; v_$n=\\$(head -c 65537 $f | base64 -w0)\"; fi\n"
    "done\n"
    # Everything else still running was started during the verifier (the agent's programs run
    # by its tests, or a process substitution test.sh did not wait for). Spare this shell, its
    # ancestors and PID 1; zombies are done. Stragglers get 2 s to end by themselves; whatever
    # is still running then is killed, and the step scores 0: it may have rewritten the reward.
    "keep=\" $$ \"; p=$$\n"
    "while p=$(sed -n 's/^PPid:[[:space:]]*//p' /proc/$p/status 2>/dev/null)"
    " && [ \"${p:-0}\" -gt 1 ]; do keep=\"$keep$p \"; done\n"
    "live() { case \"$keep\" in *\" $1 \"*) return 1;; esac; [ \"$1\" != 1 ] || return 1\n"
    "  case \"$(sed -n 's/^State:[[:space:]]*//p' /proc/$1/status 2>/dev/null)\" in"
    " ''|Z*) return 1;; esac; }\n"
    "others() { for d in /proc/[0-9]*; do live \"${d#/proc/}\" && return 0; done; return 1; }\n"
    "w=0; while [ $w -lt 100 ] && others; do sleep 0.02; w=$((w+1)); done\n"
    "left=0; round=0\n"
    "while [ $round -lt 50 ]; do round=$((round+1)); hit=0\n"
    "  for d in /proc/[0-9]*; do q=${d#/proc/}\n"
    "    live \"$q\" || continue\n"
    "    ! kill -9 \"$q\" 2>/dev/null || { hit=1; left=1; }\n"
    "  done; [ $hit = 1 ] || break\n"
    "done\n"
    f"[ $rc -lt 128 ] || exit {KILLED}\n"
    f"[ $left = 0 ] || exit {LEFTOVERS}\n"
    "chmod -R u+rwX /logs/verifier 2>/dev/null; rm -rf /logs/verifier; mkdir -p /logs/verifier\n"
    "[ $h_txt = 0 ] || printf %s \"$v_txt\" | base64 -d > /logs/verifier/reward.txt\n"
    "[ $h_json = 0 ] || printf %s \"$v_json\" | base64 -d > /logs/verifier/reward.json\n"
    "exit 0"
)
"""The verifier's command: a fresh ``/logs/verifier``, ``tests/test.sh``, its reward files kept
as it left them, then every process it left given 2 s to end and the rest killed. Exit status:
0, :data:`KILLED` (``test.sh`` died of a signal: the agent's program may have killed it after
planting a reward) or :data:`LEFTOVERS` (something it started was still running, and could have
rewritten the reward after ``test.sh`` wrote it): both score 0."""


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def parse_reward_txt(raw: bytes) -> float | None:
    """The number in a ``reward.txt``, or None when it holds anything else."""
    try:
        text = raw.decode("ascii").strip()
        value = float(text)
    except (UnicodeDecodeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def parse_reward_json(raw: bytes) -> float | None:
    """``reward`` of a ``reward.json`` object (or its only number), else None."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return _number(data)
    if "reward" in data:
        return _number(data["reward"])
    numbers = [v for v in data.values() if _number(v) is not None]
    return _number(numbers[0]) if len(numbers) == 1 and len(data) == 1 else None


def read_reward(state: bytes) -> tuple[float, str]:
    """``(reward, how it was read)`` from a verifier run's state tar."""
    raw = read_state_file(state, TXT, MAX_REWARD_BYTES)
    if raw is not None:
        value = parse_reward_txt(raw)
        if value is None:
            return 0.0, f"malformed reward.txt: {raw[:80]!r}"
        return value, "reward.txt"
    raw = read_state_file(state, JSON, MAX_REWARD_BYTES)
    if raw is not None:
        value = parse_reward_json(raw)
        if value is None:
            return 0.0, f"malformed reward.json: {raw[:80]!r}"
        return value, "reward.json"
    return 0.0, "the verifier wrote no reward file"


def strip_paths(state: bytes, prefixes: tuple[str, ...]) -> bytes:
    """``state`` without the entries under ``prefixes`` (relative, e.g. ``logs/verifier``):
    the host-side wipe of what the agent may have planted where the verifier writes."""
    try:
        return drop_paths(state, prefixes)
    except (tarfile.TarError, EOFError, OSError) as e:
        raise ValueError(f"the filesystem state is damaged: {e}") from None


__all__ = ["JSON", "KILLED", "LEFTOVERS", "TXT", "VERIFY", "parse_reward_json",
           "parse_reward_txt", "read_reward", "strip_paths"]
