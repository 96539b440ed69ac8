"""Untrusted requests: a runtime made without grants is what a host gets by
default, and what it may hand requests from elsewhere (docs/security.md)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, List

import pytest

import yaia

SYSTEM = {"op": "bind", "service": "c", "library": "libc.so.6", "ops": {"system": "int32(string)", "unlink": "int32(string)"}}


@pytest.fixture
def plain(examples_pack: str) -> Any:
    with yaia.Runtime(scenes=[examples_pack]) as runtime:
        yield runtime


def refused(call: Any) -> yaia.YaiaError:
    with pytest.raises(yaia.YaiaError) as info:
        call()
    assert info.value.code == "not_permitted", info.value
    assert info.value.at == "/op"
    return info.value


def test_bind_then_perform_cannot_run_a_command(plain: yaia.Runtime, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    refused(lambda: plain.execute(SYSTEM))
    refused(lambda: plain.execute({"op": "perform", "effect": {"service": "c", "op": "system", "args": [f"touch {marker}"]}}))
    assert plain.services() == []
    assert not marker.exists()


def test_a_scene_cannot_reach_what_was_never_bound(plain: yaia.Runtime, tmp_path: Path) -> None:
    # example/jobs emits whatever effect its action describes: with nothing
    # bound, the effect waits for the host instead of running anything.
    marker = tmp_path / "ran"
    jobs = plain.open("example/jobs")
    refused(lambda: plain.execute(SYSTEM))
    update = jobs.send("run", {"service": "c", "op": "system", "args": [f"touch {marker}"]})
    assert [e.status for e in update.effects] == ["pending"]
    assert not marker.exists()


def test_load_plugin_is_refused(plain: yaia.Runtime, auth_so: str) -> None:
    refused(lambda: plain.load_plugin(auth_so))
    assert plain.services() == []


@pytest.mark.parametrize("kind", ["fifo", "directory", "device"])
def test_plugins_and_packs_must_be_regular_files(examples_pack: str, tmp_path: Path, kind: str) -> None:
    """dlopen of a FIFO blocks for ever: it is refused before, with a code."""
    path = tmp_path / "thing.so"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:
        path = Path("/dev/zero")
    with yaia.Runtime(scenes=[examples_pack], allow=["load_plugin"], files=[tmp_path, "/dev"]) as rt:
        with pytest.raises(yaia.YaiaError) as info:
            rt.load_plugin(path)
        assert info.value.code == "plugin_not_loadable"
        assert rt.services() == []
    # A directory in "scenes" is a folder of scene documents: this one holds none.
    scenes_code = "document_not_found" if kind == "directory" else "scene_pack_not_loadable"
    for config, code in (({"plugins": [str(path)]}, "plugin_not_loadable"), ({"scenes": [str(path)]}, scenes_code)):
        with pytest.raises(yaia.YaiaError) as info:
            yaia.Runtime(config=config)
        assert info.value.code == code


def test_journal_cannot_write_a_file(plain: yaia.Runtime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    monkeypatch.chdir(tmp_path)
    refused(lambda: plain.execute({"op": "journal", "start": "victim.txt"}))
    refused(lambda: plain.execute({"op": "journal", "start": "../x"}))
    assert victim.read_text() == "precious"
    assert not (tmp_path.parent / "x").exists()


@pytest.mark.parametrize("op", ["snapshot", "restore", "rewind", "replay"])
def test_state_ops_are_refused(plain: yaia.Runtime, op: str) -> None:
    request = {"snapshot": {"op": "snapshot"}, "restore": {"op": "restore", "snapshot": {}},
               "rewind": {"op": "rewind", "to": 0}, "replay": {"op": "replay", "journal": "/etc/passwd"}}[op]
    scene = plain.open("example/login")
    refused(lambda: plain.execute(request))
    assert plain.execute({"op": "state", "scene": scene.id})["viewModel"]["email"] == ""


def test_grants_are_explicit(examples_pack: str, tmp_path: Path) -> None:
    with yaia.Runtime(scenes=[examples_pack], allow=["journal"], files=[tmp_path]) as rt:
        rt.open("example/login")
        rt.journal(start=tmp_path / "j.jsonl")
        rt.journal(stop=True)
        assert (tmp_path / "j.jsonl").exists()
        refused(lambda: rt.snapshot())
        with pytest.raises(yaia.YaiaError) as info:
            rt.journal(start=tmp_path.parent / "outside.jsonl")
        assert info.value.code == "not_permitted"
        assert info.value.at == "/start"
        assert rt.limits()["allow"] == {"ops": ["journal"], "files": [str(tmp_path.resolve())]}


def test_bind_by_path_is_confined(examples_pack: str, tmp_path: Path) -> None:
    libm = "/lib/x86_64-linux-gnu/libm.so.6" if Path("/lib/x86_64-linux-gnu/libm.so.6").exists() else "/usr/lib/libm.so.6"
    with yaia.Runtime(scenes=[examples_pack], allow=["bind"], files=[tmp_path]) as rt:
        with pytest.raises(yaia.YaiaError) as info:
            rt.bind("m", libm, {"floor": "double(double)"})
        assert info.value.code == "not_permitted"
        assert info.value.at == "/library"
        os.mkfifo(tmp_path / "lib.so")
        with pytest.raises(yaia.YaiaError) as info:
            rt.bind("m", str(tmp_path / "lib.so"), {"floor": "double(double)"})
        assert info.value.code == "library_not_found"
        # A soname is the system's library, not a file the request names.
        rt.bind("m", "libm.so.6", {"floor": "double(double)"})
        assert [s["name"] for s in rt.services()] == ["m"]


def test_files_must_be_a_list(examples_pack: str, tmp_path: Path) -> None:
    with pytest.raises(TypeError):
        yaia.Runtime(scenes=[examples_pack], files=tmp_path)  # type: ignore[arg-type]


def test_reentrant_service_is_bounded(examples_pack: str) -> None:
    """A service that performs itself again from inside perform stops at the
    "reentry" limit instead of overflowing the stack."""
    depths: List[int] = []
    with yaia.Runtime(scenes=[examples_pack], allow=["perform"], limits={"reentry": 5}) as rt:

        def again(op: str, args: Any) -> Any:
            depths.append(args["depth"])
            try:
                return rt.perform("loop", "again", {"depth": args["depth"] + 1})
            except yaia.YaiaError as exc:
                return {"stopped": exc.code, "limit": exc.envelope["error"].get("limit")}

        rt.add_service("loop", again)
        result = rt.perform("loop", "again", {"depth": 1})
        assert depths == [1, 2, 3, 4, 5]
        assert result == {"stopped": "limit_exceeded", "limit": "reentry"}
        # Usable afterwards, from the top again.
        depths.clear()
        rt.perform("loop", "again", {"depth": 1})
        assert len(depths) == 5


def test_events_beyond_the_limit_are_dropped_and_counted(examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack], inspect=True, limits={"events": 10}) as rt:
        scene = rt.open("example/login")
        for i in range(50):
            scene.send("emailChanged", str(i))
        usage = rt.limits()["usage"]
        assert usage["events"] == 10
        assert usage["dropped"] == 40
        first = rt.receive_event(timeout=0)
        assert first is not None
        scene.send("emailChanged", "x")  # still usable
        assert rt.execute({"op": "state", "scene": scene.id})["viewModel"]["email"] == "x"


def test_requests_over_the_size_limit(examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack], limits={"request_bytes": 1000}) as rt:
        scene = rt.open("example/login")
        with pytest.raises(yaia.YaiaError) as info:
            scene.send("emailChanged", "x" * 2000)
        assert info.value.code == "limit_exceeded"
        assert info.value.envelope["error"]["limit"] == "request_bytes"
        assert scene.send("emailChanged", "ok").view_model["email"] == "ok"


def test_open_scenes_limit(examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack], limits={"scenes": 3}) as rt:
        scenes = [rt.open("example/login") for _ in range(3)]
        with pytest.raises(yaia.YaiaError) as info:
            rt.open("example/login")
        assert info.value.code == "limit_exceeded"
        scenes[0].close()
        rt.open("example/login")


def test_unknown_names_suggest(examples_pack: str) -> None:
    with pytest.raises(yaia.YaiaError) as info:
        yaia.Runtime(config={"scenes": [examples_pack], "workrs": 2})
    assert 'did you mean "workers"' in info.value.message
    with yaia.Runtime(scenes=[examples_pack]) as rt:
        with pytest.raises(yaia.YaiaError) as info:
            rt.open("example/logni")
        assert info.value.code == "unknown_scene"
        assert 'did you mean "example/login"' in info.value.message
