"""The suite itself: without libyaia.so it stops with a reason, it does not pass having run nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_a_missing_library_stops_the_run(tmp_path: Path) -> None:
    env = dict(os.environ, YAIA_LIBRARY=str(tmp_path / "libyaia.so"))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(Path(__file__).parent / "test_errors.py")],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode not in (0, 5), done.stdout  # 5: nothing collected
    assert "the Python tests need libyaia.so, which does not load" in done.stdout + done.stderr
    assert str(tmp_path / "libyaia.so") in done.stdout + done.stderr
    assert "passed" not in done.stdout and "skipped" not in done.stdout
