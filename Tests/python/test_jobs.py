"""Effect lifecycle from Python (docs/services.md): example/jobs drives any
effect, so the echo plugin is reached through the runtime's own loader, and
Python services see time-outs, cancellation by key and the latest/queue
policies; example/search is the type-ahead case."""

from __future__ import annotations

import threading
from typing import Any, Callable, Iterator, List

import pytest

import yaia
from conftest import WAIT, wait_event


@pytest.fixture
def jobs_rt(examples_pack: str, test_plugin: Callable[[str], str]) -> Iterator[yaia.Runtime]:
    with yaia.Runtime(scenes=[examples_pack], plugins=[test_plugin("echo")]) as runtime:
        yield runtime


def run(scene: yaia.Scene, **effect: Any) -> yaia.Effect:
    (emitted,) = scene.send("run", effect).effects
    return emitted


def outcome(runtime: yaia.Runtime, effect: yaia.Effect) -> Any:
    event = wait_event(runtime)
    assert (event.event, event.effect) == ("update", effect.id)
    return event.view_model["log"][-1]


ARGS = {"s": "\u00e9\u2603", "n": [1, 2.5, None, False], "o": {}}


# ---------------------------------------------------------------- echo.so through the loader


def test_echo_ops(jobs_rt: yaia.Runtime) -> None:
    scene = jobs_rt.open("example/jobs")
    assert scene.view_model == {"log": []}
    effect = run(scene, service="echo", op="echo", args=ARGS)
    assert (effect.service, effect.op, effect.args, effect.status) == ("echo", "echo", ARGS, "running")
    assert outcome(jobs_rt, effect) == {"ok": True, "result": ARGS}
    assert outcome(jobs_rt, run(scene, service="echo", op="fail", args={"message": "m", "n": 1})) == {
        "ok": False,
        "error": {"message": "m", "n": 1},
    }
    bad = outcome(jobs_rt, run(scene, service="echo", op="bad"))
    assert bad["ok"] is False and bad["error"]["code"] == "bad_result"
    assert outcome(jobs_rt, run(scene, service="echo", op="later", args=[3])) == {"ok": True, "result": [3]}
    assert outcome(jobs_rt, run(scene, service="echo", op="dance")) == {
        "ok": False,
        "error": {"message": "unknown op dance"},
    }
    assert len(scene.state["log"]) == 5


def test_echo_twice_delivers_once(jobs_rt: yaia.Runtime) -> None:
    scene = jobs_rt.open("example/jobs")
    assert outcome(jobs_rt, run(scene, service="echo", op="twice", args=2)) == {"ok": True, "result": 2}
    assert jobs_rt.receive() is None  # both completions ran inside perform(), within the send
    assert scene.state == {"log": [{"ok": True, "result": 2}]}


def test_echo_queue_policy(jobs_rt: yaia.Runtime) -> None:
    scene = jobs_rt.open("example/jobs")
    first = run(scene, service="echo", op="later", args=1, id="k", policy="queue")
    second = run(scene, service="echo", op="later", args=2, id="k", policy="queue")
    assert (first.key, first.status) == ("k", "running")
    # "later" completes from the plugin's thread, which may end the first
    # before the second is sent: then the second starts at once.
    assert second.key == "k" and second.status in ("queued", "running")
    assert outcome(jobs_rt, first) == {"ok": True, "result": 1}
    assert outcome(jobs_rt, second) == {"ok": True, "result": 2}
    assert scene.state["log"] == [{"ok": True, "result": 1}, {"ok": True, "result": 2}]


# ---------------------------------------------------------------- Python services in the lifecycle


class Held:
    """A deferred host service that keeps its calls for the test to end."""

    def __init__(self) -> None:
        self.calls: List[yaia.Call] = []
        self.started = threading.Condition()

    def __call__(self, call: yaia.Call) -> None:
        with self.started:
            self.calls.append(call)
            self.started.notify_all()

    def wait_for(self, n: int) -> List[yaia.Call]:
        with self.started:
            assert self.started.wait_for(lambda: len(self.calls) >= n, WAIT)
        return self.calls


