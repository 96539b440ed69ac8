"""Cost of a foreign call through the runtime from Python, against ctypes.

Run by `make bench` (PYTHONPATH=Bindings/python, YAIA_TEST_LIB_DIR set) after
bench_ffi.c. Two cheap C functions, add_i64 of the test library
libyaiatypes.so and libm's cos, each called:

  direct C         n calls timed inside C (bench_add_i64 / bench_cos of
                   Benchmarks/baselines.c, YAIA_BENCH_BASELINES, through
                   volatile function pointers): the floor, measured in this
                   process and run
  ctypes           the function itself through ctypes, argtypes set
  raw perform      ctypes yaia_execute_n(perform request) + string_at + yaia_free:
                   the runtime's foreign call with no Python JSON work
  Runtime.perform  the binding's perform(): encode, call, decode, check

Each case runs BATCHES batches of a calibrated number of calls; the table
shows the median time per call and its ratios to the direct C call and to
the ctypes call of the same function.
"""

from __future__ import annotations

import ctypes
import math
import os
import statistics
import sys
from pathlib import Path
from typing import Callable, List, Tuple

import yaia
from benchlib import BATCHES, median_ns

DIRECT_CALLS = 2_000_000


def median_direct(bench: Callable[[int], float]) -> Tuple[float, int]:
    bench(DIRECT_CALLS)  # warm-up
    return statistics.median(bench(DIRECT_CALLS) for _ in range(BATCHES)), DIRECT_CALLS


def main() -> int:
    folder = os.environ.get("YAIA_TEST_LIB_DIR", "")
    path = Path(folder) / "libyaiatypes.so" if folder else None
    if path is None or not path.is_file():
        print(f"bench_ffi.py: libyaiatypes.so not found (YAIA_TEST_LIB_DIR={folder!r}); `make bench` builds it",
              file=sys.stderr)
        return 1
    tl = ctypes.CDLL(str(path))
    tl.add_i64.restype, tl.add_i64.argtypes = ctypes.c_int64, [ctypes.c_int64, ctypes.c_int64]
    baselines_path = os.environ.get("YAIA_BENCH_BASELINES", "")
    if not Path(baselines_path).is_file():
        print(f"bench_ffi.py: libyaiabaselines.so not found (YAIA_BENCH_BASELINES={baselines_path!r}); `make bench` builds it",
              file=sys.stderr)
        return 1
    baselines = ctypes.CDLL(baselines_path)
    for name in ("bench_add_i64", "bench_cos"):
        getattr(baselines, name).restype, getattr(baselines, name).argtypes = ctypes.c_double, [ctypes.c_int64]
    libm = ctypes.CDLL("libm.so.6")
    libm.cos.restype, libm.cos.argtypes = ctypes.c_double, [ctypes.c_double]

    lib = yaia.ffi.load_library()
    binding = {"service": "t", "library": str(path), "ops": {"add_i64": "int64(int64, int64)"}}
    math_binding = {"service": "math", "library": "libm.so.6", "ops": {"cos": "double(double)"}}
    with yaia.Runtime(config={"bind": [binding, math_binding]}, allow=["perform"]) as rt:
        handle, execute_n, string_at, free = rt.handle, lib.yaia_execute_n, ctypes.string_at, lib.yaia_free

        def raw(request: bytes) -> Callable[[], bytes]:
            size = len(request)

            def call() -> bytes:
                ptr = execute_n(handle, request, size)
                try:
                    return string_at(ptr)
                finally:
                    free(ptr)

            return call

        raw_add = raw(b'{"op":"perform","effect":{"service":"t","op":"add_i64","args":[40,2]}}')
        raw_cos = raw(b'{"op":"perform","effect":{"service":"math","op":"cos","args":[0.5]}}')
        perform = rt.perform

        # Every measured call must really work before it is timed.
        checks = [
            (tl.add_i64(40, 2), 42),
            (raw_add(), b'{"ok":true,"result":42}'),
            (perform("t", "add_i64", [40, 2]), 42),
            (libm.cos(0.5), math.cos(0.5)),
            (perform("math", "cos", [0.5]), math.cos(0.5)),
        ]
        for got, want in checks:
            if got != want:
                print(f"bench_ffi.py: got {got!r}, expected {want!r}", file=sys.stderr)
                return 1

        groups = [
            (
                "add_i64",
                median_direct(baselines.bench_add_i64),
                [
                    ("ctypes add_i64(40, 2)", lambda: tl.add_i64(40, 2)),
                    ("raw perform (yaia_execute_n + string_at + free)", raw_add),
                    ('Runtime.perform("t", "add_i64", [40, 2])', lambda: perform("t", "add_i64", [40, 2])),
                ],
            ),
            (
                "cos",
                median_direct(baselines.bench_cos),
                [
                    ("ctypes libm cos(0.5)", lambda: libm.cos(0.5)),
                    ("raw perform (yaia_execute_n + string_at + free)", raw_cos),
                    ('Runtime.perform("math", "cos", [0.5])', lambda: perform("math", "cos", [0.5])),
                ],
            ),
        ]
        rows: List[Tuple[str, float, int, float, float]] = []
        for name, (direct, n_direct), cases in groups:
            measured = [(label, *median_ns(fn)) for label, fn in cases]
            ctypes_ns = measured[0][1]
            rows.append((f"{name}: direct C call (timed in C)", direct, n_direct, direct, ctypes_ns))
            rows.extend((f"{name}: {label}", ns, n, direct, ctypes_ns) for label, ns, n in measured)

    print(f"\nForeign calls from Python, median of {BATCHES} batches "
          f"(libyaia {yaia.library_version()}, Python {sys.version.split()[0]})")
    width = max(len(r[0]) for r in rows)
    print(f"  {'case':<{width}}  {'ns/call':>10}  {'x direct C':>10}  {'x ctypes':>8}  {'calls/batch':>11}")
    for label, ns, n, direct, ctypes_ns in rows:
        print(f"  {label:<{width}}  {ns:>10.1f}  {ns / direct:>10.1f}  {ns / ctypes_ns:>8.2f}  {n:>11}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
