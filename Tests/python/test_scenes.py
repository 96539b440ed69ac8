"""example/login and example/feed through the binding: open, send, view_model, state."""

from __future__ import annotations

import os

import pytest

import yaia

LOGIN_STATE = {"email": "", "error": None, "isSubmitting": False, "password": "", "user": None}
LOGIN_VM = {"canSubmit": False, "email": "", "error": None, "isSubmitting": False}
FEED_STATE: dict = {"error": None, "isLoading": False, "items": []}


def test_library_versions() -> None:
    assert yaia.abi_version() == yaia.ABI_VERSION == 1
    major, minor, patch = yaia.library_version().split(".")
    assert major.isdigit() and minor.isdigit() and patch.isdigit()


def test_open_login(rt: yaia.Runtime) -> None:
    scene = rt.open("example/login")
    assert isinstance(scene.id, int)
    assert scene.name == "example/login"
    opened = scene.opened
    assert opened.scene == scene.id
    assert opened.seq == 0
    assert opened.view_model == LOGIN_VM
    assert opened.effects == [] and opened.routes == []
    assert opened.event is None and opened.effect is None
    assert scene.state == LOGIN_STATE
    assert scene.view_model == LOGIN_VM
    assert scene.seq == 0


def test_open_login_with_email(rt: yaia.Runtime) -> None:
    scene = rt.open("example/login", {"email": "x@y.z"})
    assert scene.state["email"] == "x@y.z"
    assert scene.view_model["email"] == "x@y.z"


def test_scene_ids_differ(rt: yaia.Runtime) -> None:
    a = rt.open("example/login")
    b = rt.open("example/login")
    assert a.id != b.id
    a.send("emailChanged", "only@a")
    assert a.state["email"] == "only@a"
    assert b.state["email"] == ""


def test_login_edits(rt: yaia.Runtime) -> None:
    scene = rt.open("example/login")
    u1 = scene.send("emailChanged", "a@b.c")
    assert u1.seq == 1
    assert u1.scene == scene.id
    assert u1.view_model == {"canSubmit": False, "email": "a@b.c", "error": None, "isSubmitting": False}
    u2 = scene.send("passwordChanged", "hunter2")
    assert u2.seq == 2
    assert u2.view_model["canSubmit"] is True
    assert u2.effects == [] and u2.routes == []
    assert scene.state == dict(LOGIN_STATE, email="a@b.c", password="hunter2")
    # the raw response is kept
    assert u2.raw["ok"] is True and u2.raw["seq"] == 2


def test_login_submit_invalid_sets_error(rt: yaia.Runtime) -> None:
    scene = rt.open("example/login")
    scene.send("emailChanged", "no-at-sign")
    scene.send("passwordChanged", "x")
    update = scene.send("submit")
    assert update.effects == []
    assert isinstance(update.view_model["error"], str) and update.view_model["error"]
    assert update.view_model["isSubmitting"] is False


def test_login_submit_emits_auth_effect(rt: yaia.Runtime) -> None:
    scene = rt.open("example/login")
    scene.send("emailChanged", "a@b.c")
    scene.send("passwordChanged", "pw")
    update = scene.send("submit")
    assert update.seq == 3
    assert update.view_model == {"canSubmit": False, "email": "a@b.c", "error": None, "isSubmitting": True}
    assert len(update.effects) == 1
    effect = update.effects[0]
    assert (effect.service, effect.op) == ("auth", "login")
    assert effect.args == {"email": "a@b.c", "password": "pw"}
    assert effect.status == "pending" and effect.pending  # no auth service here
    assert isinstance(effect.id, int)
    # submitting again while submitting emits nothing
    again = scene.send("submit")
    assert again.effects == []


