"""Instructions per yaia_send now against the library before the send path was
rewritten as one path: the stable figure behind bench_before's wall-clock
table (callgrind counts the same on a loaded machine and a quiet one).

    bench_before.py BENCH_BEFORE BEFORE_DIR NOW_DIR

BENCH_BEFORE is the bench_before program; each DIR holds a release
libyaia.so and libyaia-examples.so. For each case and library, callgrind
counts the instructions of bench_before --count with N = 2,000 and
N = 1,000 sends; the difference over 1,000 is one send, free of the set-up.
Skips with a message when valgrind is not installed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from typing import List

CASES = ["login", "login-journal", "jobs"]
TARGET = 1.05


def instructions(program: str, case: str, n: int, lib_dir: str) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", program, "--count", case, str(n), lib_dir],
            capture_output=True, text=True, check=False)
        found = re.search(r"Collected : (\d+)", run.stderr) or re.search(r"refs:\s*([\d,]+)", run.stderr)
        if run.returncode != 0 or not found:
            raise SystemExit(f"bench_before.py: callgrind failed on {case} in {lib_dir}:\n{run.stderr[-2000:]}")
        return int(found.group(1).replace(",", ""))


def per_send(program: str, case: str, lib_dir: str) -> float:
    return (instructions(program, case, 2000, lib_dir) - instructions(program, case, 1000, lib_dir)) / 1000


def main(argv: List[str]) -> int:
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    program, before_dir, now_dir = argv[1:]
    if shutil.which("valgrind") is None:
        print("bench_before.py: skipped, valgrind is not installed (apt-get install valgrind)")
        return 0
    print("yaia_send in instructions (callgrind), before the one send path and now")
    print(f"{'case':<14} {'before':>10} {'now':>10} {'ratio':>8} {'target':>8}")
    for case in CASES:
        before = per_send(program, case, before_dir)
        now = per_send(program, case, now_dir)
        ratio = now / before
        flag = "  over" if ratio > TARGET else ""
        print(f"{case:<14} {before:>10,.0f} {now:>10,.0f} {ratio:>8.3f} {TARGET:>8.2f}{flag}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
