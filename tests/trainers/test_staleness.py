"""AReaL's capacity rule on numbers worked out by hand, a simulated producer/consumer that never
trains a sample older than eta, eta = 0 as the synchronous schedule, and the check on resume.

B = 4, eta = 2: at version 0 the capacity is (2 + 0 + 1) * 4 = 12; after the first update 16.
"""

from __future__ import annotations

import asyncio

import pytest

from agentgym.trainers.staleness import StalenessError, StalenessGate, staleness


def test_capacity_by_hand():
    gate = StalenessGate(batch_size=4, eta=2)
    assert gate.capacity() == 12 and gate.capacity(3) == 24
    assert gate.try_start(10) == 10 and gate.try_start(5) == 2 and gate.try_start(1) == 0
    gate.advance(1)
    assert gate.room() == 4 and gate.try_start(9) == 4
    gate.cancel(3)
    assert gate.started == 13 and gate.room() == 3
    with pytest.raises(ValueError, match="went back"):
        gate.advance(0)
    with pytest.raises(ValueError):
        StalenessGate(batch_size=0)


def _simulate(eta: int, steps: int, b: int = 4) -> tuple[list[list[int]], int]:
    """A generator that starts whenever the gate admits; the trainer takes the B oldest samples
    per step. Returns the start versions of each trained batch and the worst lag."""
    gate = StalenessGate(batch_size=b, eta=eta)
    queue: list[int] = []  # start version of each finished, untrained sample
    batches, worst = [], 0
    for v in range(steps):
        queue += [gate.version] * gate.try_start(10 * b)  # never waits for the trainer
        batch, queue = queue[:b], queue[b:]
        worst = max(worst, *(staleness(s, v) for s in batch))
        batches.append(batch)
        gate.advance(v + 1)
        gate.check()
    return batches, worst


@pytest.mark.parametrize("eta", [0, 1, 2, 5])
def test_no_trained_sample_is_older_than_eta(eta):
    batches, worst = _simulate(eta, steps=12)
    assert worst == eta  # the bound is reached and never passed
    assert all(len(b) == 4 for b in batches)


def test_eta_zero_is_the_synchronous_schedule():
    batches, worst = _simulate(0, steps=5)
    assert worst == 0
    assert batches == [[v] * 4 for v in range(5)]  # step v trains exactly what version v made


def test_resume_rebuilds_the_count_and_checks_the_bound():
    gate = StalenessGate(batch_size=4, eta=1)
    gate.resume(version=3, consumed=12, buffered=4)  # 16 <= (1 + 3 + 1) * 4 = 20
    assert gate.room() == 4
    with pytest.raises(StalenessError, match="eta=1 allows 20"):
        gate.resume(version=3, consumed=12, buffered=9)
    saved = StalenessGate(batch_size=4, eta=2, started=20, version=2).state_dict()
    strict = StalenessGate(batch_size=4, eta=0)  # resumed with a smaller eta: 20 > 12
    with pytest.raises(StalenessError):
        strict.load_state_dict(saved)


def test_wait_start_wakes_on_advance_and_times_out():
    async def main() -> tuple[int, bool]:
        gate = StalenessGate(batch_size=2, eta=0)
        gate.try_start(2)
        waiter = asyncio.create_task(gate.wait_start(2, timeout_s=5.0))
        await asyncio.sleep(0.01)
        assert not waiter.done()
        gate.advance(1)
        got = await waiter
        timed_out = False
        try:
            await gate.wait_start(1, timeout_s=0.05)
        except TimeoutError:
            timed_out = True
        return got, timed_out

    assert asyncio.run(main()) == (2, True)
