"""Host services written in Python: plain, raising, ServiceError, deferred."""

from __future__ import annotations

import threading
from typing import Any, Dict, List

import pytest

import yaia
from conftest import Recorder, WAIT, listed, login_ready, wait_event

ITEMS = [{"id": 1, "title": "Hello"}, {"id": 2, "title": "World"}]


def test_sync_result(rt: yaia.Runtime) -> None:
    feed_service = Recorder(lambda op, args: {"items": ITEMS})
    assert rt.add_service("feed", feed_service) == "feed"
    assert {"name": "feed", "origin": "host"} in listed(rt)
    feed = rt.open("example/feed")
    sent = feed.send("load")
    effect = sent.effects[0]
    assert effect.status == "running"
    assert feed_service.calls == [("fetch", {})]
    assert feed_service.threads == [threading.current_thread().name]  # runs on the sending thread
    event = wait_event(rt)
    assert (event.event, event.effect, event.scene) == ("update", effect.id, feed.id)
    assert event.view_model == {"error": None, "isLoading": False, "items": ITEMS}
    assert feed.view_model["items"] == ITEMS


def test_decorator(rt: yaia.Runtime) -> None:
    @rt.service("feed")
    def feed_service(op: str, args: Any) -> Dict[str, Any]:
        return {"items": [op]}

    assert callable(feed_service)  # the decorator gives the function back
    rt.open("example/feed").send("load")
    assert wait_event(rt).view_model["items"] == ["fetch"]


def test_raising_service_fails_the_call(rt: yaia.Runtime) -> None:
    def broken(op: str, args: Any) -> Any:
        raise RuntimeError("disk on fire")

    rt.add_service("feed", broken)
    feed = rt.open("example/feed")
    feed.send("load")
    event = wait_event(rt)
    assert event.event == "update"
    assert event.view_model["error"] == "disk on fire"
    assert event.view_model["isLoading"] is False
    # the runtime and the service keep working
    feed.send("load")
    assert wait_event(rt).view_model["error"] == "disk on fire"


def test_service_error_value(rt: yaia.Runtime) -> None:
    def refuse(op: str, args: Any) -> Any:
        raise yaia.ServiceError({"message": "custom text", "retryAfter": 3})

    rt.add_service("feed", refuse)
    rt.open("example/feed").send("load")
    # exc.error itself is the payload, not str(exc)
    assert wait_event(rt).view_model["error"] == "custom text"


def test_raising_message_is_str_of_exception(rt: yaia.Runtime) -> None:
    def broken(op: str, args: Any) -> Any:
        raise KeyError("k")

    rt.add_service("auth", broken)
    scene = rt.open("example/login")
    scene.send("emailChanged", "a@b.c")
    scene.send("passwordChanged", "pw")
    scene.send("submit")
    assert wait_event(rt).view_model["error"] == "'k'"  # str(KeyError("k"))


def test_result_that_is_not_json_fails_the_call(rt: yaia.Runtime) -> None:
    rt.add_service("feed", lambda op, args: {"items": [object()]})
    rt.open("example/feed").send("load")
    error = wait_event(rt).view_model["error"]
    assert "JSON" in error


def test_nan_result_fails_the_call(rt: yaia.Runtime) -> None:
    rt.add_service("feed", lambda op, args: {"items": [float("nan")]})
    rt.open("example/feed").send("load")
    assert "NaN" in wait_event(rt).view_model["error"]


def test_refused_outcome_is_an_error_event(rt: yaia.Runtime) -> None:
    rt.add_service("feed", lambda op, args: {"items": "not a list"})
    feed = rt.open("example/feed")
    effect = feed.send("load").effects[0]
    with pytest.raises(yaia.YaiaError) as info:
        rt.receive(timeout=WAIT)
    assert info.value.code == "bad_payload"
    assert info.value.envelope["event"] == "error"
    assert info.value.envelope["effect"] == effect.id
    assert info.value.envelope["scene"] == feed.id
    assert feed.state["isLoading"] is True  # unchanged


