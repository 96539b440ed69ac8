"""Cost of a send through the Python binding, against ctypes baselines.

Run by `make bench` (PYTHONPATH=Bindings/python) after the C benchmark. Each
case runs in BATCHES batches of a calibrated number of calls; the table shows
the median time per call and its ratio to the baseline measured in the same
run (a ctypes call of yaia_abi_version: the floor of any call through ctypes).
"""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path
from typing import Callable, List, Tuple

import yaia
from benchlib import BATCHES, examples_pack, median_ns


ACTION = b'{"type":"emailChanged","payload":"a@b.c"}'


def raw_sender(lib: ctypes.CDLL, rt: yaia.Runtime, scene: yaia.Scene) -> Callable[[], bytes]:
    """yaia_send of ACTION to `scene` through ctypes, its answer read and freed."""
    handle, scene_id = rt.handle, scene.id
    string_at, free, send = ctypes.string_at, lib.yaia_free, lib.yaia_send

    def raw_send() -> bytes:
        ptr = send(handle, scene_id, ACTION)
        try:
            return string_at(ptr)
        finally:
            free(ptr)

    return raw_send


def main() -> int:
    lib = yaia.ffi.load_library()
    with yaia.Runtime(scenes=[examples_pack()]) as rt:
        scene = rt.open("example/login")
        raw_send = raw_sender(lib, rt, scene)
        # Both send paths must really work before they are timed.
        if b'"ok":true' not in raw_send():
            print("bench_send.py: yaia_send failed", file=sys.stderr)
            return 1
        if scene.send("emailChanged", "a@b.c").view_model["email"] != "a@b.c":
            print("bench_send.py: Scene.send gave an unexpected view model", file=sys.stderr)
            return 1

        cases: List[Tuple[str, Callable[[], object]]] = [
            ("ctypes yaia_abi_version (baseline)", lib.yaia_abi_version),
            ("ctypes yaia_send + string_at + yaia_free", raw_send),
            ('Scene.send("emailChanged", "a@b.c")', lambda: scene.send("emailChanged", "a@b.c")),
        ]
        results = [(name, *median_ns(fn)) for name, fn in cases]

    results += notes_login_cases(lib)
    baseline = results[0][1]
    width = max(len(name) for name, _, _ in results)
    print(f"Python binding, median of {BATCHES} batches (libyaia {yaia.library_version()}, Python {sys.version.split()[0]})")
    print(f"{'case':<{width}}  {'ns/call':>10}  {'x baseline':>10}  {'calls/batch':>11}")
    for name, ns, n in results:
        print(f"{name:<{width}}  {ns:>10.0f}  {ns / baseline:>10.1f}  {n:>11}")
    return 0


def notes_login_cases(lib: ctypes.CDLL) -> List[Tuple[str, float, int]]:
    """The same send on notes/login, the notes app's login, as the Swift
    scene pack (YAIA_NOTES_PACK) and as the scene document
    (YAIA_NOTES_DOCUMENTS), each in a runtime of its own; the forms not
    given or not built are left out."""
    forms = [("Swift pack", os.environ.get("YAIA_NOTES_PACK")), ("document", os.environ.get("YAIA_NOTES_DOCUMENTS"))]
    results: List[Tuple[str, float, int]] = []
    for form, path in forms:
        if not path or not Path(path).exists():
            continue
        with yaia.Runtime(scenes=[path]) as rt:
            scene = rt.open("notes/login")
            raw_send = raw_sender(lib, rt, scene)
            if b'"ok":true' not in raw_send():
                raise SystemExit(f"bench_send.py: yaia_send on notes/login ({form}) failed")
            results.append((f"notes/login ({form}): ctypes yaia_send", *median_ns(raw_send)))
            results.append((f'notes/login ({form}): Scene.send', *median_ns(lambda: scene.send("emailChanged", "a@b.c"))))
    return results


if __name__ == "__main__":
    sys.exit(main())
