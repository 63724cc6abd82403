"""Per-run cgroups (v1 or v2) for the bubblewrap backend: total memory, pids, CPU, OOM count.

Used only where this process may create child cgroups (root on most hosts); otherwise
:func:`create_run_cgroup` returns ``None`` and the backend relies on rlimits alone. A run's
cgroup is a child of the cgroup this process already lives in, so the host's own limits nest.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import time
import uuid
from pathlib import Path

from agentgym.sandbox import SandboxLimits

logger = logging.getLogger(__name__)

ROOT = Path("/sys/fs/cgroup")
PREFIX = "agentgym-sandbox"
CPU_PERIOD_US = 100_000


def _own_paths() -> dict[str, Path]:
    """Map controller name ("memory", "pids", "cpu") or "unified" to this process's cgroup dir."""
    paths: dict[str, Path] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return paths
    for line in lines:
        _, controllers, rel = line.split(":", 2)
        if not controllers and (ROOT / "cgroup.controllers").exists():
            paths["unified"] = ROOT / rel.lstrip("/")
        for name in controllers.split(","):
            if name in ("memory", "pids", "cpu") and (ROOT / name).is_dir():
                paths[name] = ROOT / name / rel.lstrip("/")
    return paths


class RunCgroup:
    """One run's cgroup directories, one per controller (a single one on cgroup v2)."""

    def __init__(self, dirs: dict[str, Path], unified: bool) -> None:
        self.dirs = dirs
        self.unified = unified

    def _write(self, controller: str, name: str, value: str) -> None:
        with contextlib.suppress(OSError):
            (self.dirs[controller] / name).write_text(value)

    def apply(self, limits: SandboxLimits) -> None:
        """Write memory, pids and CPU limits (best effort per file)."""
        mem = str(limits.memory_mb * 1024 * 1024)
        quota = max(1000, int(limits.cpus * CPU_PERIOD_US))
        if self.unified:
            self._write("unified", "memory.max", mem)
            self._write("unified", "memory.swap.max", "0")
            self._write("unified", "pids.max", str(limits.pids))
            self._write("unified", "cpu.max", f"{quota} {CPU_PERIOD_US}")
            return
        if "memory" in self.dirs:
            self._write("memory", "memory.limit_in_bytes", mem)
            self._write("memory", "memory.memsw.limit_in_bytes", mem)
        if "pids" in self.dirs:
            self._write("pids", "pids.max", str(limits.pids))
        if "cpu" in self.dirs:
            self._write("cpu", "cpu.cfs_period_us", str(CPU_PERIOD_US))
            self._write("cpu", "cpu.cfs_quota_us", str(quota))

    def add(self, pid: int) -> None:
        """Move ``pid`` into every controller's directory."""
        for directory in self.dirs.values():
            (directory / "cgroup.procs").write_text(str(pid))

    def oom_kills(self) -> int:
        """How many processes the kernel's OOM killer killed in this cgroup."""
        if self.unified:
            name, key = "memory.events", "oom_kill"
            directory = self.dirs.get("unified")
        else:
            name, key = "memory.oom_control", "oom_kill"
            directory = self.dirs.get("memory")
        if directory is None:
            return 0
        try:
            for line in (directory / name).read_text().splitlines():
                field, _, value = line.partition(" ")
                if field == key:
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def pids(self) -> set[int]:
        """Processes still in the cgroup."""
        found: set[int] = set()
        for directory in self.dirs.values():
            with contextlib.suppress(OSError, ValueError):
                found.update(int(p) for p in (directory / "cgroup.procs").read_text().split())
        return found

    def destroy(self) -> None:
        """Kill whatever is left and remove the directories (retrying while they drain)."""
        for _ in range(200):
            pids = self.pids()
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            if not pids:
                break
            time.sleep(0.005)
        for directory in self.dirs.values():
            for _ in range(100):
                try:
                    directory.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)
            else:
                logger.warning("could not remove cgroup %s", directory)


def create_run_cgroup(limits: SandboxLimits) -> RunCgroup | None:
    """Create and configure a cgroup for one run, or return ``None`` where that is not allowed."""
    own = _own_paths()
    name = f"{PREFIX}-{os.getpid()}-{uuid.uuid4().hex[:12]}"
    unified = "memory" not in own and "unified" in own
    wanted = ["unified"] if unified else [c for c in ("memory", "pids", "cpu") if c in own]
    if not wanted or (not unified and "memory" not in wanted):
        return None
    dirs: dict[str, Path] = {}
    try:
        for controller in wanted:
            directory = own[controller] / name
            directory.mkdir()
            dirs[controller] = directory
    except OSError as e:
        logger.debug("no per-run cgroup (%s); using rlimits only", e)
        RunCgroup(dirs, unified).destroy()
        return None
    group = RunCgroup(dirs, unified)
    if unified and not (dirs["unified"] / "memory.max").exists():
        group.destroy()  # controllers not delegated to us: limits would silently not apply
        return None
    group.apply(limits)
    return group


def reap_stale() -> int:
    """Remove run cgroups left by dead processes (a parent killed with -9); return the count."""
    removed = 0
    for directory in _own_paths().values():
        for child in directory.glob(f"{PREFIX}-*"):
            try:
                owner = int(child.name.split("-")[2])
            except (IndexError, ValueError):
                continue
            if owner == os.getpid() or Path(f"/proc/{owner}").exists():
                continue
            RunCgroup({"x": child}, unified=False).destroy()
            removed += not child.exists()
    return removed
