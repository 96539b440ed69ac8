"""One inspector page's WebSocket: its requests answered from a source (a
session, or a journal file), every frame kept under 64 KB."""

from __future__ import annotations

import json
from typing import Any, Awaitable, Callable, Dict, Optional

from aiohttp import WSMsgType, web

from ..web.engine import envelope
from . import tree
from .diff import bounded
from .source import Source
from .travel import TravelError

__all__ = ["Channel", "FRAME_BYTES"]

#: No frame to an inspector page is bigger: patches are cut, trees paged.
FRAME_BYTES = 64 << 10
# What a request's text may be, from the page.
_REQUEST_BYTES = 16 << 10


def _int(request: Dict[str, Any], name: str, default: Optional[int] = None) -> int:
    value = request.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 1 << 53:
        raise TravelError("bad_request", f"\"{name}\" is a whole number from 0 to 2^53")
    return value


def _filters(request: Dict[str, Any]) -> Dict[str, Any]:
    filters = request.get("filter")
    if not isinstance(filters, dict):
        filters = {}
    return {k: filters.get(k) for k in ("scene", "type", "kind", "changed") if isinstance(filters.get(k), (str, bool))}


class Channel:
    """Answers an inspector's frames. ``attach`` finds the source a first
    frame names (a session key) when the channel has none yet."""

    def __init__(self, ws: web.WebSocketResponse, source: Optional[Source],
                 attach: Optional[Callable[[Dict[str, Any]], Optional[Source]]] = None) -> None:
        self.ws = ws
        self.source = source
        self.attach = attach
        self.states: Dict[Any, Dict[str, Any]] = {}

    async def serve(self) -> None:
        """Answers the page's text frames until its socket closes."""
        async for message in self.ws:
            if message.type == WSMsgType.TEXT:
                await self.frame(message.data)
            elif message.type != WSMsgType.BINARY:
                break

    async def send(self, value: Dict[str, Any]) -> None:
        text = json.dumps(value, separators=(",", ":"))
        if len(text.encode("utf-8")) > FRAME_BYTES:
            text = envelope("limit_exceeded", f"the answer would exceed {FRAME_BYTES} bytes", tag=value.get("tag"),
                            limit="inspector_frame")
        await self.write(text)

    async def write(self, text: str) -> None:
        if self.ws.closed:
            return
        try:
            await self.ws.send_str(text)
        except ConnectionError:
            # A page that went away meanwhile: nothing is owed to it (the
            # hub tells every page of new inputs, closing ones included).
            pass

    async def frame(self, text: str) -> None:
        tag: Any = None
        try:
            if len(text) > _REQUEST_BYTES:
                raise TravelError("limit_exceeded", f"an inspector's request is at most {_REQUEST_BYTES} bytes")
            try:
                request = json.loads(text)
            except (ValueError, RecursionError):
                raise TravelError("invalid_json", "the frame is not JSON")
            if not isinstance(request, dict):
                raise TravelError("not_an_object", "a frame is a JSON object")
            tag = request.get("tag")
            if not isinstance(tag, (int, str, type(None))):
                tag = None
            op = request.get("op")
            handler = self.handlers().get(op) if isinstance(op, str) else None
            if handler is None:
                raise TravelError("unknown_op", f"no inspector request {str(op)[:40]!r}")
            if op != "attach" and self.source is None:
                raise TravelError("bad_request", "the first frame is {\"op\":\"attach\",\"session\":KEY}")
            answer = await handler(request)
            answer.setdefault("ok", True)
            answer["op"] = op
            if tag is not None:
                answer["tag"] = tag
            await self.send(answer)
        except TravelError as error:
            await self.write(envelope(error.code, error.message, tag=tag))

    def handlers(self) -> Dict[str, Callable[[Dict[str, Any]], Awaitable[Dict[str, Any]]]]:
        return {"attach": self.do_attach, "inputs": self.do_inputs, "input": self.do_input, "tree": self.do_tree,
                "search": self.do_search, "now": self.do_now, "graph": self.do_graph, "rewind": self.do_rewind,
                "resume": self.do_resume}

    @property
    def src(self) -> Source:
        assert self.source is not None
        return self.source

    async def do_attach(self, request: Dict[str, Any]) -> Dict[str, Any]:
        if self.source is None:
            self.source = self.attach(request) if self.attach else None
            if self.source is None:
                # The same answer for a key that never was and one of another
                # tab gone: a page learns nothing of keys it does not hold.
                raise TravelError("unknown_session", "no session of this server is connected under that key")
        # A live session's journal is followed as it grows (hub.py): the
        # page opens on what is followed, and hears of the rest when it is.
        count = await self.src.attached()
        answer = {"inputs": count, "live": self.src.live, "travel": getattr(self.src, "travelling", None),
                  "facets": self.src.timeline.facets(), "path": None if self.src.live else self.src.timeline.path}
        # With "rows": the timeline's last rows too, which the page opens on.
        if "rows" in request:
            page = self.src.timeline.rows(0, _int(request, "rows"), _filters(request), tail=True)
            # Rows of long paths are left to an inputs request of their own,
            # rather than refuse the attach.
            if len(json.dumps(page, separators=(",", ":"))) <= FRAME_BYTES // 2:
                answer["page"] = page
        return answer

    async def do_inputs(self, request: Dict[str, Any]) -> Dict[str, Any]:
        if request.get("fresh"):
            await self.src.catch_up(wait=not self.src.live)
        page = self.src.timeline.rows(_int(request, "start", 0), _int(request, "count", 100), _filters(request),
                                      tail=request.get("tail") is True)
        page["facets"] = self.src.timeline.facets()
        page["travel"] = getattr(self.src, "travelling", None)
        return page

    async def do_input(self, request: Dict[str, Any]) -> Dict[str, Any]:
        entry = self.src.timeline.entry(_int(request, "seq"))
        if entry is None:
            raise TravelError("bad_request", f"no input {request.get('seq')} in the journal")
        changes = entry.get("changes") or {}
        budget = (FRAME_BYTES - (16 << 10)) // max(1, len(changes))
        cut = dict(entry.get("cut") or {})
        for scene, patch in list(changes.items()):
            kept, left = bounded(patch, budget)
            changes[scene] = kept
            if left:
                cut[scene] = cut.get(scene, 0) + left
        entry["changes"] = changes
        entry["cut"] = cut
        return {"input": entry}

    async def _value(self, request: Dict[str, Any]) -> Any:
        scene = _int(request, "scene")
        answer = await self.src.state(scene)
        if answer.get("ok") is not True:
            error = answer.get("error") or {}
            raise TravelError(str(error.get("code", "unknown_scene")), str(error.get("message", "no such scene")))
        return answer.get("viewModel") if request.get("source") == "view" else answer.get("state")

    async def do_tree(self, request: Dict[str, Any]) -> Dict[str, Any]:
        path = request.get("path", "")
        if not isinstance(path, str) or len(path) > 4096:
            raise TravelError("bad_request", "\"path\" is a JSON Pointer")
        found = tree.node(await self._value(request), path, _int(request, "offset", 0))
        if found is None:
            raise TravelError("bad_request", f"nothing at {path[:200]}")
        return {"node": found}

    async def do_search(self, request: Dict[str, Any]) -> Dict[str, Any]:
        text = request.get("text")
        if not isinstance(text, str) or not 0 < len(text) <= 200:
            raise TravelError("bad_request", "\"text\" is 1 to 200 characters")
        return tree.search(await self._value(request), text)

    async def do_now(self, request: Dict[str, Any]) -> Dict[str, Any]:
        now = await self.src.now()
        now["effects"] = self.src.timeline.in_flight()
        return now

    async def do_graph(self, request: Dict[str, Any]) -> Dict[str, Any]:
        return {"graph": await self.src.graph()}

    # The restore a rewind journals is an input too: followed afterwards,
    # off the rewind's path, and the page told.
    async def do_rewind(self, request: Dict[str, Any]) -> Dict[str, Any]:
        answer = await self.src.rewind(_int(request, "to"))
        answer["inputs"] = len(self.src.timeline.entries)
        return answer

    async def do_resume(self, request: Dict[str, Any]) -> Dict[str, Any]:
        answer = await self.src.resume()
        answer["inputs"] = len(self.src.timeline.entries)
        return answer