def test_login_outcome_actions_sent_directly(rt: yaia.Runtime) -> None:
    scene = rt.open("example/login")
    ok = scene.send("loginSucceeded", {"user": {"email": "a@b.c"}})
    assert ok.routes == [{"args": {"user": {"email": "a@b.c"}}, "push": "example/home"}]
    assert scene.state["user"] == {"email": "a@b.c"}
    bad = scene.send("loginFailed", {"message": "nope"})
    assert bad.view_model["error"] == "nope"
    assert bad.routes == []
    default = scene.send("loginFailed", {})
    assert default.view_model["error"] == "Login failed"


def test_send_accepts_action_dict_and_fsa_fields(rt: yaia.Runtime) -> None:
    scene = rt.open("example/login")
    update = scene.send({"type": "emailChanged", "payload": "d@i.ct", "meta": {"source": "test"}})
    assert update.view_model["email"] == "d@i.ct"
    update = scene.send("emailChanged", "m@e.ta", meta={"k": [1, 2]})
    assert update.view_model["email"] == "m@e.ta"
    with pytest.raises(TypeError):
        scene.send({"type": "emailChanged"}, "payload twice")


def test_unicode_round_trip(rt: yaia.Runtime) -> None:
    scene = rt.open("example/login")
    text = "ünï@cödé \u2603 \U0001F600 \"quoted\" \\ \n\t\u0000end"
    update = scene.send("emailChanged", text)
    assert update.view_model["email"] == text
    assert scene.state["email"] == text


def test_feed_every_action(rt: yaia.Runtime) -> None:
    feed = rt.open("example/feed")
    assert feed.state == FEED_STATE
    assert feed.view_model == FEED_STATE

    load = feed.send("load")
    assert load.view_model == {"error": None, "isLoading": True, "items": []}
    assert [(e.service, e.op, e.args, e.status) for e in load.effects] == [("feed", "fetch", {}, "pending")]

    again = feed.send("load")  # already loading: nothing
    assert again.effects == []
    assert again.view_model == load.view_model

    items = [{"id": 1, "title": "one"}, {"id": 2, "title": "two"}]
    loaded = feed.send("loaded", {"items": items})
    assert loaded.view_model == {"error": None, "isLoading": False, "items": items}

    feed.send("load")
    failed = feed.send("failed", {"message": "offline"})
    assert failed.view_model["error"] == "offline"
    assert failed.view_model["isLoading"] is False
    assert failed.view_model["items"] == items

    feed.send("load")
    unnamed = feed.send("failed", {"code": 7})
    assert isinstance(unnamed.view_model["error"], str) and unnamed.view_model["error"]

    # load clears the error
    assert feed.send("load").view_model["error"] is None


def test_scenes_listing(rt: yaia.Runtime, examples_pack: str) -> None:
    listing = rt.scenes()
    assert set(listing) == {"documents", "flows", "packs", "scenes", "types"}
    assert "example/login" in listing["types"] and "example/feed" in listing["types"]
    assert listing["scenes"] == [] and listing["flows"] == []
    # The types are the examples pack's, the only pack this runtime loaded.
    (pack,) = listing["packs"]
    assert set(pack) == {"name", "path", "scenes", "version"}
    assert (pack["name"], pack["path"]) == ("examples", os.path.realpath(examples_pack))
    assert sorted(pack["scenes"]) == listing["types"]
    scene = rt.open("example/login")
    scene.send("emailChanged", "a")
    listing = rt.scenes()
    assert listing["scenes"] == [{"id": scene.id, "name": "example/login", "seq": 1}]


def test_execute_raw(rt: yaia.Runtime) -> None:
    opened = rt.execute({"op": "open", "scene": "example/feed"})
    assert opened["ok"] is True and opened["seq"] == 0
    state = rt.execute({"op": "state", "scene": opened["scene"]})
    assert state["name"] == "example/feed" and state["state"] == FEED_STATE
    # whole-number floats are accepted as ids
    state = rt.execute({"op": "state", "scene": float(opened["scene"])})
    assert state["scene"] == opened["scene"]
    closed = rt.execute({"op": "close", "scene": opened["scene"]})
    assert closed == {"closed": True, "ok": True, "scene": opened["scene"]}


