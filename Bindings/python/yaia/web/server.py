"""The web server: pages and yaia.js over HTTP, and one WebSocket per tab,
each with a session of its own (docs/web.md)."""

from __future__ import annotations

import asyncio
import collections
import secrets
import time
from pathlib import Path
from typing import Any, Callable, Dict, Mapping, Optional, OrderedDict, Tuple

from aiohttp import WSMsgType, web

from .config import WebConfig, is_loopback
from .connection import Connection
from .engine import Engine, RuntimeEngine
from .session import MakeEngine

__all__ = ["Server", "CLIENT_DIR", "ISOLATION_HEADERS"]

def _client_dir() -> Path:
    # An installed package carries the client beside this module (setup.py
    # copies it there); in the source tree it is Bindings/web.
    here = Path(__file__).resolve().parent
    installed = here / "client"
    return installed if (installed / "yaia.js").is_file() else here.parents[2] / "web"


#: yaia.js and its modules, served at /yaia/, and the generic shell's page.
CLIENT_DIR = _client_dir()

# A session key: what secrets.token_urlsafe(24) makes, and no longer.
_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def _valid_key(key: Any) -> bool:
    return isinstance(key, str) and 16 <= len(key) <= 64 and set(key) <= _KEY_CHARS


#: What makes a page cross-origin isolated (WebConfig.isolated). COEP
#: credentialless rather than require-corp: images and scripts of other
#: origins still load (without cookies), where require-corp would refuse
#: every one whose server does not send Cross-Origin-Resource-Policy.
ISOLATION_HEADERS = {"Cross-Origin-Opener-Policy": "same-origin",
                     "Cross-Origin-Embedder-Policy": "credentialless"}


async def _isolate(request: web.Request, response: web.StreamResponse) -> None:
    response.headers.update(ISOLATION_HEADERS)


class Server:
    """Sessions by key: those connected, and the snapshots of those whose tab
    went away, kept ``resume_seconds`` for a reload to take back.

    ``make_engine`` makes a session's runtime (tests give their own);
    ``clock`` says when a kept snapshot expires (tests move it by hand).
    """

    def __init__(self, config: WebConfig, make_engine: Optional[MakeEngine] = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.make_engine: MakeEngine = make_engine or self._runtime_engine
        self.clock = clock
        self.live: Dict[str, Connection] = {}
        self.detached: "OrderedDict[str, Tuple[Dict[str, Any], float]]" = collections.OrderedDict()
        self.detaching: Dict[str, "asyncio.Future[Any]"] = {}
        #: Called with a session's key once its tab went away and it was
        #: kept or dropped (tests wait on it).
        self.on_detached: Optional[Callable[[str], None]] = None
        #: The inspector's hub, when the config serves one (docs/inspector.md).
        self.inspector: Any = None
        if config.inspector:
            from ..inspector.hub import Hub
            self.inspector = Hub(self)

    def engine_maker(self, key: str) -> MakeEngine:
        """Makes the runtime of the session ``key``: with the inspector on,
        one that keeps a journal for it."""
        return self.make_engine if self.inspector is None else self.inspector.maker(key, self.make_engine)

    def _runtime_engine(self, restore: Optional[Mapping[str, Any]]) -> Engine:
        return RuntimeEngine(self.config.runtime_config(restore))

    # -- sessions

    async def claim(self, key: Any, takeover: bool = False) -> Tuple[str, Optional[Dict[str, Any]]]:
        """The key and snapshot a hello resumes, or a new key and None. A key
        in use by a connected tab (a duplicated tab copies sessionStorage) is
        never shared: that tab gets a session of its own. With ``takeover``
        (a reloaded page whose old socket's close has not reached the server
        yet) the connected tab's socket is closed and the session resumed."""
        if takeover and _valid_key(key) and key in self.live:
            await self.live[key].surrender()
        if _valid_key(key) and key in self.detaching:
            await asyncio.shield(self.detaching[key])
        self._expire()
        if _valid_key(key) and key in self.detached:
            snapshot, _ = self.detached.pop(key)
            return key, snapshot
        return secrets.token_urlsafe(24), None

    def keep(self, key: str, snapshot: Optional[Dict[str, Any]]) -> None:
        if snapshot is not None:
            self._keep(key, snapshot)
        if self.on_detached is not None:
            self.on_detached(key)

    def _keep(self, key: str, snapshot: Dict[str, Any]) -> None:
        self.detached[key] = (snapshot, self.clock() + self.config.resume_seconds)
        self.detached.move_to_end(key)
        while len(self.detached) > self.config.detached:
            self.detached.popitem(last=False)

    def _expire(self) -> None:
        now = self.clock()
        for key in [k for k, (_, deadline) in self.detached.items() if deadline <= now]:
            del self.detached[key]

    # -- HTTP

    def refusal(self, request: web.Request) -> Optional[web.Response]:
        """Why a socket may not open: a page of another origin (a site the
        user visits must not drive a runtime on their machine), or a missing
        or wrong token where one is set."""
        origin = request.headers.get("Origin")
        if origin is not None:
            same = f"{request.scheme}://{request.host}"
            if origin != same and origin not in self.config.origins:
                return web.Response(status=403, text="origin not allowed")
        elif not is_loopback(self.config.host) and not self.config.token:
            return web.Response(status=403, text="no origin")
        if self.config.token:
            given = request.query.get("token", "")
            if not secrets.compare_digest(given.encode(), self.config.token.encode()):
                return web.Response(status=401, text="a token is required")
        return None

    async def socket(self, request: web.Request) -> web.StreamResponse:
        refused = self.refusal(request)
        if refused is not None:
            return refused
        # No permessage-deflate: compressing every view model costs the server
        # more time than loopback or a local network saves (a whole list of
        # 10,000 notes took longer to deflate than the runtime took to make).
        ws = web.WebSocketResponse(max_msg_size=self.config.frame_bytes, autoping=True, compress=False)
        await ws.prepare(request)
        connection = Connection(self, ws)
        try:
            async for message in ws:
                if message.type == WSMsgType.TEXT:
                    await connection.frame(message.data)
                elif message.type == WSMsgType.BINARY:
                    connection.refuse("bad_request", "frames are JSON text, not binary")
                else:
                    break
        finally:
            await connection.end()
        return ws

    async def index(self, request: web.Request) -> web.StreamResponse:
        folder = Path(self.config.static) if self.config.static else CLIENT_DIR
        return web.FileResponse(folder / "index.html")

    def app(self) -> web.Application:
        app = web.Application(client_max_size=self.config.frame_bytes)
        app.router.add_get("/ws", self.socket)
        app.router.add_get("/", self.index)
        if self.inspector is not None:
            self.inspector.routes(app)
        app.router.add_static("/yaia/", CLIENT_DIR, follow_symlinks=False)
        app.router.add_static("/", self.config.static or CLIENT_DIR, follow_symlinks=False)
        app.on_shutdown.append(self._shutdown)
        if self.config.isolated:
            app.on_response_prepare.append(_isolate)
        return app

    async def _shutdown(self, app: web.Application) -> None:
        for connection in list(self.live.values()):
            await connection.ws.close(code=1001, message=b"server shutting down")

