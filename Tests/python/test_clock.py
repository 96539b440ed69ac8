"""The runtime's clock (docs/services.md#time): on a manual clock, time-outs
fire when a test advances the clock, never by waiting."""

from __future__ import annotations

import json
import threading
from typing import Any, Dict, Iterator, List

import pytest

import yaia
from conftest import HOST


class Held:
    """A host service that never answers by itself."""

    def __init__(self) -> None:
        self.calls: List[yaia.Call] = []
        self.called = threading.Event()

    def __call__(self, call: yaia.Call) -> None:
        self.calls.append(call)
        self.called.set()


@pytest.fixture
def manual(examples_pack: str) -> Iterator[yaia.Runtime]:
    with yaia.Runtime(scenes=[examples_pack], clock="manual", **HOST) as runtime:
        yield runtime


def held(runtime: yaia.Runtime) -> Held:
    service = Held()
    runtime.add_service("hold", service, deferred=True)
    return service


def run(scene: yaia.Scene, **effect: Any) -> yaia.Effect:
    (emitted,) = scene.send("run", effect).effects
    return emitted


def test_timeout_fires_when_the_clock_passes_it(manual: yaia.Runtime) -> None:
    service = held(manual)
    scene = manual.open("example/jobs")
    effect = run(scene, service="hold", op="wait", timeout=5)
    (call,) = service.calls
    assert manual.advance(4.999) == pytest.approx(4.999)
    assert manual.receive(timeout=0) is None
    assert not call.cancelled
    assert manual.advance(0.001) == pytest.approx(5.0)
    event = manual.receive(timeout=0)
    assert event is not None and (event.event, event.effect) == ("update", effect.id)
    logged = event.view_model["log"][-1]
    assert logged["ok"] is False and logged["error"]["code"] == "timeout"
    assert call.cancelled
    assert call.complete("too late") is False
    assert manual.receive(timeout=0) is None


def test_deadlines_fire_in_order_and_count(manual: yaia.Runtime) -> None:
    held(manual)
    scene = manual.open("example/jobs")
    late = run(scene, service="hold", op="a", timeout=3)
    early = run(scene, service="hold", op="b", timeout=1)
    answer: Dict[str, Any] = manual.execute({"op": "advance", "seconds": 10})
    assert answer == {"ok": True, "now": 10.0, "fired": 2}
    events = [manual.receive(timeout=0), manual.receive(timeout=0)]
    assert [e.effect for e in events if e is not None] == [early.id, late.id]


def test_pending_effect_times_out_on_the_clock(manual: yaia.Runtime) -> None:
    scene = manual.open("example/jobs")
    effect = run(scene, service="nobody", op="x", timeout=2)
    assert effect.status == "pending"
    manual.advance(2)
    event = manual.receive(timeout=0)
    assert event is not None and event.effect == effect.id
    with pytest.raises(yaia.YaiaError) as info:
        manual.resolve(effect.id, result=1)
    assert info.value.code == "effect_already_resolved"


def test_queued_effect_clock_starts_when_it_leaves_the_queue(manual: yaia.Runtime) -> None:
    service = held(manual)
    scene = manual.open("example/jobs")
    first = run(scene, service="hold", op="a", id="k", policy="queue", timeout=10)
    second = run(scene, service="hold", op="b", id="k", policy="queue", timeout=10)
    assert second.status == "queued"
    manual.advance(6)
    service.calls[0].complete(1)
    assert manual.receive(timeout=0).effect == first.id  # type: ignore[union-attr]
    manual.advance(6)  # 12 s in all, 6 s since the second started
    assert manual.receive(timeout=0) is None
    manual.advance(4)
    assert manual.receive(timeout=0).effect == second.id  # type: ignore[union-attr]


def test_perform_times_out_when_another_thread_advances(manual: yaia.Runtime) -> None:
    service = held(manual)
    failure: List[yaia.YaiaError] = []

    def perform() -> None:
        try:
            manual.perform("hold", "wait", timeout=3)
        except yaia.YaiaError as error:
            failure.append(error)

    thread = threading.Thread(target=perform)
    thread.start()
    assert service.called.wait(60)  # the call has reached the service
    manual.advance(3)
    thread.join()
    assert [f.code for f in failure] == ["timeout"]
    assert service.calls[0].cancelled


def test_advance_needs_a_manual_clock(rt: yaia.Runtime) -> None:
    with pytest.raises(yaia.YaiaError) as info:
        rt.advance(1)
    assert (info.value.code, info.value.at) == ("not_permitted", "/op")


@pytest.mark.parametrize("seconds", [-1, "1", None])
def test_advance_refuses_bad_seconds(manual: yaia.Runtime, seconds: Any) -> None:
    request = '{"op":"advance","seconds":%s}' % json.dumps(seconds)
    with pytest.raises(yaia.YaiaError) as info:
        manual.execute_text(request)
    assert (info.value.code, info.value.at) == ("bad_request", "/seconds")
    assert manual.advance(0) == 0


def test_clock_config_is_checked(examples_pack: str) -> None:
    with pytest.raises(yaia.YaiaError) as info:
        yaia.Runtime(scenes=[examples_pack], clock="sundial")
    assert (info.value.code, info.value.at) == ("bad_config", "/clock")
