"""Benchmark the importers against their source called directly.

    .venv/bin/python benchmarks/interop.py [--episodes 2000] [--rounds 5]

reasoning-gym: the same episodes (a question, the gold answer in ``<answer>`` tags, its score)
played through ``agentgym.make("reasoning-gym:leg_counting")`` (``reset`` + one ``step``,
TurnLimit included) and through reasoning-gym directly (``extract_answer`` + the dataset's
``score_answer`` on the same entries). Rounds alternate the two; each side's best round
counts. Prints the importer's added microseconds per step (goal <= 50) and ends with
``imported_vs_native_reasoning_gym_time_ratio=<imported s / direct s>``.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

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


def main(argv: list[str] | None = None) -> None:
    """Run the comparisons and print one line each, the ratio last."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    imported, direct = reasoning_gym_pair(args.episodes, args.rounds)
    n = args.episodes
    print(f"reasoning-gym {TASK}: {n} one-step episodes; direct {direct / n * 1e6:.1f} us/step "
          f"(extract_answer + score_answer), imported {imported / n * 1e6:.1f} us/step "
          f"(reset + step through make)")
    print(f"importer_added_us_per_step={(imported - direct) / n * 1e6:.1f} (goal <= 50)")
    print(f"imported_vs_native_reasoning_gym_time_ratio={imported / direct:.2f}")


if __name__ == "__main__":
    main()
