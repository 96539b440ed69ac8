"""The yaia command line (Sources/yaia): requests as arguments or on stdin."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import List, Optional

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cli() -> str:
    path = Path(os.environ.get("YAIA_CLI", REPO / ".build" / "release" / "yaia-cli"))
    if not path.exists():
        pytest.skip(f"{path} is not built (make cli)")
    return str(path)


def run(cli: str, *args: str, stdin: str = "", cwd: Optional[Path] = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([cli, *args], input=stdin, capture_output=True, text=True, timeout=60, cwd=cwd)


def test_requests_as_arguments_print_one_response_a_line(cli: str) -> None:
    done = run(cli, '{"op":"bind","service":"m","library":"libm.so.6","ops":{"pow":"double(double,double)"}}',
               '{"op":"perform","effect":{"service":"m","op":"pow","args":[2,10]}}')
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines == [{"ok": True, "ops": ["pow"], "service": "m"}, {"ok": True, "result": 1024}]


def test_stdin_requests_and_receive(cli: str, examples_pack: str) -> None:
    script = "\n".join([
        '# a comment, then a blank line',
        '',
        '{"op":"open","scene":"example/login"}',
        '{"op":"send","scene":1,"action":{"type":"emailChanged","payload":"a@b.c"}}',
        'receive 0.01',
        '{"op":"state","scene":1}',
    ])
    done = run(cli, "--config", json.dumps({"scenes": [examples_pack]}), stdin=script + "\n")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["seq"] for line in lines] == [0, 1, 1]  # receive printed nothing: no event
    assert lines[2]["state"]["email"] == "a@b.c"


def test_an_error_envelope_makes_the_exit_status_1(cli: str) -> None:
    done = run(cli, '{"op":"nope"}', '{"op":"scenes"}')
    assert done.returncode == 1
    first, second = (json.loads(line) for line in done.stdout.splitlines())
    assert first["error"]["code"] == "unknown_op"
    assert second["ok"] is True


def test_config_inline_and_from_a_file(cli: str, tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"bind": [{"service": "c", "library": "libc.so.6", "ops": {"abs": "int32(int32)"}}]}))
    done = run(cli, "--config", f"@{config}", '{"op":"perform","effect":{"service":"c","op":"abs","args":[-5]}}')
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"ok": True, "result": 5}

    bad = run(cli, "--config", '{"bogus":1}')
    assert bad.returncode == 2
    assert json.loads(bad.stderr)["error"]["code"] == "bad_config"
    assert run(cli, "--config").returncode == 2


# ---------------------------------------------------------------- help, version, mistyped commands


@pytest.mark.parametrize("flag", ["--help", "-h", "help"])
def test_help_lists_the_commands_and_the_exit_codes(cli: str, flag: str) -> None:
    done = run(cli, flag)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: yaia-cli ")
    for part in ("--config JSON|@FILE", "new pack NAME [--dir DIR] [--yaia PATH]", "--version", "Exit status",
                 "  0  success", "  1  ", "  2  bad usage"):
        assert part in done.stdout
    assert "invalid_json" not in done.stdout


def test_version(cli: str) -> None:
    done = run(cli, "--version")
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"yaia-cli \d+\.\d+\.\d+ \(C ABI \d+\)\n", done.stdout), done.stdout


@pytest.mark.parametrize("args, message", [
    (["nwe", "pack", "x"], 'unknown command "nwe"'),
    (["--frob"], "unknown option --frob"),
    (["--config", "{}", "--help"], "unknown option --help"),
])
def test_a_mistyped_command_is_a_usage_error(cli: str, args: List[str], message: str) -> None:
    done = run(cli, *args)
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stdout == ""


def test_help_on_standard_input_lists_the_line_commands(cli: str) -> None:
    done = run(cli, stdin="help\n")
    assert done.returncode == 0, done.stderr
    for part in ("receive [SECONDS]", "help", "quit", "# ..."):
        assert part in done.stdout
    assert "invalid_json" not in done.stdout


@pytest.mark.parametrize("word", ["quit", "exit", "  quit\r"])
def test_quit_ends_standard_input(cli: str, word: str) -> None:
    done = run(cli, stdin=f'{{"op":"scenes"}}\n{word}\n{{"op":"nope"}}\n')
    assert done.returncode == 0, done.stderr
    (only,) = (json.loads(line) for line in done.stdout.splitlines())
    assert only["ok"] is True


def test_json_literals_are_still_requests(cli: str) -> None:
    done = run(cli, "null")
    assert done.returncode == 1
    assert json.loads(done.stdout)["ok"] is False


# ---------------------------------------------------------------- new pack


def files(folder: Path) -> List[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def test_new_pack_writes_a_package(cli: str, tmp_path: Path) -> None:
    done = run(cli, "new", "pack", "my-shop", "--dir", str(tmp_path / "pack"))
    assert done.returncode == 0, done.stderr
    pack = tmp_path / "pack"
    assert files(pack) == [
        ".gitignore", "Package.swift", "README.md",
        "Sources/MyShopPack/Pack.swift", "Sources/MyShopPack/pack.map",
        "Sources/MyShopScenes/Counter.swift", "Tests/MyShopScenesTests/CounterTests.swift",
    ]
    assert "swift build -c release -Xswiftc -static-stdlib" in done.stdout

    manifest = (pack / "Package.swift").read_text()
    assert manifest.startswith("// swift-tools-version:6.0\n")
    assert '.library(name: "my-shop", type: .dynamic, targets: ["MyShopPack"])' in manifest
    # By default, the repository this yaia-cli was built from.
    assert f'.package(name: "Yaia", path: "{REPO.resolve()}")' in manifest
    assert '.product(name: "YaiaKit", package: "Yaia")' in manifest
    assert '.product(name: "YaiaTesting", package: "Yaia")' in manifest
    assert "--version-script=\\(Context.packageDirectory)/Sources/MyShopPack/pack.map" in manifest

    scene = (pack / "Sources/MyShopScenes/Counter.swift").read_text()
    assert 'public static let name = "my-shop/counter"' in scene
    for part in ("SceneState, Codable", "SceneAction, Decodable", "JSONRepresentable, Encodable", ".effect(Effect(", ".route(.pop("):
        assert part in scene
    assert "import MyShopScenes" in (pack / "Sources/MyShopPack/Pack.swift").read_text()
    assert "global: yaia_scene_pack_init;" in (pack / "Sources/MyShopPack/pack.map").read_text()
    assert "SceneTest" in (pack / "Tests/MyShopScenesTests/CounterTests.swift").read_text()
    assert (pack / ".gitignore").read_text().splitlines()[:1] == [".build/"]
    assert "Package.resolved" in (pack / ".gitignore").read_text()
    readme = (pack / "README.md").read_text()
    assert "swift build -c release -Xswiftc -static-stdlib" in readme
    assert 'yaia.Runtime(scenes=[".build/release/libmy-shop.so"])' in readme


def test_new_pack_defaults_to_a_folder_named_after_it_and_takes_yaia_relative(cli: str, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    relative = os.path.relpath(REPO, tmp_path)
    done = run(cli, "new", "pack", "--yaia", relative, "shop", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f'path: "{REPO.resolve()}"' in (tmp_path / "shop" / "Package.swift").read_text()
    # An empty folder is fine too; --dir=DIR and --yaia=PATH forms.
    done = run(cli, "new", "pack", "shop", "--dir=empty", f"--yaia={REPO}", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "empty" / "Package.swift").is_file()


def test_new_help(cli: str) -> None:
    for args in (["new", "--help"], ["new", "pack", "-h"]):
        done = run(cli, *args)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("usage: yaia-cli new pack NAME")


@pytest.mark.parametrize("name", ["Shop", "1shop", "-shop", "_shop", "sh op", "shöp", "shop/x", "a" * 65, "yaia", "yaia-cli"])
def test_new_pack_refuses_a_bad_name(cli: str, tmp_path: Path, name: str) -> None:
    done = run(cli, "new", "pack", name, "--dir", str(tmp_path / "pack"))
    assert done.returncode == 2
    # "-shop" reads as an option: an unknown one.
    assert re.search(r"new pack: (invalid NAME|NAME is longer|.* is the name of one of Yaia's own|unknown option)", done.stderr)
    assert not (tmp_path / "pack").exists()


def test_new_pack_accepts_the_names_it_documents(cli: str, tmp_path: Path) -> None:
    for name in ("a", "my-scenes", "app_2"):
        assert run(cli, "new", "pack", name, "--dir", str(tmp_path / name)).returncode == 0


def test_new_pack_never_overwrites(cli: str, tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine")
    done = run(cli, "new", "pack", "shop", "--dir", str(taken))
    assert done.returncode == 2
    assert "exists and is not empty" in done.stderr
    assert files(taken) == ["notes.txt"] and (taken / "notes.txt").read_text() == "mine"

    (tmp_path / "file").write_text("")
    done = run(cli, "new", "pack", "shop", "--dir", str(tmp_path / "file"))
    assert done.returncode == 2
    assert "is not a folder" in done.stderr


@pytest.mark.parametrize("args, message", [
    (["new"], "new: what?"),
    (["new", "scene", "x"], 'cannot make "scene"'),
    (["new", "pack"], "NAME is missing"),
    (["new", "pack", "a", "b"], "one NAME only"),
    (["new", "pack", "a", "--dir"], "--dir needs a path"),
    (["new", "pack", "a", "--force"], "unknown option --force"),
    (["new", "pack", "a", "--yaia", "/nonexistent/yaia"], "no Yaia package at /nonexistent/yaia"),
    (["new", "pack", "a", "--yaia", "/tmp"], "no Yaia package at /tmp"),
])
def test_new_pack_usage_errors(cli: str, tmp_path: Path, args: List[str], message: str) -> None:
    done = run(cli, *args, cwd=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_new_pack_refuses_a_folder_named_like_yaias(cli: str, tmp_path: Path) -> None:
    # SwiftPM identifies a package given by path by its folder's name.
    done = run(cli, "new", "pack", "a", "--dir", str(tmp_path / REPO.resolve().name))
    assert done.returncode == 2
    assert "SwiftPM" in done.stderr
