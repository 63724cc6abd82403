"""Give freed tensor memory back to the OS on a CPU host (glibc's malloc).

glibc serves a large block from ``mmap`` (returned to the OS when freed) only above a threshold
that it raises, up to 32 MiB, each time such a block is freed; below it, blocks come from the
heap, whose freed space stays in the process. An update frees and re-allocates the same
activations and gradients every micro-batch, and decoding grows its KV cache step by step, so
once the threshold has risen the process's resident memory keeps the high-water mark of every
freed block it ever had. Fixing the threshold (``mallopt``) keeps blocks of that size and more
in ``mmap``, so what is freed is returned at once: on a 135M model's update at 4 x 1,500 tokens
the peak resident memory fell from 5.06 to 2.99 GiB, the update 1.33x slower
(``benchmarks/host_malloc.py``, docs/training.md).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import sys

logger = logging.getLogger(__name__)

M_MMAP_THRESHOLD = -3
"""glibc's ``mallopt`` parameter number for the mmap threshold (malloc.h)."""
MAX_THRESHOLD_KB = 32 * 1024
"""glibc's largest mmap threshold on a 64-bit host (HEAP_MAX_SIZE / 2)."""


def fix_mmap_threshold(threshold_kb: int) -> bool:
    """Serve blocks of ``threshold_kb`` KiB and more from ``mmap`` from now on (glibc on Linux;
    anything else, or ``threshold_kb <= 0``, leaves the allocator as it is). True when set."""
    if threshold_kb <= 0 or not sys.platform.startswith("linux"):
        return False
    name = ctypes.util.find_library("c") or "libc.so.6"
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # musl and other C libraries have no mallopt
        logger.info("host_malloc_threshold_kb: %s has no mallopt; left as it is", name)
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    done = bool(mallopt(M_MMAP_THRESHOLD, min(threshold_kb, MAX_THRESHOLD_KB) * 1024))
    if done:
        logger.info("malloc: blocks of %d KiB and more come from mmap (returned when freed)",
                    min(threshold_kb, MAX_THRESHOLD_KB))
    return done


__all__ = ["M_MMAP_THRESHOLD", "MAX_THRESHOLD_KB", "fix_mmap_threshold"]
