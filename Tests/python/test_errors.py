"""Every error code of docs/abi.md that Python can provoke; the runtime keeps working."""

from __future__ import annotations

import ctypes
import subprocess
import sys
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest

import yaia
from yaia import ffi

from conftest import HOST


def code_of(fn: Callable[[], Any]) -> yaia.YaiaError:
    with pytest.raises(yaia.YaiaError) as info:
        fn()
    return info.value


def raw(rt: yaia.Runtime, ptr: Any) -> Any:
    text = ffi.take_string(rt._lib, ptr)
    assert text is not None
    return ffi.decode(text)


@pytest.fixture
def login(rt: yaia.Runtime) -> yaia.Scene:
    return rt.open("example/login")


def still_works(rt: yaia.Runtime) -> None:
    scene = rt.open("example/login")
    assert scene.send("emailChanged", "ok@ok").view_model["email"] == "ok@ok"


def test_error_shape(rt: yaia.Runtime) -> None:
    exc = code_of(lambda: rt.execute({"op": "send", "scene": "1", "action": {"type": "x"}}))
    assert exc.code == "bad_request"
    assert exc.at == "/scene"
    assert isinstance(exc.message, str) and exc.message
    assert exc.envelope["ok"] is False
    assert exc.envelope["error"]["code"] == "bad_request"
    assert str(exc).startswith("bad_request: ")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "{",
        '{"op":"scenes"',
        "{'op':'scenes'}",
        '{"op":"scenes"}\x00',
        '{"op":"scenes","tag":1e400}',
        '{"op":"scenes","tag":"\\ud800"}',
        '{"op":"scenes"} trailing',
    ],
    ids=["empty", "open", "unclosed", "quotes", "nul", "big-number", "lone-surrogate", "trailing"],
)
def test_invalid_json(rt: yaia.Runtime, text: str) -> None:
    assert code_of(lambda: rt.execute_text(text)).code == "invalid_json"
    still_works(rt)


def test_too_deep_is_a_limit(rt: yaia.Runtime) -> None:
    error = code_of(lambda: rt.execute_text("[" * 521 + "]" * 521))
    assert error.code == "limit_exceeded"
    assert error.envelope["error"]["limit"] == "depth"
    still_works(rt)


def test_invalid_utf8(rt: yaia.Runtime) -> None:
    assert code_of(lambda: rt.execute_text(b'{"op":"scenes","tag":"\xff"}')).code == "invalid_json"


def test_nan_refused_before_crossing(rt: yaia.Runtime, login: yaia.Scene) -> None:
    with pytest.raises(ValueError, match="NaN"):
        login.send("emailChanged", float("nan"))
    with pytest.raises(TypeError):
        login.send("emailChanged", {1, 2})
    assert login.seq == 0


def test_not_an_object(rt: yaia.Runtime, login: yaia.Scene) -> None:
    assert code_of(lambda: rt.execute_text("[]")).code == "not_an_object"
    assert code_of(lambda: rt.execute_text('"open"')).code == "not_an_object"
    assert code_of(lambda: rt.open("example/login", [1])).code == "not_an_object"  # type: ignore[arg-type]
    exc = code_of(lambda: rt.execute({"op": "send", "scene": login.id, "action": "emailChanged"}))
    assert exc.code == "not_an_object"
    assert exc.at == "/action"
    still_works(rt)


def test_not_an_object_config(library: Any) -> None:
    error = ctypes.c_void_p()
    handle = library.yaia_runtime_new(b"[1]", ctypes.byref(error))
    assert not handle
    text = ffi.take_string(library, error.value)
    assert text is not None
    assert ffi.decode(text)["error"]["code"] == "not_an_object"


def test_null_argument(rt: yaia.Runtime, login: yaia.Scene) -> None:
    lib = rt._lib
    assert raw(rt, lib.yaia_execute(rt.handle, None))["error"]["code"] == "null_argument"
    assert raw(rt, lib.yaia_execute_n(rt.handle, None, 5))["error"]["code"] == "null_argument"
    assert raw(rt, lib.yaia_execute_n(rt.handle, None, 0))["error"]["code"] == "invalid_json"
    assert raw(rt, lib.yaia_open(rt.handle, None, None))["error"]["code"] == "null_argument"
    assert raw(rt, lib.yaia_send(rt.handle, login.id, None))["error"]["code"] == "null_argument"
    assert raw(rt, lib.yaia_resolve(rt.handle, 1, None))["error"]["code"] == "null_argument"
    assert raw(rt, lib.yaia_add_service(rt.handle, None))["error"]["code"] == "bad_service"  # yaia.h: a NULL struct
    assert lib.yaia_call_complete(None, b"1") == ffi.YAIA_ERR_ARGUMENT
    assert lib.yaia_call_fail(None, b"1") == ffi.YAIA_ERR_ARGUMENT
    still_works(rt)


