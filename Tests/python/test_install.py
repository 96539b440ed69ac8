"""An installed copy works: `make install-built PREFIX=<tmp>` (the install
recipe on what is already built), then a C program built with the pkg-config
line starts with no library path set, and a C scene pack built against the
installed yaia_scene.h loads through the installed library."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List

import pytest

from conftest import EXAMPLES_PACK, PLUGIN_DIR, REPO

CLI = Path(os.environ.get("YAIA_CLI", REPO / ".build" / "release" / "yaia"))
LIBRARY = Path(os.environ.get("YAIA_LIBRARY", REPO / ".build" / "release" / "libyaia.so"))
BUILT = [LIBRARY, CLI, EXAMPLES_PACK, PLUGIN_DIR / "auth.so", PLUGIN_DIR / "store.so"]

PROGRAM = r"""
#include <stdio.h>
#include <yaia.h>

/* Opens test/counter from the pack argv[1], sends it two actions, prints each answer. */
int main(int argc, char **argv)
{
    if (argc != 2) return 2;
    printf("%s\n", yaia_version());
    char config[4096];
    snprintf(config, sizeof config, "{\"scenes\": [\"%s\"]}", argv[1]);
    char *error = NULL;
    yaia_runtime *rt = yaia_runtime_new(config, &error);
    if (!rt) {
        printf("%s\n", error ? error : "no runtime");
        yaia_free(error);
        return 1;
    }
    char *answers[] = {
        yaia_open(rt, "test/counter", "{\"start\": 40, \"step\": 2}"),
        yaia_send(rt, 1, "{\"type\": \"increment\"}"),
    };
    for (int i = 0; i < 2; i++) {
        printf("%s\n", answers[i] ? answers[i] : "null");
        yaia_free(answers[i]);
    }
    yaia_runtime_free(rt);
    return 0;
}
"""


def run(args: List[str], env: Dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=300, env=env, cwd=cwd)


@pytest.fixture(scope="module")
def prefix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    for tool in ("make", "cc", "pkg-config"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    for path in BUILT:
        if not path.is_file():
            pytest.skip(f"{path} is not built (make lib examples-pack cli plugins)")
    where = tmp_path_factory.mktemp("install") / "prefix"
    done = subprocess.run(
        ["make", "--no-print-directory", "-C", str(REPO), "install-built", f"PREFIX={where}",
         f"LIB={LIBRARY}", f"CLI={CLI}", f"EXAMPLES_PACK={EXAMPLES_PACK}", f"PLUGINS={PLUGIN_DIR}"],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return where


def clean_env(prefix: Path) -> Dict[str, str]:
    """No library path and no Yaia variable: what is found, the installed copy alone gives."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("YAIA_") and k != "LD_LIBRARY_PATH"}
    env["PKG_CONFIG_PATH"] = str(prefix / "lib" / "pkgconfig")
    return env


def pkg_config(prefix: Path, *what: str) -> List[str]:
    done = subprocess.run(["pkg-config", *what, "yaia"], capture_output=True, text=True, env=clean_env(prefix))
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_every_public_header_and_file_is_installed(prefix: Path) -> None:
    for header in sorted((REPO / "Include").glob("*.h")):
        assert (prefix / "include" / header.name).read_bytes() == header.read_bytes(), header.name
    for path in ("lib/libyaia.so", "lib/libyaia.so.1", "bin/yaia", "lib/yaia/libyaia-examples.so",
                 "lib/yaia/plugins/auth.so", "lib/yaia/plugins/store.so"):
        assert (prefix / path).exists(), path


def test_a_prefix_outside_the_linker_search_path_gets_an_rpath(prefix: Path) -> None:
    libs = pkg_config(prefix, "--libs")
    assert f"-Wl,-rpath,{prefix}/lib" in libs
    assert pkg_config(prefix, "--variable=packdir") == [f"{prefix}/lib/yaia"]


def test_a_c_program_and_a_c_pack_built_against_the_installed_copy_run(prefix: Path, tmp_path: Path) -> None:
    env = clean_env(prefix)
    # Copies, so that no header beside the sources stands in for the installed ones.
    (tmp_path / "prog.c").write_text(PROGRAM)
    shutil.copy(REPO / "Tests" / "packs" / "counter.c", tmp_path / "counter.c")
    cflags = pkg_config(prefix, "--cflags")
    assert cflags == [f"-I{prefix}/include"]
    done = run(["cc", "-std=c11", "-Wall", "-Werror", "-o", "prog", "prog.c", *cflags, *pkg_config(prefix, "--libs")],
               env, tmp_path)
    assert done.returncode == 0, done.stderr
    done = run(["cc", "-std=c11", "-Wall", "-Werror", "-shared", "-fPIC", "-o", "libcounter.so", "counter.c", *cflags],
               env, tmp_path)
    assert done.returncode == 0, done.stderr

    done = run([str(tmp_path / "prog"), str(tmp_path / "libcounter.so")], env, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    version, opened, sent = done.stdout.splitlines()
    installed = subprocess.run([str(prefix / "bin" / "yaia"), "--version"], capture_output=True, text=True, env=env)
    assert installed.stdout.startswith(f"yaia {version} ")
    assert json.loads(opened)["viewModel"] == {"count": 40, "even": True}
    assert json.loads(sent)["viewModel"] == {"count": 42, "even": True}
    # The program found the installed library, not the build folder's.
    ldd = subprocess.run(["ldd", str(tmp_path / "prog")], capture_output=True, text=True, env=env).stdout
    assert f"{prefix}/lib/libyaia.so.1" in ldd
