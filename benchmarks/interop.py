"""Benchmark the importers against their source called directly.

    .venv/bin/python benchmarks/interop.py [--episodes 2000] [--rounds 5]

reasoning-gym: the same episodes (a question, the gold answer in ``<answer>`` tags, its score)
played through ``agentgym.make("reasoning-gym:leg_counting")`` (``reset`` + one ``step``,
TurnLimit included) and through reasoning-gym directly (``extract_answer`` + the dataset's
``score_answer`` on the same entries). Rounds alternate the two; each side's best round
counts. Prints the importer's added microseconds per step (goal <= 50) and
``imported_vs_native_reasoning_gym_time_ratio=<imported s / direct s>``.

OpenEnv (when ``.venv-openenv`` exists: scripts/setup_openenv_venv.sh): one OpenEnv-protocol
server in its own process (``python -m agentgym.serve arith --http``) played by
``make("openenv:<url>")`` and by openenv-core's own ``GenericEnvClient`` (in
``.venv-openenv``), the same reset + step episodes one after the other, each side's best of
``--rounds``; the last line is ``imported_vs_native_steps_ratio=<imported steps/s / openenv-core
client steps/s>`` (goal >= 0.9).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PEER_PYTHON = ROOT / ".venv-openenv" / "bin" / "python"
PEER_CLIENT = ROOT / "tests" / "envs" / "imported" / "openenv_peer_client.py"

TASK = "leg_counting"


def _direct(dataset: Any, entries: list[dict[str, Any]], replies: list[str]) -> float:
    """Seconds to score every reply with reasoning-gym alone."""
    from reasoning_gym.utils import extract_answer

    started = time.perf_counter()
    for entry, reply in zip(entries, replies, strict=True):
        score = dataset.score_answer(extract_answer(reply), entry)
        assert score == 1.0
    return time.perf_counter() - started


def _imported(env: Any, indices: list[int], replies: list[str]) -> float:
    """Seconds to play the same episodes through the imported env."""
    started = time.perf_counter()
    for index, reply in zip(indices, replies, strict=True):
        env.reset(options={"index": index})
        _, reward, terminated, _, _ = env.step(reply)
        assert reward == 1.0 and terminated
    return time.perf_counter() - started


def reasoning_gym_pair(episodes: int, rounds: int) -> tuple[float, float]:
    """(imported s, direct s) for ``episodes`` episodes, best of ``rounds``."""
    import agentgym

    env = agentgym.make(f"reasoning-gym:{TASK}")
    base = env.unwrapped
    dataset = base._data["train"]
    size = len(base.task_set)
    indices = [i % size for i in range(episodes)]
    entries = [base.task_set[i].data["entry"] for i in indices]
    replies = [f"<answer>{e['answer']}</answer>" for e in entries]
    imported, direct = [], []
    for _ in range(rounds):
        direct.append(_direct(dataset, entries, replies))
        imported.append(_imported(env, indices, replies))
    env.close()
    return min(imported), min(direct)


def openenv_pair(episodes: int, rounds: int) -> tuple[float, float]:
    """(imported s, openenv-core client s) for ``episodes`` reset + step episodes."""
    import socket

    import agentgym

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "agentgym.serve", "arith", "--http",
                               "--port", str(port), "--max-sessions", "64"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait(url + "/health")
        env = agentgym.make(f"openenv:{url}")
        imported, native = [], []
        for _ in range(rounds):
            started = time.perf_counter()
            for i in range(episodes):
                env.reset(seed=i)
                env.step("5")
            imported.append(time.perf_counter() - started)
            done = subprocess.run([str(PEER_PYTHON), str(PEER_CLIENT), url,
                                   json.dumps([{"seed": 0, "actions": [{"content": "5"}]}]),
                                   "--bench", str(episodes)],
                                  capture_output=True, text=True, timeout=600, check=True)
            native.append(float(json.loads(done.stdout.strip().splitlines()[-1])["seconds"]))
        env.close()
        return min(imported), min(native)
    finally:
        server.terminate()
        server.wait(10)


def _wait(url: str) -> None:
    import httpx

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"{url} did not come up")


def main(argv: list[str] | None = None) -> None:
    """Run the comparisons and print one line each, the ratio last."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--openenv-episodes", type=int, default=300)
    args = parser.parse_args(argv)
    imported, direct = reasoning_gym_pair(args.episodes, args.rounds)
    n = args.episodes
    print(f"reasoning-gym {TASK}: {n} one-step episodes; direct {direct / n * 1e6:.1f} us/step "
          f"(extract_answer + score_answer), imported {imported / n * 1e6:.1f} us/step "
          f"(reset + step through make)")
    print(f"importer_added_us_per_step={(imported - direct) / n * 1e6:.1f} (goal <= 50)")
    print(f"imported_vs_native_reasoning_gym_time_ratio={imported / direct:.2f}")
    if not PEER_PYTHON.exists():
        print("openenv pair skipped: no .venv-openenv (scripts/setup_openenv_venv.sh)")
        return
    m = args.openenv_episodes
    imported, native = openenv_pair(m, args.rounds)
    print(f"openenv arith over /ws: {m} reset+step episodes; importer {2 * m / imported:.0f} "
          f"steps/s, openenv-core GenericEnvClient {2 * m / native:.0f} steps/s")
    print(f"imported_vs_native_steps_ratio={native / imported:.2f}")


if __name__ == "__main__":
    main()
