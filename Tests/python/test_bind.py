"""Foreign functions (docs/ffi.md) bound and called from Python."""

from __future__ import annotations

import pytest

import yaia
from conftest import wait_event


def test_bind_libm_and_perform(rt: yaia.Runtime) -> None:
    ops = rt.bind("math", "libm.so.6", {"pow": "double(double,double)", "frexp": "double(double, out int32)"})
    assert ops == ["frexp", "pow"]
    assert rt.perform("math", "pow", [2, 10]) == 1024
    assert rt.perform("math", "frexp", [8]) == {"out": [4], "return": 0.5}
    assert {"name": "math"}.items() <= rt.services()[0].items()


def test_bound_service_from_a_scene(rt: yaia.Runtime) -> None:
    rt.bind("math", "libm.so.6", {"cos": "double(double)"})
    jobs = rt.open("example/jobs")
    (effect,) = jobs.send("run", {"service": "math", "op": "cos", "args": [0]}).effects
    event = wait_event(rt)
    assert event.effect == effect.id
    assert event.view_model == {"log": [{"ok": True, "result": 1}]}


def test_bind_errors(rt: yaia.Runtime) -> None:
    with pytest.raises(yaia.YaiaError) as info:
        rt.bind("math", "libm.so.6", {"cos": "dbl(double)"})
    assert info.value.code == "bad_signature"
    with pytest.raises(yaia.YaiaError) as info:
        rt.bind("math", "libm.so.6", {"no_such_function_here": "double(double)"})
    assert info.value.code == "symbol_not_found"
    with pytest.raises(yaia.YaiaError) as info:
        rt.bind("math", "libnothing-here.so.9", {"cos": "double(double)"})
    assert info.value.code == "library_not_found"
    rt.add_service("taken", lambda op, args: None)
    with pytest.raises(yaia.YaiaError) as info:
        rt.bind("taken", "libm.so.6", {"cos": "double(double)"})
    assert info.value.code == "duplicate_service"
    assert [s["name"] for s in rt.services()] == ["taken"]


def test_bad_argument_fails_the_call(rt: yaia.Runtime) -> None:
    rt.bind("math", "libm.so.6", {"pow": "double(double,double)"})
    with pytest.raises(yaia.YaiaError) as info:
        rt.perform("math", "pow", ["two", 10])
    assert info.value.code == "bad_argument"  # docs/ffi.md: a direct perform answers with it
    assert info.value.detail["index"] == 0
    jobs = rt.open("example/jobs")
    jobs.send("run", {"service": "math", "op": "pow", "args": [1]})
    (entry,) = wait_event(rt).view_model["log"]
    assert entry["ok"] is False and entry["error"]["code"] == "bad_argument"
    assert "index" not in entry["error"]  # a wrong count has no index
