"""What listing the envs costs, and what it would cost if registering imported the env classes.

    python benchmarks/registration.py [repeats=5]

Each case runs in a fresh interpreter (``repeats`` times; the median is reported):

- ``import``: ``import agentgym``;
- ``list``: ``import agentgym; agentgym.list_envs()`` (every plugin loaded, specs only: entry
  points stay ``"pkg.mod:Class"`` strings, issue 25);
- ``eager``: ``list`` plus importing every spec's entry-point module, which is what registration
  cost when the plugins imported the env families (the web family's WebEnv and browser sandbox,
  the Docker pool, the search and GUI packages).

Prints the wall time and the number of modules loaded per case, then
``eager_vs_lazy_registration_s=`` (eager over list) and, last,
``a_vs_b_list_vs_import_s=`` (list over import: what registering adds to the import).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys

CASES = {
    "import": "import agentgym",
    "list": "import agentgym; ids = agentgym.list_envs()",
    "eager": (
        "import agentgym, importlib; ids = agentgym.list_envs()\n"
        "for s in agentgym.all_specs():\n"
        "    if isinstance(s.entry_point, str):\n"
        "        try: importlib.import_module(s.entry_point.partition(':')[0])\n"
        "        except ImportError: pass\n"
    ),
}
PROBE = (
    "import sys, time, json\nt0 = time.perf_counter()\n{code}\n"
    "print(json.dumps([time.perf_counter() - t0, len(sys.modules)]))\n"
)


def measure(code: str, repeats: int) -> tuple[float, int]:
    """Median wall seconds of ``code`` in a fresh interpreter, and the modules it loaded."""
    times, modules = [], 0
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-c", PROBE.format(code=code)], check=True,
                             capture_output=True, text=True, timeout=300)
        seconds, modules = json.loads(out.stdout.strip().splitlines()[-1])
        times.append(seconds)
    return statistics.median(times), modules


def main(argv: list[str]) -> None:
    """Run the three cases and print the figures."""
    repeats = int(next((a.split("=", 1)[1] for a in argv if a.startswith("repeats=")), 5))
    results = {name: measure(code, repeats) for name, code in CASES.items()}
    for name, (seconds, modules) in results.items():
        print(f"{name:>7}: {seconds * 1000:8.1f} ms  {modules:5d} modules")
    print(f"eager_vs_lazy_registration_s={results['eager'][0] / results['list'][0]:.2f}")
    print(f"a_vs_b_list_vs_import_s={results['list'][0] / results['import'][0]:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
