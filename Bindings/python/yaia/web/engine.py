"""A session's runtime as the web server drives it: request text in,
response text out, as the C ABI gives it (no parsing, no raising), and the
events it queues. Every call blocks in C: only a session's worker thread
makes them."""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, List, Mapping, Optional, Set, Union

from .. import ffi
from ..errors import YaiaError
from ..runtime import Runtime

__all__ = ["Engine", "Frame", "RuntimeEngine", "envelope"]

#: A frame's JSON text: str, or the UTF-8 bytes the runtime wrote, which go
#: to the socket as they are (a text frame) without a decode and an encode.
Frame = Union[str, bytes]


def envelope(code: str, message: str, at: Optional[str] = None, tag: Any = None, **extra: Any) -> str:
    """An error envelope as the runtime writes one."""
    error: Dict[str, Any] = {"code": code, "message": message}
    if at is not None:
        error["at"] = at
    error.update(extra)
    answer: Dict[str, Any] = {"error": error, "ok": False}
    if tag is not None:
        answer["tag"] = tag
    return json.dumps(answer, separators=(",", ":"), sort_keys=True)


class Engine:
    """What a session needs of a runtime; tests give sessions their own."""

    def execute(self, request: bytes) -> Frame:
        raise NotImplementedError

    def execute_value(self, request: Mapping[str, Any]) -> Dict[str, Any]:
        answer = json.loads(self.execute(json.dumps(request).encode()))
        return answer if isinstance(answer, dict) else {}

    def receive(self) -> Optional[Frame]:
        """The next queued event's text, or None at once when none is queued."""
        raise NotImplementedError

    def set_notifier(self, fn: Optional[Callable[[], None]]) -> None:
        raise NotImplementedError

    def snapshot(self) -> Optional[Dict[str, Any]]:
        """The runtime's snapshot, or None when it cannot be taken."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class RuntimeEngine(Engine):
    """A yaia.Runtime of the session's own, made from the server's config."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        self.runtime = Runtime(config=config, validate=False)
        self._lib = self.runtime._lib
        self._handle = self.runtime.handle

    # The runtime writes its JSON from Swift strings, which are always valid
    # UTF-8: its bytes make a valid text frame as they are.
    def execute(self, request: bytes) -> Frame:
        text = ffi.take_string(self._lib, self._lib.yaia_execute_n(self._handle, request, len(request)))
        if text is None:
            return envelope("internal", "the library returned NULL")
        return text

    def receive(self) -> Optional[Frame]:
        return ffi.take_string(self._lib, self._lib.yaia_receive(self._handle, 0.0))

    def set_notifier(self, fn: Optional[Callable[[], None]]) -> None:
        self.runtime.set_notifier(fn)

    def snapshot(self) -> Optional[Dict[str, Any]]:
        try:
            return self.runtime.snapshot()
        except YaiaError:
            return None  # e.g. a state deeper than the depth limit: the session is not kept

    def close(self) -> None:
        self.runtime.close()


def full_views(engine: Engine) -> Dict[str, List[Dict[str, Any]]]:
    """Every flow's stack and every other open scene's view model, whole: what
    a tab needs to draw its session from nothing (on connect, after a gap).
    A child scene (one with a parent) is not listed: its view model is in
    its top scene's, and a list of 10,000 rows would otherwise be asked
    10,000 times more and sent twice."""
    listing = engine.execute_value({"op": "scenes"})
    flows: List[Dict[str, Any]] = []
    in_flows: Set[Any] = set()
    for item in listing.get("flows", []) if isinstance(listing.get("flows"), list) else []:
        if not isinstance(item, dict):
            continue
        answer = engine.execute_value({"op": "flow", "flow": item.get("id")})
        if answer.get("ok") is True:
            flow = {k: answer.get(k) for k in ("flow", "version", "stack")}
            if item.get("name") is not None:
                flow["name"] = item.get("name")
            flows.append(flow)
            in_flows.update(e.get("id") for e in answer.get("stack", []) if isinstance(e, dict))
    scenes: List[Dict[str, Any]] = []
    for item in listing.get("scenes", []) if isinstance(listing.get("scenes"), list) else []:
        if not isinstance(item, dict) or item.get("id") in in_flows or item.get("parent") is not None:
            continue
        answer = engine.execute_value({"op": "state", "scene": item.get("id")})
        if answer.get("ok") is True:
            scenes.append({k: answer.get(k) for k in ("scene", "name", "seq", "viewModel")})
    return {"flows": flows, "scenes": scenes}
