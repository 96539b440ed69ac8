"""What a send costs beside a long list, from Python: bench_lists.c's rows
through the binding.

Run by `make bench` (PYTHONPATH=Bindings/python) after bench_lists:
    bench_lists.py TODO_DOCUMENTS [PACK_SCENE]
A todo list of N = 0, 1,000, 10,000 and 100,000 items, as the scene
document `todo` and as the pack scene example/todo (YAIA_EXAMPLES_PACK; left
out, with a line that says so, when the pack does not have it), opened with
{"todos": [...]}, in view patch mode and in whole-view mode. Each row is
``Scene.send(...).view_model``, what a UI reads per send: in patch mode the
binding applies the update's patch to the view model it holds, in whole mode
it parses the whole view model. (a) `draft`, two texts in turn: one scalar;
(b) `toggle` of the middle item: one item (none at N = 0); (c) `add`: one
more item, the items added removed between batches, untimed. Bytes are the
response's, of one yaia_send of each, made first. Targets as bench_lists.c's.
"""

from __future__ import annotations

import ctypes
import itertools
import statistics
import sys
from typing import Callable, Dict, List, Optional, Tuple

import yaia
from benchlib import batch_ns, examples_pack, no_gc

SIZES = (0, 1_000, 10_000, 100_000)
ROWS = ("(a) scalar: draft", "(b) item: toggle", "(c) append: add")
# Sizes may differ by the digits of ids, indexes and counts (and of seq).
BYTES_SLACK = 32


def batches_and_calls(n: int, view: str) -> Tuple[int, int]:
    """Fewer samples where a send may take milliseconds."""
    if n >= 100_000:
        return 5, 2 if view == "patch" else 1
    if n >= 10_000:
        return 9, 10 if view == "patch" else 4
    return 15, 40 if n else 400


def timed(fn: Callable[[], object], batches: int, calls: int, restore: Callable[[int], None]) -> float:
    per_call: List[float] = []
    with no_gc():
        for _ in range(batches):
            per_call.append(batch_ns(fn, calls))
            restore(calls)
    return statistics.median(per_call)


def response_bytes(lib: ctypes.CDLL, rt: yaia.Runtime, scene: yaia.Scene, action: bytes) -> int:
    ptr = lib.yaia_send(rt.handle, scene.id, action)
    try:
        text = ctypes.string_at(ptr)
    finally:
        lib.yaia_free(ptr)
    if b'"ok":true' not in text:
        raise SystemExit(f"bench_lists.py: {action!r} failed: {text[:300]!r}")
    return len(text)


def measure(scenes: str, name: str, view: str) -> Optional[Dict[int, List[Tuple[float, int]]]]:
    """Per N, (us per send, response bytes) of each row; None when the scene is missing."""
    lib = yaia.ffi.load_library()
    results: Dict[int, List[Tuple[float, int]]] = {}
    for n in SIZES:
        todos = [{"id": i, "title": f"Item {i}", "done": i % 3 == 0} for i in range(1, n + 1)]
        with yaia.Runtime(scenes=[scenes]) as rt:
            try:
                scene = rt.open(name, {"todos": todos}, view=view)
            except yaia.YaiaError as e:
                if e.code == "unknown_scene":
                    return None
                raise
            middle, added = n // 2 + 1, [n + 1]
            sizes = [response_bytes(lib, rt, scene, b'{"type":"draft","payload":"x"}'),
                     response_bytes(lib, rt, scene, b'{"type":"toggle","payload":%d}' % middle) if n else 0,
                     response_bytes(lib, rt, scene, b'{"type":"add","payload":"One more"}')]
            response_bytes(lib, rt, scene, b'{"type":"remove","payload":%d}' % added[0])
            added[0] += 1
            rt.view(scene.id)  # patch mode: the binding holds the view model again (the raw sends were a gap)
            drafts = itertools.cycle(("x", "y")).__next__

            def remove_added(calls: int) -> None:
                for _ in range(calls):
                    scene.send("remove", added[0])
                    added[0] += 1

            batches, calls = batches_and_calls(n, view)
            rows = [timed(lambda: scene.send("draft", drafts()).view_model, batches, calls, lambda _: None),
                    timed(lambda: scene.send("toggle", middle).view_model, batches, calls + calls % 2, lambda _: None)
                    if n else 0.0,
                    timed(lambda: scene.send("add", "One more").view_model, batches, calls, remove_added)]
            results[n] = [(ns / 1000, size) for ns, size in zip(rows, sizes)]
    return results


def report(form: str, view: str, results: Dict[int, List[Tuple[float, int]]]) -> None:
    print(f"\n  {form}, view {view}")
    print(f"    {'send':<20}" + "".join(f" {n:>10} items {'bytes':>9}" for n in SIZES))
    for row, label in enumerate(ROWS):
        cells = []
        for n in SIZES:
            us, size = results[n][row]
            cells.append(f" {'-':>10} us {'-':>11}" if row == 1 and n == 0 else f" {us:>10.1f} us {size:>11}")
        print(f"    {label:<20}" + "".join(cells))
    if view != "patch":
        return
    zero = results[0][0][0]
    at = {n: [us for us, _ in results[n]] for n in SIZES}
    verdict = lambda ok: "met" if ok else "NOT met"  # noqa: E731
    print(f"    target (a) at 10,000 at most 1.5x (a) at 0: {verdict(at[10_000][0] <= 1.5 * zero)} ({at[10_000][0] / zero:.2f}x)")
    for row in (1, 2):
        print(f"    target {ROWS[row][:3]} at 10,000 at most 5x (a) at 0: "
              f"{verdict(at[10_000][row] <= 5 * zero)} ({at[10_000][row] / zero:.2f}x)")
    for row in range(3):
        ratio = at[100_000][row] / at[10_000][row]
        print(f"    target {ROWS[row][:3]} at 100,000 at most 2x at 10,000: {verdict(ratio <= 2)} ({ratio:.2f}x)")
    for row in range(3):
        first = SIZES[1] if row == 1 else SIZES[0]
        same = all(abs(results[n][row][1] - results[first][row][1]) <= BYTES_SLACK for n in SIZES if n >= first)
        print(f"    target {ROWS[row][:3]} response bytes the same at every N: {verdict(same)}")


def main(argv: List[str]) -> int:
    if len(argv) not in (2, 3):
        print("usage: bench_lists.py TODO_DOCUMENTS [PACK_SCENE]", file=sys.stderr)
        return 2
    documents, pack_scene = argv[1], argv[2] if len(argv) == 3 else "example/todo"
    print(f"Python binding, a list of N items: Scene.send(...).view_model, medians of batches "
          f"(libyaia {yaia.library_version()}, Python {sys.version.split()[0]})")
    for view in ("patch", "whole"):
        found = measure(documents, "todo", view)
        if found is None:
            raise SystemExit(f"bench_lists.py: no scene todo in {documents}")
        report("scene document todo", view, found)
    for view in ("patch", "whole"):
        found = measure(examples_pack(), pack_scene, view)
        if found is None:
            print(f"\n  skipped: {pack_scene} not in the pack")
            break
        report(f"pack scene {pack_scene}", view, found)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
