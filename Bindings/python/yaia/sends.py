"""The send path of Scene and Flow, the binding's hottest: the action
encoded, one foreign call, and the answer read only as far as it must be.

A scene's send of a simple action without a tag goes through
yaia_send_borrowed (the runtime reads the action's text directly, the
request op costs the runtime more; and its answer needs no yaia_free, a
foreign call less), called without ctypes' argument converters on arguments made
once per runtime and scene; a plain answer to it (no effects, no routes, the
whole view model, nothing else) becomes an Update at once, its fields read
from the text when first read. Other sends are ``{"op":"send"}`` requests,
and other answers are parsed whole.

The commonest send, a type name with a string payload (a keystroke), is
Scene.send's own lane (yaia/scenes.py): the action's text from the
payload's and the type's (type_texts, written once per type), then the
call, then one check of the answer's start (plain_head). It writes the text canonical_action
writes, in about a tenth less of the binding's own work than the general
lane (general_send; Benchmarks/bench_python_send.py shows both).
"""

from __future__ import annotations

import ctypes
import json.encoder
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, cast

from . import ffi
from .errors import YaiaError
from .values import MISSING, Update

if TYPE_CHECKING:
    from .runtime import Runtime

# How json quotes a string with ensure_ascii=False, as ffi.encode does (C).
quote: Callable[[str], str] = json.encoder.encode_basestring

def plain_head(scene: int) -> bytes:
    """The start of a plain answer of ``scene``, up to its seq: a success
    with no effects, no routes, and none of the members that come before
    "scene" in the library's sorted keys (a flow's change, a child's path,
    navigation errors, an event's cause). After its seq, such an answer
    carries the whole view model, or a patch when the scene is in patch mode
    (held, yaia/views.py): every other member of an update comes with one
    of those before "scene". So an answer that starts so, of a scene not
    held, is plain (Update._unread reads it)."""
    return b'{"effects":[],"ok":true,"routes":[],"scene":%d,"seq":' % scene


# Action type -> the end of its action's text, ',"type":"T"}' (canonical:
# keys sorted); at most _TYPES_KEPT types, the others written each time.
type_texts: Dict[str, bytes] = {}
_TYPES_KEPT = 1024


class Answer(ctypes.c_char_p):
    """The restype of yaia_send where there is no yaia_send_borrowed: a
    c_char_p subclass keeps the pointer (to free) and reads the text in C."""


def send_function(lib: ctypes.CDLL) -> Callable[[Any, Any, bytes], Optional[bytes]]:
    """A send of (runtime, scene id, action text) answering the answer's
    text: yaia_send_borrowed, one foreign call whose answer ctypes copies
    (it stays the library's); as a function object of its own without
    argtypes, so that ctypes passes c_void_p, c_int64 and bytes as they
    are, skipping a converter call each. The library's declared functions
    stay as yaia.ffi declares them. A library without it: yaia_send and yaia_free."""
    if hasattr(lib, "yaia_send_borrowed"):
        borrowed = lib["yaia_send_borrowed"]
        setattr(borrowed, "argtypes", None)  # None is ctypes' "no converters", which typeshed does not list
        borrowed.restype = ctypes.c_char_p
        return cast(Callable[[Any, Any, bytes], Optional[bytes]], borrowed)
    send = lib["yaia_send"]
    setattr(send, "argtypes", None)
    send.restype = Answer
    free = lib["yaia_free"]
    setattr(free, "argtypes", None)
    free.restype = None

    def send_and_free(handle: Any, scene: Any, data: bytes) -> Optional[bytes]:
        answer = send(handle, scene, data)
        text: Optional[bytes] = answer.value
        free(answer)
        return text

    return send_and_free


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
        text = '{"payload":%s,"type":%s}' % (quote(payload), quote(action))
    elif payload is MISSING:
        text = '{"type":%s}' % quote(action)
    elif kind is int and -_EXACT < payload < _EXACT:
        text = '{"payload":%d,"type":%s}' % (payload, quote(action))
    elif payload is None or kind is bool:
        text = '{"payload":%s,"type":%s}' % ("null" if payload is None else "true" if payload else "false", quote(action))
    else:
        return None
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return None  # a lone surrogate: the request path's ffi.encode says so


# Whole numbers a double holds exactly, which the library writes as they are.
_EXACT = 2**53


def keep_type(action: str) -> bool:
    """Writes the end of ``action``'s text into type_texts; False when it
    is not UTF-8 (a lone surrogate) or there are types enough."""
    try:
        text = (',"type":%s}' % quote(action)).encode("utf-8")
    except UnicodeEncodeError:
        return False
    if len(type_texts) >= _TYPES_KEPT:
        return False
    type_texts[action] = text
    return True


def general_send(target: Any, action: Any, payload: Any, error: bool, meta: Any, tag: Any) -> Update:
    """Scene.send's other lanes, Flow.send and ChildScene.send:
    ``target._id_arg`` is a scene's id as yaia_send's argument (None for a
    flow), ``target._send_prefix`` the request up to its action."""
    runtime: Runtime = target.runtime
    scene = target._id_arg
    if scene is not None and tag is MISSING:
        data = canonical_action(action, payload, error, meta)
        if data is not None:
            text = runtime._send_scene(runtime._handle_arg, scene, data)
            if text is not None and text.startswith(target._plain_head) and target.id not in runtime._held:
                return Update._unread(target.id, text)
            return answered(runtime, text)
    data = target._send_prefix + action_text(action, payload, error, meta)
    if tag is not MISSING:
        data += b',"tag":' + ffi.encode(tag)
    data += b"}"
    text = ffi.take_string(runtime._lib, runtime._lib.yaia_execute_n(runtime._handle, data, len(data)))
    if text is None:
        raise YaiaError("internal", "the library returned NULL")
    return runtime._update(runtime._checked(ffi.decode(text)))


def answered(runtime: Runtime, text: Optional[bytes]) -> Update:
    """The update of yaia_send's answer other than a plain one, or the error it says."""
    if text is None:
        raise YaiaError("internal", "the library returned NULL")
    response = ffi.decode(text)
    if isinstance(response, dict) and response.get("ok") is False:
        _locate_in_action(response)
    return runtime._update(runtime._checked(response))


def _locate_in_action(response: Dict[str, Any]) -> None:
    """yaia_send locates a fault within the action it was given; the send
    request within the request, so under "/action", where the runtime nests
    every located fault of a send (YaiaRuntime's request(send:)). The error
    Scene.send raises is the request's, whichever way the action went."""
    error = response.get("error")
    if isinstance(error, dict) and isinstance(error.get("at"), str):
        error["at"] = "/action" + error["at"]
