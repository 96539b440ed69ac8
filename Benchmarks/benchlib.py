"""What the Python benchmarks share (bench_send.py, bench_ffi.py, bench_journal.py).

median_ns(fn) calls fn in BATCHES batches of a calibrated number of calls
(about TARGET_NS per batch, the garbage collector off) and returns the median
time per call in nanoseconds, with the calls per batch. examples_pack() is the
path of the scene pack with the example scenes, for ``Runtime(scenes=[...])``.
The scripts run from this folder, so ``import benchlib`` finds it.
"""

from __future__ import annotations

import gc
import os
import statistics
import sys
import time
from pathlib import Path
from contextlib import contextmanager
from typing import Callable, Iterator, List, Tuple

BATCHES = 21
TARGET_NS = 20_000_000  # about 20 ms per batch


def calibrate(fn: Callable[[], object]) -> int:
    """Calls per batch: four times the first power of two (from 16) taking a quarter of TARGET_NS."""
    n = 16
    while True:
        start = time.perf_counter_ns()
        for _ in range(n):
            fn()
        if time.perf_counter_ns() - start >= TARGET_NS // 4 or n >= 1 << 22:
            return max(16, n * 4)
        n *= 2


@contextmanager
def no_gc() -> Iterator[None]:
    """The collector off while batches are timed, as it was after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def batch_ns(fn: Callable[[], object], n: int) -> float:
    """Nanoseconds per call of one batch of n calls of fn."""
    start = time.perf_counter_ns()
    for _ in range(n):
        fn()
    return (time.perf_counter_ns() - start) / n


def median_ns(fn: Callable[[], object]) -> Tuple[float, int]:
    """The median nanoseconds per call of fn over BATCHES batches, and the calls per batch."""
    n = calibrate(fn)
    with no_gc():
        per_call = [batch_ns(fn, n) for _ in range(BATCHES)]
    return statistics.median(per_call), n


def examples_pack() -> str:
    """The examples pack (the example/* scenes; libyaia.so has none):
    YAIA_EXAMPLES_PACK, which `make bench` sets, else the build folder's.
    Exits with a message when the file is missing."""
    repo = Path(__file__).resolve().parents[1]
    path = Path(os.environ.get("YAIA_EXAMPLES_PACK") or repo / ".build" / "release" / "libyaia-examples.so")
    if not path.is_file():
        raise SystemExit(f"{path} not found: build it with `make examples-pack`")
    return str(path)
