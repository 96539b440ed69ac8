"""Effects: pending ones resolved by the host, and the auth plugin end to end."""

from __future__ import annotations

import threading
from typing import List, Optional

import pytest

import yaia
from conftest import listed, login_ready, wait_event

HOME = {"args": {"user": {"email": "a@b.c"}}, "push": "example/home"}


# ---------------------------------------------------------------- pending + resolve


def test_resolve_result(rt: yaia.Runtime) -> None:
    scene = login_ready(rt, password="pw")
    effect = scene.send("submit").effects[0]
    assert effect.status == "pending"
    update = rt.resolve(effect.id, result={"user": {"email": "a@b.c"}})
    assert update.scene == scene.id
    assert update.seq == 4
    assert update.event is None
    assert update.routes == [HOME]
    assert update.view_model == {"canSubmit": True, "email": "a@b.c", "error": None, "isSubmitting": False}
    assert scene.state["user"] == {"email": "a@b.c"}
    assert rt.receive() is None  # a resolve answers directly; nothing is queued


def test_resolve_error(rt: yaia.Runtime) -> None:
    scene = login_ready(rt, password="pw")
    effect = scene.send("submit").effects[0]
    update = rt.resolve(effect.id, error={"message": "no"})
    assert update.view_model["error"] == "no"
    assert update.view_model["isSubmitting"] is False
    assert update.routes == []
    assert scene.state["user"] is None


def test_resolve_null_result_is_a_value(rt: yaia.Runtime) -> None:
    feed = rt.open("example/feed")
    effect = feed.send("load").effects[0]
    # None is JSON null, which loaded cannot read: refused, effect stays pending
    with pytest.raises(yaia.YaiaError) as info:
        rt.resolve(effect.id, result=None)
    assert info.value.code == "bad_payload"
    update = rt.resolve(effect.id, result={"items": ["x"]})
    assert update.view_model["items"] == ["x"]


def test_refused_outcome_keeps_effect_pending(rt: yaia.Runtime) -> None:
    scene = login_ready(rt)
    effect = scene.send("submit").effects[0]
    with pytest.raises(yaia.YaiaError) as info:
        rt.resolve(effect.id, result="not an object")
    assert info.value.code == "bad_payload"
    assert scene.state["isSubmitting"] is True  # unchanged
    update = rt.resolve(effect.id, result={"user": {"email": "a@b.c"}})
    assert update.routes == [HOME]


def test_resolve_needs_exactly_one_outcome(rt: yaia.Runtime) -> None:
    with pytest.raises(TypeError):
        rt.resolve(1)
    with pytest.raises(TypeError):
        rt.resolve(1, result=1, error=2)


def test_resolve_tag(rt: yaia.Runtime) -> None:
    scene = login_ready(rt)
    effect = scene.send("submit").effects[0]
    update = rt.resolve(effect.id, error={"message": "x"}, tag={"t": 1})
    assert update.tag == {"t": 1}


# ---------------------------------------------------------------- auth plugin


def test_auth_service_listed(auth_rt: yaia.Runtime) -> None:
    assert {"name": "auth", "origin": "plugin", "plugin": "auth"} in listed(auth_rt)


def test_auth_wrong_password(auth_rt: yaia.Runtime) -> None:
    scene = login_ready(auth_rt, password="wrong")
    sent = scene.send("submit")
    assert len(sent.effects) == 1
    effect = sent.effects[0]
    assert effect.service == "auth" and effect.status == "running"
    event = wait_event(auth_rt)
    assert event.event == "update"
    assert event.effect == effect.id
    assert event.scene == scene.id
    assert event.seq == sent.seq + 1
    assert event.routes == []
    assert event.view_model == {
        "canSubmit": True,
        "email": "a@b.c",
        "error": "Wrong email or password",
        "isSubmitting": False,
    }
    assert scene.view_model == event.view_model


def test_auth_right_password(auth_rt: yaia.Runtime) -> None:
    scene = login_ready(auth_rt)
    effect = scene.send("submit").effects[0]
    assert effect.status == "running"
    event = wait_event(auth_rt)
    assert (event.event, event.effect) == ("update", effect.id)
    assert event.routes == [HOME]
    assert event.view_model["error"] is None
    assert scene.state["user"] == {"email": "a@b.c"}


def test_auth_wrong_then_right(auth_rt: yaia.Runtime) -> None:
    scene = login_ready(auth_rt, password="guess")
    scene.send("submit")
    assert wait_event(auth_rt).view_model["error"] == "Wrong email or password"
    scene.send("passwordChanged", "hunter2")
    scene.send("submit")
    event = wait_event(auth_rt)
    assert event.routes == [HOME]
    assert event.view_model["error"] is None


def test_running_effect_cannot_be_resolved(auth_rt: yaia.Runtime) -> None:
    scene = login_ready(auth_rt)
    effect = scene.send("submit").effects[0]
    with pytest.raises(yaia.YaiaError) as info:
        auth_rt.resolve(effect.id, result={"user": {}})
    # not_pending while the plugin works; already_resolved if it was faster
    assert info.value.code in ("effect_not_pending", "effect_already_resolved")
    event = wait_event(auth_rt)
    assert event.routes == [HOME]  # the plugin's outcome, not the host's


def test_receive_blocks_in_other_thread(auth_rt: yaia.Runtime) -> None:
    got: List[Optional[yaia.Update]] = []
    receiver = threading.Thread(target=lambda: got.append(auth_rt.receive(timeout=None)))
    receiver.start()
    scene = login_ready(auth_rt)
    scene.send("submit")
    receiver.join(timeout=30)
    assert not receiver.is_alive()
    assert got and got[0] is not None and got[0].routes == [HOME]


def test_receive_timeout_returns_none(auth_rt: yaia.Runtime) -> None:
    assert auth_rt.receive() is None
    assert auth_rt.receive(timeout=0.01) is None


def test_close_wakes_blocked_receive(auth_so: str, examples_pack: str) -> None:
    runtime = yaia.Runtime(scenes=[examples_pack], plugins=[auth_so])
    got: List[object] = []
    started = threading.Event()

    def wait() -> None:
        started.set()
        try:
            got.append(runtime.receive(timeout=None))
        except yaia.YaiaError as exc:  # the free may win the race with the call
            got.append(exc.code)

    receiver = threading.Thread(target=wait)
    receiver.start()
    started.wait()
    runtime.close()
    receiver.join(timeout=30)
    assert not receiver.is_alive()
    assert got in ([None], ["bad_handle"])


def test_many_logins_from_threads(auth_rt: yaia.Runtime) -> None:
    scenes = [login_ready(auth_rt, email=f"u{i}@x", password="hunter2" if i % 2 else "no") for i in range(8)]
    threads = [threading.Thread(target=s.send, args=("submit",)) for s in scenes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    events = {}
    for _ in scenes:
        event = wait_event(auth_rt)
        events[event.scene] = event
    for i, scene in enumerate(scenes):
        event = events[scene.id]
        if i % 2:
            assert event.routes == [{"args": {"user": {"email": f"u{i}@x"}}, "push": "example/home"}]
        else:
            assert event.view_model["error"] == "Wrong email or password"
