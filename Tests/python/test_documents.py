"""Scene documents in a runtime: loaded from the config's "scenes" (files,
folders, packs that ship them), registered by a request, described by the
schema request, journaled, snapshotted, and reading the host's env."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, Optional

import pytest

import yaia

from conftest import HOST

TEST_PACK_DIR = Path(os.environ.get("YAIA_TEST_PACK_DIR") or Path(__file__).resolve().parents[2] / ".build" / "yaia" / "test-packs")

COUNTER: Dict[str, Any] = {
    "yaia": 1,
    "scene": "t/counter",
    "state": {"n": 0, "at": None, "who": None},
    "actions": {
        "inc": {"set": {"n": {"+": [{"var": "state.n"}, 1]}}},
        "add": {"payload": "integer", "set": {"n": {"+": [{"var": "state.n"}, {"var": "payload"}]}}},
        "stamp": {"set": {"at": {"var": "env.now"}, "who": {"var": "env.user"}}},
    },
    "view": {"count": {"var": "state.n"}, "even": {"==": [{"%": [{"var": "state.n"}, 2]}, 0]}},
}


def write(folder: Path, name: str, document: Any) -> Path:
    path = folder / name
    path.write_text(json.dumps(document))
    return path


def with_name(document: Dict[str, Any], name: str) -> Dict[str, Any]:
    return {**document, "scene": name}


def error_of(excinfo: pytest.ExceptionInfo[yaia.YaiaError]) -> Dict[str, Any]:
    return excinfo.value.envelope["error"]


def pack(name: str) -> str:
    path = TEST_PACK_DIR / name
    if not path.is_file():
        pytest.skip(f"{path} is not built; `make test-packs` builds it")
    return str(path)


def runtime(*scenes: Any, config: Optional[Dict[str, Any]] = None, **keywords: Any) -> yaia.Runtime:
    return yaia.Runtime(scenes=[str(s) for s in scenes], config=config, **keywords)


# ---------------------------------------------------------------- loading from the config


def test_a_document_file_opens_and_reduces(tmp_path: Path) -> None:
    with runtime(write(tmp_path, "counter.json", COUNTER)) as rt:
        scene = rt.open("t/counter")
        assert scene.view_model == {"count": 0, "even": True}
        update = scene.send("inc")
        assert update.view_model == {"count": 1, "even": False}
        assert update.effects == [] and update.routes == []
        assert scene.send("add", 3).view_model == {"count": 4, "even": True}
        assert scene.state == {"n": 4, "at": None, "who": None}


def test_a_folder_loads_every_json_file_in_it(tmp_path: Path) -> None:
    folder = tmp_path / "scenes"
    folder.mkdir()
    write(folder, "a.json", with_name(COUNTER, "t/a"))
    write(folder, "b.json", with_name(COUNTER, "t/b"))
    write(folder, ".hidden.json", with_name(COUNTER, "t/hidden"))
    (folder / "notes.txt").write_text("not a document")
    (folder / "sub").mkdir()
    write(folder / "sub", "c.json", with_name(COUNTER, "t/c"))
    with runtime(str(folder) + "/") as rt:
        listing = rt.scenes()
        assert listing["types"] == ["t/a", "t/b"]
        assert [d["scene"] for d in listing["documents"]] == ["t/a", "t/b"]
        assert listing["documents"][0]["file"].endswith("scenes/a.json")
    with runtime(folder) as rt:  # without the slash: a folder all the same
        assert rt.scenes()["types"] == ["t/a", "t/b"]


def test_missing_documents_and_folders_are_document_not_found(tmp_path: Path) -> None:
    for missing in (tmp_path / "nope.json", str(tmp_path / "nope") + "/"):
        with pytest.raises(yaia.YaiaError) as excinfo:
            runtime(missing)
        assert error_of(excinfo)["code"] == "document_not_found"
        assert error_of(excinfo)["at"] == "/scenes/0"


def test_an_empty_folder_and_a_fifo_are_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(yaia.YaiaError) as excinfo:
        runtime(empty)
    assert error_of(excinfo)["code"] == "document_not_found" and "no scene documents" in error_of(excinfo)["message"]
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(yaia.YaiaError) as excinfo:
        runtime(fifo)  # never blocks on the FIFO
    assert error_of(excinfo)["code"] == "document_not_found" and "not a regular file" in error_of(excinfo)["message"]


def test_a_document_that_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"yaia": 1,')
    with pytest.raises(yaia.YaiaError) as excinfo:
        runtime(path)
    error = error_of(excinfo)
    assert error["code"] == "bad_document" and error["at"] == "/scenes/0"
    assert str(path) in error["message"]


def test_a_bad_document_lists_every_problem(tmp_path: Path) -> None:
    bad = {
        "yaia": 1,
        "scene": "t/bad",
        "state": {"n": 0},
        "actions": {"go": {"set": {"n": {"var": "stat.n"}}, "effects": [{"service": "s", "op": "o", "then": "gone"}]}},
    }
    path = write(tmp_path, "bad.json", bad)
    with pytest.raises(yaia.YaiaError) as excinfo:
        runtime(path)
    error = error_of(excinfo)
    assert error["code"] == "bad_document" and error["at"] == "/scenes/0"
    assert str(path) in error["message"]
    where = {p["at"] for p in error["problems"]}
    assert "/actions/go/effects/0/then" in where
    assert any(p["code"] == "unknown_root" for p in error["problems"])


def test_routes_are_checked_against_every_entry(tmp_path: Path, examples_pack: str) -> None:
    routing = {**COUNTER, "scene": "t/router", "actions": {"go": {"route": {"push": "example/login"}}}}
    path = write(tmp_path, "router.json", routing)
    with pytest.raises(yaia.YaiaError) as excinfo:
        runtime(path)
    assert error_of(excinfo)["code"] == "bad_document"
    assert [p["code"] for p in error_of(excinfo)["problems"]] == ["unknown_scene"]
    # Listed after the document, the pack defines the target all the same.
    with runtime(path, examples_pack) as rt:
        flow = rt.start("t/router")
        flow.send("go")
        assert flow.describe().names == ["t/router", "example/login"]


def test_a_name_defined_twice_names_both(tmp_path: Path, examples_pack: str) -> None:
    first = write(tmp_path, "one.json", COUNTER)
    second = write(tmp_path, "two.json", COUNTER)
    with pytest.raises(yaia.YaiaError) as excinfo:
        runtime(first, second)
    error = error_of(excinfo)
    assert error["code"] == "duplicate_scene" and error["at"] == "/scenes/1"
    assert str(first) in error["message"] and str(second) in error["message"]
    login = write(tmp_path, "login.json", with_name(COUNTER, "example/login"))
    with pytest.raises(yaia.YaiaError) as excinfo:
        runtime(examples_pack, login)
    error = error_of(excinfo)
    assert error["code"] == "duplicate_scene"
    assert 'pack "examples"' in error["message"] and str(login) in error["message"]


# ---------------------------------------------------------------- documents shipped by packs


def test_a_pack_ships_a_document() -> None:
    with runtime(pack("counter.so")) as rt:
        listing = rt.scenes()
        assert listing["types"] == ["test/counter", "test/toggle"]
        assert listing["documents"] == [{"scene": "test/toggle", "pack": "counter", "path": listing["packs"][0]["path"]}]
        toggle = rt.open("test/toggle")
        assert toggle.send("flip").view_model == {"on": True}


def test_a_pack_built_before_documents_still_loads() -> None:
    with runtime(pack("old_size.so")) as rt:
        assert rt.scenes()["types"] == ["test/counter"]
        assert rt.open("test/counter").send("increment").view_model["count"] == 1


def test_a_pack_document_with_problems_fails_the_load() -> None:
    with pytest.raises(yaia.YaiaError) as excinfo:
        runtime(pack("bad_document.so"))
    error = error_of(excinfo)
    assert error["code"] == "bad_document" and error["at"] == "/scenes/0/documents/0"
    assert "pack \"counter\"" in error["message"]
    assert [p["code"] for p in error["problems"]] == ["unknown_field"]
    assert error["problems"][0]["at"].startswith("/actions/flip/set/on")


def test_a_pack_document_may_not_take_a_name_of_the_pack() -> None:
    with pytest.raises(yaia.YaiaError) as excinfo:
        runtime(pack("document_twice.so"))
    error = error_of(excinfo)
    assert error["code"] == "duplicate_scene"
    assert "test/counter" in error["message"] and "pack \"counter\"" in error["message"]


# ---------------------------------------------------------------- register


def test_register_is_privileged(examples_pack: str) -> None:
    with runtime(examples_pack) as rt:
        with pytest.raises(yaia.YaiaError) as excinfo:
            rt.execute({"op": "register", "document": COUNTER})
        assert error_of(excinfo)["code"] == "not_permitted"
        assert "t/counter" not in rt.scenes()["types"]


def test_register_adds_a_scene_type(examples_pack: str) -> None:
    with runtime(examples_pack, allow=["register"]) as rt:
        assert rt.execute({"op": "register", "document": COUNTER}) == {"ok": True, "scene": "t/counter"}
        assert rt.open("t/counter").send("inc").view_model == {"count": 1, "even": False}
        # The same document again changes nothing; another under the name is refused.
        assert rt.execute({"op": "register", "document": COUNTER}) == {"ok": True, "scene": "t/counter"}
        other = {**COUNTER, "state": {"n": 5, "at": None, "who": None}}
        with pytest.raises(yaia.YaiaError) as excinfo:
            rt.execute({"op": "register", "document": other})
        assert error_of(excinfo)["code"] == "duplicate_scene"
        assert rt.scenes()["documents"] == [{"registered": True, "scene": "t/counter"}]
        # Its routes may name the scenes there are.
        router = {**COUNTER, "scene": "t/router", "actions": {"go": {"route": {"push": "t/counter"}}}}
        assert rt.execute({"op": "register", "document": router})["scene"] == "t/router"


def test_register_reports_problems_inside_the_request(examples_pack: str) -> None:
    with runtime(examples_pack, allow=["register"]) as rt:
        bad = {**COUNTER, "actions": {"inc": {"when": {"nope": [1]}, "set": {"n": 1}}}}
        with pytest.raises(yaia.YaiaError) as excinfo:
            rt.execute({"op": "register", "document": bad})
        error = error_of(excinfo)
        assert error["code"] == "bad_document"
        assert error["at"].startswith("/document/actions/inc")
        assert [p["code"] for p in error["problems"]] == ["unknown_operator"]
        with pytest.raises(yaia.YaiaError) as excinfo:
            rt.execute({"op": "register"})
        assert error_of(excinfo)["code"] == "bad_request"


# ---------------------------------------------------------------- schema


def test_schema_of_a_document_and_of_a_swift_scene(tmp_path: Path, examples_pack: str) -> None:
    with runtime(write(tmp_path, "counter.json", COUNTER), examples_pack) as rt:
        answer = rt.execute({"op": "schema", "scene": "t/counter"})
        assert answer["declared"] is True and answer["scene"] == "t/counter"
        defs = answer["schema"]["$defs"]
        assert {"args", "state", "action", "effect", "route", "viewModel"} <= set(defs)
        assert "add" in json.dumps(defs["action"])
        swift = rt.execute({"op": "schema", "scene": "example/login"})
        assert swift["declared"] is False
        assert swift["schema"]["$defs"]["action"]["required"] == ["type"]
        with pytest.raises(yaia.YaiaError) as excinfo:
            rt.execute({"op": "schema", "scene": "t/countr"})
        assert error_of(excinfo)["code"] == "unknown_scene" and "t/counter" in error_of(excinfo)["message"]


# ---------------------------------------------------------------- env


def test_env_holds_the_host_values_and_the_clock(tmp_path: Path) -> None:
    with runtime(write(tmp_path, "counter.json", COUNTER), config={"env": {"user": "ada"}}, clock="manual") as rt:
        scene = rt.open("t/counter")
        now = rt.advance(12.5)
        scene.send("stamp")
        assert scene.state["who"] == "ada"
        assert scene.state["at"] == now
        later = rt.advance(1)
        scene.send("stamp")
        assert scene.state["at"] == later == now + 1
    with pytest.raises(yaia.YaiaError) as excinfo:
        runtime(config={"env": {"now": 1}})
    assert error_of(excinfo)["code"] == "bad_config" and error_of(excinfo)["at"] == "/env/now"
    with pytest.raises(yaia.YaiaError) as excinfo:
        runtime(config={"env": [1]})
    assert error_of(excinfo)["at"] == "/env"


# ---------------------------------------------------------------- journal and snapshot


def test_a_journal_replays_a_registered_document(tmp_path: Path, examples_pack: str) -> None:
    journal = tmp_path / "j.jsonl"
    with runtime(examples_pack, **HOST) as rt:
        rt.journal(start=journal)
        rt.execute({"op": "register", "document": COUNTER})
        scene = rt.open("t/counter")
        scene.send("inc")
        scene.send("add", 2)
        rt.journal(stop=True)
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    assert [line["kind"] for line in lines if line["kind"] == "register"] == ["register"]
    with runtime(examples_pack, **HOST) as fresh:
        result = fresh.replay(journal)
        assert result.identical and result.divergence is None
        assert result.inputs == 4
        # Replayed in a runtime of its own: this one registered nothing.
        assert "t/counter" not in fresh.scenes()["types"]
        upto = fresh.replay(journal, to=lines[-1]["seq"])
        assert upto.snapshot is not None and upto.snapshot["documents"] == [COUNTER]
        assert upto.snapshot["scenes"][0]["state"]["n"] == 3


def test_a_snapshot_carries_registered_documents(examples_pack: str) -> None:
    with runtime(examples_pack, **HOST) as rt:
        rt.execute({"op": "register", "document": COUNTER})
        rt.open("t/counter").send("add", 7)
        snapshot = rt.snapshot()
    assert snapshot["documents"] == [COUNTER]
    with runtime(examples_pack, **HOST) as fresh:
        fresh.restore(snapshot)
        assert "t/counter" in fresh.scenes()["types"]
        assert fresh.execute({"op": "state", "scene": 1})["state"]["n"] == 7
    with runtime(examples_pack, **HOST) as fresh:
        broken = {**snapshot, "documents": [{**COUNTER, "actions": {"x": {"set": {"zz": 1}}}}]}
        with pytest.raises(yaia.YaiaError) as excinfo:
            fresh.restore(broken)
        assert error_of(excinfo)["code"] == "bad_snapshot" and error_of(excinfo)["at"] == "/snapshot/documents/0"
        assert "t/counter" not in fresh.scenes()["types"]


def test_a_refused_outcome_leaves_its_effect_pending(tmp_path: Path) -> None:
    document = {
        "yaia": 1,
        "scene": "t/fetch",
        "state": {"n": 0, "error": None},
        "actions": {
            "fetch": {"effects": [{"service": "svc", "op": "get", "then": "got", "catch": "failed"}]},
            # A path into a number: the reduction fails at run time, not when loaded.
            "got": {"set": {"n.deep": {"var": "payload"}}},
            "failed": {"set": {"error": {"var": "payload.message"}}},
        },
    }
    with runtime(write(tmp_path, "fetch.json", document)) as rt:
        scene = rt.open("t/fetch")
        effect = scene.send("fetch").effects[0]
        with pytest.raises(yaia.YaiaError) as excinfo:
            rt.resolve(effect.id, result=5)
        assert error_of(excinfo)["code"] == "document_failed"
        assert scene.state == {"n": 0, "error": None}
        update = rt.resolve(effect.id, error={"message": "no"})
        assert update.view_model == {"n": 0, "error": "no"}
