"""What issue 35's checks cost on hot paths: the tool-call parser's nesting walk and the request
guard's body deadline.

    python benchmarks/trust_costs.py [--repeats 20000]

1. ``parse_tool_calls`` on a typical Hermes call (a 300-character ``run_python`` body) with the
   nesting check (:data:`agentgym.toolcalls.MAX_ARGUMENT_DEPTH`) and with it stubbed out; also on
   a call whose arguments hold 200 nested-looking brackets inside strings (the slow path).
2. One POST through :class:`~agentgym.serve.guard.RequestGuard` (Host, Origin with the server's
   port, JSON, a 2 kB body) with the 30 s body deadline and without one.

Each arm alternates with its baseline over ``--rounds`` rounds; the best round counts. The last
lines are ``depth_check_vs_none_parse_time=`` and ``body_deadline_vs_none_guard_time=`` (a/b:
1.00 is free).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any
from unittest import mock

from agentgym import toolcalls
from agentgym.serve.guard import GuardSettings, RequestGuard

TYPICAL = "<tool_call>" + json.dumps({"name": "run_python", "arguments": {
    "code": "def f(xs):\n    return sorted(set(xs))\n" * 8}}) + "</tool_call>"
BRACKETS = "<tool_call>" + json.dumps({"name": "run_python", "arguments": {
    "code": "x = [[[[[]]]]]  # " * 40}}) + "</tool_call>"


def _parse_time(text: str, repeats: int, stub: bool) -> float:
    with mock.patch.object(toolcalls, "_too_deep", lambda *a, **k: False) if stub else \
            mock.patch.object(toolcalls, "_UNUSED", None, create=True):
        t0 = time.perf_counter()
        for _ in range(repeats):
            toolcalls.parse_tool_calls(text)
        return time.perf_counter() - t0


async def _app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await receive()
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"{}"})


async def _guard_time(settings: GuardSettings, repeats: int) -> float:
    guard = RequestGuard(_app, settings)
    body = json.dumps({"x": "y" * 2000}).encode()
    scope = {"type": "http", "method": "POST", "path": "/reset", "server": ("127.0.0.1", 8000),
             "headers": [(b"host", b"127.0.0.1:8000"), (b"origin", b"http://127.0.0.1:8000"),
                         (b"content-type", b"application/json")]}

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        pass

    t0 = time.perf_counter()
    for _ in range(repeats):
        await guard(scope, receive, send)
    return time.perf_counter() - t0


def _best(run: Any, rounds: int) -> tuple[float, float]:
    a, b = [], []
    for _ in range(rounds):
        a.append(run(True))
        b.append(run(False))
    return min(a), min(b)


def main() -> None:
    """Time each arm against its baseline and print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    n = args.repeats
    out = sys.stdout.write
    for name, text in (("typical call", TYPICAL), ("brackets in strings", BRACKETS)):
        checked, bare = _best(lambda on, t=text: _parse_time(t, n, stub=not on), args.rounds)
        out(f"parse {name}: {1e6 * checked / n:.2f} us with the nesting check, "
            f"{1e6 * bare / n:.2f} us without\n")
        if name == "typical call":
            parse_ratio = checked / bare
    deadline, none = _best(lambda on: asyncio.run(_guard_time(GuardSettings(
        body_timeout_s=30.0 if on else None), n)), args.rounds)
    out(f"guard: {1e6 * deadline / n:.2f} us per request with the body deadline, "
        f"{1e6 * none / n:.2f} us without\n")
    out(f"depth_check_vs_none_parse_time={parse_ratio:.3f}\n")
    out(f"body_deadline_vs_none_guard_time={deadline / none:.3f}\n")


if __name__ == "__main__":
    main()
