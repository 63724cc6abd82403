"""Benchmark the search family's retrieval paths on the same queries with the same k.

Run ``python benchmarks/search_env.py [--queries N] [--k 3]``. The queries are the bundled
test questions (the first N). Measured, each in queries per second:

- ``raw bm25s``: ``bm25s.BM25.retrieve`` on pre-tokenised queries, one query per call (what a
  caller of the library does per agent turn), and the same queries in one batched call;
- ``in-process``: :class:`BM25Retriever.search`, one query per call (tokenising, vocabulary
  filter, building hits: what the env's ``search`` tool pays);
- ``service``: ``agentgym serve-retriever`` started in its own process on loopback, driven by
  1, 8 and 32 concurrent asyncio clients (aiohttp, else httpx), one query per
  ``POST /retrieve``; the
  service merges concurrent requests into one ``batch_search``.

The last line is ``service_vs_raw_bm25_qps_ratio=<service qps with 32 clients / raw bm25s
qps one query per call>`` (goal >= 0.5); raw bm25s is measured before and after the service
and the mean is used, since the machine's load drifts. The clients run on the same 2 cores as
the server.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx
from rich.console import Console
from rich.progress import Progress

from agentgym.envs.search.data import generated_data
from agentgym.envs.search.retrievers.bm25 import BM25Retriever, tokenize

console = Console(stderr=True)


def timed(fn: Callable[[], Any]) -> float:
    """Seconds ``fn`` takes."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def drive(url: str, queries: Sequence[str], k: int, clients: int) -> float:
    """Queries per second of ``clients`` concurrent clients sharing ``queries``.

    The clients are aiohttp sessions when aiohttp is installed (``[bench]`` extra; its client
    costs a fraction of httpx's per request, and the clients share the server's 2 cores),
    else httpx.
    """
    pending = list(reversed(queries))
    try:
        import aiohttp
    except ImportError:
        return await _drive_httpx(url, pending, k, clients, len(queries))
    connector = aiohttp.TCPConnector(limit=clients)
    async with aiohttp.ClientSession(base_url=url, connector=connector) as http:

        async def client() -> None:
            while pending:
                q = pending.pop()
                for attempt in range(3):  # a keep-alive connection closed by the server
                    try:
                        async with http.post("/retrieve", json={"queries": [q], "topk": k}) as r:
                            r.raise_for_status()
                            await r.read()
                        break
                    except aiohttp.ClientConnectionError:
                        if attempt == 2:
                            raise

        async with http.post("/retrieve", json={"queries": ["warm up"], "topk": k}) as r:
            await r.read()
        start = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(clients)))
        return len(queries) / (time.perf_counter() - start)


async def _drive_httpx(url: str, pending: list[str], k: int, clients: int, n: int) -> float:
    """:func:`drive` with httpx clients."""

    async def client(http: httpx.AsyncClient) -> None:
        while pending:
            q = pending.pop()
            for attempt in range(3):  # a keep-alive connection closed by the server: reconnect
                try:
                    r = await http.post("/retrieve", json={"queries": [q], "topk": k})
                    break
                except httpx.TransportError:
                    if attempt == 2:
                        raise
            r.raise_for_status()

    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as http:
        await http.post("/retrieve", json={"queries": ["warm up"], "topk": k})
        start = time.perf_counter()
        await asyncio.gather(*(client(http) for _ in range(clients)))
        return n / (time.perf_counter() - start)


def start_service(port: int) -> subprocess.Popen[bytes]:
    """``agentgym serve-retriever`` on loopback, waited for until /health answers."""
    proc = subprocess.Popen([sys.executable, "-m", "agentgym.cli", "serve-retriever", "--port",
                             str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while time.time() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.5)
        if proc.poll() is not None:
            break
    proc.kill()
    raise RuntimeError("the retrieval service did not start")


def main() -> None:
    """Measure and print; the last line is the headline ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=400, help="test questions used")
    parser.add_argument("--k", type=int, default=3, help="passages per query")
    args = parser.parse_args()

    data = generated_data()
    queries = [q.question for q in data.questions if q.split == "test"][: args.queries]
    retriever = BM25Retriever(data.corpus.passages, data.folder / "bm25")
    n, k = len(queries), args.k
    results: dict[str, float] = {}
    with Progress(console=console) as bar:
        job = bar.add_task("search benchmark", total=7)
        tokens = tokenize(queries, retriever.stopwords)
        vocab = retriever.model.vocab_dict
        tokens = [[t for t in q if t in vocab] or ["the"] for q in tokens]

        def raw_single() -> None:
            for t in tokens:
                retriever.model.retrieve([t], k=k, show_progress=False, n_threads=1)

        results["raw bm25s, 1 query per call"] = n / timed(raw_single)
        bar.advance(job)
        results["raw bm25s, one batch"] = n / timed(
            lambda: retriever.model.retrieve(tokens, k=k, show_progress=False, n_threads=1))
        bar.advance(job)
        results["in-process BM25Retriever"] = n / timed(
            lambda: [retriever.search(q, k) for q in queries])
        bar.advance(job)
        port = free_port()
        proc = start_service(port)
        try:
            for clients in (1, 8, 32):
                results[f"service, {clients} clients"] = asyncio.run(
                    drive(f"http://127.0.0.1:{port}", queries, k, clients))
                bar.advance(job)
        finally:
            proc.terminate()
            proc.wait(10)
        # the machine is shared: measure raw again and compare with the mean of both runs
        results["raw bm25s, 1 query per call (again)"] = n / timed(raw_single)
        bar.advance(job)
    print(f"queries: {n} bundled test questions, k={k}, corpus {len(data.corpus)} passages")
    for name, qps in results.items():
        print(f"{name:38s} {qps:9.1f} queries/s")
    raw = (results["raw bm25s, 1 query per call"]
           + results["raw bm25s, 1 query per call (again)"]) / 2
    print(f"{'raw bm25s, 1 query per call, mean':38s} {raw:9.1f} queries/s")
    ratio = results["service, 32 clients"] / raw
    print(f"service_vs_raw_bm25_qps_ratio={ratio:.2f}")


if __name__ == "__main__":
    main()
