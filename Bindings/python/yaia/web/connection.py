"""One tab's WebSocket: frames checked and routed to its session, answers
and events written back in order, and the bounds one tab cannot pass."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from aiohttp import WSMsgType, web

from .config import GRANTABLE_OPS
from .engine import Frame, envelope
from .session import Session

if TYPE_CHECKING:
    from .server import Server

__all__ = ["Connection", "TAKEN_OVER"]

#: The close code of a socket whose session a reload of its tab took over.
TAKEN_OVER = 4000


class Connection:
    """A tab's socket and its session (none until its hello)."""

    def __init__(self, server: "Server", ws: web.WebSocketResponse) -> None:
        self.server = server
        self.ws = ws
        self.session: Optional[Session] = None
        self.loop = asyncio.get_running_loop()
        self.outbox: "asyncio.Queue[Optional[Frame]]" = asyncio.Queue()
        self.writer = asyncio.ensure_future(self._write())
        self.closing = False

    # -- out

    def put(self, text: Frame) -> None:
        """Queues a frame for the tab (on the loop). A tab that stops reading
        while frames pile up past the outbox limit is disconnected: it
        resumes its session when it comes back."""
        if self.closing:
            return
        if self.outbox.qsize() >= self.server.config.outbox:
            self.closing = True
            asyncio.ensure_future(self.ws.close(code=1008, message=b"too many frames waiting for this tab"))
            return
        self.outbox.put_nowait(text)

    def sink(self, frames: List[Frame]) -> None:
        """put() of each frame, in order, from a session's worker thread."""
        try:
            self.loop.call_soon_threadsafe(self._put_all, frames)
        except RuntimeError:
            pass  # the loop is closed: the server is stopping

    def _put_all(self, frames: List[Frame]) -> None:
        for text in frames:
            self.put(text)

    async def _write(self) -> None:
        while True:
            text = await self.outbox.get()
            if text is None or self.ws.closed:
                return
            try:
                if isinstance(text, str):
                    await self.ws.send_str(text)
                else:
                    await self.ws.send_frame(text, WSMsgType.TEXT)
            except (ConnectionError, RuntimeError):
                return

    def refuse(self, code: str, message: str, at: Optional[str] = None, tag: Any = None, **extra: Any) -> None:
        self.put(envelope(code, message, at, tag, **extra))

    # -- in

    async def frame(self, text: str) -> None:
        if self.closing:
            return  # its session was taken over, or it is going away
        try:
            request = json.loads(text)
        except RecursionError:
            self.refuse("limit_exceeded", "the frame nests too deeply", limit="depth")
            return
        except ValueError:
            self.refuse("invalid_json", "the frame is not JSON")
            return
        if not isinstance(request, dict):
            self.refuse("not_an_object", "a frame is a JSON object")
            return
        tag = request.get("tag")
        op = request.get("op")
        if not isinstance(op, str):
            self.refuse("bad_request", "the frame has no string \"op\"", "/op", tag)
        elif self.session is None:
            if op == "hello":
                await self._hello(request, tag)
            else:
                self.refuse("bad_request", "the first frame is {\"op\":\"hello\"}", "/op", tag)
        elif op == "hello":
            self.refuse("bad_request", "this socket has its session already", "/op", tag)
        elif op == "sync":
            if not self.session.sync(tag):
                self._full(tag)
        elif op in self.server.config.tab_ops:
            if not self.session.submit(text.encode("utf-8")):
                self._full(tag)
        elif op in GRANTABLE_OPS:
            self.refuse("not_permitted", f"\"{op}\" is not granted to pages by this server", "/op", tag)
        else:
            self.refuse("unknown_op", f"no request \"{op[:64]}\"", "/op", tag)

    def _full(self, tag: Any) -> None:
        queue = self.server.config.queue
        self.refuse("limit_exceeded", f"{queue} requests of this tab are waiting: the \"queue\" limit is {queue}",
                    None, tag, limit="queue")

    async def _hello(self, request: Dict[str, Any], tag: Any) -> None:
        server = self.server
        if len(server.live) >= server.config.sessions:
            # Written at once, not queued: the socket closes right after.
            await self.ws.send_str(envelope("limit_exceeded", f"the server has {server.config.sessions} sessions: its \"sessions\" limit",
                                            None, tag, limit="sessions"))
            self.closing = True
            await self.ws.close(code=1013, message=b"too many sessions")
            return
        key, snapshot = await server.claim(request.get("session"), request.get("takeover") is True)
        if self.ws.closed:
            server.keep(key, snapshot)
            return
        self.session = Session(key, server.engine_maker(key), self.sink, server.config.queue, snapshot)
        if server.inspector is not None:
            self.session.watch = server.inspector.watch(key)
        server.live[key] = self
        hello: Dict[str, Any] = {"start": server.config.start, "tag": tag,
                                 "limits": {"frame_bytes": server.config.frame_bytes, "queue": server.config.queue}}
        self.session.start(hello)

    async def surrender(self) -> None:
        """A reload of this tab took its session: the socket is closed (4000)
        and the session detached, its snapshot kept for the new socket."""
        self.closing = True
        asyncio.ensure_future(self.ws.close(code=TAKEN_OVER, message=b"a reload of this tab took the session over"))
        await self.end()

    async def end(self) -> None:
        """The tab went away: its session's snapshot is kept for a while.
        Called once the socket closed, and by a takeover: the first detaches."""
        self.closing = True
        self.outbox.put_nowait(None)
        session, self.session = self.session, None
        if session is None:
            return
        server = self.server
        if server.live.get(session.key) is self:
            del server.live[session.key]
        pending = asyncio.wrap_future(session.detach())
        server.detaching[session.key] = pending
        try:
            server.keep(session.key, await pending)
        finally:
            if server.detaching.get(session.key) is pending:
                del server.detaching[session.key]