def test_output_is_canonical(rt: yaia.Runtime) -> None:
    raw = rt.execute_text('{"op" : "open",\n "scene":"example/feed", "tag": {"b": 1.0, "a": [2.50]}}')
    assert raw["tag"] == {"a": [2.5], "b": 1}
    text = yaia.ffi.take_string(
        rt._lib, rt._lib.yaia_execute(rt.handle, b'{"tag":{"b":1.0,"a":2.50},"op":"state","scene":%d}' % raw["scene"])
    )
    assert text is not None
    assert b" " not in text
    assert text.startswith(b'{"name":"example/feed","ok":true,')
    assert b'"tag":{"a":2.5,"b":1}' in text


def test_tags_echoed(rt: yaia.Runtime) -> None:
    tag = {"request": 7, "list": [1, "two", None]}
    scene = rt.open("example/login", tag=tag)
    assert scene.opened.tag == tag
    update = scene.send("emailChanged", "a@b.c", tag="t-1")
    assert update.tag == "t-1"
    assert scene.send("emailChanged", "x").tag is None
    assert rt.execute({"op": "scenes", "tag": 42})["tag"] == 42
    with pytest.raises(yaia.YaiaError) as info:
        rt.execute({"op": "dance", "tag": ["echo", 1]})
    assert info.value.code == "unknown_op"
    assert info.value.envelope["tag"] == ["echo", 1]
    with pytest.raises(yaia.YaiaError) as info:
        scene.send("emailChanged", 5, tag=False)
    assert info.value.code == "bad_payload"
    assert info.value.envelope["tag"] is False


# ---------------------------------------------------------------- open in a given state


def test_open_in_a_given_state(rt: yaia.Runtime) -> None:
    state = dict(LOGIN_STATE, email="a@b.c", password="hunter2")
    scene = rt.open("example/login", state=state)
    assert scene.name == "example/login"
    assert scene.opened.seq == 0 and scene.seq == 0
    assert scene.opened.effects == [] and scene.opened.routes == []
    assert scene.opened.view_model == {"canSubmit": True, "email": "a@b.c", "error": None, "isSubmitting": False}
    assert scene.view_model == scene.opened.view_model
    assert scene.state == state
    # It goes on from there like any scene.
    update = scene.send("submit")
    assert update.seq == 1
    effects = [(e.service, e.op, e.args) for e in update.effects]
    assert effects == [("auth", "login", {"email": "a@b.c", "password": "hunter2"})]
    # The same request as open sends it, raw, with a tag.
    raw = rt.execute({"op": "open", "scene": "example/feed", "state": FEED_STATE, "tag": "t"})
    assert (raw["seq"], raw["viewModel"], raw["tag"]) == (0, FEED_STATE, "t")


def test_open_in_a_refused_state(rt: yaia.Runtime) -> None:
    with pytest.raises(yaia.YaiaError) as info:
        rt.open("example/login", state=dict(LOGIN_STATE, email=5))
    assert (info.value.code, info.value.at) == ("bad_state", "/state/email")
    with pytest.raises(yaia.YaiaError) as info:
        rt.open("example/login", state={})
    assert info.value.code == "bad_state" and info.value.at is not None and info.value.at.startswith("/state")
    with pytest.raises(yaia.YaiaError) as info:
        rt.open("example/nope", state=LOGIN_STATE)
    assert info.value.code == "unknown_scene"
    # Nothing was opened, and the runtime goes on.
    assert rt.scenes()["scenes"] == []
    assert rt.open("example/login").view_model == LOGIN_VM


def test_open_takes_args_or_state_not_both(rt: yaia.Runtime) -> None:
    # The binding refuses before sending anything...
    with pytest.raises(TypeError):
        rt.open("example/login", {"email": "x@y.z"}, state=LOGIN_STATE)
    # ...and the library refuses the request.
    with pytest.raises(yaia.YaiaError) as info:
        rt.execute({"op": "open", "scene": "example/login", "args": {}, "state": LOGIN_STATE})
    assert info.value.code == "bad_request"
    assert rt.scenes()["scenes"] == []
