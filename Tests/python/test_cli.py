"""The `yaia` command (Sources/yaia): every subcommand, its exit codes, and
`yaia run` typed into in a terminal (tmux)."""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pytest

REPO = Path(__file__).resolve().parents[2]
NOTES_DOCS = REPO / "Examples" / "notes-documents"


@pytest.fixture(scope="module")
def cli() -> str:
    path = Path(os.environ.get("YAIA_CLI", REPO / ".build" / "release" / "yaia"))
    if not path.exists():
        pytest.skip(f"{path} is not built (make cli)")
    return str(path)


def run(cli: str, *args: str, stdin: str = "", cwd: Optional[Path] = None,
        env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([cli, *args], input=stdin, capture_output=True, text=True, timeout=120, cwd=cwd, env=env)


# ---------------------------------------------------------------- exec: requests


def test_exec_requests_as_arguments_print_one_response_a_line(cli: str) -> None:
    done = run(cli, "exec", '{"op":"bind","service":"m","library":"libm.so.6","ops":{"pow":"double(double,double)"}}',
               '{"op":"perform","effect":{"service":"m","op":"pow","args":[2,10]}}')
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines == [{"ok": True, "ops": ["pow"], "service": "m"}, {"ok": True, "result": 1024}]


def test_exec_stdin_requests_and_receive(cli: str, examples_pack: str) -> None:
    script = "\n".join([
        '# a comment, then a blank line',
        '',
        '{"op":"open","scene":"example/login"}',
        '{"op":"send","scene":1,"action":{"type":"emailChanged","payload":"a@b.c"}}',
        'receive 0.01',
        '{"op":"state","scene":1}',
    ])
    done = run(cli, "exec", "--scenes", examples_pack, stdin=script + "\n")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["seq"] for line in lines] == [0, 1, 1]  # receive printed nothing: no event
    assert lines[2]["state"]["email"] == "a@b.c"


def test_exec_an_error_envelope_makes_the_exit_status_1(cli: str) -> None:
    done = run(cli, "exec", '{"op":"nope"}', '{"op":"scenes"}')
    assert done.returncode == 1
    first, second = (json.loads(line) for line in done.stdout.splitlines())
    assert first["error"]["code"] == "unknown_op"
    assert second["ok"] is True


def test_exec_config_inline_and_from_a_file(cli: str, tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"bind": [{"service": "c", "library": "libc.so.6", "ops": {"abs": "int32(int32)"}}]}))
    done = run(cli, "exec", "--config", f"@{config}", '{"op":"perform","effect":{"service":"c","op":"abs","args":[-5]}}')
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"ok": True, "result": 5}

    bad = run(cli, "exec", "--config", '{"bogus":1}')
    assert bad.returncode == 2
    assert '"code":"bad_config"' in bad.stderr
    assert run(cli, "exec", "--config").returncode == 2
    assert run(cli, "exec", "--config", "[1]").returncode == 2


def test_exec_help_and_quit_on_standard_input(cli: str) -> None:
    done = run(cli, "exec", stdin='help\n{"op":"scenes"}\nquit\n{"op":"nope"}\n')
    assert done.returncode == 0, done.stderr
    for part in ("receive [SECONDS]", "quit, exit", "# ..."):
        assert part in done.stdout
    assert sum(1 for line in done.stdout.splitlines() if line.startswith("{")) == 1


def test_exec_json_literals_are_still_requests(cli: str) -> None:
    done = run(cli, "exec", "null")
    assert done.returncode == 1
    assert json.loads(done.stdout)["ok"] is False


# ---------------------------------------------------------------- privileges


PERFORM = '{"op":"perform","effect":{"service":"m","op":"pow","args":[2,3]}}'
BIND = '{"op":"bind","service":"m","library":"libm.so.6","ops":{"pow":"double(double,double)"}}'


def codes(stdout: str) -> List[Optional[str]]:
    return [json.loads(line).get("error", {}).get("code") for line in stdout.splitlines()]


