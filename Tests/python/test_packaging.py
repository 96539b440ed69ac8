"""The binding builds as a wheel that carries its code and its typing marker."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import REPO

BINDING = REPO / "Bindings" / "python"


def test_wheel(tmp_path: Path) -> None:
    for module in ("setuptools", "wheel"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed: cannot build a wheel without build isolation")
    # Build from a copy, so build/ and *.egg-info never land in the work tree.
    source = tmp_path / "src"
    shutil.copytree(BINDING, source, ignore=shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__"))
    out = tmp_path / "wheels"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = out.glob("yaia-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for name in ("yaia/__init__.py", "yaia/py.typed", "yaia/ffi.py", "yaia/runtime.py", "yaia/errors.py"):
        assert name in names
    assert not any(name.endswith(".so") for name in names)  # pure Python, ctypes only
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(wheel).read(metadata).decode()
    assert "Requires-Python: >=3.9" in text
    assert "License: Apache-2.0" in text


def test_typed_strict(tmp_path: Path) -> None:
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path), str(BINDING / "yaia")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=BINDING,
    )
    assert done.returncode == 0, done.stdout + done.stderr
