"""Freeing: context managers, close(), the finalizer, and how the library is found."""

from __future__ import annotations

import gc
import os
import re
import subprocess
import sys
import weakref
from pathlib import Path

import pytest

import yaia
from conftest import REPO

BINDING = str(REPO / "Bindings" / "python")


def test_context_manager_frees(examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack]) as runtime:
        assert not runtime.closed
        runtime.open("example/login")
    assert runtime.closed
    with pytest.raises(yaia.YaiaError) as info:
        runtime.scenes()
    assert info.value.code == "bad_handle"


def test_close_is_idempotent() -> None:
    runtime = yaia.Runtime()
    runtime.close()
    runtime.close()
    assert runtime.closed
    with pytest.raises(yaia.YaiaError) as info:
        runtime.services()
    assert info.value.code == "bad_handle"


def test_scene_context_manager(rt: yaia.Runtime) -> None:
    with rt.open("example/login") as scene:
        scene.send("emailChanged", "x")
        assert rt.scenes()["scenes"] == [{"id": scene.id, "name": "example/login", "seq": 1}]
    assert rt.scenes()["scenes"] == []
    with pytest.raises(yaia.YaiaError) as info:
        scene.send("emailChanged", "y")
    assert info.value.code == "no_such_scene"


def test_scene_close_after_runtime_close_is_quiet(examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack]) as runtime:
        scene = runtime.open("example/feed")
    scene.close()  # the runtime's free closed it already


def test_finalizer_frees_unreferenced_runtime() -> None:
    runtime = yaia.Runtime()
    handle = runtime.handle
    lib = runtime._lib
    ref = weakref.ref(runtime)
    del runtime
    gc.collect()
    assert ref() is None
    text = yaia.ffi.take_string(lib, lib.yaia_execute_n(handle, b'{"op":"scenes"}', 15))
    assert text is not None
    assert yaia.ffi.decode(text)["error"]["code"] == "bad_handle"


def test_runtime_with_service_is_collected_and_released() -> None:
    from yaia import services as module

    runtime = yaia.Runtime()
    runtime.add_service("feed", lambda op, args: {"items": []})
    (ctx,) = [service.ctx for service in runtime._services]
    assert ctx in module._registry
    ref = weakref.ref(runtime)
    del runtime
    gc.collect()
    assert ref() is None  # no cycle keeps it alive
    assert ctx not in module._registry  # the library called release()


def test_many_runtimes(auth_so: str, examples_pack: str) -> None:
    for i in range(50):
        with yaia.Runtime(scenes=[examples_pack], plugins=[auth_so]) as runtime:
            runtime.add_service("feed", lambda op, args: {"items": [i]})
            runtime.open("example/feed").send("load")
            event = runtime.receive(timeout=10)
            assert event is not None and event.view_model["items"] == [i]


def run_python(code: str, **env: str) -> "subprocess.CompletedProcess[str]":
    full = dict(os.environ, PYTHONPATH=BINDING, **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, timeout=60)


def test_library_not_found_names_the_path(tmp_path: Path) -> None:
    missing = str(tmp_path / "nowhere" / "libyaia.so")
    done = run_python("import yaia\nyaia.Runtime()", YAIA_LIBRARY=missing)
    assert done.returncode != 0
    assert "yaia.errors.LibraryNotFound" in done.stderr
    assert missing in done.stderr


def test_library_not_loadable(tmp_path: Path) -> None:
    fake = tmp_path / "libyaia.so"
    fake.write_text("not a library")
    done = run_python(
        "import yaia\ntry:\n    yaia.Runtime()\nexcept yaia.LibraryNotFound as e:\n    print(e.tried)",
        YAIA_LIBRARY=str(fake),
    )
    assert done.returncode == 0, done.stderr
    assert str(fake) in done.stdout


def test_import_does_not_load_library(tmp_path: Path) -> None:
    done = run_python("import yaia; print(yaia.__version__)", YAIA_LIBRARY=str(tmp_path / "none.so"))
    assert done.returncode == 0, done.stderr


def test_not_a_yaia_library() -> None:
    import ctypes.util

    libc = ctypes.util.find_library("m") or "libm.so.6"
    done = run_python("import yaia\nyaia.Runtime()", YAIA_LIBRARY=libc)
    assert done.returncode != 0
    assert "yaia.errors.AbiMismatch" in done.stderr


def test_default_candidates_without_env() -> None:
    done = run_python(
        "import os\nos.environ.pop('YAIA_LIBRARY', None)\nfrom yaia import ffi\nprint(ffi.candidates()[0])"
    )
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()) == REPO / ".build" / "release" / "libyaia.so"


def test_runtime_at_interpreter_exit(auth_so: str, examples_pack: str) -> None:
    # A runtime left open (with a host service and a plugin) is freed by the
    # finalizer at exit without hanging or crashing.
    code = (
        "import sys, yaia\n"
        f"rt = yaia.Runtime(scenes=[{examples_pack!r}], plugins=[{auth_so!r}])\n"
        "rt.add_service('feed', lambda op, args: {'items': []})\n"
        "s = rt.open('example/login')\n"
        "s.send('emailChanged', 'a@b.c'); s.send('passwordChanged', 'x'); s.send('submit')\n"
        "print('done')\n"
    )
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"


def test_one_version() -> None:
    """The binding, the library and the Makefile carry the version written
    in Sources/YaiaRuntime/Version.swift."""
    source = (Path(REPO) / "Sources/YaiaRuntime/Version.swift").read_text()
    (written,) = re.findall(r'^public let yaiaVersion = "(.*)"$', source, re.M)
    assert yaia.__version__ == written
    assert yaia.library_version() == written