def test_the_person_at_the_terminal_is_granted_everything_by_default(cli: str, tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    done = run(cli, "exec", BIND, PERFORM, json.dumps({"op": "journal", "start": str(journal)}))
    assert done.returncode == 0, done.stdout
    assert journal.is_file()


def test_allow_narrows_the_ops(cli: str) -> None:
    done = run(cli, "exec", "--allow", "none", BIND)
    assert done.returncode == 1
    assert codes(done.stdout) == ["not_permitted"]
    # Only bind: the perform of what it bound is refused.
    done = run(cli, "exec", "--allow", "bind", BIND, PERFORM)
    assert codes(done.stdout) == [None, "not_permitted"]
    done = run(cli, "exec", "--allow", "bind", "--allow", "perform", BIND, PERFORM)
    assert done.returncode == 0 and codes(done.stdout) == [None, None]
    # A name that is no privileged op is the runtime's bad_config: bad usage.
    done = run(cli, "exec", "--allow", "sned", '{"op":"scenes"}')
    assert done.returncode == 2 and "bad_config" in done.stderr


def test_allow_files_narrows_the_files(cli: str, tmp_path: Path) -> None:
    inside, outside = tmp_path / "in", tmp_path / "out"
    inside.mkdir()
    outside.mkdir()
    done = run(cli, "exec", "--allow-files", str(inside),
               json.dumps({"op": "journal", "start": str(outside / "j.jsonl")}),
               json.dumps({"op": "journal", "start": str(inside / "j.jsonl")}))
    assert codes(done.stdout) == ["not_permitted", None]
    assert not (outside / "j.jsonl").exists() and (inside / "j.jsonl").exists()


def test_a_config_allow_is_kept_unless_flags_replace_it(cli: str) -> None:
    done = run(cli, "exec", "--config", '{"allow": {}}', BIND)
    assert codes(done.stdout) == ["not_permitted"]
    done = run(cli, "exec", "--config", '{"allow": {}}', "--allow", "bind", BIND)
    assert codes(done.stdout) == [None]
    done = run(cli, "exec", "--config", '{"allow": 5}', BIND)
    assert done.returncode == 2 and "bad_config" in done.stderr


# ---------------------------------------------------------------- help, version, usage errors


COMMANDS = [[], ["run"], ["test"], ["replay"], ["check"], ["graph"], ["new"], ["new", "pack"], ["new", "scene"], ["exec"]]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "yaia")
def test_help_on_every_command(cli: str, command: List[str]) -> None:
    done = run(cli, *command, "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("OVERVIEW: ")
    assert f"USAGE: {' '.join(['yaia', *command])}" in done.stdout
    if command:
        assert "--help" in done.stdout


def test_the_top_help_lists_the_commands_and_exit_status(cli: str) -> None:
    done = run(cli, "--help")
    for part in ("run", "test", "replay", "check", "graph", "new", "exec", "Exit status", "2 bad usage"):
        assert part in done.stdout


def test_version(cli: str) -> None:
    done = run(cli, "--version")
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"yaia \d+\.\d+\.\d+ \(C ABI \d+\)\n", done.stdout), done.stdout


@pytest.mark.parametrize("args", [
    ["nwe", "pack", "x"], ["--frob"], ["exec", "--frob"], ["run"], ["check"], ["test"], ["graph"],
    ["test", "--simulate", "0", "x"], ["test", "--out", "x.json", "y"], ["graph", "--format", "gif", "x"],
])
def test_bad_usage_exits_2(cli: str, args: List[str]) -> None:
    done = run(cli, *args)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr and done.stdout == ""


@pytest.mark.parametrize("command", ["run", "check", "graph", "replay", "test"])
def test_a_missing_file_exits_2(cli: str, command: str, tmp_path: Path) -> None:
    done = run(cli, command, str(tmp_path / "nothing.json"))
    assert done.returncode == 2
    assert "nothing.json" in done.stderr


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
    # The tests are Swift Testing's: XCTest, run too by a plain `swift test`, would report its 0 tests first.
    assert "swift test --disable-xctest" in done.stdout

    manifest = (pack / "Package.swift").read_text()
    assert manifest.startswith("// swift-tools-version:6.0\n")
    assert '.library(name: "my-shop", type: .dynamic, targets: ["MyShopPack"])' in manifest
    # By default, the repository this yaia was built from.
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
    readme = (pack / "README.md").read_text()
    assert 'yaia.Runtime(scenes=[".build/release/libmy-shop.so"])' in readme
    assert "swift test --disable-xctest\n" in readme


