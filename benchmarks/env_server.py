"""Served env throughput: steps/s over WebSocket and HTTP against the same env in process.

The env is ``textgames/guess-number-v0`` (a pure-text env, up to 12 turns). The server runs in
its own process (``python -m agentgym.serve ENV --http``); the clients run here, in one asyncio
loop: ``S`` concurrent sessions (1, 64, 256) each reset and step in a loop for ``--seconds``,
through :class:`agentgym.serve.RemoteEnv` (WebSocket, one session per env) and through plain
HTTP ``POST /reset`` + ``POST /step`` with ``httpx``. The in-process baseline steps one env in a
loop in this process for the same time. Every step guesses 50, and an episode that ends is reset,
so both sides do the same resets per step. Prints steps/s, P50/P99 step latency per case, the
steps/s per server core (the server is one Python process: one core), and last the line
``served_vs_inprocess_step_ratio=...``: WebSocket steps/s at 64 sessions / in-process steps/s.

The server runs with its security defaults on: every request passes the Host and Origin checks,
and a bearer token (``--token``) is required of every request and WebSocket handshake; the
benchmark checks that a request without it gets 401 and one from a foreign Origin 403 before it
measures.

    python benchmarks/env_server.py                  # 1, 64, 256 sessions, 8 s each
    python benchmarks/env_server.py --sessions 1 64 --seconds 4
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import subprocess
import sys
import time
from typing import Any

import httpx
from rich.console import Console
from rich.progress import Progress

import agentgym

ENV_ID = "textgames/guess-number-v0"
TOKEN = secrets.token_urlsafe(32)
AUTH = {"Authorization": f"Bearer {TOKEN}"}
GUESS = '<tool_call>{"name": "guess", "arguments": {"number": 50}}</tool_call>'
console = Console()


def inprocess(seconds: float) -> dict[str, Any]:
    """Step one local env in a loop for ``seconds``."""
    env = agentgym.make(ENV_ID)
    env.reset(seed=0)
    steps, latencies = 0, []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        t = time.perf_counter()
        _, _, terminated, truncated, _ = env.step(GUESS)
        latencies.append(time.perf_counter() - t)
        steps += 1
        if terminated or truncated:
            env.reset()
    env.close()
    return {"steps": steps, "seconds": seconds, "latencies": latencies}


async def over_websocket(url: str, sessions: int, seconds: float) -> dict[str, Any]:
    """``sessions`` RemoteEnvs stepping concurrently for ``seconds``."""
    envs = [agentgym.make(f"remote:{url}", timeout_s=120, token=TOKEN) for _ in range(sessions)]
    await asyncio.gather(*(e.areset(seed=i) for i, e in enumerate(envs)))
    latencies: list[float] = []
    end = time.perf_counter() + seconds

    async def lane(env: Any) -> int:
        n = 0
        while time.perf_counter() < end:
            t = time.perf_counter()
            _, _, terminated, truncated, _ = await env.astep(GUESS)
            latencies.append(time.perf_counter() - t)
            n += 1
            if terminated or truncated:
                await env.areset()
        return n

    start = time.perf_counter()
    steps = sum(await asyncio.gather(*(lane(e) for e in envs)))
    elapsed = time.perf_counter() - start
    await asyncio.gather(*(e.aclose() for e in envs))
    return {"steps": steps, "seconds": elapsed, "latencies": latencies}


async def over_http(url: str, sessions: int, seconds: float) -> dict[str, Any]:
    """``sessions`` HTTP sessions (``/reset`` then ``/step`` requests) for ``seconds``."""
    limits = httpx.Limits(max_connections=sessions, max_keepalive_connections=sessions)
    latencies: list[float] = []
    errors: list[float] = []
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits,
                                 headers=AUTH) as http:

        async def reset(session_id: str | None, seed: int | None = None) -> str:
            body: dict[str, Any] = {"session_id": session_id}
            if seed is not None:
                body["seed"] = seed
            r = (await http.post("/reset", json=body)).raise_for_status().json()
            return str(r["metadata"]["session_id"])

        ids = await asyncio.gather(*(reset(None, i) for i in range(sessions)))
        end = time.perf_counter() + seconds

        async def lane(session_id: str) -> int:
            n = 0
            while time.perf_counter() < end:
                t = time.perf_counter()
                payload = {"session_id": session_id, "action": {"content": GUESS}}
                try:
                    r = await http.post("/step", json=payload)
                except httpx.TransportError:  # a dropped keep-alive connection: count, retry
                    errors.append(time.perf_counter())
                    r = await http.post("/step", json=payload)
                body = r.raise_for_status().json()
                latencies.append(time.perf_counter() - t)
                n += 1
                if body["done"]:
                    await reset(session_id)
            return n

        start = time.perf_counter()
        steps = sum(await asyncio.gather(*(lane(s) for s in ids)))
        elapsed = time.perf_counter() - start
        await asyncio.gather(*(http.post("/close", json={"session_id": s}) for s in ids))
    if errors:
        console.print(f"http: {len(errors)} requests retried after a dropped connection")
    return {"steps": steps, "seconds": elapsed, "latencies": latencies}


def guard_cost_us(n: int = 20_000) -> float:
    """Microseconds the request guard adds to one POST (Host, Origin, token, type, body read)."""
    from agentgym.serve.guard import GuardSettings, RequestGuard

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()

    guard = RequestGuard(app, GuardSettings(token=TOKEN))
    scope = {"type": "http", "method": "POST", "headers": [
        (b"host", b"127.0.0.1:8931"), (b"content-type", b"application/json"),
        (b"authorization", f"Bearer {TOKEN}".encode()), (b"content-length", b"60")]}
    body = {"type": "http.request", "body": b"x" * 60, "more_body": False}

    async def receive() -> dict[str, Any]:
        return body

    async def run() -> float:
        start = time.perf_counter()
        for _ in range(n):
            await guard(scope, receive, None)
        return (time.perf_counter() - start) / n * 1e6

    return asyncio.run(run())


def _row(name: str, sessions: int, result: dict[str, Any]) -> dict[str, Any]:
    lat = sorted(result["latencies"])
    rate = result["steps"] / result["seconds"]
    p50 = statistics.median(lat) if lat else float("nan")
    p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))] if lat else float("nan")
    console.print(f"{name:>10} sessions={sessions:<4} steps/s={rate:8.1f}  "
                  f"p50={p50 * 1000:8.2f} ms  p99={p99 * 1000:8.2f} ms  steps={result['steps']}")
    return {"name": name, "sessions": sessions, "rate": rate, "p50": p50, "p99": p99}


def _start_server(port: int, max_sessions: int) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "agentgym.serve", ENV_ID, "--http", "--port", str(port),
           "--max-sessions", str(max_sessions), "--idle-timeout", "0", "--token", TOKEN]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/health", timeout=1, headers=AUTH).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.2)
    else:
        proc.kill()
        raise SystemExit("the env server did not start")
    anonymous = httpx.post(url + "/reset", json={}).status_code
    foreign = httpx.post(url + "/reset", json={},
                         headers={**AUTH, "Origin": "http://evil.example"}).status_code
    if (anonymous, foreign) != (401, 403):
        proc.kill()
        raise SystemExit(f"security checks are off: {anonymous} without token, {foreign} "
                         "from a foreign origin")
    console.print("security checks on: 401 without the token, 403 from a foreign Origin")
    return proc


def main() -> None:
    """Run every case and print the table and the headline ratio."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 64, 256])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--port", type=int, default=8931)
    args = parser.parse_args()
    url = f"http://127.0.0.1:{args.port}"
    proc = _start_server(args.port, max(args.sessions) + 8)
    rows = []
    try:
        with Progress(console=console, transient=True) as progress:
            task = progress.add_task("benchmark", total=1 + 2 * len(args.sessions))
            rows.append(_row("in-process", 1, inprocess(args.seconds)))
            progress.advance(task)
            for sessions in args.sessions:
                for name, fn in (("websocket", over_websocket), ("http", over_http)):
                    rows.append(_row(name, sessions, asyncio.run(fn(url, sessions, args.seconds))))
                    progress.advance(task)
    finally:
        proc.terminate()
        proc.wait(15)
    base = rows[0]["rate"]
    ws = {r["sessions"]: r for r in rows if r["name"] == "websocket"}
    headline = ws.get(64) or ws[max(ws)]
    most = ws[max(ws)]
    console.print(
        f"per server core (1 process): {most['rate']:.0f} steps/s over {most['sessions']} "
        f"sessions at P99 {most['p99']:.3f} s; OpenEnv reports 2,048 sessions on 8 cores "
        f"(256 per core) at P99 1.97 s"
    )
    console.print(f"request guard (Host, Origin, token, content type, body): "
                  f"{guard_cost_us():.1f} us per HTTP request (once per WebSocket connection)")
    console.print(f"headline: websocket at {headline['sessions']} sessions vs in-process")
    print(f"served_vs_inprocess_step_ratio={headline['rate'] / base:.3f}")


if __name__ == "__main__":
    main()