def test_deferred_completes_from_another_thread(rt: yaia.Runtime) -> None:
    calls: List[yaia.Call] = []
    results: List[bool] = []
    go = threading.Event()
    completers: List[threading.Thread] = []

    def fetch(call: yaia.Call) -> None:
        calls.append(call)

        def later() -> None:
            go.wait(WAIT)
            results.append(call.complete({"items": ITEMS}))

        completers.append(threading.Thread(target=later))
        completers[-1].start()

    rt.add_service("feed", fetch, deferred=True)
    feed = rt.open("example/feed")
    sent = feed.send("load")
    assert sent.view_model["isLoading"] is True
    assert rt.receive() is None  # the thread holds the completion
    go.set()  # after the send returned, so after perform() did
    event = wait_event(rt)
    assert event.effect == sent.effects[0].id
    assert event.view_model["items"] == ITEMS
    completers[0].join()  # the event may be queued before complete() returns
    assert results == [True]
    (call,) = calls
    assert (call.op, call.args, call.service) == ("fetch", {}, "feed")
    assert call.done
    assert call.complete({"items": []}) is False  # once only
    assert call.fail({"message": "late"}) is False
    assert feed.view_model["items"] == ITEMS


def test_deferred_fail_from_another_thread(rt: yaia.Runtime) -> None:
    def fetch(call: yaia.Call) -> None:
        threading.Thread(target=call.fail, args=({"message": "server said no"},)).start()

    rt.add_service("feed", fetch, deferred=True)
    rt.open("example/feed").send("load")
    assert wait_event(rt).view_model["error"] == "server said no"


def test_deferred_completes_inside_perform(rt: yaia.Runtime) -> None:
    rt.add_service("feed", lambda call: call.complete({"items": [1]}), deferred=True)
    rt.open("example/feed").send("load")
    assert wait_event(rt).view_model["items"] == [1]


def test_deferred_raising_fails_the_call(rt: yaia.Runtime) -> None:
    def fetch(call: yaia.Call) -> None:
        raise ValueError("bad args")

    rt.add_service("feed", fetch, deferred=True)
    rt.open("example/feed").send("load")
    assert wait_event(rt).view_model["error"] == "bad args"


def test_deferred_complete_with_bad_value_raises_and_leaves_call_open(rt: yaia.Runtime) -> None:
    calls: List[yaia.Call] = []
    rt.add_service("feed", calls.append, deferred=True)
    rt.open("example/feed").send("load")
    (call,) = calls
    with pytest.raises(ValueError):
        call.complete({"items": [float("inf")]})
    assert not call.done
    assert call.complete({"items": [2]}) is True
    assert wait_event(rt).view_model["items"] == [2]


def test_running_host_effect_is_not_pending(rt: yaia.Runtime) -> None:
    calls: List[yaia.Call] = []
    rt.add_service("feed", calls.append, deferred=True)
    effect = rt.open("example/feed").send("load").effects[0]
    assert effect.status == "running"
    with pytest.raises(yaia.YaiaError) as info:
        rt.resolve(effect.id, result={"items": []})
    assert info.value.code == "effect_not_pending"
    calls[0].complete({"items": []})
    wait_event(rt)
    with pytest.raises(yaia.YaiaError) as info:
        rt.resolve(effect.id, result={"items": []})
    assert info.value.code == "effect_already_resolved"


def test_closing_scene_cancels_deferred_call(rt: yaia.Runtime) -> None:
    calls: List[yaia.Call] = []
    rt.add_service("feed", calls.append, deferred=True)
    feed = rt.open("example/feed")
    feed.send("load")
    (call,) = calls
    assert not call.cancelled
    feed.close()
    assert call.cancelled
    assert call.complete({"items": []}) is False  # stale
    assert rt.receive() is None


def test_closing_runtime_cancels_deferred_call(examples_pack: str) -> None:
    calls: List[yaia.Call] = []
    with yaia.Runtime(scenes=[examples_pack]) as runtime:
        runtime.add_service("feed", calls.append, deferred=True)
        runtime.open("example/feed").send("load")
    (call,) = calls
    assert call.cancelled
    assert call.complete({"items": []}) is False


