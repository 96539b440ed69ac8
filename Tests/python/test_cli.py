"""The yaia command line (Sources/yaia): requests as arguments or on stdin."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cli() -> str:
    path = Path(os.environ.get("YAIA_CLI", REPO / ".build" / "release" / "yaia-cli"))
    if not path.exists():
        pytest.skip(f"{path} is not built (make cli)")
    return str(path)


def run(cli: str, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([cli, *args], input=stdin, capture_output=True, text=True, timeout=60)


def test_requests_as_arguments_print_one_response_a_line(cli: str) -> None:
    done = run(cli, '{"op":"bind","service":"m","library":"libm.so.6","ops":{"pow":"double(double,double)"}}',
               '{"op":"perform","effect":{"service":"m","op":"pow","args":[2,10]}}')
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines == [{"ok": True, "ops": ["pow"], "service": "m"}, {"ok": True, "result": 1024}]


def test_stdin_requests_and_receive(cli: str) -> None:
    script = "\n".join([
        '# a comment, then a blank line',
        '',
        '{"op":"open","scene":"example/login"}',
        '{"op":"send","scene":1,"action":{"type":"emailChanged","payload":"a@b.c"}}',
        'receive 0.01',
        '{"op":"state","scene":1}',
    ])
    done = run(cli, stdin=script + "\n")
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
