"""The background rollout generator of the asynchronous trainer: rounds of groups, a staleness
gate, and APRIL's partial rollouts.

Work is cut into *rounds*. Round ``r`` holds the ``B = tasks_per_step`` groups the trainer's
step ``r + 1`` trains on (plus ``P = partial_rollouts`` spare groups with APRIL). The generator
runs on its own thread and event loop and starts a round as soon as the
:class:`~agentgym.trainers.staleness.StalenessGate` has room: at most ``(eta + v + 1) * B``
groups started while the trainer is at version ``v``. Several rounds run at once, so the
generator never waits for the trainer except at that bound. The trainer consumes rounds in
order (round ``r`` at step ``r + 1``), so a group started at version ``s`` is trained at
version ``r <= s + eta``: the bound holds for every trained group, and ``eta = 0`` is the
synchronous schedule exactly (round ``r`` starts after update ``r``, on the same tasks with the
same sampling seeds).

**Partial rollouts (APRIL).** A round starts ``B + P`` groups, unfinished groups carried over
from earlier rounds first. Once ``B`` groups are complete (the oldest complete groups go first)
the round is handed to the trainer and the episodes still running are asked to stop
(:mod:`.partial`): they park between turns, keeping their env and their finished turns. Their
group moves to the newest round still running, else to the next round that starts, and
continues there with the remaining budget; parked episodes thus never sit on env workers that
running rounds wait for. A group is stopped once at most (later it runs on), so none starves.
Earlier tokens keep their (older) versions; ``max_version_lag`` masks them if wanted.

**Checkpoints.** :meth:`RolloutGenerator.snapshot` returns, atomically, the sampler cursor, the
next round and every admitted but untrained round and carried group, with their finished
trajectories. :meth:`RolloutGenerator.restore` rebuilds them after a restart: finished
trajectories are kept and the episodes that were running (they died with the process) start
again from their request, with the same seeds. Nothing is trained twice or lost, and the gate
is re-checked (:meth:`~agentgym.trainers.staleness.StalenessGate.resume`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from agentgym import AgentGymError
from agentgym.rollout import Engine, group_requests

from .async_rounds import GroupSlot, Round
from .partial import RunningEpisode, drive, release
from .rollouts import RolloutResult
from .staleness import StalenessGate

logger = logging.getLogger(__name__)


class RolloutGenerator:
    """Produces rounds on a background thread; the trainer takes them in order with :meth:`take`.

    ``take_tasks(n)`` and ``group_sizes(tasks)`` are called on the generator's thread under
    ``lock`` (the trainer holds the same lock when it curates the sampler).
    """

    def __init__(self, engine: Engine, *, batch_size: int, eta: int, spare: int, seed: int,
                 group_size: int, total_rounds: int, take_tasks: Callable[[int], list[str]],
                 group_sizes: Callable[[list[str]], list[int]] | None = None,
                 lock: threading.Lock | None = None, version: int = 0) -> None:
        self.engine = engine
        self.batch_size, self.spare, self.seed = batch_size, spare, seed
        self.group_size, self.total_rounds = group_size, total_rounds
        self.take_tasks, self.group_sizes = take_tasks, group_sizes
        self.lock = lock or threading.Lock()
        self.gate = StalenessGate(batch_size=batch_size, eta=eta, version=version,
                                  started=version * batch_size)
        self.next_round = version
        self.rounds: dict[int, Round] = {}
        """Admitted rounds the trainer has not taken yet."""
        self.carry: deque[GroupSlot] = deque()
        """APRIL: unfinished spare groups, started first by the next round."""
        self._ready = threading.Condition()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stopping = False
        self.error: BaseException | None = None
        self.in_flight = 0
        self.idle_s = 0.0
        """Seconds with no episode in flight since :meth:`start` (the generator's idle time)."""
        self._idle_since: float | None = None
        self.started_at = 0.0
        self.parked = 0
        """Episodes parked by APRIL so far."""
        self._members: set[asyncio.Task[None]] = set()
        """Every episode task (a group stopped once runs on after its round was handed over)."""

    # -- lifecycle (trainer thread) -------------------------------------------------------------

    def start(self) -> None:
        """Start the generator thread."""
        self.started_at = time.monotonic()
        self._idle_since = self.started_at
        self._thread = threading.Thread(target=self._thread_main, name="rollout-generator",
                                        daemon=True)
        self._thread.start()
        while self._loop is None and self._thread.is_alive():
            time.sleep(0.001)

    def _thread_main(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as e:  # surfaced to the trainer by take()
            self.error = e
        finally:
            with self._ready:
                self._ready.notify_all()

    def take(self, index: int, timeout_s: float) -> tuple[Round, RolloutResult]:
        """Wait for round ``index`` (at most ``timeout_s``) and hand it to the trainer."""
        deadline = time.monotonic() + timeout_s
        with self._ready:
            while True:
                rnd = self.rounds.get(index)
                if rnd is not None and rnd.batch is not None:
                    break
                if self.error is not None:
                    raise AgentGymError(f"the rollout generator failed: {self.error}") from (
                        self.error)
                if self._thread is None or not self._thread.is_alive():
                    raise AgentGymError("the rollout generator is not running")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AgentGymError(f"round {index} not ready within {timeout_s:.0f}s")
                self._ready.wait(min(left, 1.0))
        self._call(lambda: self.rounds.pop(index))
        groups = [s.trajectories() for s in rnd.batch]
        trajs = [t for g in groups for t in g]
        return rnd, RolloutResult(
            groups=groups, seconds=rnd.seconds,
            generated_tokens=sum(t.num_generated_tokens for t in trajs),
            aborted=sum(t.aborted for t in trajs),
            extra={"round": rnd.index, "started_version": rnd.version},
        )

    def advance(self, version: int) -> None:
        """The trainer reached ``version``: the gate may admit more rounds."""
        self._call(lambda: self.gate.advance(version))

    def snapshot(self, with_state: Callable[[], Any] | None = None) -> tuple[dict[str, Any], Any]:
        """Atomic state for a checkpoint (see the module docstring), and ``with_state()`` taken
        in the same instant (the sampler's cursor)."""

        def both() -> tuple[dict[str, Any], Any]:
            return self._snapshot(), with_state() if with_state is not None else None

        return self._call(both)  # type: ignore[no-any-return]

    def _snapshot(self) -> dict[str, Any]:
        return {
            "next_round": self.next_round,
            "version": self.gate.version,
            "rounds": [{"index": r.index, "version": r.version,
                        "slots": [s.spec() for s in (r.batch or r.slots)]}
                       for r in sorted(self.rounds.values(), key=lambda r: r.index)],
            "carry": [s.spec() for s in self.carry],
        }

    def restore(self, state: dict[str, Any]) -> None:
        """Rebuild the rounds and carried groups of :meth:`snapshot` (before :meth:`start`)."""
        version = int(state["version"])
        self.next_round = int(state["next_round"])
        for r in state["rounds"]:
            slots = [GroupSlot.from_spec(s, self.seed) for s in r["slots"]]
            self.rounds[int(r["index"])] = Round(int(r["index"]), int(r["version"]), slots)
        self.carry = deque(GroupSlot.from_spec(s, self.seed) for s in state["carry"])
        # every pending round was admitted (B groups each) and is not trained yet
        self.gate.resume(version, consumed=version * self.batch_size,
                         buffered=len(self.rounds) * self.batch_size)

    def stop(self, timeout_s: float = 30.0) -> None:
        """Stop admitting, cancel every episode, close the env pool; joins the thread."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None or not thread.is_alive():
            return
        self._stopping = True
        loop.call_soon_threadsafe(lambda: None)  # wake the loop
        thread.join(timeout_s)
        if thread.is_alive():
            logger.warning("the rollout generator did not stop within %.0fs", timeout_s)

    def idle_share(self) -> float:
        """Share of the time since :meth:`start` with no episode in flight."""
        now = time.monotonic()
        idle = self.idle_s + (now - self._idle_since if self._idle_since is not None else 0.0)
        return idle / max(now - self.started_at, 1e-9)

    def _call(self, fn: Callable[[], Any], timeout_s: float = 60.0) -> Any:
        """Run ``fn`` on the generator's loop (atomic there) and return its result."""
        loop = self._loop
        if loop is None or self._thread is None or not self._thread.is_alive():
            return fn()

        async def run() -> Any:
            return fn()

        try:
            future = asyncio.run_coroutine_threadsafe(run(), loop)
        except RuntimeError:  # the loop closed meanwhile: nothing else touches the state now
            return fn()
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                return future.result(0.5)
            except concurrent.futures.TimeoutError:
                if not self._thread.is_alive():  # the loop ended before running it
                    future.cancel()
                    return fn()
                if time.monotonic() > deadline:
                    raise

    # -- the generator's loop ----------------------------------------------------------------

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        tasks: set[asyncio.Task[None]] = set()
        try:
            for rnd in sorted(self.rounds.values(), key=lambda r: r.index):  # restored
                tasks.add(asyncio.create_task(self._run_round(rnd)))
            while not self._stopping and self.next_round < self.total_rounds:
                try:
                    granted = await self.gate.wait_start(self.batch_size, timeout_s=0.2)
                except TimeoutError:
                    continue
                if granted < self.batch_size:  # capacity is a multiple of B: cannot happen
                    self.gate.cancel(granted)
                    raise AgentGymError(f"gate admitted {granted} of {self.batch_size} groups")
                rnd = self._admit()
                tasks.add(asyncio.create_task(self._run_round(rnd)))
                tasks = {t for t in tasks if not t.done() or _raise(t)}
            while not self._stopping and any(not t.done() for t in tasks):
                await asyncio.sleep(0.05)
                tasks = {t for t in tasks if not t.done() or _raise(t)}
        finally:
            for t in [*tasks, *self._members]:
                t.cancel()
            await asyncio.gather(*tasks, *self._members, return_exceptions=True)
            for rnd in self.rounds.values():
                for s in rnd.slots:
                    for item in s.running.values():
                        release(item, self.engine)
            for s in self.carry:
                for item in s.running.values():
                    release(item, self.engine)
            await self.engine.aclose()

    def _admit(self) -> Round:
        index = self.next_round
        self.next_round += 1
        slots: list[GroupSlot] = []
        want = self.batch_size + self.spare
        while self.carry and len(slots) < want:
            slots.append(self.carry.popleft())
        with self.lock:
            tasks = self.take_tasks(want - len(slots)) if len(slots) < want else []
            sizes = (self.group_sizes(tasks) if self.group_sizes is not None and tasks
                     else [self.group_size] * len(tasks))
        slots += [GroupSlot(index, t, g, self.seed) for t, g in zip(tasks, sizes, strict=True)]
        rnd = Round(index, self.gate.version, slots)
        self.rounds[index] = rnd
        return rnd

    def _busy(self, delta: int) -> None:
        now = time.monotonic()
        if self.in_flight == 0 and self._idle_since is not None:
            self.idle_s += now - self._idle_since
            self._idle_since = None
        self.in_flight += delta
        if self.in_flight == 0:
            self._idle_since = now

    def _carry(self, slot: GroupSlot) -> None:
        """Hand a stopped group to the newest running round, else keep it for the next one."""
        running = [r for r in self.rounds.values() if r.adopt is not None]
        if running:
            max(running, key=lambda r: r.index).adopt(slot)  # type: ignore[misc]
        else:
            self.carry.append(slot)

    async def _run_round(self, rnd: Round) -> None:
        t0 = time.monotonic()
        complete: list[GroupSlot] = [s for s in rnd.slots if s.complete]
        enough = asyncio.Event()
        if len(complete) >= self.batch_size:
            enough.set()

        def note(slot: GroupSlot) -> None:
            if slot.complete and slot not in complete and not enough.is_set():
                complete.append(slot)
                if len(complete) >= self.batch_size:
                    enough.set()

        async def member(slot: GroupSlot, i: int) -> None:
            old = slot.running.get(i)
            if old is not None and old.task is not None and not old.task.done():
                await asyncio.gather(old.task, return_exceptions=True)  # parking in progress
            if i not in slot.done:
                if enough.is_set() and self.spare:  # too late: stays parked for a later round
                    return
                item = slot.running.get(i)
                if item is None:
                    request = group_requests([slot.task_id], slot.size, seed=self.seed,
                                             round=slot.origin)[i]
                    item = slot.running[i] = RunningEpisode.new(self.engine, request)
                item.stop = False
                item.task = asyncio.current_task()  # type: ignore[assignment]
                self._busy(+1)
                try:
                    traj = await drive(item, self.engine)
                finally:
                    self._busy(-1)
                if traj is None:
                    self.parked += 1
                    return
                slot.running.pop(i, None)
                slot.done[i] = traj
            note(slot)

        def spawn(slot: GroupSlot) -> list[asyncio.Task[None]]:
            tasks = [asyncio.create_task(member(slot, i)) for i in range(slot.size)
                     if i not in slot.done]
            self._members.update(tasks)
            for t in tasks:
                t.add_done_callback(self._members.discard)
            return tasks

        members = [t for s in rnd.slots for t in spawn(s)]

        def adopt(slot: GroupSlot) -> None:
            rnd.slots.append(slot)
            members.extend(spawn(slot))
            note(slot)

        try:
            if self.spare:
                rnd.adopt = adopt
                waiter = asyncio.create_task(enough.wait())
                while not enough.is_set():
                    pending = [m for m in members if not m.done()]
                    if not pending:
                        break
                    await asyncio.wait([waiter, *pending], timeout=0.5,
                                       return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
            else:
                await asyncio.gather(*members)
        except BaseException:
            for m in members:
                m.cancel()
            raise
        finally:
            rnd.adopt = None
        for m in members:
            if m.done() and not m.cancelled() and m.exception() is not None:
                raise m.exception()  # type: ignore[misc]
        ready = sorted((s for s in rnd.slots if s in complete), key=lambda s: s.origin)
        batch = ready[: self.batch_size]  # the oldest complete groups first
        if len(batch) < self.batch_size:
            raise AgentGymError(f"round {rnd.index}: {len(batch)} of {self.batch_size} groups "
                                "complete after every episode ended")
        chosen = {id(s) for s in batch}
        for s in [s for s in rnd.slots if id(s) not in chosen]:
            # APRIL: stop its episodes (once; a group stopped before runs on), and let a
            # running round, else the next one, continue it
            if s.stops < 1:
                s.stops += 1
                for item in s.running.values():
                    item.request_stop()
            rnd.slots.remove(s)
            self._carry(s)
        rnd.seconds = time.monotonic() - t0
        with self._ready:
            rnd.batch = batch
            self._ready.notify_all()


def _raise(task: asyncio.Task[None]) -> bool:
    """Re-raise a finished round task's error (used in a filter: False when it succeeded)."""
    if not task.cancelled() and task.exception() is not None:
        raise task.exception()  # type: ignore[misc]
    return False


__all__ = ["RolloutGenerator"]