def test_service_called_for_each_runtime_separately(examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack]) as a, yaia.Runtime(scenes=[examples_pack]) as b:
        a.add_service("feed", lambda op, args: {"items": ["a"]})
        b.add_service("feed", lambda op, args: {"items": ["b"]})
        a.open("example/feed").send("load")
        b.open("example/feed").send("load")
        assert wait_event(a).view_model["items"] == ["a"]
        assert wait_event(b).view_model["items"] == ["b"]


def test_sends_from_many_threads_with_host_service(rt: yaia.Runtime) -> None:
    lock = threading.Lock()
    count = [0]

    def fetch(op: str, args: Any) -> Any:
        with lock:
            count[0] += 1
        return {"items": []}

    rt.add_service("feed", fetch)
    scenes = [rt.open("example/feed") for _ in range(8)]

    def work(scene: yaia.Scene) -> None:
        for _ in range(20):
            scene.send("load")

    threads = [threading.Thread(target=work, args=(s,)) for s in scenes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    events = 0
    while rt.receive() is not None:  # each completed inside its send
        events += 1
    assert events == count[0] == len(scenes) * 20


def test_bad_service_names(rt: yaia.Runtime) -> None:
    for name in ["", "has space", "slash/no", "x" * 65]:
        with pytest.raises(yaia.YaiaError) as info:
            rt.add_service(name, lambda op, args: None)
        assert info.value.code == "bad_service", name
    assert rt.services() == []


def test_duplicate_service(rt: yaia.Runtime) -> None:
    rt.add_service("feed", lambda op, args: {"items": [1]})
    with pytest.raises(yaia.YaiaError) as info:
        rt.add_service("feed", lambda op, args: {"items": [2]})
    assert info.value.code == "duplicate_service"
    # the first registration stays in charge
    rt.open("example/feed").send("load")
    assert wait_event(rt).view_model["items"] == [1]


def test_blocking_service_runs_on_worker_pool(rt: yaia.Runtime) -> None:
    sender = threading.get_ident()
    ran_on: List[int] = []

    @rt.service("feed", blocking=True)
    def fetch(op: str, args: Any) -> Any:
        ran_on.append(threading.get_ident())
        return {"items": ["slow"]}

    feed = rt.open("example/feed")
    effect = feed.send("load").effects[0]
    assert effect.status == "running"
    event = wait_event(rt)
    assert event.effect == effect.id and event.view_model["items"] == ["slow"]
    assert len(ran_on) == 1 and ran_on[0] != sender
    assert rt.services() == [{"blocking": True, "name": "feed", "origin": "host"}]


def test_notifier(rt: yaia.Runtime) -> None:
    calls: List[int] = []
    woken = threading.Event()

    def notify() -> None:
        calls.append(threading.get_ident())
        woken.set()

    rt.set_notifier(notify)
    rt.add_service("feed", lambda op, args: {"items": [1]})
    feed = rt.open("example/feed")
    feed.send("load")
    assert woken.wait(WAIT)
    assert wait_event(rt).view_model["items"] == [1]
    assert len(calls) == 1
    rt.set_notifier(None)
    feed.send("load")
    wait_event(rt)
    assert len(calls) == 1  # removed: not called again


def test_notifier_from_plugin_thread(auth_rt: yaia.Runtime) -> None:
    threads: List[int] = []
    woken = threading.Event()
    def notify() -> None:
        threads.append(threading.get_ident())
        woken.set()

    auth_rt.set_notifier(notify)
    login_ready(auth_rt).send("submit")
    assert woken.wait(WAIT)
    assert threads and threads[0] != threading.get_ident()  # the plugin's worker thread
    assert wait_event(auth_rt).routes[0]["push"] == "example/home"


def test_notifier_after_close() -> None:
    runtime = yaia.Runtime()
    runtime.close()
    with pytest.raises(yaia.YaiaError) as info:
        runtime.set_notifier(lambda: None)
    assert info.value.code == "bad_handle"
