"""Terminal env latency: reset and a ``bash("true")`` step vs ``docker run`` and ``docker exec``.

Run ``python benchmarks/terminal_env.py [--n 40]``. Measured in one run, on one task of the
bundled set (``count-error-lines``):

- ``terminal_reset``: ``env.reset`` of the bubblewrap backend (the task's starting filesystem
  is built once per task and cached; a reset closes the last episode's sandbox and takes that
  state; the episode's live sandbox starts, state loaded, at its first command);
- ``terminal_step``: one ``bash("true")`` step (parse the tool call, the command sent to the
  episode's live sandbox, whose PID 1 runs it as a fresh ``bash -c`` under its rlimits and
  deadline and kills what it left; the observation rendered);
- ``terminal_first_step``: a reset and the episode's first ``bash("true")``: the live
  sandbox's start (bwrap, its PID 1, the starting files unpacked) included;
- ``docker_run``: ``docker run --rm --network none IMAGE true`` (the CLI: what a fresh
  container per episode costs);
- ``docker_exec``: ``true`` run in a started container through the Docker API
  (``exec_create`` + ``exec_start`` with docker-py), and through the ``docker exec`` CLI;
- ``terminal_docker_*``: the same env on its Docker backend with ``warm_pool=0`` (a live
  container per episode, started on demand at its first command; a step is one request on its
  attach stream); ``terminal_docker_first_step``: a reset and the first ``bash("true")``;
- ``terminal_docker_warm_*``: the same with the warm pool (the default): the episode's
  container was started ahead; before each timed reset the bench waits (untimed) for the spare
  to be up, as an episode longer than a container's start leaves it time to.

The next-to-last line is ``terminal_docker_warm_vs_cold_first_step_p50_ratio=<warm / on
demand>``; the last line is ``terminal_step_vs_docker_exec_p50_ratio=<step p50 / API exec
p50>``. Without a Docker engine the Docker rows are left out and the last line says ``nan``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import time
from collections.abc import Callable

TASK = "count-error-lines"
IMAGE = "agentgym-sandbox:py3"


def _times(fn: Callable[[], object], n: int, warmup: int = 2) -> list[float]:
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(n):
        begin = time.perf_counter()
        fn()
        out.append((time.perf_counter() - begin) * 1000)
    return out


def _row(name: str, ms: list[float]) -> str:
    ms = sorted(ms)
    p90 = ms[min(len(ms) - 1, int(0.9 * len(ms)))]
    return f"{name}_p50_ms={statistics.median(ms):.1f} {name}_p90_ms={p90:.1f} (n={len(ms)})"


def measure_terminal(n: int, backend: str = "bubblewrap", image: str | None = None,
                     prefix: str = "terminal", warm_pool: int = 1) -> dict[str, list[float]]:
    """Reset and ``bash("true")`` step times of the terminal env on ``backend``."""
    from agentgym.envs.terminal.env import TerminalEnv

    env = TerminalEnv(split="all", backend=backend, image=image, warm_pool=warm_pool)
    action = json.dumps({"name": "bash", "arguments": {"command": "true"}})
    env.reset(options={"task_id": TASK})
    out = {f"{prefix}_reset": _times(lambda: env.reset(options={"task_id": TASK}), n),
           f"{prefix}_step": _times(lambda: env.step(action), n)}
    def first() -> None:
        env.reset(options={"task_id": TASK})
        env.step(action)

    if backend == "bubblewrap":
        out[f"{prefix}_first_step"] = _times(first, max(5, n // 2))
    else:
        out[f"{prefix}_first_step"] = _times_docker(env, first, max(5, n // 3))
    env.close()
    return out


def _times_docker(env: object, fn: Callable[[], object], n: int) -> list[float]:
    """``fn``'s times, each after the warm pool's spare (if any) is up (not timed)."""
    out = []
    for i in range(n + 1):
        live = getattr(env, "_live", None)
        pool = getattr(live, "_pool", None)
        if pool is not None:
            pool.wait_idle(1, timeout=300)
        begin = time.perf_counter()
        fn()
        if i:  # the first is a warm-up
            out.append((time.perf_counter() - begin) * 1000)
    return out


def measure_docker(n: int, image: str) -> dict[str, list[float]]:
    """``docker run``, API exec and CLI exec times; empty without an engine or the image."""
    try:
        import docker

        client = docker.from_env()
        client.images.get(image)
    except Exception:  # no SDK, no engine, no image: the Docker rows are left out
        return {}
    out: dict[str, list[float]] = {}
    run = ["docker", "run", "--rm", "--network", "none", image, "true"]
    out["docker_run"] = _times(lambda: subprocess.run(run, check=True, capture_output=True),
                               max(5, n // 4), warmup=1)
    box = client.containers.run(image, ["sleep", "infinity"], detach=True, network_mode="none")
    try:
        api = client.api

        def api_exec() -> None:
            exec_id = api.exec_create(box.id, ["true"])["Id"]
            api.exec_start(exec_id)
            assert api.exec_inspect(exec_id)["ExitCode"] == 0

        out["docker_exec"] = _times(api_exec, n)
        cli = ["docker", "exec", box.id, "true"]
        out["docker_exec_cli"] = _times(
            lambda: subprocess.run(cli, check=True, capture_output=True), max(5, n // 2))
    finally:
        box.remove(force=True)
    return out


def main() -> None:
    """Measure and print; the last line is the step-vs-exec ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--image", default=IMAGE)
    args = parser.parse_args()
    rows = {**measure_terminal(args.n), **measure_docker(args.n, args.image)}
    if "docker_exec" in rows:  # the terminal env's Docker backend, for the record
        rows.update(measure_terminal(args.n, "docker", args.image, "terminal_docker",
                                     warm_pool=0))
        rows.update(measure_terminal(args.n, "docker", args.image, "terminal_docker_warm"))
    for name, ms in rows.items():
        print(_row(name, ms))
    step = statistics.median(rows["terminal_step"])
    execd = statistics.median(rows["docker_exec"]) if "docker_exec" in rows else float("nan")
    if "docker_run" in rows:
        reset = statistics.median(rows["terminal_reset"])
        print(f"terminal_reset_vs_docker_run_p50_ratio="
              f"{reset / statistics.median(rows['docker_run']):.4f}")
    if "terminal_docker_warm_first_step" in rows:
        warm = statistics.median(rows["terminal_docker_warm_first_step"])
        cold = statistics.median(rows["terminal_docker_first_step"])
        print(f"terminal_docker_warm_vs_cold_first_step_p50_ratio={warm / cold:.3f}")
    print(f"terminal_step_vs_docker_exec_p50_ratio={step / execd:.3f}")


if __name__ == "__main__":
    main()