@pytest.fixture
def held(rt: yaia.Runtime) -> Held:
    service = Held()
    rt.add_service("hold", service, deferred=True)
    return service


def test_timeout_reaches_catch_and_cancels_call(examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack], clock="manual") as rt:
        held = Held()
        rt.add_service("hold", held, deferred=True)
        scene = rt.open("example/jobs")
        effect = run(scene, service="hold", op="wait", timeout=2)
        (call,) = held.wait_for(1)
        rt.advance(1.5)
        assert rt.receive() is None and not call.cancelled
        rt.advance(0.5)
        event = rt.receive()  # queued before advance returned
        assert event is not None and (event.event, event.effect) == ("update", effect.id)
        result = event.view_model["log"][-1]
        assert result["ok"] is False and result["error"]["code"] == "timeout"
        assert call.cancelled
        assert call.complete("too late") is False
        assert rt.receive() is None


def test_cancel_by_key(rt: yaia.Runtime, held: Held) -> None:
    scene = rt.open("example/jobs")
    effect = run(scene, service="hold", op="wait", id="job")
    assert effect.key == "job"
    (call,) = held.wait_for(1)
    scene.send("cancel", "job")
    assert call.cancelled
    assert call.complete(1) is False  # nothing delivered
    assert rt.receive() is None
    assert scene.state == {"log": []}


def test_latest_policy_cancels_previous(rt: yaia.Runtime, held: Held) -> None:
    scene = rt.open("example/jobs")
    run(scene, service="hold", op="a", id="k", policy="latest")
    second = run(scene, service="hold", op="b", id="k", policy="latest")
    first_call, second_call = held.wait_for(2)
    assert first_call.cancelled and not second_call.cancelled
    assert first_call.complete("old") is False
    assert second_call.complete("new") is True
    assert outcome(rt, second) == {"ok": True, "result": "new"}
    assert rt.receive() is None


def test_queue_policy_with_python_service(rt: yaia.Runtime, held: Held) -> None:
    scene = rt.open("example/jobs")
    first = run(scene, service="hold", op="a", id="q", policy="queue")
    second = run(scene, service="hold", op="b", id="q", policy="queue")
    assert second.status == "queued"
    (call_a,) = held.wait_for(1)
    assert len(held.calls) == 1  # b waits for a
    assert call_a.complete("A") is True
    assert outcome(rt, first) == {"ok": True, "result": "A"}
    _, call_b = held.wait_for(2)
    assert call_b.op == "b"
    assert call_b.complete("B") is True
    assert outcome(rt, second) == {"ok": True, "result": "B"}


def test_search_type_ahead(rt: yaia.Runtime) -> None:
    calls: List[yaia.Call] = []
    rt.add_service("search", calls.append, deferred=True)
    search = rt.open("example/search")
    assert search.view_model == {"error": None, "isSearching": False, "query": "", "results": []}
    search.send("queryChanged", "ya")
    typed = search.send("queryChanged", "yaia")
    (effect,) = typed.effects
    assert (effect.key, effect.service, effect.op, effect.args) == ("search", "search", "query", {"query": "yaia"})
    old, new = calls
    assert old.cancelled and not new.cancelled  # policy latest
    assert new.complete({"query": "yaia", "items": ["Yaia runtime"]}) is True
    event = wait_event(rt)
    assert event.view_model == {"error": None, "isSearching": False, "query": "yaia", "results": ["Yaia runtime"]}
    search.send("queryChanged", "x")
    cleared = search.send("queryChanged", "")
    assert cleared.view_model == {"error": None, "isSearching": False, "query": "", "results": []}
    assert calls[2].cancelled  # clearing cancels the search in flight
    assert calls[2].complete({"query": "x", "items": []}) is False
    assert rt.receive() is None
