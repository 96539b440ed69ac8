"""The Python binding in patch mode: Runtime(view="patch") and open/start's
view=, a Scene holding its view model from the patches its updates carry
(no request to read it), Update.view_patch and view_base, and a gap in
the seqs answered by asking {"op": "view"} (docs/abi.md, "Patch mode")."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest

import yaia

from conftest import HOST

LOGIN_START = {"canSubmit": False, "email": "", "error": None, "isSubmitting": False}


@pytest.fixture
def prt(examples_pack: str) -> Iterator[yaia.Runtime]:
    with yaia.Runtime(scenes=[examples_pack], view="patch", **HOST) as runtime:
        yield runtime


def requests_of(rt: yaia.Runtime, monkeypatch: pytest.MonkeyPatch) -> List[Dict[str, Any]]:
    """The requests rt.execute sends from now on."""
    sent: List[Dict[str, Any]] = []
    original = rt.execute

    def recording(request: Any) -> Dict[str, Any]:
        sent.append(dict(request))
        return original(request)

    monkeypatch.setattr(rt, "execute", recording)
    return sent


def test_a_scene_keeps_its_view_model_from_patches(prt: yaia.Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    scene = prt.open("example/login")
    assert scene.opened.view_model == LOGIN_START and scene.opened.view_patch is None
    sent = requests_of(prt, monkeypatch)
    update = scene.send("emailChanged", "a@b.c")
    assert update.view_patch == [{"op": "replace", "path": "/email", "value": "a@b.c"}]
    assert update.view_base == 0 and update.seq == 1
    assert update.view_model == {**LOGIN_START, "email": "a@b.c"}
    scene.send("passwordChanged", "pw")
    assert scene.view_model == {**LOGIN_START, "email": "a@b.c", "canSubmit": True}
    assert sent == [], "the view model is held, not asked for"
    # The earlier update's view model is not changed by later patches.
    assert update.view_model == {**LOGIN_START, "email": "a@b.c"}
    monkeypatch.undo()
    assert scene.view_model == prt.execute({"op": "state", "scene": scene.id})["viewModel"]


def test_nothing_changed_is_an_empty_patch(prt: yaia.Runtime) -> None:
    scene = prt.open("example/login")
    scene.send("emailChanged", "a")
    update = scene.send("emailChanged", "a")
    assert update.view_patch == [] and update.view_base == 1 and update.seq == 2
    assert update.view_model == {**LOGIN_START, "email": "a"}


def test_events_bring_the_held_view_model_up_to_date(examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack], view="patch", clock="manual") as rt:
        scene = rt.open("example/search")
        scene.send("queryChanged", "ab")
        rt.advance(60)  # the search's time-out fires: an event
        event = rt.receive(0)
        assert event is not None and event.view_patch is not None
        assert event.view_model == scene.view_model == rt.execute({"op": "view", "scene": scene.id})["viewModel"]


def test_a_gap_asks_for_the_whole_view_model(prt: yaia.Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    scene = prt.open("example/login")
    scene.send("emailChanged", "a@b.c")
    # The binding missed updates: what it holds is older than the next patch's base.
    prt._held[scene.id].seq = -1
    sent = requests_of(prt, monkeypatch)
    update = scene.send("passwordChanged", "pw")
    assert sent == [{"op": "view", "scene": scene.id}]
    assert update.view_model == scene.view_model == {**LOGIN_START, "email": "a@b.c", "canSubmit": True}
    sent.clear()
    scene.send("passwordChanged", "p")
    assert sent == [], "after the view answer, patches apply again"


def test_one_scene_in_patch_mode_in_a_whole_runtime(examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack]) as rt:
        patched = rt.open("example/login", view="patch")
        whole = rt.open("example/login")
        a, b = patched.send("emailChanged", "x"), whole.send("emailChanged", "x")
        assert a.view_patch is not None and b.view_patch is None
        assert a.view_model == b.view_model
        assert rt.view(patched.id) == rt.view(whole.id) == a.view_model
        with pytest.raises(ValueError):
            rt.open("example/login", view="diff")
        with pytest.raises(yaia.YaiaError) as e:
            rt.view(99)
        assert e.value.code == "no_such_scene"


def test_a_flow_started_in_patch_mode(examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack]) as rt:
        flow = rt.start("example/login", view="patch")
        flow.send("emailChanged", "a@b.c")
        flow.send("passwordChanged", "pw")
        submitted = flow.send("submit")
        assert submitted.view_patch is not None
        pushed = rt.resolve(submitted.effects[0].id, result={"user": {"email": "a@b.c"}})
        assert pushed.stack is not None and len(pushed.stack) == 2
        # The pushed scene: its first patch is a gap the binding fills.
        home = pushed.stack[-1]
        update = flow.send("load")
        assert update.scene == home.id and update.view_patch is not None
        assert update.view_model == rt.execute({"op": "state", "scene": home.id})["viewModel"]
        flow.close()
        assert rt._held == {}


def test_a_restore_starts_again_from_the_restored_view_models(prt: yaia.Runtime) -> None:
    scene = prt.open("example/login")
    scene.send("emailChanged", "a@b.c")
    snapshot = prt.snapshot()
    scene.send("passwordChanged", "pw")
    restored = prt.restore(snapshot)
    assert restored["scenes"][0]["seq"] == 1
    assert scene.view_model == {**LOGIN_START, "email": "a@b.c"}
    update = scene.send("passwordChanged", "pw")
    assert update.view_base == 1 and update.view_model == {**LOGIN_START, "email": "a@b.c", "canSubmit": True}


def test_a_patch_changes_in_place_what_no_caller_holds_and_copies_what_one_does() -> None:
    todo = Path(__file__).resolve().parents[2] / "Examples" / "todo-documents" / "todo.json"
    with yaia.Runtime(scenes=[str(todo)], view="patch", **HOST) as rt:
        scene = rt.open("todo", {"todos": [{"id": i, "title": f"t{i}", "done": False} for i in range(1, 201)]})
        scene.send("toggle", 1)  # copies the list the open update holds
        items = id(scene.view_model["items"])
        scene.send("toggle", 2)
        assert scene.view_model["items"][1]["done"] is True
        assert id(scene.view_model["items"]) == items, "no caller held the list: changed in place"
        kept = scene.send("toggle", 3)
        before = copy.deepcopy(kept.view_model)
        after = scene.send("toggle", 3)
        assert kept.view_model == before, "what a caller holds stays as it was"
        assert after.view_model["items"][2]["done"] is False and before["items"][2]["done"] is True
        assert after.view_model["items"] is not kept.view_model["items"]
        assert after.view_model == rt.execute({"op": "view", "scene": scene.id})["viewModel"]
