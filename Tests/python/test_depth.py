"""Nesting through the C ABI: documents whose paths, expressions or values
nest deeply are answered with a code and the process goes on; what a
runtime saves, it restores (docs/security.md, Depth)."""

from __future__ import annotations

import json
from typing import Any, Dict

import pytest

import yaia

from conftest import HOST


def dotted(steps: int) -> str:
    return "x" + ".b" * (steps - 1)


def register_text(document: str) -> str:
    return '{"op":"register","document":%s}' % document


def code(rt: yaia.Runtime, text: str) -> Dict[str, Any]:
    with pytest.raises(yaia.YaiaError) as info:
        rt.execute_text(text)
    return {"code": info.value.code, "limit": limit_of(info.value)}


def limit_of(error: yaia.YaiaError) -> Any:
    body = error.envelope.get("error")
    return body.get("limit") if isinstance(body, dict) else None


def usable(rt: yaia.Runtime) -> None:
    rt.register({"yaia": 1, "scene": "t/ok", "state": {"n": 0}, "actions": {"inc": {"set": {"n": {"+": [{"var": "state.n"}, 1]}}}}})
    scene = rt.open("t/ok")
    scene.send("inc")
    assert scene.state == {"n": 1}


@pytest.mark.parametrize("steps", [20_000, 100_000])
def test_a_long_set_path_is_a_problem_not_a_crash(steps: int) -> None:
    with yaia.Runtime(**HOST) as rt:
        document = '{"yaia":1,"scene":"t/deep","state":{"x":{}},"actions":{"go":{"set":{"%s":1}}}}' % dotted(steps)
        assert code(rt, register_text(document))["code"] == "bad_document"
        usable(rt)


@pytest.mark.parametrize("steps", [20_000, 100_000])
def test_a_long_var_path_reads_nothing(steps: int) -> None:
    with yaia.Runtime(**HOST) as rt:
        document = '{"yaia":1,"scene":"t/deep","state":{"x":1},"actions":{"go":{"set":{"x":{"var":"state.%s"}}}}}' % dotted(steps)
        rt.execute_text(register_text(document))
        scene = rt.open("t/deep")
        scene.send("go")
        assert scene.state == {"x": None}
        usable(rt)


def test_a_set_path_past_the_limit_fails_the_send() -> None:
    with yaia.Runtime(limits={"depth": 32}, **HOST) as rt:
        rt.execute_text(register_text('{"yaia":1,"scene":"t/deep","state":{"x":{}},"actions":{"go":{"set":{"%s":1}}}}' % dotted(100)))
        scene = rt.open("t/deep")
        with pytest.raises(yaia.YaiaError) as info:
            scene.send("go")
        assert info.value.code == "limit_exceeded"
        assert scene.state == {"x": {}}
        usable(rt)


@pytest.mark.parametrize("levels", [20_000, 100_000])
def test_deep_expressions_and_values_are_refused_by_the_parser(levels: int) -> None:
    with yaia.Runtime(**HOST) as rt:
        expression = '{"!":' * levels + "true" + "}" * levels
        document = '{"yaia":1,"scene":"t/deep","state":{"x":%s},"actions":{}}' % expression
        assert code(rt, register_text(document)) == {"code": "limit_exceeded", "limit": "depth"}
        usable(rt)
        scene = rt.open("t/ok")
        value = "[" * levels + "]" * levels
        sent = '{"op":"send","scene":%d,"action":{"type":"inc","payload":%s}}' % (scene.id, value)
        assert code(rt, sent) == {"code": "limit_exceeded", "limit": "depth"}
        scene.send("inc")
        assert scene.state == {"n": 1}


def test_a_state_growing_per_send_stops_at_the_limit_and_what_is_saved_restores() -> None:
    depth = 32
    with yaia.Runtime(limits={"depth": depth}, **HOST) as rt:
        rt.register({"yaia": 1, "scene": "t/deep", "state": {"x": 0}, "actions": {"wrap": {"set": {"x": {"w": {"var": "state.x"}}}}}})
        scene = rt.open("t/deep")
        sent = 0
        with pytest.raises(yaia.YaiaError) as info:
            for _ in range(2 * depth):
                scene.send("wrap")
                sent += 1
        assert sent == depth - 1
        assert (info.value.code, limit_of(info.value)) == ("limit_exceeded", "depth")
        state = scene.state
        snapshot = rt.snapshot()
    # Restored through a config, as text, by a runtime of the same limits.
    with yaia.Runtime(limits={"depth": depth}, restore=snapshot, **HOST) as other:
        restored = other.execute({"op": "state", "scene": scene.id})
        assert json.dumps(restored["state"]) == json.dumps(state)


def test_a_crafted_id_in_a_configs_restore_is_bad_snapshot() -> None:
    with yaia.Runtime(**HOST) as rt:
        rt.register({"yaia": 1, "scene": "t/ok", "state": {"n": 0}, "actions": {}})
        rt.open("t/ok")
        snapshot = rt.snapshot()
    snapshot["scenes"][0]["id"] = 2**60
    with pytest.raises(yaia.YaiaError) as info:
        yaia.Runtime(restore=snapshot, **HOST)
    assert (info.value.code, info.value.at) == ("bad_snapshot", "/restore/scenes/0/id")


def test_a_document_without_yaia_is_bad_version() -> None:
    with yaia.Runtime(**HOST) as rt:
        with pytest.raises(yaia.YaiaError) as info:
            rt.register({"scene": "t/x", "state": {}, "actions": {}})
        assert info.value.code == "bad_document"
        assert [p["code"] for p in info.value.problems or []] == ["bad_version"]
