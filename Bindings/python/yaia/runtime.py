"""The Pythonic face of libyaia: Runtime, Scene, Update, host services."""

from __future__ import annotations

import asyncio
import collections
import copy
import ctypes
import enum
import itertools
import json
import json.encoder
import os
import threading
import time
import weakref
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, AsyncIterator, Callable, Deque, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Type, TypeVar, Union, cast

from . import ffi
from .errors import ServiceError, YaiaError
from .schema import SceneSchema

__all__ = [
    "Runtime",
    "Scene",
    "Flow",
    "Update",
    "Effect",
    "StackEntry",
    "FlowStack",
    "NavigationError",
    "Inspection",
    "ReplayResult",
    "Call",
    "ServiceFunction",
    "DeferredServiceFunction",
]


def _refuse(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _encode_python(value: Any, _indent: int) -> List[str]:
    return [ffi.encode(value).decode("utf-8")]


# What Runtime.logic calls on every rule, made once: CPython's C encoder
# (compact, UTF-8, no NaN) without the encoder object json makes per call,
# the response's value read by the C scanner, and yaia_execute_n answering
# with a c_char_p subclass, whose text is read without a call of string_at
# (a subclass keeps the pointer, to free).
_c_make_encoder = getattr(json.encoder, "c_make_encoder", None)
_encode_chunks: Callable[[Any, int], Sequence[str]] = (
    _c_make_encoder(None, _refuse, json.encoder.encode_basestring, None, ":", ",", False, False, False)
    if _c_make_encoder is not None else _encode_python)
_LOGIC_OK = '{"ok":true,"result":'
_scan_value: Callable[[str, int], Tuple[Any, int]] = getattr(json.JSONDecoder(), "scan_once")


class _Answer(ctypes.c_char_p):
    pass


def _logic_execute(lib: ctypes.CDLL) -> Callable[[Any, bytes], Optional[bytes]]:
    """A request's answer as bytes, in as few foreign calls as the library
    allows. It takes the handle as a c_void_p and the request as bytes."""
    if hasattr(lib, "yaia_execute_borrowed"):
        # A function object of its own, without argtypes: ctypes then passes
        # a c_void_p and bytes as they are, skipping a converter call for each.
        borrowed = lib["yaia_execute_borrowed"]
        setattr(borrowed, "argtypes", None)  # None is ctypes' "no converters", which typeshed does not list
        borrowed.restype = ctypes.c_char_p  # copies the answer, which stays the library's
        return cast(Callable[[Any, bytes], Optional[bytes]], borrowed)
    execute = lib["yaia_execute_n"]
    execute.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    execute.restype = _Answer

    def owned(handle: Any, text: bytes) -> Optional[bytes]:
        answer = execute(handle, text, len(text))
        try:
            value: Optional[bytes] = answer.value
            return value
        finally:
            lib.yaia_free(answer)

    return owned


#: Answers to logic requests that hold a constant, by their text.
_LOGIC_CONSTANTS: Dict[bytes, Any] = {b'{"ok":true,"result":%s}' % text: value
                                       for text, value in ((b"true", True), (b"false", False), (b"null", None))}


class _Missing(enum.Enum):
    MISSING = 0

    def __repr__(self) -> str:
        return "MISSING"


#: Marks an argument that was not given (None is a JSON value: null).
MISSING = _Missing.MISSING

PathLike = Union[str, "os.PathLike[str]"]
#: A plugin for Runtime(plugins=...): a path, or {"path": PATH, "config": {...}}.
PluginSpec = Union[PathLike, Mapping[str, Any]]
#: A deep-link item for Flow.link: a scene name (pushed, no args), or
#: {"scene": NAME, "args": {...}, "presentation": "push" | "present"}.
LinkItem = Union[str, Mapping[str, Any]]
#: fn(op, args) -> result (JSON-able); raising fails the call.
ServiceFunction = Callable[[str, Any], Any]
#: fn(call) -> None; completes the call now or later with call.complete / call.fail.
DeferredServiceFunction = Callable[["Call"], Any]
F = TypeVar("F", bound=Callable[..., Any])


# ---------------------------------------------------------------- values


@dataclass(frozen=True)
class Effect:
    """An effect a reduction emitted.

    ``status`` is ``"running"`` when a registered service performs it,
    ``"queued"`` when it waits its turn behind an effect with the same key
    (policy "queue"), and ``"pending"`` when it waits for
    :meth:`Runtime.resolve`. ``key`` is the reducer's cancellation key (its
    effect "id"), or None.
    """

    id: int
    service: str
    op: str
    args: Any
    status: str
    key: Optional[str] = None

    @property
    def pending(self) -> bool:
        return self.status == "pending"

    @staticmethod
    def from_raw(raw: Mapping[str, Any]) -> "Effect":
        return Effect(
            id=raw["id"],
            service=raw["service"],
            op=raw["op"],
            args=raw.get("args"),
            status=raw["status"],
            key=raw.get("key"),
        )


@dataclass(frozen=True)
class StackEntry:
    """One scene of a flow's stack, bottom to top.

    ``id`` is the scene's runtime id, ``scene`` its type name,
    ``presentation`` is ``"root"``, ``"push"`` or ``"present"`` (a modal layer
    starts there), ``on_result`` the action of the scene below that receives
    this scene's result (None when none was asked for), ``view_model`` what a
    UI renders for it.
    """

    id: int
    scene: str
    presentation: str
    view_model: Any = None
    on_result: Optional[str] = None

    @staticmethod
    def from_raw(raw: Mapping[str, Any]) -> "StackEntry":
        return StackEntry(
            id=raw["id"],
            scene=raw["scene"],
            presentation=raw["presentation"],
            view_model=raw.get("viewModel"),
            on_result=raw.get("onResult"),
        )


def _stack(raw: Any) -> List[StackEntry]:
    return [StackEntry.from_raw(e) for e in raw] if isinstance(raw, list) else []


@dataclass(frozen=True)
class NavigationError:
    """A route the flow refused (``code`` is usually ``"stale_navigation"``)."""

    route: Any
    code: str
    message: str
    error: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @staticmethod
    def from_raw(raw: Mapping[str, Any]) -> "NavigationError":
        error = raw.get("error")
        error = error if isinstance(error, dict) else {}
        return NavigationError(
            route=raw.get("route"),
            code=str(error.get("code", "internal")),
            message=str(error.get("message", "")),
            error=error,
        )


@dataclass(frozen=True)
class Update:
    """A scene update: the answer to open, send and resolve, or a received event.

    ``event`` is None for direct responses and ``"update"`` for events from
    :meth:`Runtime.receive`; ``effect`` is the id of the effect whose outcome
    caused the update (None otherwise); ``tag`` echoes the request's tag.
    ``raw`` is the response as the library sent it.

    In a flow: when the reduction changed the flow, ``flow``, ``version`` and
    ``stack`` describe it afterwards (None when it did not change);
    ``from_scene`` is the id of the popped scene whose result caused this
    update (a received event); ``navigation_errors`` lists routes the flow
    refused (a route from a scene that is not on top: ``stale_navigation``).
    """

    scene: int
    seq: int
    view_model: Any
    effects: List[Effect]
    routes: List[Any]
    event: Optional[str] = None
    effect: Optional[int] = None
    tag: Any = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    flow: Optional[int] = None
    version: Optional[int] = None
    stack: Optional[List[StackEntry]] = None
    from_scene: Optional[int] = None
    navigation_errors: Tuple[NavigationError, ...] = ()

    @staticmethod
    def from_raw(raw: Dict[str, Any]) -> "Update":
        # The hot path of every send: filling __dict__ directly is what the
        # frozen dataclass's __init__ does, at a third of the cost. Fields
        # left out read their defaults from the class.
        update = object.__new__(Update)
        update.__dict__.update(
            scene=raw["scene"],
            seq=raw["seq"],
            view_model=raw.get("viewModel"),
            effects=[Effect.from_raw(e) for e in raw.get("effects", ())],
            routes=raw.get("routes", []),
            raw=raw,
        )
        # A plain answer has exactly effects, ok, routes, scene, seq and
        # viewModel; events, tags and flow changes add members.
        if len(raw) > 6:
            stack = raw.get("stack")
            errors = raw.get("navigationErrors")
            update.__dict__.update(
                event=raw.get("event"),
                effect=raw.get("effect"),
                tag=raw.get("tag"),
                flow=raw.get("flow"),
                version=raw.get("version"),
                stack=None if stack is None else _stack(stack),
                from_scene=raw.get("from"),
                navigation_errors=() if errors is None else tuple(NavigationError.from_raw(e) for e in errors),
            )
        return update


@dataclass(frozen=True)
class FlowStack:
    """A flow's stack at one version: the answer to Flow.describe, popped and link."""

    flow: int
    version: int
    stack: List[StackEntry]
    tag: Any = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def names(self) -> List[str]:
        """The scene type names, bottom to top."""
        return [e.scene for e in self.stack]

    @property
    def top(self) -> StackEntry:
        return self.stack[-1]

    @property
    def depth(self) -> int:
        return len(self.stack)

    @staticmethod
    def from_raw(raw: Dict[str, Any]) -> "FlowStack":
        return FlowStack(flow=raw["flow"], version=raw["version"], stack=_stack(raw.get("stack")), tag=raw.get("tag"), raw=raw)


@dataclass(frozen=True)
class Inspection:
    """An inspection event (inspection on): what happened and why.

    ``kind`` is ``"action"`` (``scene``, ``seq``, ``action``), ``"effect"``
    (``scene``, ``effect``, ``request``: the effect as the reducer asked for
    it), ``"route"`` (``scene``, ``route``) or ``"flow"`` (``flow``,
    ``version``, ``stack``). Fields a kind does not carry are None.
    """

    kind: str
    scene: Optional[int] = None
    seq: Optional[int] = None
    action: Any = None
    effect: Optional[Effect] = None
    request: Any = None
    route: Any = None
    flow: Optional[int] = None
    version: Optional[int] = None
    stack: Optional[List[StackEntry]] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @staticmethod
    def from_raw(raw: Dict[str, Any]) -> "Inspection":
        effect = raw.get("effect")
        stack = raw.get("stack")
        return Inspection(
            kind=str(raw.get("event")),
            scene=raw.get("scene"),
            seq=raw.get("seq"),
            action=raw.get("action"),
            effect=Effect.from_raw(effect) if isinstance(effect, dict) else None,
            request=raw.get("request"),
            route=raw.get("route"),
            flow=raw.get("flow"),
            version=raw.get("version"),
            stack=None if stack is None else _stack(stack),
            raw=raw,
        )


#: What :meth:`Runtime.receive_event` returns.
Event = Union[Update, Inspection]


@dataclass(frozen=True)
class ReplayResult:
    """The answer to a replay of a journal.

    ``identical`` is True when every recomputed view model (and stack)
    matched its recorded digest; ``inputs`` counts the inputs re-run. When
    not identical, ``divergence`` describes the first difference:
    {"seq", "kind", "scene"?, "expected", "got", "viewModel"?} (or "error"
    when an input was refused). ``snapshot`` is the state reached, when the
    replay was asked to stop at a seq (``to=``).
    """

    identical: bool
    inputs: int
    divergence: Optional[Dict[str, Any]] = None
    snapshot: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @staticmethod
    def from_raw(raw: Dict[str, Any]) -> "ReplayResult":
        return ReplayResult(
            identical=raw.get("identical") is True,
            inputs=int(raw.get("inputs", 0)),
            divergence=raw.get("divergence"),
            snapshot=raw.get("snapshot"),
            raw=raw,
        )


# ---------------------------------------------------------------- host services
#
# The three C callbacks are module-level ctypes thunks that live as long as
# the process, so no call into them can ever land in freed trampoline memory.
# Each registered service gets a small integer as its ctx; the registry maps it
# to the Python side until the library calls release(). The registry lock is
# only held around dict operations, never while calling into the library.

_registry_lock = threading.Lock()
_registry: Dict[int, "_HostService"] = {}
_next_ctx = itertools.count(1)


def _error_value(exc: BaseException) -> Any:
    """The error a raising service delivers to the effect's catch action."""
    if isinstance(exc, ServiceError):
        return exc.error
    return {"message": str(exc), "type": type(exc).__name__}


def _encode_error(error: Any) -> bytes:
    try:
        return ffi.encode(error)
    except (TypeError, ValueError) as exc:
        return ffi.encode({"message": f"the service's error is not JSON: {exc}", "type": type(exc).__name__})


class Call:
    """One call of a deferred host service.

    ``op`` and ``args`` are the effect's. Complete it exactly once, from any
    thread, now or later, with :meth:`complete` or :meth:`fail`.
    """

    def __init__(self, service: "_HostService", pointer: int, op: str, args: Any) -> None:
        self.op = op
        self.args = args
        self._service = service
        self._pointer = pointer
        self._lock = threading.Lock()
        self._done = False
        self._cancelled = threading.Event()

    @property
    def service(self) -> str:
        return self._service.name

    @property
    def done(self) -> bool:
        """True once complete() or fail() was called."""
        return self._done

    @property
    def cancelled(self) -> bool:
        """True when the runtime no longer wants the outcome (scene closed, runtime freed)."""
        return self._cancelled.is_set()

    def complete(self, result: Any = None) -> bool:
        """Completes the call with ``result`` (JSON-able).

        Returns True when the outcome was delivered, False when the call was
        completed, cancelled or its runtime freed already. Raises ValueError or
        TypeError, leaving the call open, when ``result`` cannot be JSON.
        """
        data = ffi.encode(result)
        return self._finish(self._service.lib.yaia_call_complete, data)

    def fail(self, error: Any = None) -> bool:
        """Fails the call with ``error`` (JSON-able; usually {"message": ...}).

        Returns as :meth:`complete`.
        """
        data = ffi.encode(error)
        return self._finish(self._service.lib.yaia_call_fail, data)

    def _finish(self, fn: Callable[[int, bytes], int], data: bytes) -> bool:
        with self._lock:
            if self._done:
                return False
            self._done = True
        self._service.forget(self._pointer)
        return fn(self._pointer, data) == ffi.YAIA_OK

    def _cancel(self) -> None:
        self._cancelled.set()

    def __repr__(self) -> str:
        state = "done" if self._done else "cancelled" if self.cancelled else "open"
        return f"<yaia.Call {self._service.name}.{self.op} {state}>"


class _HostService:
    def __init__(self, lib: ctypes.CDLL, name: str, fn: Callable[..., Any], deferred: bool, blocking: bool) -> None:
        self.lib = lib
        self.name = name
        self.fn = fn
        self.deferred = deferred
        self.ctx = next(_next_ctx)
        self.calls: Dict[int, Call] = {}
        self.lock = threading.Lock()
        # Holds the name bytes (the struct keeps a reference) for the runtime's life.
        self.struct = ffi.YaiaService(
            ctypes.sizeof(ffi.YaiaService),
            name.encode("utf-8"),
            self.ctx,
            _PERFORM,
            _CANCEL,
            _RELEASE,
            ffi.YAIA_SERVICE_BLOCKING if blocking else 0,
        )

    def forget(self, pointer: int) -> None:
        with self.lock:
            self.calls.pop(pointer, None)

    def perform(self, pointer: int, op: str, args: Any) -> None:
        if self.deferred:
            call = Call(self, pointer, op, args)
            with self.lock:
                self.calls[pointer] = call
            try:
                self.fn(call)
            except BaseException as exc:  # noqa: BLE001 - never let it reach C
                if not call.done:
                    call._finish(self.lib.yaia_call_fail, _encode_error(_error_value(exc)))
            return
        try:
            result = self.fn(op, args)
            data = ffi.encode(result)
        except BaseException as exc:  # noqa: BLE001 - becomes the effect's error
            self.lib.yaia_call_fail(pointer, _encode_error(_error_value(exc)))
        else:
            self.lib.yaia_call_complete(pointer, data)

    def cancel(self, pointer: int) -> None:
        with self.lock:
            call = self.calls.pop(pointer, None)
        if call is not None:
            call._cancel()


def _perform(ctx: Optional[int], pointer: Optional[int], op: Optional[bytes], args_json: Optional[bytes]) -> None:
    try:
        with _registry_lock:
            service = _registry.get(ctx or 0)
        if service is None or not pointer:
            if pointer and ffi._lib is not None:
                ffi._lib.yaia_call_fail(pointer, b'{"message":"host service released"}')
            return
        op_text = (op or b"").decode("utf-8", "replace")
        args = ffi.decode(args_json) if args_json else None
        service.perform(pointer, op_text, args)
    except BaseException:  # noqa: BLE001 - last resort: a C callback must not raise
        if pointer and ffi._lib is not None:
            ffi._lib.yaia_call_fail(pointer, b'{"message":"host service crashed","type":"internal"}')


def _cancel(ctx: Optional[int], pointer: Optional[int]) -> None:
    try:
        with _registry_lock:
            service = _registry.get(ctx or 0)
        if service is not None and pointer:
            service.cancel(pointer)
    except BaseException:  # noqa: BLE001
        pass


def _release(ctx: Optional[int]) -> None:
    try:
        with _registry_lock:
            _registry.pop(ctx or 0, None)
    except BaseException:  # noqa: BLE001
        pass


_PERFORM = ffi.PERFORM(_perform)
_CANCEL = ffi.CANCEL(_cancel)
_RELEASE = ffi.RELEASE(_release)

# Notifiers work the same way: one eternal thunk, ctx keys a registry entry
# that lives until its runtime is freed (a late call then finds nothing).
_notifiers: Dict[int, Callable[[], Any]] = {}


def _notify(ctx: Optional[int]) -> None:
    with _registry_lock:
        fn = _notifiers.get(ctx or 0)
    if fn is not None:
        fn()  # an exception is reported by ctypes (sys.unraisablehook), not raised into C


_NOTIFY = ffi.NOTIFY(_notify)


# ---------------------------------------------------------------- runtime


def _plugin_entry(plugin: PluginSpec) -> Any:
    if isinstance(plugin, Mapping):
        entry = dict(plugin)
        if "path" in entry and not isinstance(entry["path"], str):
            entry["path"] = os.fspath(entry["path"])
        return entry
    return os.fspath(plugin)


def _free_runtime(lib: ctypes.CDLL, handle: int, services: List[_HostService], notifier: int) -> None:
    # `services` rides along only to stay alive until the runtime is freed.
    lib.yaia_runtime_free(handle)
    with _registry_lock:
        _notifiers.pop(notifier, None)
    del services


_C = TypeVar("_C", bound="_Closeable")


class _Closeable:
    """Runtime, Scene and Flow: ``with obj:`` calls ``obj.close()`` at the end."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self: _C) -> _C:
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.close()


class Runtime(_Closeable):
    """A Yaia runtime: scene catalog, open scenes, flows, services, event queue.

    ``plugins`` is a list of plugin paths (or {"path", "config"} mappings);
    ``config`` is the runtime configuration object (see yaia.h), to which the
    plugins are appended. The keywords set the configuration's other keys:
    ``scenes`` (paths of scene packs, docs/packs.md, of scene documents
    ending in ``.json`` and of folders of them, docs/scene-documents.md,
    whose scene types make the runtime's catalog: libyaia.so carries none,
    and the example scenes are in ``libyaia-examples.so``; appended to
    config's), ``workers`` (1 to 256), ``bind`` (a list of bindings,
    docs/ffi.md; appended to config's), ``inspect`` (queue inspection
    events), ``restore`` (a snapshot to start from, see :meth:`snapshot`)
    and ``journal`` (a file to record every input to). A keyword given in ``config`` too is a TypeError, except the
    lists ``plugins``, ``scenes`` and ``bind``, whose entries are appended.

    Requests are the untrusted path (docs/security.md): :meth:`bind`,
    :meth:`perform`, :meth:`snapshot`, :meth:`restore`, :meth:`rewind`,
    :meth:`journal`, :meth:`replay` and load_plugin raise
    YaiaError("not_permitted") unless ``allow`` grants them: ``"all"`` or a
    list of op names such as ``["snapshot", "restore"]``. Files those
    requests name must lie in one of the ``files`` directories. ``limits``
    sets the runtime's limits (``request_bytes``, ``depth``, ``events``,
    ``scenes``, ``reentry``); :meth:`limits` reports them. ``clock="manual"``
    runs the runtime's deadlines (effect and perform time-outs) on a clock
    that stands at 0 until :meth:`advance` moves it: time-outs are then
    tested without waiting.

    A pack that cannot be loaded raises YaiaError with a ``scene_pack_*``
    code (or ``duplicate_scene``) at "/scenes/N", and no runtime is made.

    ``validate`` (True by default) checks each action sent to a scene that
    declares its interface (a scene document) against the scene's schema
    before sending it (see :meth:`schema`): an action the runtime would
    refuse raises the same YaiaError ("unknown_action" at "/action/type",
    "bad_payload" at "/action/payload/...") without reaching the runtime.
    The runtime checks every action anyway; ``validate=False`` (here, or
    per call in ``send``) leaves it to the runtime alone.

    Use it as a context manager or call :meth:`close`; the handle is freed
    exactly once, at the latest when the object is collected. After close,
    every call raises YaiaError("bad_handle").
    """

    def __init__(
        self,
        plugins: Optional[Iterable[PluginSpec]] = None,
        config: Optional[Mapping[str, Any]] = None,
        *,
        scenes: Optional[Iterable[PathLike]] = None,
        workers: Optional[int] = None,
        bind: Optional[Iterable[Mapping[str, Any]]] = None,
        inspect: Optional[bool] = None,
        restore: Optional[Mapping[str, Any]] = None,
        journal: Optional[PathLike] = None,
        allow: Union[str, Iterable[str], None] = None,
        files: Optional[Iterable[PathLike]] = None,
        limits: Optional[Mapping[str, int]] = None,
        clock: Optional[str] = None,
        validate: bool = True,
    ) -> None:
        lib = ffi.load_library()
        self._lib = lib
        self._logic = _logic_execute(lib)
        data: Optional[bytes] = None
        keywords: Dict[str, Any] = {}
        if allow is not None or files is not None:
            grant: Dict[str, Any] = {}
            if allow is not None:
                grant["ops"] = allow if isinstance(allow, str) else list(allow)
            if files is not None:
                if isinstance(files, (str, bytes, os.PathLike)):
                    raise TypeError("Runtime() takes files= as a list of directories, not one path")
                grant["files"] = [os.fspath(f) for f in files]
            keywords["allow"] = grant
        if limits is not None:
            keywords["limits"] = dict(limits)
        if workers is not None:
            keywords["workers"] = workers
        if clock is not None:
            keywords["clock"] = clock
        if inspect is not None:
            keywords["inspect"] = inspect
        if restore is not None:
            keywords["restore"] = restore
        if journal is not None:
            keywords["journal"] = os.fspath(journal)
        if config is not None or plugins is not None or scenes is not None or bind is not None or keywords:
            cfg: Dict[str, Any] = dict(config) if config is not None else {}
            for key, value in keywords.items():
                if key in cfg:
                    raise TypeError(f"Runtime() got {key!r} both as a keyword and in config")
                cfg[key] = value
            if plugins is not None:
                given = cfg.get("plugins", [])
                listed = list(given) if isinstance(given, (list, tuple)) else [given]
                cfg["plugins"] = listed + [_plugin_entry(p) for p in plugins]
            if scenes is not None:
                if isinstance(scenes, (str, bytes, os.PathLike)):
                    raise TypeError("Runtime() takes scenes= as a list of paths, not one path")
                given = cfg.get("scenes", [])
                listed = list(given) if isinstance(given, (list, tuple)) else [given]
                cfg["scenes"] = listed + [os.fspath(p) for p in scenes]
            if bind is not None:
                given = cfg.get("bind", [])
                listed = list(given) if isinstance(given, (list, tuple)) else [given]
                cfg["bind"] = listed + [dict(b) for b in bind]
            data = ffi.encode(cfg)
        error = ctypes.c_void_p()
        handle = lib.yaia_runtime_new(data, ctypes.byref(error))
        if not handle:
            text = ffi.take_string(lib, error.value)
            if text is None:
                raise YaiaError("internal", "yaia_runtime_new failed and gave no error")
            raise YaiaError.from_envelope(ffi.decode(text))
        ffi.take_string(lib, error.value)  # NULL on success; free it if not
        self._handle: int = handle
        self._handle_arg = ctypes.c_void_p(handle)
        self._services: List[_HostService] = []
        self._notifier = next(_next_ctx)
        # Inspection events receive() passed over, for receive_event().
        self._inspections: Deque[Inspection] = collections.deque()
        self._inspections_lock = threading.Lock()
        #: Whether sends check actions against the scene's schema first.
        self.validate = validate
        # Schemas by scene type name (a name keeps its type until a restore
        # or a rewind), and the Scene subclasses that document declared types.
        self._schemas: Dict[str, SceneSchema] = {}
        self._schema_op = True  # False once the library said it has no "schema" op
        self._scene_types: Dict[str, Type[Scene]] = {}
        self._finalizer = weakref.finalize(self, _free_runtime, lib, handle, self._services, self._notifier)

    # -- life

    @property
    def handle(self) -> int:
        """The yaia_runtime * handle, for calling the library directly (yaia.ffi)."""
        return self._handle

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def close(self) -> None:
        """Frees the runtime (closes its scenes, cancels its calls). Idempotent."""
        self._finalizer()

    def __repr__(self) -> str:
        if "_finalizer" not in self.__dict__:
            return "<yaia.Runtime (not created)>"
        return f"<yaia.Runtime {'closed' if self.closed else hex(self._handle)}>"

    # -- requests

    def _answer(self, ptr: Optional[int]) -> Dict[str, Any]:
        text = ffi.take_string(self._lib, ptr)
        if text is None:
            raise YaiaError("internal", "the library returned NULL")
        response = ffi.decode(text)
        if not isinstance(response, dict) or response.get("ok") is not True:
            raise YaiaError.from_envelope(response if isinstance(response, dict) else {})
        return response

    def execute_text(self, request: Union[str, bytes]) -> Dict[str, Any]:
        """Performs a request given as JSON text, as is; raises on an error envelope."""
        data = request.encode("utf-8") if isinstance(request, str) else bytes(request)
        return self._answer(self._lib.yaia_execute_n(self._handle, data, len(data)))

    def execute(self, request: Mapping[str, Any]) -> Dict[str, Any]:
        """Performs one request (see yaia.h); returns the response, raises YaiaError on failure."""
        data = ffi.encode(request)
        return self._answer(self._lib.yaia_execute_n(self._handle, data, len(data)))

    def open(
        self,
        scene: str,
        args: Optional[Mapping[str, Any]] = None,
        *,
        state: Optional[Mapping[str, Any]] = None,
        tag: Any = MISSING,
    ) -> "Scene":
        """Opens a scene of type ``scene`` (for example "example/login").

        ``args`` are its open arguments. ``state`` opens it in that state
        instead (as a snapshot restores a scene; its ``seq`` is 0): a state
        the scene refuses raises YaiaError "bad_state" whose ``at`` points
        into it ("/state/..."). ``args`` and ``state`` together are a
        TypeError, raised before anything is sent. Scene types come from the
        runtime's scene packs (``Runtime(scenes=...)``); another name raises
        "unknown_scene".
        """
        if args is not None and state is not None:
            raise TypeError("open() takes args= or state=, not both")
        request: Dict[str, Any] = {"op": "open", "scene": scene}
        if args is not None:
            request["args"] = args
        if state is not None:
            request["state"] = state
        if tag is not MISSING:
            request["tag"] = tag
        update = Update.from_raw(self.execute(request))
        return self._scene_type(scene)(self, update.scene, scene, update)

    def resolve(self, effect_id: int, result: Any = MISSING, error: Any = MISSING, *, tag: Any = MISSING) -> Update:
        """Gives a pending effect its outcome: ``result=`` or ``error=`` (exactly one)."""
        if (result is MISSING) == (error is MISSING):
            raise TypeError("resolve() takes exactly one of result= and error=")
        request: Dict[str, Any] = {"op": "resolve", "effect": effect_id}
        if result is not MISSING:
            request["result"] = result
        else:
            request["error"] = error
        if tag is not MISSING:
            request["tag"] = tag
        return Update.from_raw(self.execute(request))

    def receive(self, timeout: Optional[float] = 0) -> Optional[Update]:
        """The next queued update event, or None when none arrived within ``timeout`` seconds.

        0 returns at once; None waits until an event arrives or the runtime is
        closed. The wait happens in C with the GIL released. An event for an
        outcome or a result the scene refused raises YaiaError (its
        ``envelope`` carries "event": "error", "scene", and "effect" or
        "from"). Inspection events met on the way are kept, in order, for
        :meth:`receive_event`.
        """
        seconds = -1.0 if timeout is None else float(timeout)
        deadline = None if seconds < 0 else time.monotonic() + seconds
        while True:
            seconds = -1.0 if deadline is None else max(0.0, deadline - time.monotonic())
            ptr = self._lib.yaia_receive(self._handle, seconds)
            if not ptr:
                return None
            response = self._answer(ptr)
            kind = response.get("event")
            if kind is None or kind == "update":
                return Update.from_raw(response)
            with self._inspections_lock:
                self._inspections.append(Inspection.from_raw(response))

    async def next_update(self, timeout: Optional[float] = None) -> Optional[Update]:
        """Awaits the next update event without blocking the event loop.

        Installs a notifier (replacing any set with :meth:`set_notifier`) that
        wakes the running loop with ``call_soon_threadsafe`` whenever an event
        is queued, so nothing polls. Returns None if ``timeout`` seconds pass
        first (None: no limit). Errors as :meth:`receive`.
        """
        loop = asyncio.get_running_loop()
        ready = asyncio.Event()
        self.set_notifier(lambda: loop.call_soon_threadsafe(ready.set))
        try:
            deadline = None if timeout is None else loop.time() + timeout
            while True:
                update = self.receive(0)
                if update is not None:
                    return update
                remaining = None if deadline is None else deadline - loop.time()
                if remaining is not None and remaining <= 0:
                    return None
                try:
                    await asyncio.wait_for(ready.wait(), remaining)
                except asyncio.TimeoutError:
                    return self.receive(0)
                ready.clear()
        finally:
            self.set_notifier(None)

    async def updates(self) -> "AsyncIterator[Update]":
        """Update events as they come: ``async for update in rt.updates(): ...``"""
        while True:
            update = await self.next_update()
            if update is None:
                return
            yield update

    def receive_event(self, timeout: Optional[float] = 0) -> Optional[Event]:
        """The next queued event of any kind: an :class:`Update`, or an
        :class:`Inspection` while inspection is on (see :meth:`inspect`).

        Events come in queue order (inspection events :meth:`receive` passed
        over first). Timeouts and errors as :meth:`receive`.
        """
        with self._inspections_lock:
            if self._inspections:
                return self._inspections.popleft()
        seconds = -1.0 if timeout is None else float(timeout)
        ptr = self._lib.yaia_receive(self._handle, seconds)
        if not ptr:
            return None
        response = self._answer(ptr)
        kind = response.get("event")
        if kind is None or kind == "update":
            return Update.from_raw(response)
        return Inspection.from_raw(response)

    def inspect(self, on: bool = True) -> None:
        """Turns inspection events on or off (see :class:`Inspection`)."""
        self.execute({"op": "inspect", "on": bool(on)})

    def perform(
        self,
        service: str,
        op: str,
        args: Any = MISSING,
        *,
        timeout: Optional[float] = None,
        tag: Any = MISSING,
    ) -> Any:
        """Performs one effect outside any scene, waits for it and returns its result.

        Blocks (in C, GIL released) until the service completes the call or
        ``timeout`` seconds pass (the library's default when None). A failed
        call raises YaiaError "service_failed" whose ``detail`` is the
        service's error; also "bad_result", "timeout", "no_such_service".
        Do not call it from inside a service of the same runtime.
        """
        effect: Dict[str, Any] = {"service": service, "op": op}
        if args is not MISSING:
            effect["args"] = args
        if timeout is not None:
            effect["timeout"] = timeout
        request: Dict[str, Any] = {"op": "perform", "effect": effect}
        if tag is not MISSING:
            request["tag"] = tag
        return self.execute(request).get("result")

    def bind(
        self,
        service: str,
        library: str,
        ops: Mapping[str, Any],
        *,
        blocking: bool = False,
        free: Optional[str] = None,
    ) -> List[str]:
        """Binds C functions of a shared library as the ops of a service (docs/ffi.md).

        ``ops`` maps op names to signatures ("double(double,double)") or to
        {"symbol", "signature", "free"}. Returns the bound op names.
        """
        request: Dict[str, Any] = {"op": "bind", "service": service, "library": library, "ops": ops}
        if blocking:
            request["blocking"] = True
        if free is not None:
            request["free"] = free
        bound: List[str] = self.execute(request)["ops"]
        return bound

    # -- flows

    def start(
        self,
        scene: str,
        args: Optional[Mapping[str, Any]] = None,
        *,
        name: Optional[str] = None,
        tag: Any = MISSING,
    ) -> "Flow":
        """Starts a flow whose root is a new scene of type ``scene``.

        ``name`` names the flow (for people and snapshots). The root's open
        update is :attr:`Flow.started`.
        """
        request: Dict[str, Any] = {"op": "start", "scene": scene}
        if name is not None:
            request["flow"] = name
        if args is not None:
            request["args"] = args
        if tag is not MISSING:
            request["tag"] = tag
        update = Update.from_raw(self.execute(request))
        if update.flow is None:
            raise YaiaError("internal", "start answered without a flow id", envelope=update.raw)
        return Flow(self, update.flow, name, update)

    def flow(self, flow_id: int) -> "Flow":
        """A :class:`Flow` for a flow that is open already (restored, say).

        Raises YaiaError "no_such_flow" when there is none.
        """
        self.execute({"op": "flow", "flow": flow_id})
        name: Optional[str] = None
        for f in self.scenes().get("flows", []):
            if f.get("id") == flow_id:
                name = f.get("name")
        return Flow(self, flow_id, name, None)

    # -- snapshots and the journal

    def snapshot(self) -> Dict[str, Any]:
        """The whole runtime as one JSON-able document (format "yaia.snapshot/1"):
        scenes with their states, flows, effects in flight, id counters."""
        snapshot: Dict[str, Any] = self.execute({"op": "snapshot"})["snapshot"]
        return snapshot

    def restore(self, snapshot: Mapping[str, Any]) -> Dict[str, Any]:
        """Replaces everything open with the snapshot's scenes, flows and effects.

        Returns {"scenes": [{"id", "name", "viewModel"}, ...] (as restored,
        before cancelled effects are delivered), "flows": [ID, ...],
        "effects": {"reissued", "cancelled", "awaiting"}}. Each effect in
        flight follows its own restore policy: reissue (performed again),
        cancel (its catch action gets {"code": "interrupted"}) or await (left
        pending for :meth:`resolve`). A snapshot the library cannot use raises
        YaiaError "bad_snapshot", and nothing changes.
        """
        response = self.execute({"op": "restore", "snapshot": snapshot})
        self._forget_schemas()
        response.pop("ok", None)
        return response

    def journal(
        self,
        start: Optional[PathLike] = None,
        *,
        stop: bool = False,
        flush: bool = False,
    ) -> Dict[str, Any]:
        """Controls the journal: exactly one of ``start=PATH`` (truncates the
        file; its first line is a snapshot), ``stop=True`` (flushes, stops) or
        ``flush=True`` (writes what is queued).

        Returns {"journal": PATH or None, "inputs": N (stop, flush)}.
        """
        if (start is not None) + bool(stop) + bool(flush) != 1:
            raise TypeError("journal() takes exactly one of start=PATH, stop=True and flush=True")
        request: Dict[str, Any] = {"op": "journal"}
        if start is not None:
            request["start"] = os.fspath(start)
        elif stop:
            request["stop"] = True
        else:
            request["flush"] = True
        response = self.execute(request)
        response.pop("ok", None)
        return response

    def rewind(self, seq: int) -> Dict[str, Any]:
        """Restores the state right after input ``seq`` of the active journal.

        Needs an active journal (else YaiaError "bad_journal"); the rewind is
        journaled as a restore. Returns what :meth:`restore` returns, plus "to".
        """
        response = self.execute({"op": "rewind", "to": seq})
        self._forget_schemas()
        response.pop("ok", None)
        return response

    def replay(self, journal: PathLike, to: Optional[int] = None) -> ReplayResult:
        """Re-runs a journal in a scratch runtime (no services: outcomes come
        from the journal) and compares every view model with its digest.

        With ``to``, stops after that input; :attr:`ReplayResult.snapshot` is
        then the state reached. This runtime is only used for its catalog.
        """
        request: Dict[str, Any] = {"op": "replay", "journal": os.fspath(journal)}
        if to is not None:
            request["to"] = to
        return ReplayResult.from_raw(self.execute(request))

    def scenario(self, scenario: Union[PathLike, Mapping[str, Any]], base: Optional[PathLike] = None) -> Dict[str, Any]:
        """Runs a scenario (a ``*.scenario.json`` file, docs/testing.md) and
        returns the answer: {"name", "passed", "steps", "failure"?}.

        ``scenario`` is the scenario itself (a mapping) or the path of its
        file, which the runtime reads (subject to the ``files`` grant).
        ``base`` is the folder its ``scenes`` paths start from (default: the
        file's folder; for a mapping, the working directory). The scenario
        runs in a runtime of its own, on a manual clock and without
        services, with this runtime's scene types plus its own ``scenes``;
        only its ``perform`` steps use this runtime's services (and need
        the grant ``allow=["perform"]``).

        A scenario that ran and failed is an answer, not an exception: its
        ``passed`` is False and its ``failure`` says where, with ``text``, a
        readable diff naming the step and each JSON Pointer. A malformed
        scenario raises YaiaError "bad_scenario", whose ``problems`` lists
        every fault.
        """
        request: Dict[str, Any] = {"op": "scenario"}
        if isinstance(scenario, Mapping):
            request["scenario"] = dict(scenario)
        else:
            request["path"] = os.fspath(scenario)
        if base is not None:
            request["base"] = os.fspath(base)
        response = self.execute(request)
        response.pop("ok", None)
        return response

    def simulate(
        self,
        scene: str,
        *,
        runs: Optional[int] = None,
        seed: Optional[int] = None,
        steps: Optional[int] = None,
        args: Optional[Mapping[str, Any]] = None,
        env: Optional[Mapping[str, Any]] = None,
        scenes: Optional[Iterable[PathLike]] = None,
        base: Optional[PathLike] = None,
    ) -> Dict[str, Any]:
        """Drives scene type ``scene`` (a scene document) with random valid
        actions and effect outcomes, checking its invariants after every
        step (docs/simulation.md).

        ``runs`` sequences of at most ``steps`` steps each, drawn from
        ``seed`` (the same seed, the same answer); each run opens the scene
        with ``args`` and ``env``; None leaves the request's default.
        ``scenes`` adds packs, documents or folders (relative to ``base``,
        inside the ``files`` grant) to this runtime's scene types. Returns
        {"passed": True, "runs", "invariants"}, or on a broken invariant
        {"passed": False, "run", "seed", "invariant", "message", "steps",
        "found", "invariants", "scenario"}, where ``scenario`` is the failing
        run shrunk to a short scenario that :meth:`scenario` runs again.
        """
        request: Dict[str, Any] = {"op": "simulate", "scene": scene}
        for key, value in (("runs", runs), ("seed", seed), ("steps", steps), ("args", args), ("env", env)):
            if value is not None:
                request[key] = dict(value) if isinstance(value, Mapping) else value
        if scenes is not None:
            if isinstance(scenes, (str, bytes, os.PathLike)):
                raise TypeError("simulate() takes scenes= as a list of paths, not one path")
            request["scenes"] = [os.fspath(p) for p in scenes]
        if base is not None:
            request["base"] = os.fspath(base)
        response = self.execute(request)
        response.pop("ok", None)
        return response

    def scenes(self) -> Dict[str, Any]:
        """{"scenes": [{"id", "name", "seq"}, ...], "types": [NAME, ...],
        "packs": [{"name", "version", "path", "scenes"}, ...],
        "flows": [{"id", "name"?, "version", "depth"}, ...]}."""
        response = self.execute({"op": "scenes"})
        response.pop("ok", None)
        return response

    def logic(self, rule: Any, data: Any = None) -> Any:
        """The value of the JSON Logic ``rule`` for ``data`` (docs/logic.md).

        Raises YaiaError "bad_rule" (``at`` points into the rule, "/rule/..."),
        "logic_budget_exceeded" or "logic_error"; values JSON cannot hold
        raise as :meth:`execute` raises them, before anything is sent.
        """
        try:
            text = ('{"op":"logic","rule":%s,"data":%s}' % ("".join(_encode_chunks(rule, 0)), "".join(_encode_chunks(data, 0)))).encode()
        except (ValueError, TypeError, RecursionError):
            ffi.encode({"op": "logic", "rule": rule, "data": data})  # raises the binding's usual error
            raise
        raw = self._logic(self._handle_arg, text)
        if raw is None:
            raise YaiaError("internal", "the library returned NULL")
        constant = _LOGIC_CONSTANTS.get(raw, _LOGIC_CONSTANTS)
        if constant is not _LOGIC_CONSTANTS:
            return constant
        response = raw.decode()
        # {"ok":true,"result":VALUE}: keys come sorted, so VALUE is read in place.
        if response.startswith(_LOGIC_OK):
            value, end = _scan_value(response, len(_LOGIC_OK))
            if end == len(response) - 1:
                return value
        envelope = ffi.decode(raw)
        raise YaiaError.from_envelope(envelope if isinstance(envelope, dict) else {})

    # -- scene types

    def schema(self, scene: str) -> Dict[str, Any]:
        """The interface of scene type ``scene``: {"scene": NAME, "declared":
        BOOL, "schema": SCHEMA}.

        SCHEMA is a JSON Schema (draft 2020-12) whose ``$defs`` describe the
        scene's ``args``, ``state``, ``action`` (one alternative per action
        type, with its payload), ``effect``, ``route`` and ``viewModel``.
        "declared" is True for a scene document; Swift and pack scenes
        declare nothing, and their schema takes any action. Asked of the
        runtime once per name (a name keeps its type until a restore or a
        rewind); each call returns a copy. Raises YaiaError "unknown_scene"
        for a name the catalog does not have.
        """
        schema = self._scene_schema(scene)
        return {"scene": schema.scene, "declared": schema.declared, "schema": copy.deepcopy(schema.schema)}

    def register(self, document: Mapping[str, Any]) -> str:
        """Adds the scene document ``document`` (docs/scene-documents.md) to
        the catalog; returns its scene type's name.

        A privileged request: it needs the grant ``allow=["register"]``
        (else YaiaError "not_permitted"). A document with problems raises
        YaiaError "bad_document", whose ``problems`` lists every one
        ({"code", "message", "at"}, ``at`` pointing into the document); a
        name the catalog has already raises "duplicate_scene".
        """
        name: str = self.execute({"op": "register", "document": dict(document)})["scene"]
        return name

    def _scene_schema(self, scene: str) -> SceneSchema:
        schema = self._schemas.get(scene)
        if schema is None:
            schema = SceneSchema(self.execute({"op": "schema", "scene": scene}))
            self._schemas[scene] = schema
        return schema

    def _forget_schemas(self) -> None:
        # A snapshot carries the documents registered when it was taken.
        self._schemas.clear()
        self._scene_types.clear()

    def _declared(self, scene: str) -> Optional[SceneSchema]:
        """The schema of ``scene`` when it declares its interface, else None
        (also when the library cannot say: then the runtime checks alone)."""
        schema = self._schemas.get(scene)
        if schema is None:
            if not self._schema_op:
                return None
            try:
                schema = self._scene_schema(scene)
            except YaiaError as exc:
                if exc.code == "unknown_op":
                    self._schema_op = False
                return None
        return schema if schema.declared else None

    def _scene_type(self, scene: str) -> Type["Scene"]:
        """The class of scenes of type ``scene``: for a declared type, a
        subclass of Scene made once, whose docstring lists its actions, so
        that help(scene) shows them."""
        cls = self._scene_types.get(scene)
        if cls is not None:
            return cls
        schema = self._declared(scene)
        if schema is None:
            return Scene
        label = f"Scene[{scene!r}]"
        cls = type(label, (Scene,), {"__doc__": schema.doc(), "__module__": Scene.__module__, "__qualname__": label})
        self._scene_types[scene] = cls
        return cls

    def limits(self) -> Dict[str, Any]:
        """``{"limits": {...}, "allow": {...}, "usage": {"events", "dropped", "scenes"}}``."""
        response = self.execute({"op": "limits"})
        return {k: response[k] for k in ("limits", "allow", "usage")}

    def advance(self, seconds: float) -> float:
        """Moves a manual clock (``Runtime(clock="manual")``) forward; the
        time-outs it passes fire, their updates queued, before it returns.
        Returns the clock's new time. YaiaError("not_permitted") on the
        system clock."""
        response = self.execute({"op": "advance", "seconds": seconds})
        now: float = response["now"]
        return now

    def services(self) -> List[Dict[str, Any]]:
        """The registered services: [{"name", "origin", "plugin"?}, ...]."""
        services: List[Dict[str, Any]] = self.execute({"op": "services"})["services"]
        return services

    def load_plugin(self, path: PathLike, config: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        """Loads a plugin; returns its description {"abi", "name", "path", "services", "version"}."""
        request: Dict[str, Any] = {"op": "load_plugin", "path": os.fspath(path)}
        if config is not None:
            request["config"] = config
        plugin: Dict[str, Any] = self.execute(request)["plugin"]
        return plugin

    # -- host services

    def add_service(self, name: str, fn: Callable[..., Any], deferred: bool = False, blocking: bool = False) -> str:
        """Registers a host service named ``name``.

        Plain: ``fn(op, args)`` returns the result or raises (the error becomes
        {"message": str(exc), "type": class name}, or ``exc.error`` for a
        :class:`yaia.ServiceError`). Deferred: ``fn(call)`` completes the
        :class:`Call` now or later, from any thread. ``fn`` runs on the thread
        that caused the effect (the one sending, resolving or completing), or
        with ``blocking=True`` on the runtime's worker pool, so that a slow
        ``fn`` (disk, network) does not hold up the sender.
        """
        service = _HostService(self._lib, name, fn, deferred, blocking)
        with _registry_lock:
            _registry[service.ctx] = service
        try:
            response = self._answer(self._lib.yaia_add_service(self._handle, ctypes.byref(service.struct)))
        except BaseException:
            with _registry_lock:
                _registry.pop(service.ctx, None)
            raise
        self._services.append(service)
        registered: str = response.get("service", name)
        return registered

    def service(self, name: str, *, deferred: bool = False, blocking: bool = False) -> Callable[[F], F]:
        """Decorator form of :meth:`add_service`::

        @rt.service("feed")
        def feed(op, args): return {"items": [...]}
        """

        def register(fn: F) -> F:
            self.add_service(name, fn, deferred=deferred, blocking=blocking)
            return fn

        return register

    def set_notifier(self, fn: Optional[Callable[[], Any]]) -> None:
        """Calls ``fn()`` each time an event is queued for :meth:`receive`.

        ``fn`` runs on the thread that queued the event (a plugin's, a worker's,
        or one inside send) and should only wake the host's loop, e.g.
        ``loop.call_soon_threadsafe(...)``. None removes it; a new one replaces
        the old. Needs a library with yaia_set_notifier (NotImplementedError
        otherwise).
        """
        setter = getattr(self._lib, "yaia_set_notifier", None)
        if setter is None or setter.argtypes is None:
            raise NotImplementedError("this libyaia.so has no yaia_set_notifier")
        with _registry_lock:
            if fn is None:
                _notifiers.pop(self._notifier, None)
            else:
                _notifiers[self._notifier] = fn
        rc = setter(self._handle, _NOTIFY if fn is not None else ffi.NOTIFY(), self._notifier)
        if rc != ffi.YAIA_OK:
            with _registry_lock:
                _notifiers.pop(self._notifier, None)
            raise YaiaError("bad_handle", "the runtime is closed")


class _RuntimeObject(_Closeable):
    """Scene and Flow: an ``id`` in ``runtime``, closed at most once."""

    runtime: Runtime
    id: int
    _closed: bool

    def _close(self, kind: str) -> None:
        """Sends {"op": "close", kind: id} the first time; once the runtime is
        freed there is nothing to send (freeing it closed everything)."""
        if self._closed:
            return
        self._closed = True
        if self.runtime.closed:
            return  # freeing the runtime closed it
        self.runtime.execute({"op": "close", kind: self.id})


class Scene(_RuntimeObject):
    """An open scene. ``id`` is its runtime id, ``name`` its type, ``opened`` the open update.

    A scene of a type that declares its interface (a scene document) is an
    instance of a subclass made for its type, whose docstring lists its
    actions and their payloads: ``help(scene)`` shows them, and
    :attr:`actions` maps them.
    """

    def __init__(self, runtime: Runtime, scene_id: int, name: str, opened: Update) -> None:
        self.runtime = runtime
        self.id = scene_id
        self.name = name
        self.opened = opened
        self._closed = False
        self._send_prefix = b'{"op":"send","scene":%d,"action":' % scene_id

    def send(
        self,
        action: Union[str, Mapping[str, Any]],
        payload: Any = MISSING,
        *,
        error: bool = False,
        meta: Any = MISSING,
        tag: Any = MISSING,
        validate: Optional[bool] = None,
    ) -> Update:
        """Reduces an action: ``send("emailChanged", "a@b.c")`` or ``send({"type": ...})``.

        For a scene that declares its interface, the action is checked
        against the scene's schema first (``validate``: True or False for
        this call; None follows ``Runtime(validate=...)``). An action the
        runtime would refuse raises the YaiaError it would raise
        ("unknown_action" at "/action/type", with the nearest action type,
        or "bad_payload" at "/action/payload/...") and is not sent.
        """
        check = self._refusal if (self.runtime.validate if validate is None else validate) else None
        return _send(self.runtime, self._send_prefix, action, payload, error, meta, tag, check)

    def _refusal(self, action: Mapping[str, Any]) -> Optional[YaiaError]:
        """The error the runtime would refuse ``action`` with, by the schema."""
        schema = self.runtime._declared(self.name)
        refusal = schema.check(action) if schema is not None else None
        if refusal is None:
            return None
        # Restoring a snapshot may have given this id to a scene of another
        # type: refuse only by the type the scene has now.
        try:
            now = self.runtime.execute({"op": "state", "scene": self.id}).get("name")
        except YaiaError:
            return None  # no such scene any more: the runtime says so
        if now == self.name:
            return refusal
        other = self.runtime._declared(now) if isinstance(now, str) else None
        return other.check(action) if other is not None else None

    @property
    def actions(self) -> Dict[str, Any]:
        """Action type -> the JSON Schema of its payload (``{}``: any
        payload, or none), for a scene that declares its interface; empty
        for Swift and pack scenes, which take any action."""
        schema = self.runtime._declared(self.name)
        return copy.deepcopy(schema.payloads()) if schema is not None else {}

    def _snapshot(self) -> Dict[str, Any]:
        return self.runtime.execute({"op": "state", "scene": self.id})

    @property
    def view_model(self) -> Any:
        """The current view model (asked of the runtime each time)."""
        return self._snapshot()["viewModel"]

    @property
    def state(self) -> Any:
        """The current state (asked of the runtime each time)."""
        return self._snapshot()["state"]

    @property
    def seq(self) -> int:
        """The number of reductions so far."""
        seq: int = self._snapshot()["seq"]
        return seq

    def close(self) -> None:
        """Closes the scene; calls its services perform are cancelled. Idempotent."""
        self._close("scene")

    def __repr__(self) -> str:
        return f"<yaia.Scene {self.name} #{self.id}{' closed' if self._closed else ''}>"


def _send(
    runtime: Runtime,
    prefix: bytes,
    action: Union[str, Mapping[str, Any]],
    payload: Any,
    error: bool,
    meta: Any,
    tag: Any,
    check: Optional[Callable[[Mapping[str, Any]], Optional[YaiaError]]],
) -> Update:
    """Scene.send and Flow.send: ``prefix`` is the request up to its action;
    ``check`` returns the error to raise instead of sending, if any."""
    if isinstance(action, Mapping):
        if payload is not MISSING or error or meta is not MISSING:
            raise TypeError("send(action_dict) takes no payload, error or meta: put them in the dict")
        body: Any = action
    else:
        body = {"type": action}
        if payload is not MISSING:
            body["payload"] = payload
        if error:
            body["error"] = True
        if meta is not MISSING:
            body["meta"] = meta
    # {"op":"send","scene"|"flow":ID,"action":ACTION[,"tag":TAG]}, the constant part encoded once.
    data = prefix + ffi.encode(body)
    if tag is not MISSING:
        data += b',"tag":' + ffi.encode(tag)
    if check is not None:
        refusal = check(body)  # after encoding: what cannot be JSON fails as it always did
        if refusal is not None:
            if tag is not MISSING:
                refusal.envelope["tag"] = tag
            raise refusal
    return Update.from_raw(runtime._answer(runtime._lib.yaia_execute_n(runtime._handle, data + b"}", len(data) + 1)))


class Flow(_RuntimeObject):
    """A flow: a navigation stack of scenes whose routes the runtime applies.

    ``id`` is its runtime id, ``name`` the name it was started with (or
    None), ``started`` the root scene's open update (None for a flow taken
    with :meth:`Runtime.flow`). Actions go to the scene on top; the stack is
    asked of the runtime on each read of :attr:`stack`, :attr:`version` and
    :attr:`top`. Use it as a context manager or call :meth:`close`.
    """

    def __init__(self, runtime: Runtime, flow_id: int, name: Optional[str], started: Optional[Update]) -> None:
        self.runtime = runtime
        self.id = flow_id
        self.name = name
        self.started = started
        self._closed = False
        self._send_prefix = b'{"op":"send","flow":%d,"action":' % flow_id
        # The type of the scene on top as last seen, for checking actions:
        # events may have changed it since, so a refusal asks again.
        self._top: Optional[str] = started.stack[-1].scene if started is not None and started.stack else None

    def send(
        self,
        action: Union[str, Mapping[str, Any]],
        payload: Any = MISSING,
        *,
        error: bool = False,
        meta: Any = MISSING,
        tag: Any = MISSING,
        validate: Optional[bool] = None,
    ) -> Update:
        """Reduces an action on the scene on top of the flow (as :meth:`Scene.send`,
        checked against the top scene's schema as there).

        When its routes changed the flow, the update's ``flow``, ``version``
        and ``stack`` describe it; refused routes are in ``navigation_errors``.
        """
        check = self._refusal if (self.runtime.validate if validate is None else validate) else None
        update = _send(self.runtime, self._send_prefix, action, payload, error, meta, tag, check)
        if update.stack:
            self._top = update.stack[-1].scene
        return update

    def _refusal(self, action: Mapping[str, Any]) -> Optional[YaiaError]:
        """The error the runtime would refuse ``action`` with, by the schema
        of the scene on top."""
        top = self._top if self._top is not None else self._top_now()
        schema = self.runtime._declared(top) if top is not None else None
        refusal = schema.check(action) if schema is not None else None
        if refusal is None:
            return None
        now = self._top_now()  # the top as last seen may be gone
        if now == top:
            return refusal
        other = self.runtime._declared(now) if now is not None else None
        return other.check(action) if other is not None else None

    def _top_now(self) -> Optional[str]:
        """The type of the scene on top, asked of the runtime; None when
        there is no flow any more (the runtime answers the send then)."""
        try:
            stack = self.describe()
        except YaiaError:
            return None
        return stack.top.scene if stack.stack else None

    def _seen(self, stack: FlowStack) -> FlowStack:
        if stack.stack:
            self._top = stack.top.scene
        return stack

    def describe(self) -> FlowStack:
        """The flow's stack and version now."""
        return self._seen(FlowStack.from_raw(self.runtime.execute({"op": "flow", "flow": self.id})))

    @property
    def stack(self) -> List[StackEntry]:
        """The scenes, bottom to top (asked of the runtime each time)."""
        return self.describe().stack

    @property
    def version(self) -> int:
        """Counts the changes of the stack (asked of the runtime each time)."""
        return self.describe().version

    @property
    def top(self) -> StackEntry:
        """The scene on top, which receives :meth:`send`."""
        return self.describe().top

    def popped(self, depth: int, version: Optional[int] = None) -> FlowStack:
        """Reports that the UI removed scenes by itself (a back swipe): the
        flow keeps its first ``depth`` scenes and closes the others.

        ``version`` is the flow version the UI showed; a report against
        another version, or a depth that no longer exists (a report delivered
        twice), raises YaiaError "stale_navigation" and changes nothing.
        """
        request: Dict[str, Any] = {"op": "popped", "flow": self.id, "depth": depth}
        if version is not None:
            request["version"] = version
        return self._seen(FlowStack.from_raw(self.runtime.execute(request)))

    def link(self, path: Sequence[LinkItem]) -> FlowStack:
        """Follows a deep link: keeps the root, replaces everything above it
        with ``path`` in one step.

        Items are scene names (pushed, no arguments) or {"scene": NAME,
        "args": {...}, "presentation": "push" | "present"}. If any scene is
        unknown ("unknown_scene") or refuses its arguments, nothing changes.
        """
        items: List[Any] = [item if isinstance(item, str) else dict(item) for item in path]
        return self._seen(FlowStack.from_raw(self.runtime.execute({"op": "link", "flow": self.id, "path": items})))

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Closes the flow and all its scenes (their effects are cancelled). Idempotent."""
        self._close("flow")

    def __repr__(self) -> str:
        label = f" {self.name!r}" if self.name is not None else ""
        return f"<yaia.Flow{label} #{self.id}{' closed' if self._closed else ''}>"
