"""JSON Logic from Python, per rule of the JSON Logic conformance suite.

Run by `make bench` (PYTHONPATH=Bindings/python). Times Runtime.logic(rule,
data) -- the `logic` request, which compiles a rule text once and reuses the
program (docs/logic.md, "Compiled once") -- beside datalogic-py (PyPI
"datalogic-py", a JSON Logic engine in Rust) on the same rules: its one-shot
apply(rule, data), and a rule it compiled once. For reference, the request
on the ordinary path (a "tag" member takes it), which parses and compiles
the rule on every call. A call runs every case of the suite;
the cases take turns, batch by batch (a noisy machine then slows them alike),
and the table shows the median time per rule and its ratio to apply's.

Usage: bench_logic.py [tests.json] (default YAIA_JSONLOGIC_TESTS, else
../shared/conformance/jsonlogic/tests.json beside the repository).
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

import yaia
from benchlib import BATCHES, calibrate


def tests_file() -> Path:
    if len(sys.argv) > 1:
        return Path(sys.argv[1])
    env = os.environ.get("YAIA_JSONLOGIC_TESTS")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "shared" / "conformance" / "jsonlogic" / "tests.json"


def interleaved(cases: Dict[str, Callable[[], object]]) -> Dict[str, float]:
    """The median ns per call of each case, batches taking turns."""
    sizes = {name: calibrate(fn) for name, fn in cases.items()}
    samples: Dict[str, List[float]] = {name: [] for name in cases}
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(BATCHES):
            for name, fn in cases.items():
                n = sizes[name]
                start = time.perf_counter_ns()
                for _ in range(n):
                    fn()
                samples[name].append((time.perf_counter_ns() - start) / n)
    finally:
        if gc_was_enabled:
            gc.enable()
    return {name: statistics.median(v) for name, v in samples.items()}


def main() -> int:
    path = tests_file()
    if not path.is_file():
        print(f"bench_logic.py: {path} not found; skipped")
        return 0
    suite: List[Tuple[Any, Any, Any]] = [tuple(t) for t in json.loads(path.read_text()) if isinstance(t, list)]
    rules = [(rule, data) for rule, data, _ in suite]
    count = len(rules)

    with yaia.Runtime() as rt:
        # Every path must give the expected values before it is timed.
        wrong = sum(rt.logic(rule, data) != expected for rule, data, expected in suite)
        if wrong:
            print(f"bench_logic.py: Runtime.logic gives {wrong} unexpected values", file=sys.stderr)
            return 1

        def yaia_pass() -> None:
            for rule, data in rules:
                rt.logic(rule, data)

        tagged = [json.dumps({"op": "logic", "rule": rule, "data": data, "tag": 0}).encode() for rule, data in rules]
        execute = rt._lib.yaia_execute_borrowed

        def ordinary_pass() -> None:
            for text in tagged:
                json.loads(execute(rt._handle, text))

        cases: Dict[str, Callable[[], object]] = {
            "Runtime.logic(rule, data)": yaia_pass,
            "logic request compiled every call (tagged)": ordinary_pass,
        }
        try:
            import datalogic_py  # type: ignore[import-not-found]
        except ImportError:
            datalogic_py = None
            print("bench_logic.py: datalogic-py is not installed (pip install datalogic-py); yaia alone")
        if datalogic_py is not None:
            # datalogic-py reads a str rule as JSON text: give it the string's text.
            theirs = [(json.dumps(rule) if isinstance(rule, str) else rule, data) for rule, data in rules]
            differ = sum(datalogic_py.apply(rule, data) != expected for (rule, data), (_, _, expected) in zip(theirs, suite))
            engine = datalogic_py.Engine()
            compiled = [(engine.compile(rule), data) for rule, data in theirs]
            apply = datalogic_py.apply

            def apply_pass() -> None:
                for rule, data in theirs:
                    apply(rule, data)

            def compiled_pass() -> None:
                for rule, data in compiled:
                    rule.evaluate(data)

            cases["datalogic_py.apply(rule, data)"] = apply_pass
            cases["datalogic_py, compiled once: evaluate(data)"] = compiled_pass
        medians = interleaved(cases)

    base = medians.get("datalogic_py.apply(rule, data)")
    width = max(len(name) for name in medians)
    version = f", datalogic-py {datalogic_py.__version__} ({differ} cases differ)" if base is not None else ""
    print(f"JSON Logic from Python, {count} rules of the conformance suite, median of {BATCHES} batches "
          f"(libyaia {yaia.library_version()}{version})")
    print(f"{'case':<{width}}  {'ns/rule':>10}  {'x apply':>8}")
    for name, ns in medians.items():
        ratio = f"{ns / base:8.2f}" if base else f"{'-':>8}"
        print(f"{name:<{width}}  {ns / count:>10.0f}  {ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
