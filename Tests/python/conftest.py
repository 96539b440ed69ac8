"""Fixtures for the Python binding's tests.

The library is found as the binding finds it (YAIA_LIBRARY, else the build
folder), and is required: without it the run stops with a usage error.
Artifacts a few tests need may be missing, and those tests skip; plugins come from YAIA_PLUGIN_DIR and YAIA_TEST_PLUGIN_DIR, else the
build folders `make plugins` and `make test` fill. libyaia.so carries no
scenes: the example scenes come from the examples pack, YAIA_EXAMPLES_PACK,
else .build/release/libyaia-examples.so (`make examples-pack`), which every
runtime that opens them names (`scenes=[examples_pack]`).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Callable, Iterator, List, Optional

import pytest

import yaia

# pytester runs pytest inside a test: the pytest plugin's tests use it.
pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[2]

# Upper bounds for waits on other threads: generous, so a slow machine passes;
# no test asserts how long anything takes.
WAIT = 10.0


def _dir(env: str, default: Path) -> Path:
    value = os.environ.get(env)
    return Path(value) if value else default


PLUGIN_DIR = _dir("YAIA_PLUGIN_DIR", REPO / ".build" / "yaia" / "plugins")
TEST_PLUGIN_DIR = _dir("YAIA_TEST_PLUGIN_DIR", REPO / ".build" / "yaia" / "test-plugins")
EXAMPLES_PACK = _dir("YAIA_EXAMPLES_PACK", REPO / ".build" / "release" / "libyaia-examples.so")


def pytest_configure(config: pytest.Config) -> None:
    """Every test needs libyaia.so: without it the run stops, it does not pass empty."""
    config.addinivalue_line(
        "markers",
        "walkthrough: runs a page's commands as a newcomer would, Swift package builds included "
        "(`make test` runs these beside the others: `-m walkthrough`, `-m 'not walkthrough'`)",
    )
    try:
        yaia.ffi.load_library()
    except (yaia.LibraryNotFound, yaia.AbiMismatch) as exc:
        raise pytest.UsageError(f"the Python tests need libyaia.so, which does not load: {exc}") from exc


@pytest.fixture(scope="session")
def library() -> Any:
    return yaia.ffi.load_library()


@pytest.fixture(scope="session")
def examples_pack() -> str:
    """The examples pack's path (the example/* scenes); skips when it is not built."""
    if not EXAMPLES_PACK.is_file():
        pytest.skip(f"{EXAMPLES_PACK} is not built; `make examples-pack` builds it")
    return str(EXAMPLES_PACK)


# The tests play the host: their runtimes grant requests every op, on any
# file. test_security.py checks the default, which grants none.
HOST = {"allow": "all", "files": ["/"]}


@pytest.fixture
def rt(examples_pack: str) -> Iterator[yaia.Runtime]:
    with yaia.Runtime(scenes=[examples_pack], **HOST) as runtime:
        yield runtime


@pytest.fixture(scope="session")
def auth_so() -> str:
    path = PLUGIN_DIR / "auth.so"
    if not path.is_file():
        pytest.skip(f"{path} is not built; `make plugins` builds it")
    return str(path)


@pytest.fixture(scope="session")
def test_plugin() -> Callable[[str], str]:
    def find(name: str) -> str:
        path = TEST_PLUGIN_DIR / f"{name}.so"
        if not path.is_file():
            pytest.skip(f"{path} is not built; `make test` builds Tests/plugins/{name}.c")
        return str(path)

    return find


@pytest.fixture
def auth_rt(examples_pack: str, auth_so: str) -> Iterator[yaia.Runtime]:
    with yaia.Runtime(scenes=[examples_pack], plugins=[auth_so], **HOST) as runtime:
        yield runtime


def wait_event(runtime: yaia.Runtime, timeout: float = WAIT) -> yaia.Update:
    """The next event; fails the test when none arrives in `timeout` seconds."""
    update = runtime.receive(timeout=timeout)
    assert update is not None, f"no event within {timeout} s"
    return update


def listed(runtime: yaia.Runtime) -> List[Any]:
    """{"op": "services"} reduced to the keys docs/abi.md names (more may follow)."""
    return [{k: s[k] for k in ("name", "origin", "plugin") if k in s} for s in runtime.services()]


def login_ready(runtime: yaia.Runtime, email: str = "a@b.c", password: str = "hunter2") -> yaia.Scene:
    scene = runtime.open("example/login")
    scene.send("emailChanged", email)
    scene.send("passwordChanged", password)
    return scene


class Recorder:
    """A host service that records its calls and answers with `answer(op, args)`."""

    def __init__(self, answer: Callable[[str, Any], Any]) -> None:
        self.answer = answer
        self.calls: List[Any] = []
        self.threads: List[Optional[str]] = []

    def __call__(self, op: str, args: Any) -> Any:
        self.calls.append((op, args))
        self.threads.append(threading.current_thread().name)
        return self.answer(op, args)
