"""Host services: Python functions the runtime calls to perform effects,
through C callbacks that live as long as the process."""

from __future__ import annotations

import ctypes
import itertools
import os
import threading
from typing import Any, Callable, Dict, List, Mapping, Optional, TypeVar

from . import ffi
from .errors import ServiceError
from .handle import _Requests
from .values import PathLike

__all__ = ["Call", "ServiceFunction", "DeferredServiceFunction"]

#: fn(op, args) -> result (JSON-able); raising fails the call.
ServiceFunction = Callable[[str, Any], Any]
#: fn(call) -> None; completes the call now or later with call.complete / call.fail.
DeferredServiceFunction = Callable[["Call"], Any]
F = TypeVar("F", bound=Callable[..., Any])


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


class _Services(_Requests):
    """The Runtime's host services: registering Python functions and
    plugins, and listing what is registered."""

    _services: List[_HostService]

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
