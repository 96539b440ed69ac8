"""The Pythonic face of libyaia: the Runtime, which holds the scene
catalog, open scenes, flows, services and the event queue."""

from __future__ import annotations

import collections
import ctypes
import json
import json.encoder
import os
import threading
import weakref
from typing import Any, Callable, Deque, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Type, Union, cast

from . import ffi
from .errors import YaiaError
from .events import _Events
from .history import _History
from .scenes import Flow, Scene
from .schema import SceneSchema
from .sends import send_function
from .services import _HostService, _next_ctx, _notifiers, _registry_lock, _Services
from .values import MISSING, Inspection, PathLike, Update
from .views import _check_mode, _HeldView

__all__ = ["Runtime", "PluginSpec"]


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

#: A plugin for Runtime(plugins=...): a path, or {"path": PATH, "config": {...}}.
PluginSpec = Union[PathLike, Mapping[str, Any]]


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



class Runtime(_Events, _Services, _History):
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

    ``view="patch"`` sends view models as patches (docs/abi.md, "Patch
    mode"); the binding applies them, so :attr:`Update.view_model` and
    :attr:`Scene.view_model` read as in whole mode (the default), the latter
    with no request. :meth:`open` and :meth:`start` choose it per scene.

    A pack that cannot be loaded raises YaiaError with a ``scene_pack_*``
    code (or ``duplicate_scene``) at "/scenes/N", and no runtime is made.

    ``validate`` is kept for older callers and changes nothing: the runtime
    checks every action sent to a scene against its schema, and its refusal
    ("unknown_action" at "/action/type" with the nearest action type,
    "bad_payload" at "/action/payload/...") is raised as YaiaError.

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
        view: Optional[str] = None,
        validate: bool = True,
    ) -> None:
        _check_mode(view)
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
        if view is not None:
            keywords["view"] = view
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
        self._send_scene = send_function(lib)
        self._services: List[_HostService] = []
        self._notifier = next(_next_ctx)
        # Inspection events receive() passed over, for receive_event().
        self._inspections: Deque[Inspection] = collections.deque()
        self._inspections_lock = threading.Lock()
        #: Kept for older callers: the runtime checks every action.
        self.validate = validate
        # Schemas by scene type name (a name keeps its type until a restore
        # or a rewind), and the Scene subclasses that document declared types.
        self._schemas: Dict[str, SceneSchema] = {}
        self._schema_op = True  # False once the library said it has no "schema" op
        self._scene_types: Dict[str, Type[Scene]] = {}
        self._view_mode = view or (config or {}).get("view") or "whole"
        self._held: Dict[int, _HeldView] = {}
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

    def open(
        self,
        scene: str,
        args: Optional[Mapping[str, Any]] = None,
        *,
        state: Optional[Mapping[str, Any]] = None,
        view: Optional[str] = None,
        tag: Any = MISSING,
    ) -> "Scene":
        """Opens a scene of type ``scene`` (for example "example/login").

        ``args`` are its open arguments. ``state`` opens it in that state
        instead (as a snapshot restores a scene; its ``seq`` is 0): a state
        the scene refuses raises YaiaError "bad_state" whose ``at`` points
        into it ("/state/..."). ``args`` and ``state`` together are a
        TypeError, raised before anything is sent. Scene types come from the
        runtime's scene packs (``Runtime(scenes=...)``); another name raises
        "unknown_scene". ``view`` ("whole" or "patch") is how its updates
        carry view models, over the runtime's mode.
        """
        if args is not None and state is not None:
            raise TypeError("open() takes args= or state=, not both")
        _check_mode(view)
        request: Dict[str, Any] = {"op": "open", "scene": scene}
        if args is not None:
            request["args"] = args
        if state is not None:
            request["state"] = state
        if view is not None:
            request["view"] = view
        if tag is not MISSING:
            request["tag"] = tag
        update = Update.from_raw(self.execute(request))
        self._hold(update, view)
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
        return self._update(self.execute(request))

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
        view: Optional[str] = None,
        tag: Any = MISSING,
    ) -> "Flow":
        """Starts a flow whose root is a new scene of type ``scene``.

        ``name`` names the flow (for people and snapshots). The root's open
        update is :attr:`Flow.started`. ``view`` ("whole" or "patch") is how
        the updates of the flow's scenes carry view models.
        """
        _check_mode(view)
        request: Dict[str, Any] = {"op": "start", "scene": scene}
        if view is not None:
            request["view"] = view
        if name is not None:
            request["flow"] = name
        if args is not None:
            request["args"] = args
        if tag is not MISSING:
            request["tag"] = tag
        update = Update.from_raw(self.execute(request))
        self._hold(update, view)
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

    # -- logic and limits

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
