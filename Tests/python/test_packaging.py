"""The package installs like a Python package: a wheel for this platform that
carries libyaia.so, the examples pack, the example plugins and the yaia
command, and that works in a new virtual environment with no variable set."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path
from typing import Dict

import pytest

import yaia
from conftest import REPO
from scenarios import LOGIN

BINDING = REPO / "Bindings" / "python"
NATIVE = ["libyaia.so", "libyaia-examples.so", "yaia", "plugins/auth.so", "plugins/store.so"]


def needs_build_tools() -> None:
    for module in ("setuptools", "wheel"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed: cannot build a wheel without build isolation")


def clean_env() -> Dict[str, str]:
    """The environment without Yaia's variables, PYTHONPATH or a library path."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith("YAIA_") and k not in ("PYTHONPATH", "LD_LIBRARY_PATH")}


def test_wheel(tmp_path: Path) -> None:
    needs_build_tools()
    # Build from a copy, so build/ and *.egg-info never land in the work tree;
    # YAIA_SOURCE_ROOT says where the native files are made.
    source = tmp_path / "src"
    shutil.copytree(BINDING, source, ignore=shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__"))
    out = tmp_path / "wheels"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=900,
        env=dict(os.environ, YAIA_SOURCE_ROOT=str(REPO)),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = out.glob("yaia-*.whl")
    assert wheel.name == f"yaia-{yaia.__version__}-py3-none-linux_x86_64.whl"
    archive = zipfile.ZipFile(wheel)
    names = archive.namelist()
    for name in ("yaia/__init__.py", "yaia/py.typed", "yaia/ffi.py", "yaia/runtime.py", "yaia/errors.py",
                 "yaia/values.py", "yaia/services.py", "yaia/scenes.py", "yaia/jsonvalues.py", "yaia/testing.py",
                 "yaia/pytest_plugin.py", "yaia/_cli.py", "yaia/web/__init__.py", "yaia/web/server.py",
                 "yaia/web/client/yaia.js", "yaia/web/client/patch.js", "yaia/web/client/history.js",
                 "yaia/web/client/schemas.js", "yaia/web/client/index.html"):
        assert name in names
    for name in NATIVE:
        info = archive.getinfo(f"yaia/_native/{name}")
        assert info.file_size > 10_000
        assert (info.external_attr >> 16) & 0o111, f"{name} is not executable in the wheel"
    info = next(n for n in names if n.endswith(".dist-info/WHEEL"))
    assert "Root-Is-Purelib: false" in archive.read(info).decode()
    metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "Requires-Python: >=3.9" in metadata
    assert "License: Apache-2.0" in metadata
    entry_points = archive.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    assert "[console_scripts]\nyaia = yaia._cli:main" in entry_points
    assert "[pytest11]\nyaia = yaia.pytest_plugin" in entry_points
    assert "Provides-Extra: web" in metadata


def test_a_new_virtual_environment(tmp_path: Path) -> None:
    """pip install Bindings/python, then Python, the yaia command and pytest,
    with no Yaia variable and the source tree off the path.

    The environment sees the host's site-packages: pip builds without build
    isolation and pytest comes from there, so nothing is downloaded. What it
    runs is the installed package, as the first check asserts."""
    needs_build_tools()
    venv = REPO / ".build" / "python" / "venv"
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=300)
    python = str(venv / "bin" / "python")
    env = clean_env()
    done = subprocess.run(
        [python, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "-q", str(BINDING)],
        capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    installed = venv.resolve()

    script = textwrap.dedent("""
        import json, yaia
        with yaia.Runtime(scenes=[yaia.examples_pack()], plugins=[yaia.plugin("auth")]) as rt:
            login = rt.open("example/login")
            update = login.send("emailChanged", "a@b.c")
            print(json.dumps({"module": yaia.__file__, "library": yaia.ffi.load_library()._name,
                              "pack": yaia.examples_pack(), "viewModel": update.view_model,
                              "services": [s["name"] for s in rt.services()]}))
    """)
    done = subprocess.run([python, "-c", script], capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    for key in ("module", "library", "pack"):
        assert Path(seen[key]).resolve().is_relative_to(installed), seen
    assert seen["viewModel"]["email"] == "a@b.c"
    assert "auth" in seen["services"]

    # The bundled executable and libraries look for what they link beside
    # themselves, never in the build folder (which may be gone).
    for name in NATIVE:
        dynamic = subprocess.run(["readelf", "-d", str(Path(seen["module"]).parent / "_native" / name)],
                                 capture_output=True, text=True, check=True).stdout
        paths = [line.split("[", 1)[1].rstrip("]") for line in dynamic.splitlines() if "RPATH" in line or "RUNPATH" in line]
        assert all(entry.startswith("$ORIGIN") for path in paths for entry in path.split(":")), (name, paths)
    done = subprocess.run([str(venv / "bin" / "yaia"), "--version"], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    assert yaia.__version__ in done.stdout.split(), done.stdout

    # pytest finds the plugin by its entry point: no -p, no conftest.
    (tmp_path / "login.scenario.json").write_text(json.dumps(LOGIN))
    pack = seen["pack"]
    (tmp_path / "pytest.ini").write_text(f"[pytest]\nyaia_scenes = {pack}\n")
    pytest_command = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)]
    done = subprocess.run(pytest_command, capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert "1 passed" in done.stdout, done.stdout + done.stderr
    # -p no:yaia turns it off: nothing to collect (exit status 5).
    done = subprocess.run(pytest_command + ["-p", "no:yaia"], capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert done.returncode == 5, done.stdout + done.stderr

    # The web server serves the client the package carries, not the source tree's.
    if importlib.util.find_spec("aiohttp") is None:
        pytest.skip("aiohttp is not installed: the web server was not tried")
    done = subprocess.run([python, "-c", WEB_SCRIPT], capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    served = json.loads(done.stdout)
    assert Path(served["client"]).resolve().is_relative_to(installed), served
    assert served["yaia.js"] == (REPO / "Bindings" / "web" / "yaia.js").read_text()
    assert served["page"].startswith("<!doctype html>")


# Starts yaia.web on a free port, fetches /yaia/yaia.js and the page, stops.
WEB_SCRIPT = textwrap.dedent("""
    import asyncio, json, urllib.request
    import yaia, yaia.web

    async def main():
        loop = asyncio.get_running_loop()
        url = loop.create_future()
        config = yaia.web.WebConfig(runtime={"scenes": [yaia.examples_pack()]}, port=0)
        task = asyncio.ensure_future(yaia.web.serve(config, url.set_result))
        base = (await url).split("?")[0]
        fetch = lambda path: urllib.request.urlopen(base + path, timeout=30).read().decode()
        served = {"client": str(yaia.web.CLIENT_DIR),
                  "yaia.js": await loop.run_in_executor(None, fetch, "yaia/yaia.js"),
                  "page": await loop.run_in_executor(None, fetch, "")}
        task.cancel()
        print(json.dumps(served))

    asyncio.run(main())
""")


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