def test_new_pack_defaults_to_a_folder_named_after_it_and_takes_yaia_relative(cli: str, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    relative = os.path.relpath(REPO, tmp_path)
    done = run(cli, "new", "pack", "--yaia", relative, "shop", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f'path: "{REPO.resolve()}"' in (tmp_path / "shop" / "Package.swift").read_text()
    done = run(cli, "new", "pack", "shop", "--dir=empty", f"--yaia={REPO}", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "empty" / "Package.swift").is_file()


@pytest.mark.parametrize("name", ["Shop", "1shop", "-x", "_shop", "sh op", "shöp", "shop/x", "a" * 65, "yaia", "yaia-command"])
def test_new_pack_refuses_a_bad_name(cli: str, tmp_path: Path, name: str) -> None:
    done = run(cli, "new", "pack", name, "--dir", str(tmp_path / "pack"))
    assert done.returncode == 2
    # "-x" reads as an option: an unknown one.
    assert re.search(r"new pack: (invalid NAME|NAME is longer|.* is the name of one of Yaia's own)|Missing expected argument", done.stderr)
    assert not (tmp_path / "pack").exists()


def test_new_pack_never_overwrites(cli: str, tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine")
    done = run(cli, "new", "pack", "shop", "--dir", str(taken))
    assert done.returncode == 2
    assert "exists and is not empty" in done.stderr
    assert files(taken) == ["notes.txt"] and (taken / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("args, message", [
    (["new", "pack"], "Missing expected argument"),
    (["new", "pack", "a", "b"], "Unexpected argument"),
    (["new", "pack", "a", "--dir"], "Missing value for '--dir"),
    (["new", "pack", "a", "--force"], "Unknown option '--force'"),
    (["new", "pack", "a", "--yaia", "/nonexistent/yaia"], "no Yaia package at /nonexistent/yaia"),
    (["new", "pack", "a", "--yaia", "/tmp"], "no Yaia package at /tmp"),
    (["new", "pack", "a", "--dir", "yaia"], "SwiftPM"),
])
def test_new_pack_usage_errors(cli: str, tmp_path: Path, args: List[str], message: str) -> None:
    if args[-1] == "yaia":
        args = [*args[:-1], str(tmp_path / REPO.resolve().name)]
    done = run(cli, *args, cwd=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- new scene, check


def test_new_scene_writes_a_document_that_check_passes_and_run_runs(cli: str, tmp_path: Path) -> None:
    done = run(cli, "new", "scene", "shop/cart", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    document = json.loads((tmp_path / "cart.json").read_text())
    assert document["scene"] == "shop/cart" and document["yaia"] == 1
    done = run(cli, "check", "cart.json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout
    assert done.stdout.splitlines() == ["cart.json: ok (shop/cart)", "1 document checked, 0 with problems"]
    done = run(cli, "run", "cart.json", stdin="increment\nadd 5\n", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "(scene 1, seq 2) view:\n  canDecrement: true\n  count: 6\n" in done.stdout


def test_new_scene_never_overwrites_and_checks_its_name(cli: str, tmp_path: Path) -> None:
    (tmp_path / "cart.json").write_text("mine")
    done = run(cli, "new", "scene", "shop/cart", cwd=tmp_path)
    assert done.returncode == 2 and "exists" in done.stderr
    assert (tmp_path / "cart.json").read_text() == "mine"
    for name in ("Shop/cart", "shop//cart", "shop/", "sh op"):
        done = run(cli, "new", "scene", name, "--file", "x.json", cwd=tmp_path)
        assert done.returncode == 2 and "invalid NAME" in done.stderr, name
    assert not (tmp_path / "x.json").exists()


def test_check_passes_the_notes_documents(cli: str) -> None:
    done = run(cli, "check", str(NOTES_DOCS))
    assert done.returncode == 0, done.stdout
    assert done.stdout.splitlines()[-1] == "4 documents checked, 0 with problems"
    # Their routes name one another: checked one at a time, the routes would be unknown scenes.
    assert "notes/list" in (NOTES_DOCS / "login.json").read_text()


def test_check_prints_every_problem_with_its_pointer(cli: str, tmp_path: Path) -> None:
    document = json.loads((NOTES_DOCS / "login.json").read_text())
    effect = document["actions"]["submit"][-1]["effects"][0]
    effect["thne"] = effect.pop("then")
    document["actions"]["loginSucceeded"]["route"]["push"] = "notes/lsit"
    (tmp_path / "login.json").write_text(json.dumps(document))
    (tmp_path / "broken.json").write_text('{"yaia": 1, ')
    shutil.copy(NOTES_DOCS / "list.json", tmp_path / "list.json")
    done = run(cli, "check", str(tmp_path), "--scenes", str(NOTES_DOCS / "editor.json"), "--scenes", str(NOTES_DOCS / "row.json"))
    assert done.returncode == 1
    out = done.stdout
    assert f"{tmp_path}/broken.json: 1 problem\n  invalid_json: " in out
    assert f"{tmp_path}/list.json: ok (notes/list)" in out
    assert f"{tmp_path}/login.json: 2 problems" in out
    assert '  /actions/submit/4/effects/0/thne: unknown_member: "thne" is not a member of an effect; did you mean "then"?' in out
    assert "  /actions/loginSucceeded/route/push: unknown_scene: " in out and '"notes/list"' in out
    assert out.splitlines()[-1] == "3 documents checked, 2 with problems"


def test_check_suggests_misspelled_members_and_still_reports_what_lies_under_them(cli: str, tmp_path: Path) -> None:
    document = {"yaia": 1, "scene": "t/todo", "state": {"todos": [], "nextID": 1},
                "actions": {"add": {"payload": "string", "branch": [{"whne": True, "set": {"todo": []}}]}}}
    write(tmp_path / "todo.json", document)
    done = run(cli, "check", str(tmp_path / "todo.json"))
    assert done.returncode == 1
    assert f"{tmp_path}/todo.json: 3 problems" in done.stdout
    assert '  /actions/add/branch: unknown_member: "branch" is not a member of an action with "branches"; did you mean "branches"?' in done.stdout
    assert '  /actions/add/branch/0/whne: unknown_member: "whne" is not a member of a branch; did you mean "when"?' in done.stdout
    assert '  /actions/add/branch/0/set/todo: unknown_field: "todo" is not a field of the state; did you mean "todos"?' in done.stdout


def test_check_warns_of_an_expression_inside_an_operators_object_argument(cli: str, tmp_path: Path) -> None:
    item = {"id": {"var": "state.nextID"}, "done": False}
    document = {"yaia": 1, "scene": "t/todo", "state": {"todos": [], "nextID": 1},
                "actions": {"add": {"set": {"todos": {"append": [{"var": "state.todos"}, item]}}}}}
    write(tmp_path / "todo.json", document)
    done = run(cli, "check", str(tmp_path / "todo.json"))
    assert done.returncode == 0, done.stdout   # a warning: the document is valid, and means something else
    assert f"{tmp_path}/todo.json: ok (t/todo), 1 warning" in done.stdout
    assert ('  warning: /actions/add/set/todos/append/1: expression_in_literal: this object in the arguments of "append" is a literal: '
            'the expression at /actions/add/set/todos/append/1/id is kept as data, not evaluated; '
            'build the object with the "object" operator') in done.stdout
    document["actions"]["add"]["set"]["todos"]["append"][1] = {"object": item}
    write(tmp_path / "todo.json", document)
    done = run(cli, "check", str(tmp_path / "todo.json"))
    assert done.returncode == 0 and "warning" not in done.stdout, done.stdout


# ---------------------------------------------------------------- graph


def test_graph_of_the_notes_app_is_its_navigation(cli: str) -> None:
    done = run(cli, "graph", str(NOTES_DOCS))
    assert done.returncode == 0, done.stderr
    dot = done.stdout
    assert dot.startswith("digraph yaia {") and dot.rstrip().endswith("}")
    assert '"notes/login" -> "notes/list" [penwidth=1.5, label="push (loginSucceeded)"];' in dot
    assert '"notes/list" -> "notes/editor" [penwidth=1.5, label="push (newNote, open, rowOpened)\\nresult: editorClosed"];' in dot
    for effect in ("auth.login", "store.list", "store.put", "store.delete"):
        assert f'"effect:{effect}"' in dot
    assert '"notes/login" -> "effect:auth.login"' in dot and "then loginSucceeded, catch loginFailed" in dot
    assert re.search(r'"notes/editor" -> "notes/editor:pop" \[style=dotted, label="[^"]*save', dot)
    # Every action of every scene is listed.
    for action in ("emailChanged", "submit", "newNote", "titleChanged", "editorClosed"):
        assert f">{action}" in dot


def test_graph_of_one_document_and_of_a_pack(cli: str, examples_pack: str) -> None:
    # A document loads with the scenes its routes and children name.
    done = run(cli, "graph", str(NOTES_DOCS / "list.json"))
    assert done.returncode == 2 and "no scene type" in done.stderr
    done = run(cli, "graph", str(NOTES_DOCS / "list.json"), "--scenes", str(NOTES_DOCS / "editor.json"), "--scenes", str(NOTES_DOCS / "row.json"))
    assert done.returncode == 0, done.stderr
    assert '"notes/list" [shape=plain' in done.stdout and '"notes/login" [' not in done.stdout
    # The editor is a target not drawn here.
    assert '"notes/editor" [shape=box, style="rounded,dashed"' in done.stdout
    done = run(cli, "graph", examples_pack)
    assert done.returncode == 0, done.stderr
    assert '"example/login" [shape=plain' in done.stdout
    assert "declares no actions, effects or routes" in done.stdout


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:8]
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_graph_of_the_notes_app_renders_to_png(cli: str, tmp_path: Path) -> None:
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed (make deps installs it)")
    out = tmp_path / "notes.png"
    done = run(cli, "graph", str(NOTES_DOCS), "--format", "png", "--output", str(out))
    assert done.returncode == 0, done.stderr
    data = out.read_bytes()
    width, height = png_size(data)
    assert width > 800 and height > 200, (width, height)
    assert len(data) > 20000
    done = run(cli, "graph", str(NOTES_DOCS), "--format", "svg")
    assert done.returncode == 0, done.stderr
    assert "<svg" in done.stdout and "notes/editor" in done.stdout


def test_graph_says_so_when_dot_is_missing(cli: str, tmp_path: Path) -> None:
    env = dict(os.environ, PATH=str(tmp_path))
    done = run(cli, "graph", str(NOTES_DOCS), "--format", "png", "--output", str(tmp_path / "x.png"), env=env)
    assert done.returncode == 1
    assert "needs Graphviz's `dot`" in done.stderr and "apt-get install graphviz" in done.stderr
    assert not (tmp_path / "x.png").exists()


# ---------------------------------------------------------------- run, its standard input no terminal


def test_run_shows_the_view_model_and_sends_actions(cli: str) -> None:
    script = "\n".join([
        'emailChanged "a@b.c"',
        "passwordChanged pw",      # text that is not JSON goes as a string
        ":actions",
        "submit",
        ':resolve 1 {"user": {"email": "a@b.c"}}',
        "load",
        ':fail 2 {"message": "disk on fire"}',
        "bogus",
        ":state",
    ])
    done = run(cli, "run", str(NOTES_DOCS), "--scene", "notes/login", stdin=script + "\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "notes/login: actions: emailChanged string, loginFailed {code: string?, message: string?}, " in out
    assert "notes/login> passwordChanged pw\nnotes/login (scene 1, seq 2) view:\n  canSubmit: true\n" in out
    assert 'effect #1 auth.login {"email":"a@b.c","password":"pw"} (pending: :resolve 1 JSON or :fail 1 JSON)' in out
    assert 'route push notes/list {"user":{"email":"a@b.c"}}\nstack: notes/login > notes/list\n' in out
    assert "notes/list: actions: editorClosed" in out
    assert '  error: "Could not load the notes: disk on fire"' in out or "disk on fire" in out
    assert 'error unknown_action: unknown action type "bogus" (at /action/type)' in out
    # :state is the list's, now on top.
    assert out.rstrip().splitlines()[-1].startswith("  user: ")


def test_run_prints_a_long_value_over_indented_lines_that_fit(cli: str, tmp_path: Path) -> None:
    document = {"yaia": 1, "scene": "t/long", "state": {"items": list(range(100)), "short": [1, 2],
                                                         "rows": [{"id": i, "title": f"row number {i}"} for i in range(4)]},
                "actions": {"noop": {}}}
    path = write(tmp_path / "long.json", document)
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    done = run(cli, "run", str(path), stdin=":state\n", env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines if not line.startswith("t/long: actions")) <= 80
    assert "  short: [1,2]" in lines
    start = lines.index("  items: [")
    assert lines[start + 1].startswith("    0, 1, 2, ") and lines[start + 1].endswith(",")
    end = lines.index("  ]", start)
    assert [int(n) for line in lines[start + 1:end] for n in line.replace(",", " ").split()] == list(range(100))
    assert '  rows: [\n    {"id":0,"title":"row number 0"},\n' in done.stdout
    wide = run(cli, "run", str(path), stdin=":state\n", env=dict(env, COLUMNS="1000"))
    assert "  items: [0,1,2," in wide.stdout


def test_run_with_a_service_plugin_shows_what_it_answers(cli: str, auth_so: str) -> None:
    script = 'emailChanged "a@b.c"\npasswordChanged "hunter2"\nsubmit\n'
    done = run(cli, "run", str(NOTES_DOCS), "--scene", "notes/login", "--plugin", auth_so, stdin=script)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert 'effect #1 auth.login {"email":"a@b.c","password":"hunter2"} (running)' in out
    assert 'event (effect #1):\nroute push notes/list {"user":{"email":"a@b.c"}}\nstack: notes/login > notes/list\n' in out
    assert '(scene 2, seq 0) view:\n  canCreate: false\n' in out


def test_run_takes_a_scene_name_and_a_pack(cli: str, examples_pack: str) -> None:
    done = run(cli, "run", "--scenes", examples_pack, "example/login", "--args", '{"email": "x@y.z"}', stdin=":view\n:quit\nsubmit\n")
    assert done.returncode == 0, done.stderr
    assert 'email: "x@y.z"' in done.stdout
    assert "actions: not declared" in done.stdout
    assert "seq 1" not in done.stdout  # :quit ended before submit


def test_run_asks_which_scene_of_several(cli: str, examples_pack: str) -> None:
    done = run(cli, "run", str(NOTES_DOCS))
    assert done.returncode == 2
    assert "has 4 scenes (notes/editor, notes/list, notes/login, notes/row): choose one with --scene NAME" in done.stderr
    done = run(cli, "run", "--scenes", examples_pack, "example/nope")
    assert done.returncode == 2 and "neither a file nor a scene type" in done.stderr


# ---------------------------------------------------------------- run in a terminal (tmux)


class Tmux:
    """A tmux server of its own (its own socket), one window running a command."""

    def __init__(self, socket: str, command: List[str], cwd: Path) -> None:
        self.base = ["tmux", "-L", socket, "-f", "/dev/null"]
        env = dict(os.environ, TERM="xterm-256color")
        subprocess.run([*self.base, "new-session", "-d", "-s", "t", "-x", "200", "-y", "60", "--", *command],
                       check=True, cwd=cwd, env=env, timeout=30)

    def keys(self, *keys: str, literal: bool = False) -> None:
        subprocess.run([*self.base, "send-keys", "-t", "t", *(["-l"] if literal else []), *keys], check=True, timeout=30)

    def screen(self) -> str:
        done = subprocess.run([*self.base, "capture-pane", "-p", "-t", "t", "-S", "-500"], capture_output=True, text=True, timeout=30)
        return done.stdout

    def wait_for(self, pattern: str) -> str:
        """The screen once it matches; capture-pane is polled, up to a generous number of times."""
        screen = ""
        for _ in range(5000):
            screen = self.screen().rstrip()
            if re.search(pattern, screen, re.S):
                return screen
        raise AssertionError(f"never showed {pattern!r}; the screen:\n{screen}")

    def close(self) -> None:
        subprocess.run([*self.base, "kill-server"], capture_output=True, timeout=30)


@pytest.fixture
def tmux_run(cli: str, tmp_path: Path) -> Iterator[Tmux]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (make deps installs it)")
    session = Tmux(f"yaia-test-{os.getpid()}-{tmp_path.name}", [cli, "run", str(NOTES_DOCS), "--scene", "notes/login"], tmp_path)
    try:
        yield session
    finally:
        session.close()


def test_run_in_a_terminal_edits_lines_and_walks_the_history(tmux_run: Tmux) -> None:
    t = tmux_run
    t.wait_for(r"notes/login>$")
    t.keys('emailChanged "a@b.c"', literal=True)
    t.keys("Enter")
    t.wait_for(r'seq 1\) view:\n  canSubmit: false\n  email: "a@b\.c"')

    # Typed without its first letter, which ctrl-a then puts in front.
    t.keys('mailChanged "b@c.d"', literal=True)
    t.keys("C-a")
    t.keys("e", literal=True)
    t.keys("Enter")
    t.wait_for(r'seq 2\) view:\n  canSubmit: false\n  email: "b@c\.d"')

    # A left arrow and a backspace: "pq" becomes "pw".
    t.keys('passwordChanged "pq"', literal=True)
    t.keys("Left", "BSpace")
    t.keys("w", literal=True)
    t.keys("Enter")
    t.wait_for(r'seq 3\) view:\n  canSubmit: true\n  email: "b@c\.d"')

    # Up three times: the first line again.
    t.keys("Up", "Up", "Up")
    t.wait_for(r'notes/login> emailChanged "a@b\.c"$')
    t.keys("Enter")
    t.wait_for(r'seq 4\) view:\n  canSubmit: true\n  email: "a@b\.c"')

    # Tab completes an action's name.
    t.keys("sub", literal=True)
    t.keys("Tab", "Enter")
    screen = t.wait_for(r"effect #1 auth\.login .*seq 5\) view:\n  canSubmit: false")
    assert "notes/login> submit" in screen
    t.keys(":quit", literal=True)
    t.keys("Enter")


def test_ctrl_c_in_run_drops_the_line_and_the_session_goes_on(tmux_run: Tmux) -> None:
    t = tmux_run
    t.wait_for(r"notes/login>$")
    t.keys('emailChanged "dropped@x.y"', literal=True)
    t.keys("C-c")
    t.wait_for(r'notes/login> emailChanged "dropped@x\.y"\^C\nnotes/login>$')
    t.keys('emailChanged "kept@x.y"', literal=True)
    t.keys("Enter")
    screen = t.wait_for(r'seq 1\) view:\n  canSubmit: false\n  email: "kept@x\.y"')
    assert "dropped@x.y\"\n" not in screen.split("^C")[-1]
    # The end is ctrl-d on an empty line: the command exits, and its tmux session with it.
    t.keys("C-d")
    for _ in range(5000):
        if subprocess.run([*t.base, "has-session", "-t", "t"], capture_output=True, timeout=30).returncode != 0:
            break
    else:
        raise AssertionError("yaia run did not end at ctrl-d:\n" + t.screen())


# ---------------------------------------------------------------- test, simulate


def write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value, indent=1))
    return path


def scenario(email: str) -> Dict[str, Any]:
    return {"yaia": 1, "scenes": [str(NOTES_DOCS / name) for name in ("login.json", "list.json", "row.json", "editor.json")],
            "scene": "notes/login",
            "steps": [{"send": "emailChanged", "payload": "a@b.c", "expect": {"state": {"email": email}}}]}


def test_test_runs_scenario_files_and_folders(cli: str, tmp_path: Path) -> None:
    write(tmp_path / "good.scenario.json", scenario("a@b.c"))
    (tmp_path / "more").mkdir()
    write(tmp_path / "more" / "bad.scenario.json", scenario("x@y.z"))
    (tmp_path / "more" / "not-a-scenario.json").write_text("{}")
    done = run(cli, "test", str(tmp_path))
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[-1] == "1 passed, 1 failed"
    assert lines[0].startswith(f"PASS {tmp_path}/good.scenario.json")
    assert any(line.startswith(f"FAIL {tmp_path}/more/bad.scenario.json") for line in lines)
    assert "/state/email" in done.stdout and "step 1" in done.stdout
    assert "not-a-scenario" not in done.stdout


def test_test_with_every_file_passing_exits_0(cli: str, tmp_path: Path) -> None:
    good = write(tmp_path / "good.scenario.json", scenario("a@b.c"))
    done = run(cli, "test", str(good))
    assert done.returncode == 0, done.stdout
    assert done.stdout.splitlines()[-1] == "1 passed, 0 failed"


def test_test_prints_every_problem_of_a_malformed_file(cli: str, tmp_path: Path) -> None:
    malformed = write(tmp_path / "x.scenario.json", {"yaia": 1, "scene": "notes/login", "stepz": []})
    done = run(cli, "test", str(malformed))
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[:2] == [f"FAIL {malformed}", "  bad_scenario: 2 problems"]
    assert '    /stepz: "stepz" is not a member of a scenario; did you mean "steps"?' in lines
    assert lines[-1] == "0 passed, 1 failed"


def test_test_without_scenario_files_is_bad_usage(cli: str, tmp_path: Path) -> None:
    done = run(cli, "test", str(tmp_path))
    assert done.returncode == 2 and "no scenario files" in done.stderr


COUNTER = {
    "yaia": 1, "scene": "t/counter", "state": {"count": 0},
    "actions": {"increment": {"set": {"count": {"+": [{"var": "state.count"}, 1]}}},
                "decrement": {"set": {"count": {"-": [{"var": "state.count"}, 1]}}}},
}


def test_simulate(cli: str, tmp_path: Path) -> None:
    document = dict(COUNTER, invariants={"nonNegative": {">=": [{"var": "state.count"}, 0]}})
    scene = write(tmp_path / "counter.json", document)
    out = tmp_path / "found.scenario.json"
    done = run(cli, "test", "--simulate", "50", "--seed", "7", "--steps", "20", "--out", str(out), str(scene))
    assert done.returncode == 1
    assert done.stdout.startswith("FAIL simulate t/counter: run ")
    assert "invariant nonNegative" in done.stdout and done.stdout.splitlines()[-1] == "0 passed, 1 failed"
    found = json.loads(out.read_text())
    assert len(found["steps"]) <= 5
    assert found["scene"] == "t/counter" and found["scenes"] == ["counter.json"]
    # The scenario it wrote fails when run, as a regression test does until the scene is fixed.
    again = run(cli, "test", str(out))
    assert again.returncode == 1, again.stdout
    assert 'the invariant "nonNegative" of t/counter does not hold' in again.stdout
    assert again.stdout.splitlines()[-1] == "0 passed, 1 failed"

    del document["invariants"]["nonNegative"]
    document["invariants"]["small"] = {"<": [{"var": "state.count"}, 1000]}
    write(scene, document)
    done = run(cli, "test", "--simulate", "20", "--seed", "7", str(scene))
    assert done.returncode == 0, done.stdout
    assert done.stdout.splitlines()[-1] == "1 passed, 0 failed"


def test_simulate_a_pack_scene_with_its_actions_declared(cli: str) -> None:
    counter = Path(os.environ.get("YAIA_TEST_PACK_DIR") or REPO / ".build" / "yaia" / "test-packs") / "counter.so"
    if not counter.is_file():
        pytest.skip(f"{counter} is not built; `make test-packs` builds it")
    done = run(cli, "test", "--simulate", "20", "--scenes", str(counter), "test/counter")
    assert done.returncode == 1 and "not_simulatable" in done.stderr
    actions = json.dumps({"add": {"type": "integer", "minimum": 0, "maximum": 600}, "increment": None})
    done = run(cli, "test", "--simulate", "20", "--seed", "9", "--scenes", str(counter), "test/counter", "--actions", actions)
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("FAIL simulate test/counter: run ") and "invariant belowThousand" in done.stdout
    assert run(cli, "test", "--simulate", "2", "--actions", "{", "--scenes", str(counter), "test/counter").returncode == 2


# ---------------------------------------------------------------- replay


@pytest.fixture
def journal(cli: str, tmp_path: Path) -> Path:
    path = tmp_path / "session.jsonl"
    done = run(cli, "exec", "--scenes", str(NOTES_DOCS),
               json.dumps({"op": "journal", "start": str(path)}),
               '{"op":"open","scene":"notes/login"}',
               '{"op":"send","scene":1,"action":{"type":"emailChanged","payload":"a@b.c"}}',
               '{"op":"send","scene":1,"action":{"type":"passwordChanged","payload":"pw"}}',
               '{"op":"journal","stop":true}')
    assert done.returncode == 0, done.stdout
    return path


def test_replay_prints_the_result(cli: str, journal: Path) -> None:
    done = run(cli, "replay", "--scenes", str(NOTES_DOCS), str(journal))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"identical": True, "inputs": 3, "ok": True}
    assert "identical" in done.stderr


def test_replay_of_a_changed_scene_diverges(cli: str, journal: Path, tmp_path: Path) -> None:
    changed = json.loads((NOTES_DOCS / "login.json").read_text())
    changed["actions"]["emailChanged"]["set"]["email"] = "someone@else"
    folder = tmp_path / "changed"
    folder.mkdir()
    write(folder / "login.json", changed)
    for name in ("list.json", "row.json", "editor.json"):
        shutil.copy(NOTES_DOCS / name, folder / name)
    done = run(cli, "replay", "--scenes", str(folder), str(journal))
    assert done.returncode == 1
    assert json.loads(done.stdout)["divergence"]["seq"] == 2
    assert "the replay diverged at seq 2" in done.stderr


def test_replay_to_scenarios(cli: str, journal: Path, tmp_path: Path) -> None:
    out = tmp_path / "scenarios"
    done = run(cli, "replay", "--scenes", str(NOTES_DOCS), "--scenario", str(out), str(journal))
    assert done.returncode == 0, done.stderr
    written = sorted(out.glob("*.scenario.json"))
    assert [p.name for p in written] == ["notes-login.scenario.json"]
    again = run(cli, "test", "--scenes", str(NOTES_DOCS), str(out))
    assert again.returncode == 0, again.stdout
    assert again.stdout.splitlines()[-1] == "1 passed, 0 failed"


CELL: Dict[str, Any] = {
    "yaia": 1, "scene": "kids/cell", "state": {"n": 0},
    "actions": {"bump": {"set": {"n": {"+": [{"var": "state.n"}, 1]}}, "output": {"type": "bumped"}}},
}
LIST: Dict[str, Any] = {
    "yaia": 1, "scene": "kids/list", "state": {"items": {"literal": [{"id": 1}]}, "last": None},
    "actions": {"cellBumped": {"set": {"last": {"var": "payload"}}}},
    "children": {"cells": {"scene": "kids/cell", "kind": "keyed", "from": {"var": "state.items"}, "outputs": {"bumped": "cellBumped"}}},
}


def test_graph_draws_children_inside_their_parent(cli: str, tmp_path: Path, examples_pack: str) -> None:
    write(tmp_path / "cell.json", CELL)
    write(tmp_path / "list.json", LIST)
    done = run(cli, "graph", str(tmp_path))
    assert done.returncode == 0, done.stderr
    dot = done.stdout
    cluster = dot[dot.index('subgraph "cluster_kids/list" {'):]
    cluster = cluster[:cluster.index("\n  }\n")]
    assert '"kids/list" [shape=plain' in cluster, "the parent is inside its cluster"
    assert '"kids/list#cells" [shape=box, style="rounded,filled", fillcolor="#e3f1e3", label="cells: kids/cell\\na child per key"];' in cluster
    assert '"kids/cell" [' not in cluster, "the child's scene type is drawn on its own"
    assert '"kids/list" -> "kids/list#cells" [color="#3f7f3f", arrowhead=odiamond, label="holds"];' in dot
    assert '"kids/list#cells" -> "kids/list" [style=dashed, color="#3f7f3f", label="bumped \u2192 cellBumped"];' in dot
    assert '"kids/list#cells" -> "kids/cell" [style=dotted' in dot
    # A pack's scene, which declares no actions, still shows its children.
    done = run(cli, "graph", examples_pack)
    assert done.returncode == 0, done.stderr
    assert 'subgraph "cluster_example/rows" {' in done.stdout
    assert '"example/rows#rows" -> "example/rows" [style=dashed, color="#3f7f3f", label="open \u2192 rowOpened\\nrenamed \u2192 rowRenamed"];' in done.stdout
    assert '"example/rows#rows" -> "example/row" [style=dotted' in done.stdout
