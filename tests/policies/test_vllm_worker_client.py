"""The ``vllm:`` policy's client side of the worker socket, against a stand-in worker (a small
Python script run in place of vLLM's interpreter), so no vLLM is needed.

The real worker reads a batch of requests, generates (reading nothing meanwhile), then sends every
reply before it reads again. Many large prompts at once fill the socket both ways: the client
must keep draining replies while one of its sends waits for the worker to read.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from vllm_support import STUB_WORKER_START, stub_interpreter

from agentgym.policies.vllm_runtime import WorkerClient

BATCHING = STUB_WORKER_START + """
pad = "x" * 65536
while True:
    try:
        batch = [json.loads(conn.recv_bytes())]
        while len(batch) < 4 and conn.poll(0.05):  # the real worker's MAX_BATCH, scaled down
            batch.append(json.loads(conn.recv_bytes()))
    except EOFError:
        break
    for m in batch:                       # every reply before the next read, as vLLM's worker
        if m.get("op") == "close":
            sys.exit(0)
        conn.send_bytes(json.dumps({"id": m["id"], "ok": True, "n": len(m["prompt"]),
                                    "pad": pad}).encode())
"""


def test_many_large_requests_at_once_do_not_deadlock_the_socket(tmp_path: Path) -> None:
    """200 prompts of 64 KiB each in one gather; each reply carries 64 KiB. Holding the reply
    table's lock across a blocked send stopped the reader, and with it the worker (hung for
    good: found on vLLM's CPU build by an async multi-turn training run)."""
    client = WorkerClient({}, python=stub_interpreter(tmp_path, BATCHING), start_timeout_s=60)
    prompt = list(range(16384))  # ~90 KB of JSON
    replies: list[dict] = []

    async def many() -> None:
        replies.extend(await asyncio.gather(*[
            client.request({"op": "generate", "prompt": prompt}, 120) for _ in range(200)]))

    thread = threading.Thread(target=asyncio.run, args=(many(),), daemon=True)
    try:
        thread.start()
        thread.join(60)
        assert not thread.is_alive(), "the client and the worker are stuck on the socket"
        assert len(replies) == 200 and all(r["n"] == len(prompt) for r in replies)
    finally:
        if not thread.is_alive():
            client.close()


LATE = STUB_WORKER_START + """
late = [json.loads(conn.recv_bytes())]    # the first request is answered only once the next
while True:                               # one has come: after its caller gave up on it
    try:
        m = json.loads(conn.recv_bytes())
    except EOFError:
        break
    if m.get("op") == "close":
        break
    for r in late + [m]:
        conn.send_bytes(json.dumps({"id": r["id"], "ok": True, "op": r["op"]}).encode())
    late = []
"""


def test_a_request_given_up_on_does_not_stop_the_next(tmp_path: Path) -> None:
    """A partial rollout aborts its generation between turns and the step's event loop ends;
    the worker's late reply then belonged to a closed loop, delivering it killed the reader
    thread, and the trainer's next weight push waited for an answer that was never read (found
    hung on vLLM's CPU build: async GRPO with partial rollouts on the shop)."""
    client = WorkerClient({}, python=stub_interpreter(tmp_path, LATE), start_timeout_s=60)
    try:
        with pytest.raises(TimeoutError):
            asyncio.run(asyncio.wait_for(client.request({"op": "generate"}, 60), 0.1))
        assert client.call({"op": "load_weights"}, 10) == {"id": 2, "ok": True,
                                                          "op": "load_weights"}
        assert client.call({"op": "generate"}, 10)["ok"] and not client.broken
    finally:
        client.close()