def test_direct_functions(rt: yaia.Runtime) -> None:
    lib = rt._lib
    opened = raw(rt, lib.yaia_open(rt.handle, b"example/login", b'{"email":"p@q"}'))
    assert opened["ok"] is True and opened["viewModel"]["email"] == "p@q"
    sent = raw(rt, lib.yaia_send(rt.handle, opened["scene"], b'{"type":"passwordChanged","payload":"x"}'))
    assert sent["seq"] == 1 and sent["viewModel"]["canSubmit"] is True
    effect = raw(rt, lib.yaia_send(rt.handle, opened["scene"], b'{"type":"submit"}'))["effects"][0]
    resolved = raw(rt, lib.yaia_resolve(rt.handle, effect["id"], b'{"error":{"message":"m"}}'))
    assert resolved["viewModel"]["error"] == "m"
    assert raw(rt, lib.yaia_open(rt.handle, b"example/nope", None))["error"]["code"] == "unknown_scene"


def test_bad_handle_made_up() -> None:
    # In a child process, so that a library which dereferences the made-up
    # handle fails this test instead of killing the test run.
    program = (
        "import yaia, json\n"
        "from yaia import ffi\n"
        "lib = ffi.load_library()\n"
        "for h in (0x7f0000001000, 12345):\n"
        "    out = json.loads(ffi.take_string(lib, lib.yaia_execute_n(h, b'{\"op\":\"scenes\"}', 15)))\n"
        "    print(out['error']['code'])\n"
        "lib.yaia_runtime_free(12345)\n"
        "print(lib.yaia_receive(12345, 0) and 'envelope')\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["bad_handle", "bad_handle", "envelope"]


def test_bad_handle_after_close(examples_pack: str) -> None:
    runtime = yaia.Runtime(scenes=[examples_pack])
    scene = runtime.open("example/login")
    runtime.close()
    assert code_of(lambda: runtime.execute({"op": "scenes"})).code == "bad_handle"
    assert code_of(lambda: scene.send("emailChanged", "x")).code == "bad_handle"
    assert code_of(lambda: runtime.receive()).code == "bad_handle"
    assert code_of(lambda: runtime.receive(timeout=None)).code == "bad_handle"
    assert code_of(lambda: runtime.resolve(1, result=1)).code == "bad_handle"
    assert code_of(lambda: runtime.add_service("feed", lambda op, args: None)).code == "bad_handle"
    assert code_of(lambda: runtime.open("example/login")).code == "bad_handle"


def test_unknown_op(rt: yaia.Runtime) -> None:
    assert code_of(lambda: rt.execute({"op": "dance"})).code == "unknown_op"
    assert code_of(lambda: rt.execute({"op": "OPEN", "scene": "example/login"})).code == "unknown_op"
    still_works(rt)


def test_bad_request(rt: yaia.Runtime, login: yaia.Scene) -> None:
    cases: List[Tuple[Dict[str, Any], Optional[str]]] = [
        ({}, None),
        ({"op": 5}, "/op"),
        ({"op": "open"}, None),
        ({"op": "open", "scene": 5}, "/scene"),
        ({"op": "send", "scene": login.id}, None),
        ({"op": "send", "scene": "1", "action": {"type": "submit"}}, "/scene"),
        ({"op": "send", "scene": 1.5, "action": {"type": "submit"}}, "/scene"),
        ({"op": "state"}, None),
        ({"op": "resolve", "effect": "3", "result": 1}, "/effect"),
        ({"op": "resolve", "effect": 3}, None),
        ({"op": "load_plugin"}, None),
        ({"op": "load_plugin", "path": 7}, "/path"),
    ]
    for request, at in cases:
        exc = code_of(lambda: rt.execute(request))
        assert exc.code == "bad_request", request
        if at is not None:
            assert exc.at == at, request
    still_works(rt)


def test_bad_config(examples_pack: str) -> None:
    assert code_of(lambda: yaia.Runtime(config={"plugin": []})).code == "bad_config"
    assert code_of(lambda: yaia.Runtime(config={"plugins": 5})).code == "bad_config"
    assert code_of(lambda: yaia.Runtime(config={"plugins": [5]})).code == "bad_config"
    with yaia.Runtime(config={}, **HOST) as runtime:
        assert runtime.scenes()["types"] == []  # no packs, no scenes
    with yaia.Runtime(config={}, scenes=[examples_pack], **HOST) as runtime:
        still_works(runtime)
    with yaia.Runtime(plugins=[], scenes=[examples_pack], **HOST) as runtime:
        still_works(runtime)


def test_unknown_scene(rt: yaia.Runtime) -> None:
    assert code_of(lambda: rt.open("example/nope")).code == "unknown_scene"
    assert code_of(lambda: rt.open("")).code == "unknown_scene"
    still_works(rt)


def test_no_such_scene(rt: yaia.Runtime, login: yaia.Scene) -> None:
    assert code_of(lambda: rt.execute({"op": "state", "scene": 987654})).code == "no_such_scene"
    assert code_of(lambda: rt.execute({"op": "close", "scene": 987654})).code == "no_such_scene"
    login.close()
    assert code_of(lambda: login.send("emailChanged", "x")).code == "no_such_scene"
    assert code_of(lambda: login.view_model).code == "no_such_scene"
    login.close()  # idempotent on the Python side
    still_works(rt)


def test_bad_args(rt: yaia.Runtime) -> None:
    assert code_of(lambda: rt.open("example/login", {"email": 5})).code == "bad_args"
    still_works(rt)


def test_missing_action_type(rt: yaia.Runtime, login: yaia.Scene) -> None:
    exc = code_of(lambda: login.send({"payload": "x"}))
    assert exc.code == "missing_action_type"
    assert code_of(lambda: login.send({"type": 5})).code == "missing_action_type"
    assert login.seq == 0


def test_unknown_action(rt: yaia.Runtime, login: yaia.Scene) -> None:
    assert code_of(lambda: login.send("dance")).code == "unknown_action"
    assert code_of(lambda: login.send("EmailChanged", "x")).code == "unknown_action"
    assert login.seq == 0


def test_bad_payload(rt: yaia.Runtime, login: yaia.Scene) -> None:
    login.send("emailChanged", "kept@x")
    exc = code_of(lambda: login.send("emailChanged", 5))
    assert exc.code == "bad_payload"
    assert exc.at is not None and exc.at.startswith("/action")
    assert code_of(lambda: login.send("loginSucceeded", "x")).code == "bad_payload"
    feed = rt.open("example/feed")
    assert code_of(lambda: feed.send("loaded", {"items": 5})).code == "bad_payload"
    # a refused action changes nothing
    assert login.state["email"] == "kept@x"
    assert login.seq == 1


def test_effect_errors(rt: yaia.Runtime, login: yaia.Scene) -> None:
    assert code_of(lambda: rt.resolve(987654, result=1)).code == "no_such_effect"
    login.send("emailChanged", "a@b.c")
    login.send("passwordChanged", "pw")
    effect = login.send("submit").effects[0]
    rt.resolve(effect.id, error={"message": "first"})
    exc = code_of(lambda: rt.resolve(effect.id, result={"user": 1}))
    assert exc.code == "effect_already_resolved"
    assert login.view_model["error"] == "first"
    still_works(rt)


def test_bad_service_struct(rt: yaia.Runtime) -> None:
    lib = rt._lib
    tiny = ffi.YaiaService(1, b"tiny", None)
    assert raw(rt, lib.yaia_add_service(rt.handle, ctypes.byref(tiny)))["error"]["code"] == "bad_service"
    no_perform = ffi.YaiaService(ctypes.sizeof(ffi.YaiaService), b"noperform", None)
    assert raw(rt, lib.yaia_add_service(rt.handle, ctypes.byref(no_perform)))["error"]["code"] == "bad_service"
    unnamed = ffi.YaiaService(ctypes.sizeof(ffi.YaiaService), None, None)
    assert raw(rt, lib.yaia_add_service(rt.handle, ctypes.byref(unnamed)))["error"]["code"] == "bad_service"
    assert rt.services() == []
    still_works(rt)


def test_many_errors_then_work(rt: yaia.Runtime) -> None:
    scene = rt.open("example/login")
    for i in range(200):
        with pytest.raises(yaia.YaiaError):
            scene.send("emailChanged", i)
        with pytest.raises(yaia.YaiaError):
            rt.execute_text("{" * (i % 7))
    assert scene.send("emailChanged", "end@x").seq == 1
