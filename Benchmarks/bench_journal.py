"""The journal from Python: what it adds to Scene.send, and replay of a
100,000-input journal (yaia.replay).

    bench_journal.py [JOURNAL]

Run by `make bench` (PYTHONPATH=Bindings/python) after bench_journal, which
leaves its journal (example/login, 100,000 emailChanged sends) at JOURNAL.
Without one, the journal is recorded here first, through Scene.send.

Shows the median of SEND_ROUNDS rounds of SENDS Scene.send calls without and
with a journal (rounds alternating), then the median of ROUNDS replays, in
all and per input, for yaia.replay (which makes a temporary runtime for the
call) and for Runtime.replay on a runtime made once.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, List

import yaia
from benchlib import examples_pack

INPUTS = 100_000
ROUNDS = 7
SENDS = 50_000
SEND_ROUNDS = 7


def record(path: Path) -> None:
    with yaia.Runtime(scenes=[examples_pack()], journal=path) as rt:
        scene = rt.open("example/login")
        send = scene.send
        for i in range(INPUTS):
            send("emailChanged", f"user{i}@example.com")
        rt.journal(stop=True)


def send_round(journal: "Path | None") -> float:
    """Seconds per Scene.send, for SENDS sends on a fresh runtime."""
    with yaia.Runtime(scenes=[examples_pack()], journal=journal) as rt:
        send = rt.open("example/login").send
        payloads = [f"user{i}@example.com" for i in range(SENDS)]
        start = time.perf_counter()
        for payload in payloads:
            send("emailChanged", payload)
        return (time.perf_counter() - start) / SENDS


def send_overhead(tmp: str) -> None:
    journal = Path(tmp) / "sends.jsonl"
    send_round(journal)  # warm-up; the journal's thread makes the process multi-threaded for both
    plain: List[float] = []
    journaled: List[float] = []
    for _ in range(SEND_ROUNDS):
        plain.append(send_round(None))
        journaled.append(send_round(journal))
    p, j = statistics.median(plain) * 1e9, statistics.median(journaled) * 1e9
    print(f"Scene.send(emailChanged), {SENDS} sends a round, median of {SEND_ROUNDS} rounds each")
    print(f"  no journal {p:8.0f} ns   journal {j:8.0f} ns   overhead {(j - p) / p * 100:5.1f}%\n")


def median_s(fn: Callable[[], yaia.ReplayResult], expected: int) -> float:
    times: List[float] = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
        if not result.identical or result.inputs != expected:
            raise SystemExit(f"bench_journal.py: the journal does not replay identically: {result}")
    return statistics.median(times)


def main() -> int:
    given = Path(sys.argv[1]) if len(sys.argv) > 1 else None
    with tempfile.TemporaryDirectory(prefix="yaia-bench-") as tmp:
        send_overhead(tmp)
        if given is not None and given.is_file():
            path, origin = given, "recorded by bench_journal (C)"
        else:
            path, origin = Path(tmp) / "journal.jsonl", "recorded here through Scene.send"
            start = time.perf_counter()
            record(path)
            origin += f" in {time.perf_counter() - start:.2f} s"
        with path.open(encoding="utf-8") as f:
            inputs = sum(1 for _ in f) - 1
        size = os.path.getsize(path)
        scenes = [examples_pack()]
        with yaia.Runtime(scenes=scenes, allow=["replay"], files=[path.parent]) as rt:
            cases = [
                ("yaia.replay(path, scenes=...)", lambda: yaia.replay(path, scenes=scenes)),
                ("Runtime.replay(path), runtime made once", lambda: rt.replay(path)),
            ]
            results = [(name, median_s(fn, inputs)) for name, fn in cases]
    print(f"Python replay of a journal of {inputs} inputs ({size / 1e6:.1f} MB, {origin}),")
    print(f"median of {ROUNDS} rounds (libyaia {yaia.library_version()}, Python {sys.version.split()[0]})")
    width = max(len(name) for name, _ in results)
    print(f"  {'case':<{width}}  {'ms':>8}  {'ns/input':>9}")
    for name, seconds in results:
        print(f"  {name:<{width}}  {seconds * 1e3:>8.1f}  {seconds / inputs * 1e9:>9.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
