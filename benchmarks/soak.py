"""Soak: concurrent envs of every family for a given time; does anything grow with episodes?

    python benchmarks/soak.py [--minutes 15] [--envs 1] [--think-s 0.5] [--sample-s 10]
                              [--families web,webarena,gui,sql,code,search] [--json PATH]

Every family runs at once in one process, as a long training run would: for each env id below,
a lane with the ``scripted`` policy (the env's expert) and a lane with the ``random`` policy,
each an :class:`~agentgym.rollout.Engine` holding ``--envs`` envs that play episode after
episode (rotating over the train split's tasks) until the time is up. A lane whose env offers
no expert keeps only its random policy. Each policy turn waits ``--think-s`` first, as a
model would (without it the cheap families play thousands of episodes a minute and dilute the
growth per episode of the others). Families whose system parts are missing (Chromium,
Xvfb, dockerd, bubblewrap) are skipped with the reason.

Every ``--sample-s`` seconds it samples, over this process and all its descendants: processes
(by kind: Chromium under the Playwright driver, the driver, Xvfb and the desktop's programs,
bwrap, Python helpers, other), their resident memory (RSS) and open file descriptors; the
entries of ``/dev/shm`` (machine-wide: other users' segments count too) and the Docker
containers this process owns (label ``agentgym.sandbox.owner_pid``). After the warm-up (every
lane has finished an episode and ``--warmup-s`` has passed) and until the time is up (the lanes
then wind down), each figure's growth is the least-squares slope of figure against episodes
finished, per thousand episodes.

The last lines are ``soak_rss_growth_pct=...`` (RSS at the end against the first sample after
the warm-up) and ``soak_process_growth_per_1k_episodes=...`` (goal: 0 processes, RSS growth
under 10%).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import logging
import os
import shutil
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from agentgym.policies import Policy, load_policy

FAMILIES: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "web": [("miniwob/click-test-v0", {}), ("miniwob/click-dialog-v0", {})],
    "webarena": [("web/webarena-lite-v0", {})],
    "gui": [("gui/desktop-v0", {})],
    "sql": [("sql/spider-lite-v0", {})],
    "code": [("code/py-functions-v1", {"sandbox": "docker"}),
             ("code/py-functions-v1", {"sandbox": "bubblewrap"})],
    "search": [("search/qa-v0", {})],
}
"""Env ids (with constructor arguments) of each family."""
MAX_TURNS = 6
"""Turn limit of every episode (random policies would otherwise use the env's whole limit)."""
console = Console(stderr=True)


def _needs(family: str, kwargs: dict[str, Any]) -> str | None:
    """Why a family cannot run here (None when it can); an unknown backend name raises."""
    if "sandbox" in kwargs:
        from agentgym.sandboxes import check_backend

        check_backend(kwargs["sandbox"])
    if family in ("web", "webarena"):
        from agentgym.sandboxes.browser import chromium_available

        return None if chromium_available() else "Chromium or Playwright missing"
    if family == "gui":
        return None if shutil.which("Xvfb") else "Xvfb missing"
    if family == "code" and kwargs.get("sandbox") == "bubblewrap":
        return None if shutil.which("bwrap") else "bubblewrap missing"
    if family == "code" and kwargs.get("sandbox") == "docker":
        try:
            import docker

            docker.from_env().ping()
        except Exception as e:  # any failure: no usable daemon
            return f"no Docker daemon ({type(e).__name__})"
    return None


# -- sampling ---------------------------------------------------------------------------------

def _children_map() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                stat = f.read().decode(errors="replace")
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        kids.setdefault(ppid, []).append(int(entry.name))
    return kids


def descendants(root: int) -> list[int]:
    """``root`` and every process below it."""
    kids, out, todo = _children_map(), [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += kids.get(pid, [])
    return out


def kind(pid: int) -> str:
    """A process's kind, from its command name."""
    try:
        comm = Path(f"/proc/{pid}/comm").read_text().strip().lower()
    except OSError:
        return "gone"
    if "chrom" in comm or "headless" in comm:
        return "chromium"
    if comm == "node":
        return "playwright-driver"
    if comm.startswith("xvfb") or comm in ("openbox", "x11vnc", "xdotool", "dbus-daemon",
                                           "at-spi-bus-laun", "at-spi2-registr"):
        return "desktop"
    if comm == "bwrap":
        return "bwrap"
    if comm.startswith("python"):
        return "python"
    return "other"


def _rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def _containers() -> int:
    try:
        import docker

        client = docker.from_env()
        found = client.api.containers(
            filters={"label": f"agentgym.sandbox.owner_pid={os.getpid()}"})
        client.close()
        return len(found)
    except Exception:  # no daemon, no package: nothing of ours runs there
        return 0


OWNERS = {"chromium": ("web", "webarena"), "playwright-driver": ("web", "webarena"),
          "desktop": ("gui",), "bwrap": ("code", "gui"), "containers": ("code",)}
"""The families whose episodes a kind of process (or the containers) serves."""


def sample(episodes: int, by_family: dict[str, int] | None = None) -> dict[str, Any]:
    """One sample of everything this process holds, at ``episodes`` finished (``by_family``:
    the same count per family)."""
    pids = [p for p in descendants(os.getpid()) if p != os.getpid()]
    kinds: dict[str, int] = {}
    for p in pids:
        k = kind(p)
        kinds[k] = kinds.get(k, 0) + 1
    kinds.pop("gone", None)
    try:
        shm = len(os.listdir("/dev/shm"))
    except OSError:
        shm = 0
    return {"t": time.monotonic(), "episodes": episodes, "by_family": dict(by_family or {}),
            "processes": sum(kinds.values()),
            "kinds": kinds, "rss_mib": sum(_rss_kib(p) for p in [os.getpid(), *pids]) / 1024,
            "fds": sum(_fds(p) for p in [os.getpid(), *pids]), "shm": shm,
            "containers": _containers()}


def slope_per_1k(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of y over x (episodes), per thousand episodes; 0 without spread."""
    if len(points) < 2:
        return 0.0
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    var = sum((x - mx) ** 2 for x, _ in points)
    if var == 0:
        return 0.0
    return 1000 * sum((x - mx) * (y - my) for x, y in points) / var


# -- the load ---------------------------------------------------------------------------------

@dataclass
class Lane:
    """One env id and policy, played by an engine until the deadline."""

    family: str
    env_id: str
    policy: str
    kwargs: dict[str, Any]
    episodes: int = 0
    aborted: int = 0
    rewarded: int = 0
    """Episodes that earned a positive reward (the expert's show the env did real work)."""
    reasons: dict[str, int] = field(default_factory=dict)
    dropped: str = ""
    first_done: float | None = None
    """When the lane's first episode finished (the warm-up waits for every lane's)."""

    @property
    def name(self) -> str:
        """``env (kwargs) / policy``."""
        extra = ",".join(f"{k}={v}" for k, v in self.kwargs.items())
        return f"{self.env_id}{f' ({extra})' if extra else ''} / {self.policy}"


class Thinking(Policy):
    """A policy that waits ``think_s`` before each turn of ``inner``, as a model would."""

    def __init__(self, inner: Policy, think_s: float) -> None:
        super().__init__()
        self.inner, self.think_s, self.name = inner, think_s, inner.name

    async def agenerate(self, messages: Any, **kwargs: Any) -> Any:
        """The inner policy's turn, ``think_s`` later."""
        await asyncio.sleep(self.think_s)
        return await self.inner.agenerate(messages, **kwargs)

    async def aclose(self) -> None:
        """Close the inner policy."""
        await self.inner.aclose()


async def play(lane: Lane, envs: int, deadline: float, seed: int, think_s: float) -> None:
    """Episodes of ``lane`` until ``deadline`` (its engine's envs kept between episodes)."""
    from agentgym.rollout import Engine, EpisodeRequest, RolloutConfig
    from agentgym.rollout.evaluate import select_tasks

    tasks = await asyncio.to_thread(select_tasks, lane.env_id, "train", None, lane.kwargs)
    config = RolloutConfig(max_turns=MAX_TURNS, episode_timeout_s=300, seed=seed)
    policy = Thinking(load_policy(lane.policy), think_s)
    engine = Engine(lane.env_id, policy, config=config, num_envs=envs,
                    env_kwargs={"split": "train", **lane.kwargs})

    def requests():
        for i, task in enumerate(itertools.cycle(tasks)):
            if time.monotonic() >= deadline or lane.dropped:
                return
            yield EpisodeRequest(task_id=task, sample_idx=0, group_id=f"{task}-{i}",
                                 seed=seed + i)

    def done(traj: Any) -> None:
        lane.episodes += 1
        lane.rewarded += traj.reward > 0
        lane.first_done = lane.first_done or time.monotonic()
        if traj.aborted:
            lane.aborted += 1
            reason = traj.reason[:80]
            lane.reasons[reason] = lane.reasons.get(reason, 0) + 1
            if lane.policy == "scripted" and "expert" in reason and lane.episodes <= envs:
                lane.dropped = f"no expert: {reason}"

    try:
        async for _ in engine.astream(requests(), on_result=done):
            pass
    finally:
        await engine.aclose()


async def soak(args: argparse.Namespace, lanes: list[Lane]) -> list[dict[str, Any]]:
    """Run every lane for ``args.minutes`` while sampling; return the samples."""
    deadline = args.deadline = time.monotonic() + 60 * args.minutes
    samples: list[dict[str, Any]] = []
    stop = threading.Event()
    total = lambda: sum(lane.episodes for lane in lanes)  # noqa: E731

    def by_family() -> dict[str, int]:
        counts: dict[str, int] = {}
        for lane in lanes:
            counts[lane.family] = counts.get(lane.family, 0) + lane.episodes
        return counts

    bar = Progress(TextColumn("[bold]soak"), BarColumn(), TimeElapsedColumn(),
                   TextColumn("{task.fields[status]}"), console=console)
    job = bar.add_task("", total=60 * args.minutes, status="starting")

    def sampler() -> None:
        t0 = time.monotonic()
        while not stop.wait(args.sample_s):
            s = sample(total(), by_family())
            samples.append(s)
            aborted = sum(lane.aborted for lane in lanes)
            bar.update(job, completed=min(s["t"] - t0, 60 * args.minutes), status=(
                f"episodes {s['episodes']} (aborted {aborted})  processes {s['processes']}  "
                f"RSS {s['rss_mib']:.0f} MiB  fds {s['fds']}  shm {s['shm']}  "
                f"containers {s['containers']}"))

    thread = threading.Thread(target=sampler, daemon=True)
    with bar:
        samples.append(sample(0))
        thread.start()
        try:
            await asyncio.gather(*(play(lane, args.envs, deadline, 1000 * i, args.think_s)
                                   for i, lane in enumerate(lanes)))
        finally:
            stop.set()
            thread.join()
    samples.append(sample(total(), by_family()))  # after every engine closed its envs
    return samples


def _own_growth(name: str, get: Any, warm: list[dict[str, Any]]) -> str:
    """Growth of a figure per thousand episodes of the families it serves ('' for none)."""
    owners = OWNERS.get(name.removeprefix("processes: "))
    if owners is None:
        return ""
    points = [(sum(s["by_family"].get(f, 0) for f in owners), get(s)) for s in warm]
    return f"{slope_per_1k(points):+.2f} ({'+'.join(owners)})"


def idle_lanes(lanes: list[Lane]) -> list[tuple[str, str]]:
    """``(lane, why)`` for each lane that did no real work: no episode finished, every episode
    aborted, or a scripted (expert) lane never rewarded (a misspelt backend made every tool call
    an error, say). A lane dropped for a known reason (no expert) is not idle."""
    idle = []
    for lane in lanes:
        if lane.dropped:
            continue
        if lane.episodes == 0:
            idle.append((lane.name, "no episode finished"))
        elif lane.aborted == lane.episodes:
            idle.append((lane.name, f"all {lane.episodes} episodes aborted"))
        elif lane.policy == "scripted" and lane.rewarded == 0:
            idle.append((lane.name, f"the expert earned nothing in {lane.episodes} episodes"))
    return idle


def report(args: argparse.Namespace, lanes: list[Lane], samples: list[dict[str, Any]],
           warm_t: float) -> dict[str, Any]:
    """Print the lanes, the figures and their growth; return them."""
    table = Table(title="lanes")
    for col in ("family", "lane", "episodes", "rewarded", "aborted", "reasons"):
        table.add_column(col)
    for lane in lanes:
        reasons = "; ".join(f"{n}x {r}" for r, n in list(lane.reasons.items())[:2])
        table.add_row(lane.family, lane.name, str(lane.episodes), str(lane.rewarded),
                      str(lane.aborted), lane.dropped or reasons)
    console.print(table)
    running = [s for s in samples[:-1] if s["t"] <= args.deadline]  # every lane at work
    warm = [s for s in running if s["t"] >= warm_t] or running[-1:]
    first, last = warm[0], warm[-1]
    figures = Table(title=f"after the warm-up: {last['episodes'] - first['episodes']} episodes")
    for col in ("figure", "first", "last", "growth per 1k episodes",
                "per 1k of its families' episodes"):
        figures.add_column(col, justify="right")
    out: dict[str, Any] = {"episodes": last["episodes"], "lanes": [vars(lane) for lane in lanes],
                           "samples": samples, "growth_per_1k": {}}
    keys = sorted({k for s in warm for k in s["kinds"]})
    rows = [(name, lambda s, name=name: s[name]) for name in
            ("processes", "rss_mib", "fds", "shm", "containers")]
    rows += [(f"processes: {k}", lambda s, k=k: s["kinds"].get(k, 0)) for k in keys]
    out["growth_per_1k_own"] = {}
    for name, get in rows:
        growth = slope_per_1k([(s["episodes"], get(s)) for s in warm])
        out["growth_per_1k"][name] = growth
        own = _own_growth(name, get, warm)
        out["growth_per_1k_own"][name] = own
        figures.add_row(name, f"{get(first):.0f}", f"{get(last):.0f}", f"{growth:+.2f}", own)
    console.print(figures)
    end = samples[-1]
    console.print(f"after every engine closed: {end['processes']} processes {end['kinds']}, "
                  f"{end['containers']} containers (a shared warm pool is released at exit), "
                  f"shm {end['shm']}", highlight=False)
    out["rss_growth_pct"] = 100 * (last["rss_mib"] - first["rss_mib"]) / max(first["rss_mib"], 1)
    return out


def main() -> None:
    """Parse the arguments, run the soak, print the figures and the growth lines."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=15.0)
    parser.add_argument("--envs", type=int, default=1, help="Envs per lane (2 lanes per id).")
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--think-s", type=float, default=0.5, help="Wait before each turn.")
    parser.add_argument("--sample-s", type=float, default=10.0)
    parser.add_argument("--warmup-s", type=float, default=60.0)
    parser.add_argument("--json", default=None, help="Also write every sample to this file.")
    args = parser.parse_args()
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"agentgym-soak-{os.getpid()}.log"
    logging.basicConfig(filename=log, level=logging.WARNING,
                        format="%(asctime)s %(name)s: %(message)s")
    lanes: list[Lane] = []
    for family in args.families.split(","):
        if family not in FAMILIES:
            raise SystemExit(f"unknown family {family!r}; choose from {', '.join(FAMILIES)}")
        for env_id, kwargs in FAMILIES[family]:
            why = _needs(family, kwargs)
            if why:
                console.print(f"skipping {family} {env_id} {kwargs or ''}: {why}")
                continue
            lanes += [Lane(family, env_id, p, kwargs) for p in ("scripted", "random")]
    if not lanes:
        raise SystemExit("nothing to run here")
    console.print(f"{len(lanes)} lanes x {args.envs} envs for {args.minutes:g} min "
                  f"(engine warnings in {log}); load average {os.getloadavg()[0]:.1f}")
    t0 = time.monotonic()
    samples = asyncio.run(soak(args, lanes))
    warm_t = max([t0 + args.warmup_s, *(lane.first_done for lane in lanes
                                         if lane.first_done and not lane.dropped)])
    out = report(args, lanes, samples, warm_t)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    idle = idle_lanes(lanes)
    for name, why in idle:
        console.print(f"[red]lane did no real work: {name}: {why}", highlight=False)
    sys.stdout.write(f"soak_idle_lanes={len(idle)}\n")
    sys.stdout.write(f"load_average_end={os.getloadavg()[0]:.1f}\n")
    sys.stdout.write(f"soak_rss_growth_pct={out['rss_growth_pct']:.1f}\n")
    sys.stdout.write(f"soak_process_growth_per_1k_episodes="
                     f"{out['growth_per_1k']['processes']:.1f}\n")
    if idle:
        raise SystemExit(f"{len(idle)} lane(s) did no real work")


if __name__ == "__main__":
    main()
