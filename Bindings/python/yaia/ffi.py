"""Low-level access to libyaia.so through ctypes.

Most programs use :class:`yaia.Runtime` instead. This module finds and loads
the library, declares the prototype of every function in ``yaia.h``, and
holds the helpers that move JSON across the boundary:

- every ``char *`` the library returns is declared ``c_void_p``, read with
  ``ctypes.string_at`` and given back to ``yaia_free`` (a ``c_char_p`` restype
  would copy the text and leak the original);
- requests are encoded once to UTF-8 bytes and passed with their length
  (``yaia_execute_n``), so nothing depends on ``strlen``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import threading
from typing import Any, List, Optional

from . import bundle
from .errors import AbiMismatch, LibraryNotFound

__all__ = [
    "ABI_VERSION",
    "YAIA_OK",
    "YAIA_ERR_ARGUMENT",
    "YAIA_ERR_STALE",
    "YAIA_ERR_JSON",
    "YAIA_ERR_STATE",
    "YAIA_ERR_EXISTS",
    "PERFORM",
    "CANCEL",
    "RELEASE",
    "NOTIFY",
    "YAIA_SERVICE_BLOCKING",
    "YaiaService",
    "candidates",
    "load_library",
    "take_string",
    "encode",
    "decode",
]

#: The C ABI version this binding speaks (``YAIA_ABI_VERSION`` in yaia.h).
ABI_VERSION = 1

# Result codes of yaia_call_complete() / yaia_call_fail() (yaia_plugin.h).
YAIA_OK = 0
YAIA_ERR_ARGUMENT = 1
YAIA_ERR_STALE = 2
YAIA_ERR_JSON = 3
YAIA_ERR_STATE = 4
YAIA_ERR_EXISTS = 5

# void (*perform)(void *ctx, yaia_call *call, const char *op, const char *args_json)
PERFORM = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p)
# void (*cancel)(void *ctx, yaia_call *call)
CANCEL = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
# void (*release)(void *ctx)
RELEASE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
# void (*notify)(void *ctx), for yaia_set_notifier()
NOTIFY = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

# yaia_service.flags
YAIA_SERVICE_BLOCKING = 1


class YaiaService(ctypes.Structure):
    """``struct yaia_service`` from yaia_plugin.h."""

    _fields_ = [
        ("size", ctypes.c_size_t),
        ("name", ctypes.c_char_p),
        ("ctx", ctypes.c_void_p),
        ("perform", PERFORM),
        ("cancel", CANCEL),
        ("release", RELEASE),
        ("flags", ctypes.c_uint32),  # ABI 1.1; older libraries read only up to release
    ]


_c = ctypes
_PROTOTYPES: "dict[str, tuple[Any, List[Any]]]" = {
    "yaia_version": (_c.c_char_p, []),  # static string: c_char_p is right here
    "yaia_abi_version": (_c.c_int, []),
    "yaia_free": (None, [_c.c_void_p]),
    "yaia_runtime_new": (_c.c_void_p, [_c.c_char_p, _c.POINTER(_c.c_void_p)]),
    "yaia_runtime_free": (None, [_c.c_void_p]),
    "yaia_execute": (_c.c_void_p, [_c.c_void_p, _c.c_char_p]),
    "yaia_execute_n": (_c.c_void_p, [_c.c_void_p, _c.c_char_p, _c.c_size_t]),
    "yaia_receive": (_c.c_void_p, [_c.c_void_p, _c.c_double]),
    "yaia_open": (_c.c_void_p, [_c.c_void_p, _c.c_char_p, _c.c_char_p]),
    "yaia_send": (_c.c_void_p, [_c.c_void_p, _c.c_int64, _c.c_char_p]),
    "yaia_resolve": (_c.c_void_p, [_c.c_void_p, _c.c_int64, _c.c_char_p]),
    "yaia_add_service": (_c.c_void_p, [_c.c_void_p, _c.POINTER(YaiaService)]),
    "yaia_call_complete": (_c.c_int, [_c.c_void_p, _c.c_char_p]),
    "yaia_call_fail": (_c.c_int, [_c.c_void_p, _c.c_char_p]),
}
# Functions added after the first release of ABI 1: declared when exported.
_OPTIONAL_PROTOTYPES: "dict[str, tuple[Any, List[Any]]]" = {
    "yaia_set_notifier": (_c.c_int, [_c.c_void_p, NOTIFY, _c.c_void_p]),
    # The answer stays the library's (per thread): c_char_p copies it, and nothing is freed.
    "yaia_execute_borrowed": (_c.c_char_p, [_c.c_void_p, _c.c_char_p]),
    "yaia_send_borrowed": (_c.c_char_p, [_c.c_void_p, _c.c_int64, _c.c_char_p]),
}

_lock = threading.Lock()
_lib: Optional[ctypes.CDLL] = None


def candidates() -> List[str]:
    """Where :func:`load_library` looks, in order.

    ``YAIA_LIBRARY`` (when set, it is the only candidate), else the library
    the package was installed with (a wheel carries one), else the build
    folder of the source tree this package sits in, else the system's search
    path (``ctypes.util.find_library("yaia")``, then ``libyaia.so.1``).
    """
    env = os.environ.get("YAIA_LIBRARY")
    if env:
        return [env]
    found: List[str] = []
    bundled = bundle.bundled_library()
    if bundled is not None:
        found.append(bundled)
    found.append(str(bundle.SOURCE_BUILD / "release" / "libyaia.so"))
    system = ctypes.util.find_library("yaia")
    if system:
        found.append(system)
    found.append("libyaia.so.1")
    return found


def _open(candidates_: List[str]) -> ctypes.CDLL:
    tried: List[str] = []
    for name in candidates_:
        is_path = os.sep in name
        if is_path and not os.path.exists(name):
            tried.append(f"{name} (no such file)")
            continue
        try:
            return ctypes.CDLL(name)
        except OSError as exc:
            tried.append(f"{name} ({exc})")
    hint = (
        "build it with `make lib`, or set YAIA_LIBRARY to the absolute path of libyaia.so"
    )
    raise LibraryNotFound("libyaia.so not found; tried: " + "; ".join(tried) + ". " + hint, tried)


def load_library() -> ctypes.CDLL:
    """Loads libyaia.so once per process and returns it, prototypes declared.

    Raises :class:`yaia.LibraryNotFound` when no candidate loads, and
    :class:`yaia.AbiMismatch` when the library implements another C ABI version.
    """
    global _lib
    with _lock:
        if _lib is not None:
            return _lib
        lib = _open(candidates())
        for name, (restype, argtypes) in _PROTOTYPES.items():
            try:
                fn = getattr(lib, name)
            except AttributeError:
                raise AbiMismatch(f"{lib._name} does not export {name}: not a Yaia library of ABI {ABI_VERSION}") from None
            fn.restype = restype
            fn.argtypes = argtypes
        for name, (restype, argtypes) in _OPTIONAL_PROTOTYPES.items():
            if hasattr(lib, name):
                fn = getattr(lib, name)
                fn.restype = restype
                fn.argtypes = argtypes
        found = lib.yaia_abi_version()
        if found != ABI_VERSION:
            raise AbiMismatch(
                f"{lib._name} implements Yaia C ABI version {found}; this binding needs version {ABI_VERSION}"
            )
        _lib = lib
        return lib


def take_string(lib: ctypes.CDLL, ptr: Optional[int]) -> Optional[bytes]:
    """Copies a string the library returned and frees it; None for NULL."""
    if not ptr:
        return None
    try:
        return ctypes.string_at(ptr)
    finally:
        lib.yaia_free(ptr)


# Built once: json.dumps() with options makes a new encoder on every call.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
_DECODER = json.JSONDecoder()


def encode(value: Any) -> bytes:
    """Compact UTF-8 JSON text for ``value``.

    Raises ValueError (NaN, infinities, lone surrogates) or TypeError (values
    JSON cannot hold) before anything reaches the library.
    """
    try:
        text = _ENCODER.encode(value)
    except ValueError as exc:
        hint = " (JSON has no NaN or infinity)" if "float" in str(exc) else ""
        raise ValueError(f"cannot encode as JSON: {exc}{hint}") from None
    except TypeError as exc:
        raise TypeError(f"cannot encode as JSON: {exc}") from None
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"cannot encode as JSON: {exc} (a lone surrogate is not UTF-8)") from None


def decode(data: bytes) -> Any:
    """Parses JSON text the library returned (UTF-8)."""
    return _DECODER.decode(data.decode("utf-8"))
