"""The echo test plugin (Tests/plugins/echo.c): the completion rules from Python.

No example scene emits effects for the service "echo" (the scenes only ask
for auth.login and feed.fetch), so besides loading echo.so through the
runtime, these tests host the plugin's service themselves: they load echo.so
with ctypes, run its setup() with a host API table whose call_complete and
call_fail call the library's yaia_call_complete and yaia_call_fail (and
record what they return), and
register a forwarder as the "auth" service of the runtime that hands every
call to echo's perform() with the op and args the test chose. The library
then sees exactly what the plugin does: a complete inside perform(), a fail,
text that is not JSON, a second completion, a completion from another
thread. echo.c logs at error level whenever a completion returns anything
but the code yaia.h promises, so each test also checks that log.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any, Callable, Iterator, List, Tuple

import pytest

import yaia
from yaia import ffi
from conftest import HOST, WAIT, listed, login_ready, wait_event

YAIA_LOG_ERROR = 3
COMPLETE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)
ADD_SERVICE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ffi.YaiaService))
LOG = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p)
SET_ERROR = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p)


class HostApi(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("abi_version", ctypes.c_uint32),
        ("host_version", ctypes.c_char_p),
        ("add_service", ADD_SERVICE),
        ("call_complete", COMPLETE),
        ("call_fail", COMPLETE),
        ("log", LOG),
        ("set_error", SET_ERROR),
    ]


SETUP = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(HostApi), ctypes.c_char_p)


class Plugin(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("abi_version", ctypes.c_uint32),
        ("name", ctypes.c_char_p),
        ("version", ctypes.c_char_p),
        ("description", ctypes.c_char_p),
        ("setup", SETUP),
    ]


class Offer(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("abi_versions", ctypes.POINTER(ctypes.c_uint32)),
        ("abi_version_count", ctypes.c_size_t),
        ("host_version", ctypes.c_char_p),
    ]


class Echo:
    """echo.so's service, set up by this test and served as "auth" through a forwarder.

    Every completion the plugin makes passes ``gate`` (open unless a test
    shuts it) on its way to the library: a test holds a completion from
    echo's own thread there (``arrived`` is set) while it changes what the
    completion will meet."""

    def __init__(self, library: ctypes.CDLL, path: str) -> None:
        self.logs: List[Tuple[int, str]] = []
        self.returns: List[Tuple[str, int]] = []
        self.returned = threading.Event()
        self.gate = threading.Event()
        self.gate.set()
        self.arrived = threading.Event()
        self.registered: List[ffi.YaiaService] = []
        self.op = b"echo"
        self.args = b"null"
        self._keep: List[Any] = []

        def add_service(host: Any, service: Any) -> int:
            copy = ffi.YaiaService()
            ctypes.memmove(ctypes.byref(copy), service, ctypes.sizeof(ffi.YaiaService))
            self.registered.append(copy)
            return 0

        def recorder(name: str, fn: Any) -> Any:
            def call(pointer: Any, text: bytes) -> int:
                self.arrived.set()
                self.gate.wait(WAIT)
                rc: int = fn(pointer, text)
                self.returns.append((name, rc))
                self.returned.set()
                return rc

            return COMPLETE(call)

        def log(host: Any, level: int, message: bytes) -> None:
            self.logs.append((level, message.decode()))

        def set_error(host: Any, message: bytes) -> None:
            self.logs.append((YAIA_LOG_ERROR, "set_error: " + message.decode()))

        api = HostApi(
            ctypes.sizeof(HostApi),
            1,
            b"python-test",
            ADD_SERVICE(add_service),
            recorder("complete", library.yaia_call_complete),
            recorder("fail", library.yaia_call_fail),
            LOG(log),
            SET_ERROR(set_error),
        )
        self._keep.append(api)  # the plugin calls log() for as long as it lives
        plugin = ctypes.CDLL(path)
        plugin.yaia_plugin_init.restype = ctypes.POINTER(Plugin)
        plugin.yaia_plugin_init.argtypes = [ctypes.POINTER(Offer)]
        versions = (ctypes.c_uint32 * 1)(1)
        offer = Offer(ctypes.sizeof(Offer), versions, 1, b"python-test")
        descriptor = plugin.yaia_plugin_init(ctypes.byref(offer)).contents
        assert descriptor.name == b"echo"
        assert descriptor.setup(ctypes.c_void_p(1), ctypes.byref(api), b"{}") == 0
        (self.service,) = self.registered
        assert self.service.name == b"echo"

        def forward(ctx: Any, call: Any, op: bytes, args: bytes) -> None:
            self.service.perform(self.service.ctx, call, self.op, self.args)

        self.forwarder = ffi.YaiaService(ctypes.sizeof(ffi.YaiaService), b"auth", None, ffi.PERFORM(forward))

    def serve(self, runtime: yaia.Runtime) -> None:
        text = ffi.take_string(runtime._lib, runtime._lib.yaia_add_service(runtime.handle, ctypes.byref(self.forwarder)))
        assert text is not None and ffi.decode(text)["ok"] is True

    def release(self) -> None:
        self.gate.set()
        if self.service.release:
            self.service.release(self.service.ctx)  # joins echo's worker thread

    def errors(self) -> List[str]:
        return [message for level, message in self.logs if level >= YAIA_LOG_ERROR]


@pytest.fixture
def echo(library: ctypes.CDLL, test_plugin: Callable[[str], str]) -> Iterator[Echo]:
    host = Echo(library, test_plugin("echo"))
    yield host
    host.release()


@pytest.fixture
def echo_rt(echo: Echo, examples_pack: str) -> Iterator[yaia.Runtime]:
    with yaia.Runtime(scenes=[examples_pack], **HOST) as runtime:
        echo.serve(runtime)
        yield runtime


def submit(runtime: yaia.Runtime, echo: Echo, op: str, args: Any) -> yaia.Update:
    echo.op, echo.args = op.encode(), ffi.encode(args)
    scene = login_ready(runtime)
    sent = scene.send("submit")
    (effect,) = sent.effects
    assert effect.status == "running"
    event = wait_event(runtime)
    assert (event.event, event.effect, event.scene) == ("update", effect.id, scene.id)
    assert event.view_model["isSubmitting"] is False
    return event


USER = {"text": "h\u00e9llo \u2603 \U0001F600", "list": [1, 2.5, None, True, "\u0000"], "nested": {"a": {}}}


def test_echo_plugin_loads_through_runtime(test_plugin: Callable[[str], str]) -> None:
    with yaia.Runtime(plugins=[test_plugin("echo")], **HOST) as runtime:
        assert listed(runtime) == [{"name": "echo", "origin": "plugin", "plugin": "echo"}]
        description = runtime.load_plugin(test_plugin("dup_auth"))
        assert description["name"] == "dup_auth"


def test_echo_result_is_args(echo_rt: yaia.Runtime, echo: Echo) -> None:
    event = submit(echo_rt, echo, "echo", {"user": USER})
    assert event.routes == [{"args": {"user": USER}, "push": "example/home"}]
    assert echo.returns == [("complete", ffi.YAIA_OK)]
    assert echo.errors() == []


def test_fail_error_is_args(echo_rt: yaia.Runtime, echo: Echo) -> None:
    event = submit(echo_rt, echo, "fail", {"message": "asked to fail", "code": 7})
    assert event.view_model["error"] == "asked to fail"
    assert event.routes == []
    assert echo.returns == [("fail", ffi.YAIA_OK)]
    assert echo.errors() == []


def test_bad_json_result_fails_the_call(echo_rt: yaia.Runtime, echo: Echo) -> None:
    event = submit(echo_rt, echo, "bad", None)
    # the catch action ran: {"code": "bad_result", "message": ...} -> its message
    assert event.routes == []
    assert isinstance(event.view_model["error"], str) and event.view_model["error"] != "Login failed"
    assert echo.returns == [("complete", ffi.YAIA_ERR_JSON)]
    assert echo.errors() == []


def test_twice_delivers_once(echo_rt: yaia.Runtime, echo: Echo) -> None:
    event = submit(echo_rt, echo, "twice", {"user": 1})
    assert event.routes == [{"args": {"user": 1}, "push": "example/home"}]
    assert echo_rt.receive() is None  # both completions ran inside perform(), within the send
    assert echo.returns == [("complete", ffi.YAIA_OK), ("complete", ffi.YAIA_ERR_STALE)]
    assert echo.errors() == []


def test_later_from_another_thread(echo_rt: yaia.Runtime, echo: Echo) -> None:
    event = submit(echo_rt, echo, "later", {"user": "late"})
    assert event.routes == [{"args": {"user": "late"}, "push": "example/home"}]
    # The update is queued inside the completion: it can be received before echo's thread has returned.
    assert echo.returned.wait(WAIT)
    assert echo.returns == [("complete", ffi.YAIA_OK)]
    assert echo.errors() == []


def test_unknown_op(echo_rt: yaia.Runtime, echo: Echo) -> None:
    event = submit(echo_rt, echo, "dance", 1)
    assert event.view_model["error"] == "unknown op dance"
    assert echo.returns == [("fail", ffi.YAIA_OK)]
    assert echo.errors() == []


def test_later_then_runtime_freed(echo: Echo, examples_pack: str) -> None:
    runtime = yaia.Runtime(scenes=[examples_pack])
    echo.serve(runtime)
    echo.op, echo.args = b"later", b'{"user":1}'
    scene = login_ready(runtime)
    echo.gate.clear()  # echo's thread completes only once the runtime is gone
    scene.send("submit")
    assert echo.arrived.wait(WAIT)
    runtime.close()
    echo.gate.set()
    assert echo.returned.wait(WAIT)
    assert echo.returns == [("complete", ffi.YAIA_ERR_STALE)]  # not delivered, no crash
    assert echo.errors() == []


# ---------------------------------------------------------------- direct perform, through the loader


@pytest.fixture
def loaded(test_plugin: Callable[[str], str]) -> Iterator[yaia.Runtime]:
    with yaia.Runtime(plugins=[test_plugin("echo")], **HOST) as runtime:
        yield runtime


def test_perform_echo(loaded: yaia.Runtime) -> None:
    assert loaded.perform("echo", "echo", USER) == USER
    assert loaded.perform("echo", "echo") is None  # no args: "null"
    assert loaded.receive() is None  # a direct perform queues no event


def test_perform_fail(loaded: yaia.Runtime) -> None:
    with pytest.raises(yaia.YaiaError) as info:
        loaded.perform("echo", "fail", {"message": "asked", "n": [1]})
    assert info.value.code == "service_failed"
    assert info.value.detail == {"message": "asked", "n": [1]}


def test_perform_bad_result(loaded: yaia.Runtime) -> None:
    with pytest.raises(yaia.YaiaError) as info:
        loaded.perform("echo", "bad")
    assert info.value.code == "bad_result"


def test_perform_twice_and_later(loaded: yaia.Runtime) -> None:
    assert loaded.perform("echo", "twice", {"n": 2}) == {"n": 2}
    assert loaded.perform("echo", "later", {"n": 3}) == {"n": 3}


def test_perform_timeout(echo: Echo, examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack], clock="manual", **HOST) as runtime:
        echo.serve(runtime)
        echo.op, echo.args = b"later", b"1"
        echo.gate.clear()  # echo's thread holds its completion until the time-out has passed
        failures: List[yaia.YaiaError] = []

        def perform() -> None:
            try:
                runtime.perform("auth", "x", timeout=3)
            except yaia.YaiaError as error:
                failures.append(error)

        thread = threading.Thread(target=perform)
        thread.start()
        assert echo.arrived.wait(WAIT)  # the perform's deadline is set before the call is made
        assert runtime.advance(2.5) == 2.5
        assert thread.is_alive()
        runtime.advance(0.5)
        thread.join(WAIT)
        assert [f.code for f in failures] == ["timeout"]
        echo.gate.set()
        assert echo.returned.wait(WAIT)
        assert echo.returns == [("complete", ffi.YAIA_ERR_STALE)]  # too late: dropped
        echo.op, echo.args = b"echo", b'"still works"'
        assert runtime.perform("auth", "x") == "still works"
        assert echo.errors() == []


def test_perform_no_such_service(loaded: yaia.Runtime) -> None:
    with pytest.raises(yaia.YaiaError) as info:
        loaded.perform("nope", "x")
    assert info.value.code == "no_such_service"
    assert info.value.at == "/effect/service"


def test_perform_host_services(rt: yaia.Runtime) -> None:
    rt.add_service("sync", lambda op, args: {"op": op, "args": args})
    assert rt.perform("sync", "go", [1]) == {"op": "go", "args": [1]}

    def later(call: yaia.Call) -> None:
        threading.Thread(target=call.complete, args=({"late": call.args},)).start()

    rt.add_service("deferred", later, deferred=True)
    assert rt.perform("deferred", "x", 5) == {"late": 5}

    def refuse(op: str, args: Any) -> Any:
        raise yaia.ServiceError({"why": "no"})

    rt.add_service("refuse", refuse)
    with pytest.raises(yaia.YaiaError) as info:
        rt.perform("refuse", "x")
    assert info.value.code == "service_failed"
    assert info.value.detail == {"why": "no"}
