"""Cost of the gateway's agent jail (issue 35): starting an agent program in bubblewrap.

Each gateway episode starts one agent program. This times ``python -c pass`` (the trainer's
interpreter, as ``gateway.agent: [python, ...]`` runs it) started plain with the minimal
environment, and inside :class:`agentgym.gateway.AgentJail` (own pid namespace, read-only
system view, fresh HOME; building the jail's argv counts, as each episode builds one),
``--runs`` times each, alternating, and the per-request cost of
resolving a bearer to its episode key (:class:`agentgym.gateway.Credentials`).

The last line is ``jail_vs_plain_agent_start_time=<jailed seconds / plain seconds>``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable

from agentgym.gateway import AgentJail, Credentials, bubblewrap_works, minimal_env


def _start(argv: Callable[[], list[str]], env: dict[str, str]) -> float:
    """Seconds to build the argv (what an episode pays for it) and run it to its end."""
    t0 = time.perf_counter()
    subprocess.run(argv(), env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    """Time both arms and print the ratio."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    if bubblewrap_works():
        raise SystemExit(f"bubblewrap cannot run here: {bubblewrap_works()}")
    home = tempfile.mkdtemp(prefix="agentgym-bench-")
    try:
        env = minimal_env({}, home)
        agent = [sys.executable, "-c", "pass"]
        jail = AgentJail()
        plain, jailed = [], []
        for _ in range(args.runs):
            plain.append(_start(lambda: agent, env))
            jailed.append(_start(lambda: jail.argv(agent, home), env))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    creds = Credentials()
    keys = [creds.episode(f"ep{i}", "trainer") for i in range(256)]
    lookup = min(timeit.repeat(lambda: creds.who(keys[100].agent), number=10_000, repeat=5))
    p, j = statistics.median(plain), statistics.median(jailed)
    print(f"agent start, plain: {p * 1000:.1f} ms (median of {args.runs})")
    print(f"agent start, jailed: {j * 1000:.1f} ms (median of {args.runs})")
    print(f"bearer -> episode key lookup (512 keys): {lookup / 10_000 * 1e6:.2f} us")
    print(f"jail_vs_plain_agent_start_time={j / p:.3f}")


if __name__ == "__main__":
    main()
