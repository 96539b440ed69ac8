"""Builds the yaia wheel: the binding, and the native files it carries.

`pip install Bindings/python` runs `make wheel-files` at the root of the
source tree (which builds libyaia.so, the examples pack, the example
plugins and the `yaia` command when they are missing or stale), then copies
the files `make print-wheel-files` lists into the package's `_native`
folder, and the web client (Bindings/web: yaia.js and its modules) into
`yaia/web/client`, where the installed server finds it. The wheel is for this platform (py3-none-linux_x86_64): ctypes
needs no particular Python, the native files need this machine's kind.
YAIA_SOURCE_ROOT names the source tree when this folder is not in one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import List, Tuple

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools before 70.1
    from wheel.bdist_wheel import bdist_wheel

HERE = Path(__file__).resolve().parent
ROOT = Path(os.environ.get("YAIA_SOURCE_ROOT") or HERE.parent.parent)
IN_TREE = (ROOT / "Makefile").is_file() and (ROOT / "Package.swift").is_file()


def _make(*targets: str, quiet: bool = False) -> str:
    if not IN_TREE:
        raise SystemExit(
            f"yaia: {ROOT} is not Yaia's source tree, which builds the library this package carries; "
            "set YAIA_SOURCE_ROOT to it")
    make = shutil.which("make")
    if make is None:
        raise SystemExit("yaia: building the package needs `make` (and Swift 6, see README.md)")
    command = [make, "-C", str(ROOT), "--no-print-directory"]
    stamp = ROOT / ".build" / ".deps"
    checked = stamp.is_file()
    if checked:
        # The system packages were checked once: a later edit of the Makefile
        # is no reason to check them again from inside a Python build.
        command += ["-o", ".build/.deps"]
    else:
        # The build needs the system packages, not the tests' Python packages,
        # which would go to whichever python3 comes first on PATH.
        command += ["PY_PACKAGES="]
    done = subprocess.run(command + (["-s"] if quiet else []) + list(targets),
                          stdout=subprocess.PIPE if quiet else None, text=True)
    if not checked:
        stamp.unlink(missing_ok=True)  # so that `make test` checks the Python packages too
    if done.returncode != 0:
        raise SystemExit(f"yaia: `make {' '.join(targets)}` failed in {ROOT} (exit {done.returncode})")
    return done.stdout or ""


def native_files() -> List[Tuple[str, Path]]:
    """(name in the package's _native folder, built file), built first."""
    _make("wheel-files")
    files = []
    for line in _make("print-wheel-files", quiet=True).split():
        dest, _, source = line.partition("=")
        files.append((dest, ROOT / source))
    return files


class build_with_native(build_py):
    def run(self) -> None:
        super().run()
        native = Path(self.build_lib) / "yaia" / "_native"
        if native.exists():
            shutil.rmtree(native)
        for dest, source in native_files():
            target = native / dest
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        client = Path(self.build_lib) / "yaia" / "web" / "client"
        if client.exists():
            shutil.rmtree(client)
        shutil.copytree(ROOT / "Bindings" / "web", client)


class native_distribution(Distribution):
    def has_ext_modules(self) -> bool:
        return True  # no extension, but native files: a wheel for this platform, in platlib


class platform_wheel(bdist_wheel):
    def get_tag(self) -> Tuple[str, str, str]:
        return ("py3", "none", super().get_tag()[2])


options = {}
if IN_TREE:
    # What a build writes goes to the source tree's build folder, not beside the sources.
    scratch = ROOT / ".build" / "python"
    scratch.mkdir(parents=True, exist_ok=True)
    options = {"build": {"build_base": str(scratch / "build")}, "egg_info": {"egg_base": str(scratch)}}

setup(
    distclass=native_distribution,
    cmdclass={"build_py": build_with_native, "bdist_wheel": platform_wheel},
    options=options,
)
