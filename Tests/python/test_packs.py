"""Scene packs: loading and its failures, and scenes of two packs working
together (flows, snapshots, the journal and replay).

The packs: the examples pack (Swift, YAIA_EXAMPLES_PACK) and the counter pack
(C, Tests/packs/counter.c) with its broken variants (YAIA_TEST_PACK_DIR).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List

import pytest

import yaia

from conftest import HOST

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = Path(os.environ.get("YAIA_EXAMPLES_PACK") or REPO / ".build" / "release" / "libyaia-examples.so")
TEST_PACK_DIR = Path(os.environ.get("YAIA_TEST_PACK_DIR") or REPO / ".build" / "yaia" / "test-packs")
TEST_PLUGIN_DIR = Path(os.environ.get("YAIA_TEST_PLUGIN_DIR") or REPO / ".build" / "yaia" / "test-plugins")


def _need(path: Path, how: str) -> str:
    if not path.is_file():
        pytest.skip(f"{path} is not built; {how}")
    return str(path)


@pytest.fixture(scope="module")
def examples() -> str:
    return _need(EXAMPLES, "`make examples-pack` builds it")


@pytest.fixture(scope="module")
def pack() -> Callable[[str], str]:
    return lambda name: _need(TEST_PACK_DIR / f"{name}.so", "`make test-packs` builds Tests/packs/counter.c")


@pytest.fixture
def two(examples: str, pack: Callable[[str], str]) -> Iterator[yaia.Runtime]:
    with yaia.Runtime(config={"scenes": [examples, pack("counter")]}, **HOST) as runtime:
        yield runtime


def refusal(config: Dict[str, Any]) -> yaia.YaiaError:
    with pytest.raises(yaia.YaiaError) as info:
        yaia.Runtime(config=config)
    return info.value


# -- loading


def test_a_pack_written_in_c_runs_its_scene(pack: Callable[[str], str]) -> None:
    with yaia.Runtime(config={"scenes": [pack("counter")]}, **HOST) as rt:
        scene = rt.open("test/counter", {"start": 40, "step": 2})
        assert scene.view_model == {"count": 40, "even": True}
        assert scene.send("increment").view_model == {"count": 42, "even": True}
        assert scene.send("add", 1).view_model == {"count": 43, "even": False}
        assert scene.state == {"count": 43, "step": 2}
        with pytest.raises(yaia.YaiaError) as info:
            scene.send("add", "x")
        assert (info.value.code, info.value.at) == ("bad_payload", "/action/payload")
        with pytest.raises(yaia.YaiaError) as info:
            scene.send("jump")
        assert (info.value.code, info.value.at) == ("unknown_action", "/action/type")
        # A refused action leaves the state as it was.
        assert scene.state == {"count": 43, "step": 2}
        with pytest.raises(yaia.YaiaError) as info:
            rt.open("test/counter", {"start": "x"})
        assert (info.value.code, info.value.at) == ("bad_args", "/args/start")


def test_the_catalog_lists_both_packs(two: yaia.Runtime, examples: str) -> None:
    listing = two.scenes()
    assert "test/counter" in listing["types"] and "example/login" in listing["types"]
    packs = {p["name"]: p for p in listing["packs"]}
    assert set(packs) == {"examples", "counter"}
    assert packs["counter"]["scenes"] == ["test/counter"]
    assert packs["counter"]["version"] == "1.0.0"
    assert packs["examples"]["path"] == os.path.realpath(examples)
    assert "example/login" in packs["examples"]["scenes"]


def test_a_runtime_without_packs_has_no_scenes() -> None:
    with yaia.Runtime(**HOST) as rt:
        assert rt.scenes()["types"] == []
        with pytest.raises(yaia.YaiaError) as info:
            rt.open("example/login")
        assert info.value.code == "unknown_scene"


@pytest.mark.parametrize(
    "name, code, words",
    [
        ("future_abi", "scene_pack_abi_mismatch", "was built for scene-pack ABI version 2"),
        ("refuses", "scene_pack_abi_mismatch", "cannot work with this host"),
        ("no_reduce", "scene_pack_invalid", "lacks one of its functions"),
        ("bad_name", "scene_pack_invalid", "no valid name"),
        ("twice", "duplicate_scene", 'scene type "test/counter" is defined twice by pack "counter"'),
    ],
)
def test_a_broken_pack_is_refused(pack: Callable[[str], str], name: str, code: str, words: str) -> None:
    error = refusal({"scenes": [pack(name)]})
    assert (error.code, error.at) == (code, "/scenes/0")
    assert words in error.message


def test_missing_foreign_and_entryless_files_have_their_own_codes(tmp_path: Path) -> None:
    assert refusal({"scenes": [str(tmp_path / "nope.so")]}).code == "scene_pack_not_found"
    assert refusal({"scenes": [str(tmp_path)]}).code == "document_not_found"  # a folder without documents
    text = tmp_path / "text.so"
    text.write_text("not an ELF file")
    assert refusal({"scenes": [str(text)]}).code == "scene_pack_not_loadable"
    echo = _need(TEST_PLUGIN_DIR / "echo.so", "`make test` builds Tests/plugins/echo.c")
    error = refusal({"scenes": [echo]})
    assert error.code == "scene_pack_no_entry"
    assert "yaia_scene_pack_init" in error.message
    assert refusal({"scenes": "x"}).code == "bad_config"
    assert refusal({"scenes": [1]}).at == "/scenes/0"


def test_a_name_of_two_packs_names_both(examples: str, pack: Callable[[str], str]) -> None:
    takes_login = pack("takes_login")
    error = refusal({"scenes": [examples, takes_login]})
    assert (error.code, error.at) == ("duplicate_scene", "/scenes/1")
    assert '"example/login"' in error.message
    assert 'pack "examples"' in error.message and 'pack "counter"' in error.message
    assert os.path.realpath(examples) in error.message and os.path.realpath(takes_login) in error.message


def test_a_failed_load_leaves_nothing_behind(examples: str, pack: Callable[[str], str]) -> None:
    # The good pack is loaded (once per process) before the bad one fails;
    # the runtime that asked is not made, and the next one starts clean.
    refusal({"scenes": [pack("counter"), pack("future_abi")]})
    with yaia.Runtime(config={"scenes": [examples]}, **HOST) as rt:
        assert "test/counter" not in rt.scenes()["types"]
        assert [p["name"] for p in rt.scenes()["packs"]] == ["examples"]
    with yaia.Runtime(config={"scenes": [pack("counter")]}, **HOST) as rt:
        assert rt.open("test/counter").send("increment").view_model["count"] == 1


def test_an_unreadable_answer_is_an_error_not_a_crash(pack: Callable[[str], str]) -> None:
    with yaia.Runtime(config={"scenes": [pack("garbage")]}, **HOST) as rt:
        scene = rt.open("test/counter")
        with pytest.raises(yaia.YaiaError) as info:
            scene.send("increment")
        assert info.value.code == "scene_pack_error"
        assert "test/counter" in info.value.message and "no JSON" in info.value.message
        assert scene.seq == 0
        assert rt.open("test/counter").view_model == {"count": 0, "even": True}


# -- what a pack answers is checked like any other input


def test_a_state_that_is_no_json_is_refused_and_never_recorded(pack: Callable[[str], str], tmp_path: Path) -> None:
    journal = tmp_path / "never.jsonl"
    with yaia.Runtime(config={"scenes": [pack("state_garbage")]}, **HOST) as rt:
        scene = rt.open("test/counter", {"start": 2})
        for request in ({"op": "state", "scene": scene.id}, {"op": "snapshot"}, {"op": "journal", "start": str(journal)}):
            with pytest.raises(yaia.YaiaError) as info:
                rt.execute(request)
            assert info.value.code == "scene_pack_error", request
            assert "test/counter" in info.value.message and "a state that is no JSON" in info.value.message
        # No snapshot that no restore could read, and no journal begun with one.
        assert not journal.exists()
        assert rt.journal(stop=True)["journal"] is None
        assert scene.send("increment").view_model == {"count": 3, "even": False}
        assert rt.scenes()["scenes"] == [{"id": scene.id, "name": "test/counter", "seq": 1}]


def test_a_view_model_that_is_no_json_is_refused(pack: Callable[[str], str]) -> None:
    """The scene claims canonical view models, which the runtime would copy as they are."""
    with yaia.Runtime(config={"scenes": [pack("view_garbage")]}, **HOST) as rt:
        with pytest.raises(yaia.YaiaError) as info:
            rt.open("test/counter", {"start": 13})
        assert info.value.code == "scene_pack_error" and "a view model that is no JSON" in info.value.message
        assert rt.scenes()["scenes"] == []
        scene = rt.open("test/counter", {"start": 10})
        # The pack's own state goes on to 13 before its answer is refused: it
        # stays there (adding 0 keeps it), and the scene goes on from there.
        for send in (lambda: scene.send("add", 3), lambda: rt.execute({"op": "send", "scene": scene.id, "action": {"type": "add", "payload": 0}})):
            with pytest.raises(yaia.YaiaError) as info:
                send()
            assert info.value.code == "scene_pack_error" and "a view model that is no JSON" in info.value.message
        assert scene.seq == 0
        # The last view model read stays the scene's.
        assert rt.execute({"op": "state", "scene": scene.id})["viewModel"] == {"count": 10, "even": True}
        assert scene.send("increment").view_model == {"count": 14, "even": True}


@pytest.mark.parametrize("name, code", [("code_internal", "internal"), ("code_made_up", "made_up")])
def test_a_pack_code_no_scene_may_give_is_a_scene_pack_error(pack: Callable[[str], str], name: str, code: str) -> None:
    with yaia.Runtime(config={"scenes": [pack(name)]}, **HOST) as rt:
        scene = rt.open("test/counter")
        with pytest.raises(yaia.YaiaError) as info:
            scene.send("add", "x")
        assert info.value.envelope["error"] == {
            "code": "scene_pack_error",
            "message": "scene test/counter failed with a code no scene may give: a whole number, please",
            "pack_code": code,
        }
        with pytest.raises(yaia.YaiaError) as info:
            rt.open("test/counter", {"start": "x"})
        assert (info.value.code, info.value.envelope["error"]["pack_code"]) == ("scene_pack_error", code)
        with pytest.raises(yaia.YaiaError) as info:
            rt.execute({"op": "open", "scene": "test/counter", "state": {"step": 1}})
        assert (info.value.code, info.value.envelope["error"]["pack_code"]) == ("scene_pack_error", code)
        assert scene.seq == 0
        assert scene.send("increment").view_model == {"count": 1, "even": False}


def test_invariants_that_cannot_be_read_never_hold(pack: Callable[[str], str]) -> None:
    with yaia.Runtime(config={"scenes": [pack("invariants_garbage")]}, **HOST) as rt:
        with pytest.raises(yaia.YaiaError) as info:
            rt.execute({"op": "simulate", "scene": "test/counter", "actions": {"increment": None}, "runs": 2, "steps": 2})
        assert info.value.code == "scene_pack_error" and "a list of invariants that is no JSON" in info.value.message
        scenario = {"yaia": 1, "scene": "test/counter", "steps": [{"send": "increment"}]}
        answer = rt.execute({"op": "scenario", "scenario": scenario})
        assert answer["passed"] is False
        assert "scene_pack_error" in answer["failure"]["message"], answer
        assert rt.open("test/counter").send("increment").view_model == {"count": 1, "even": False}


def test_commands_written_as_an_object_are_refused(pack: Callable[[str], str]) -> None:
    with yaia.Runtime(config={"scenes": [pack("commands_object")]}, **HOST) as rt:
        scene = rt.open("test/counter")
        for action in ("increment", "fetch"):  # {} and {"effect": {...}}
            with pytest.raises(yaia.YaiaError) as info:
                scene.send(action)
            assert info.value.code == "scene_pack_error", action
            assert "commands that are not an array" in info.value.message
        assert scene.seq == 0
        assert rt.snapshot()["effects"] == []  # the fetch's effect was not started


def test_a_pack_is_shared_by_runtimes_and_their_states_are_not(pack: Callable[[str], str]) -> None:
    with yaia.Runtime(config={"scenes": [pack("counter")]}, **HOST) as a, yaia.Runtime(config={"scenes": [pack("counter")]}) as b:
        x = a.open("test/counter")
        y = b.open("test/counter", {"start": 10})
        x.send("increment")
        assert x.view_model["count"] == 1 and y.view_model["count"] == 10


def test_open_in_a_given_state_works_for_a_c_pack(two: yaia.Runtime) -> None:
    scene = two.execute({"op": "open", "scene": "test/counter", "state": {"count": 7, "step": 5}})
    assert scene["viewModel"] == {"count": 7, "even": False}
    with pytest.raises(yaia.YaiaError) as info:
        two.execute({"op": "open", "scene": "test/counter", "state": {"step": 1}})
    assert (info.value.code, info.value.at) == ("bad_state", "/state/count")


# -- two packs together


def test_a_flow_pushes_a_scene_of_the_other_pack(two: yaia.Runtime) -> None:
    flow = two.start("test/counter", {"start": 1}, name="main")
    update = flow.send("login", "a@b.c")
    assert [e.scene for e in update.stack or []] == ["test/counter", "example/login"]
    assert flow.top.scene == "example/login"
    top = flow.send("passwordChanged", "pw")
    assert top.view_model["email"] == "a@b.c"
    assert top.view_model["canSubmit"] is True
    # Back down the stack: the counter is on top again, its state kept.
    flow.popped(1)
    assert flow.top.scene == "test/counter"
    assert flow.send("increment").view_model == {"count": 2, "even": True}


def test_snapshot_and_restore_across_packs(two: yaia.Runtime, examples: str, pack: Callable[[str], str]) -> None:
    flow = two.start("test/counter", {"start": 5})
    flow.send("login", "x@y.z")
    flow.send("passwordChanged", "secret")
    login = two.open("example/login", {"email": "solo@x.y"})
    snapshot = two.snapshot()
    names = sorted(s["name"] for s in snapshot["scenes"])
    assert names == ["example/login", "example/login", "test/counter"]
    with yaia.Runtime(config={"scenes": [examples, pack("counter")]}, **HOST) as other:
        other.restore(snapshot)
        assert other.snapshot() == snapshot
        assert other.flow(flow.id).top.scene == "example/login"
        assert other.execute({"op": "state", "scene": login.id})["state"]["email"] == "solo@x.y"
    # A runtime without the counter pack refuses the snapshot whole.
    with yaia.Runtime(config={"scenes": [examples]}, **HOST) as partial:
        with pytest.raises(yaia.YaiaError) as info:
            partial.restore(snapshot)
        assert info.value.code == "bad_snapshot"
        assert partial.scenes()["scenes"] == []


def test_journal_and_replay_across_packs(examples: str, pack: Callable[[str], str], tmp_path: Path) -> None:
    echo = _need(TEST_PLUGIN_DIR / "echo.so", "`make test` builds Tests/plugins/echo.c")
    path = tmp_path / "two.jsonl"
    config = {"scenes": [examples, pack("counter")], "plugins": [echo], "journal": str(path)}
    with yaia.Runtime(config=config, **HOST) as rt:
        flow = rt.start("test/counter", {"start": 3})
        flow.send("increment")
        flow.send("fetch")  # echo answers inside perform: "fetched" follows as an event
        event = rt.receive(timeout=10)
        assert event is not None and event.view_model == {"count": 4, "even": True}
        flow.send("login", "j@k.l")
        flow.send("passwordChanged", "pw")
        rt.journal(stop=True)
    with yaia.Runtime(config={"scenes": [examples, pack("counter")]}, **HOST) as rt:
        result = rt.replay(path)
        assert result.identical, result
        assert result.inputs >= 6
    # Without the pack that defines the flow's root, replay diverges at once.
    with yaia.Runtime(config={"scenes": [examples]}, **HOST) as rt:
        result = rt.replay(path)
        assert not result.identical
        assert result.divergence is not None and result.divergence["seq"] == 1
        assert result.divergence["error"]["code"] == "unknown_scene"


def test_many_scenes_of_both_packs_from_threads(two: yaia.Runtime) -> None:
    import threading

    scenes: List[yaia.Scene] = [two.open("test/counter") for _ in range(4)] + [two.open("example/login") for _ in range(4)]
    errors: List[BaseException] = []

    def drive(scene: yaia.Scene) -> None:
        try:
            for i in range(500):
                if scene.name == "test/counter":
                    scene.send("increment")
                else:
                    scene.send("emailChanged", f"u{i}@x")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=drive, args=(s,)) for s in scenes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for s in scenes:
        assert s.seq == 500
        if s.name == "test/counter":
            assert s.view_model["count"] == 500
        else:
            assert s.view_model["email"] == "u499@x"
