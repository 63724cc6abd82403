"""The bounded connection pool behind both executors."""

from __future__ import annotations

import threading
import time

import pytest

from agentgym.envs.sql import SQLError, SqliteExecutor, database_path
from agentgym.envs.sql.pool import ConnectionPool


class Counter:
    def __init__(self) -> None:
        self.opened = 0
        self.closed: list[int] = []
        self.lock = threading.Lock()

    def open(self) -> int:
        with self.lock:
            self.opened += 1
            return self.opened

    def close(self, conn: int) -> None:
        self.closed.append(conn)


def test_pool_reuses_and_bounds_connections() -> None:
    made = Counter()
    pool = ConnectionPool(made.open, made.close, max_size=3)
    peak = 0

    def worker() -> None:
        nonlocal peak
        for _ in range(20):
            with pool.lease():
                peak = max(peak, pool.size)
                time.sleep(0.001)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert made.opened == 3 and peak <= 3
    pool.close()
    assert sorted(made.closed) == [1, 2, 3] and pool.size == 0
    with pytest.raises(SQLError, match="closed"):
        pool.acquire()


def test_broken_connections_are_replaced() -> None:
    made = Counter()
    pool = ConnectionPool(made.open, made.close, max_size=1)
    conn = pool.acquire()
    pool.release(conn, broken=True)
    assert made.closed == [1] and pool.size == 0
    assert pool.acquire() == 2


def test_failed_open_frees_its_slot() -> None:
    calls = iter([RuntimeError("down"), 7])

    def flaky() -> int:
        value = next(calls)
        if isinstance(value, Exception):
            raise value
        return value

    pool = ConnectionPool(flaky, lambda c: None, max_size=1)
    with pytest.raises(RuntimeError):
        pool.acquire()
    assert pool.acquire() == 7
    with pytest.raises(ValueError):
        ConnectionPool(flaky, lambda c: None, max_size=0)


def test_executor_opens_at_most_max_connections() -> None:
    executor = SqliteExecutor(database_path("store"), max_connections=2)
    threads = [
        threading.Thread(target=lambda: [executor.execute("SELECT COUNT(*) FROM orders")
                                         for _ in range(10)])
        for _ in range(6)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert 1 <= executor._pool.size <= 2
    executor.close()
