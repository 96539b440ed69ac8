"""The shipped library itself: how it is linked, unloaded and installed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import yaia

REPO = Path(__file__).resolve().parents[2]


def library() -> Path:
    path = Path(os.environ.get("YAIA_LIBRARY", REPO / ".build" / "release" / "libyaia.so"))
    if not path.exists():
        pytest.skip(f"{path} is not built (make lib)")
    return path


def tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed")
    return found


def test_soname_and_nodelete() -> None:
    dynamic = subprocess.run([tool("readelf"), "-d", str(library())], check=True, capture_output=True, text=True).stdout
    assert "Library soname: [libyaia.so.1]" in dynamic
    assert "NODELETE" in dynamic


def test_swift_runtime_is_linked_in() -> None:
    needed = subprocess.run([tool("ldd"), str(library())], check=True, capture_output=True, text=True).stdout
    assert "libswift" not in needed, needed
    assert "libFoundation" not in needed, needed


def test_only_yaia_symbols_are_exported() -> None:
    listing = subprocess.run([tool("nm"), "-D", "--defined-only", str(library())], check=True, capture_output=True, text=True).stdout
    exported = [line.split()[-1] for line in listing.splitlines() if len(line.split()) == 3 and line.split()[1].isupper()]
    assert exported, listing
    assert all(name.startswith("yaia_") for name in exported), [n for n in exported if not n.startswith("yaia_")]


def test_a_host_that_dlcloses_the_library_does_not_crash(examples_pack: str) -> None:
    """ctypes can dlclose; with a plugin thread still completing a call, code
    must stay mapped (-z nodelete)."""
    plugin = Path(os.environ.get("YAIA_PLUGIN_DIR", REPO / ".build" / "yaia" / "plugins")) / "auth.so"
    if not plugin.exists():
        pytest.skip(f"{plugin} is not built (make plugins)")
    script = textwrap.dedent(
        f"""
        import ctypes, json, _ctypes
        lib = ctypes.CDLL({str(library())!r})
        lib.yaia_runtime_new.restype = ctypes.c_void_p
        lib.yaia_runtime_new.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
        lib.yaia_execute.restype = ctypes.c_void_p
        lib.yaia_execute.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        lib.yaia_free.argtypes = [ctypes.c_void_p]
        config = {{"scenes": [{examples_pack!r}], "plugins": [{str(plugin)!r}]}}
        rt = lib.yaia_runtime_new(json.dumps(config).encode(), None)
        assert rt
        for request in [
            {{"op": "open", "scene": "example/login"}},
            {{"op": "send", "scene": 1, "action": {{"type": "emailChanged", "payload": "a@b.c"}}}},
            {{"op": "send", "scene": 1, "action": {{"type": "passwordChanged", "payload": "hunter2"}}}},
            {{"op": "send", "scene": 1, "action": {{"type": "submit"}}}},
        ]:
            answer = lib.yaia_execute(rt, json.dumps(request).encode())
            assert b'"ok":true' in ctypes.string_at(answer), ctypes.string_at(answer)
            lib.yaia_free(answer)
        # The auth plugin answers from its own thread; unload while it may be running,
        # then take its answer: the library's code is still there.
        _ctypes.dlclose(lib._handle)
        lib.yaia_receive.restype = ctypes.c_void_p
        lib.yaia_receive.argtypes = [ctypes.c_void_p, ctypes.c_double]
        event = lib.yaia_receive(rt, 30.0)
        assert event and b'"event":"update"' in ctypes.string_at(event), event
        print("survived")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "survived" in done.stdout


def test_make_install_gives_a_library_headers_a_pkg_config_file_the_command_plugins_and_pack(tmp_path: Path) -> None:
    library()
    tool("pkg-config")
    prefix = tmp_path / "prefix"
    subprocess.run(["make", "-s", "install", f"PREFIX={prefix}"], cwd=REPO, check=True, capture_output=True, timeout=600)
    assert (prefix / "include" / "yaia.h").exists()
    assert (prefix / "include" / "yaia_plugin.h").exists()
    assert os.readlink(prefix / "lib" / "libyaia.so") == "libyaia.so.1"
    assert (prefix / "lib" / "libyaia.so.1").resolve().exists()

    env = dict(os.environ, PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig"))
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "yaia"], env=env, check=True, capture_output=True, text=True).stdout.split()
    assert f"-I{prefix}/include" in flags

    def variable(name: str) -> Path:
        found = subprocess.run(["pkg-config", f"--variable={name}", "yaia"], env=env, check=True, capture_output=True, text=True)
        return Path(found.stdout.strip())

    assert variable("packdir") == prefix / "lib" / "yaia"
    examples_pack = variable("packdir") / "libyaia-examples.so"
    assert sorted(p.name for p in variable("plugindir").iterdir()) == ["auth.so", "store.so"]
    # The command runs from its new place, with no variable pointing into the build folder.
    clean = {k: v for k, v in os.environ.items() if not k.startswith("YAIA_")}
    version = subprocess.run([str(prefix / "bin" / "yaia"), "--version"], env=clean, capture_output=True, text=True, timeout=60)
    assert version.returncode == 0, version.stderr
    assert yaia.__version__ in version.stdout.split(), version.stdout
    program = tmp_path / "hello"
    source = tmp_path / "hello.c"
    # The example scenes come from the installed examples pack, named by the config.
    config = json.dumps(json.dumps({"scenes": [str(examples_pack)]}))
    source.write_text(textwrap.dedent(
        """
        #include <stdio.h>
        #include <yaia.h>
        int main(void) {
            yaia_runtime *rt = yaia_runtime_new(CONFIG, NULL);
            char *r = yaia_open(rt, "example/login", NULL);
            printf("%d %s\\n", yaia_abi_version() == YAIA_ABI_VERSION, r);
            yaia_free(r);
            yaia_runtime_free(rt);
            return 0;
        }
        """
    ))
    compile = [tool("cc"), str(source), "-o", str(program), f"-DCONFIG={config}", *flags, f"-Wl,-rpath,{prefix}/lib"]
    subprocess.run(compile, check=True, capture_output=True)
    out = subprocess.run([str(program)], check=True, capture_output=True, text=True).stdout
    assert out.startswith('1 {"effects":[],"ok":true')
