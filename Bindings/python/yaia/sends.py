"""The send path of Scene and Flow, the binding's hottest: the action
encoded, one foreign call, and the answer read only as far as it must be.

A scene's send of a simple action without a tag goes through yaia_send
(the runtime reads the action's text directly; the request op costs the
runtime more), called without ctypes' argument converters on arguments made
once per runtime and scene; a plain answer to it (no effects, no routes, the
whole view model, nothing else) becomes an Update at once, its view model
and ``raw`` parsed when first read. Other sends are ``{"op":"send"}``
requests, and other answers are parsed whole.
"""

from __future__ import annotations

import ctypes
import json.encoder
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional

from . import ffi
from .errors import YaiaError
from .values import MISSING, Update

if TYPE_CHECKING:
    from .runtime import Runtime

# How json quotes a string with ensure_ascii=False, as ffi.encode does (C).
_quote: Callable[[str], str] = json.encoder.encode_basestring

# A plain answer of scene ID starts with plain_prefix(ID) (the library's
# keys come sorted), then has its seq and the view model, the last member.
_VIEW = b'"viewModel":'


def plain_prefix(scene: int) -> bytes:
    return b'{"effects":[],"ok":true,"routes":[],"scene":%d,"seq":' % scene


class Answer(ctypes.c_char_p):
    """The restype of the binding's own send functions: a c_char_p subclass
    keeps the pointer (to free) and reads the text in C (``.value``)."""


def send_functions(lib: ctypes.CDLL) -> "tuple[Callable[..., Answer], Callable[[Answer], None]]":
    """yaia_send and yaia_free as function objects of their own, without
    argtypes: ctypes then passes c_void_p, c_int64 and bytes as they are,
    skipping a converter call each. The library's declared functions stay as
    yaia.ffi declares them."""
    send = lib["yaia_send"]
    setattr(send, "argtypes", None)  # None is ctypes' "no converters", which typeshed does not list
    send.restype = Answer
    free = lib["yaia_free"]
    setattr(free, "argtypes", None)
    free.restype = None
    return send, free


def action_text(action: Any, payload: Any, error: bool, meta: Any) -> bytes:
    """The action as JSON text: ``action`` is a type name with the other
    members, or a mapping that is the whole action."""
    if isinstance(action, Mapping):
        if payload is not MISSING or error or meta is not MISSING:
            raise TypeError("send(action_dict) takes no payload, error or meta: put them in the dict")
        return ffi.encode(action)
    body: Dict[str, Any] = {"type": action}
    if payload is not MISSING:
        body["payload"] = payload
    if error:
        body["error"] = True
    if meta is not MISSING:
        body["meta"] = meta
    return ffi.encode(body)


def canonical_action(action: Any, payload: Any, error: bool, meta: Any) -> Optional[bytes]:
    """The action as the library writes it (keys sorted, its escapes, which
    are json's), for a type name with no payload or a payload of a string,
    a whole number, a boolean or null; None for any other action.

    yaia_send journals the action's text as given, and journal lines are
    canonical: other actions go as requests, which the runtime writes out."""
    if type(action) is not str or error or meta is not MISSING:
        return None
    kind = type(payload)
    if kind is str:
        text = '{"payload":%s,"type":%s}' % (_quote(payload), _quote(action))
    elif payload is MISSING:
        text = '{"type":%s}' % _quote(action)
    elif kind is int and -_EXACT < payload < _EXACT:
        text = '{"payload":%d,"type":%s}' % (payload, _quote(action))
    elif payload is None or kind is bool:
        text = '{"payload":%s,"type":%s}' % ("null" if payload is None else "true" if payload else "false", _quote(action))
    else:
        return None
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return None  # a lone surrogate: the request path's ffi.encode says so


# Whole numbers a double holds exactly, which the library writes as they are.
_EXACT = 2**53


def plain_update(text: bytes, prefix: bytes, scene: int) -> Optional[Update]:
    """The Update of a plain answer of ``scene`` (``prefix`` is its
    plain_prefix), its view model unread; None for any other answer."""
    if not text.startswith(prefix):
        return None
    end = text.find(b",", len(prefix))
    if not text.startswith(_VIEW, end + 1):
        return None  # a stack, a patch: more to read
    seq = text[len(prefix):end]
    return Update._unread(scene, int(seq), text) if seq.isdigit() else None


def send(target: Any, action: Any, payload: Any, error: bool, meta: Any, tag: Any) -> Update:
    """Scene.send and Flow.send: ``target._id_arg`` is a scene's id as
    yaia_send's argument (None for a flow), ``target._send_prefix`` the
    request up to its action."""
    runtime: Runtime = target.runtime
    text: Optional[bytes] = None
    scene = target._id_arg
    if scene is not None and tag is MISSING:
        data = canonical_action(action, payload, error, meta)
        if data is not None:
            answer = runtime._send_scene(runtime._handle_arg, scene, data)
            text = answer.value
            runtime._free_answer(answer)
            if text is None:
                raise YaiaError("internal", "the library returned NULL")
            update = plain_update(text, target._plain_prefix, target.id)
            if update is not None:
                return update
            response = ffi.decode(text)
            if isinstance(response, dict) and response.get("ok") is False:
                _locate_in_action(response)
            return runtime._update(runtime._checked(response))
    data = target._send_prefix + action_text(action, payload, error, meta)
    if tag is not MISSING:
        data += b',"tag":' + ffi.encode(tag)
    data += b"}"
    text = ffi.take_string(runtime._lib, runtime._lib.yaia_execute_n(runtime._handle, data, len(data)))
    if text is None:
        raise YaiaError("internal", "the library returned NULL")
    return runtime._update(runtime._checked(ffi.decode(text)))


def _locate_in_action(response: Dict[str, Any]) -> None:
    """yaia_send locates a fault within the action it was given; the send
    request within the request, so under "/action", where the runtime nests
    every located fault of a send (YaiaRuntime's request(send:)). The error
    Scene.send raises is the request's, whichever way the action went."""
    error = response.get("error")
    if isinstance(error, dict) and isinstance(error.get("at"), str):
        error["at"] = "/action" + error["at"]
