"""The inspector beside a web server: each session's runtime keeps a
journal in the hub's folder, its timeline follows it, and the inspector's
page, socket and files are served under /inspector/ (docs/inspector.md).

An inspector reaches one session: the one whose key its first frame gives,
connected now. The key is the tab's own secret (it is what resumes the tab),
so an inspector is a privileged client of that tab and of no other."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import threading
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Set

from aiohttp import web

from ..errors import YaiaError
from ..web.engine import Engine, RuntimeEngine
from ..web.session import MakeEngine
from .channel import Channel
from .files import FileRoutes
from .page import PAGE_DIR, page
from .source import LiveSource, Source
from .timeline import Timeline

if TYPE_CHECKING:
    from ..web.server import Server

__all__ = ["Hub", "PAGE_DIR"]


class Hub:
    """The inspector of a web server's sessions."""

    def __init__(self, server: "Server") -> None:
        self.server = server
        self.owned = server.config.inspector_dir is None
        if server.config.inspector_dir is None:
            server.config.inspector_dir = tempfile.mkdtemp(prefix="yaia-inspector-")
        os.makedirs(server.config.inspector_dir, exist_ok=True)
        self.folder = os.path.realpath(server.config.inspector_dir)
        self.timelines: Dict[str, Timeline] = {}
        self.travels: Dict[str, int] = {}
        self.channels: Dict[str, List[Channel]] = {}
        self.lock = threading.Lock()
        self.loop: Optional[asyncio.AbstractEventLoop] = None
        self.dirty: Dict[str, bool] = {}
        self.notifying: Set[str] = set()
        self.files = FileRoutes(self.folder, self.source_of, self.scratch_engine)

    # -- sessions' runtimes

    def journal(self, key: str) -> str:
        return os.path.join(self.folder, f"{key}.jsonl")

    def maker(self, key: str, make: MakeEngine) -> MakeEngine:
        """Makes a session's engine and starts its journal; its timeline
        starts afresh (a resumed session is a new runtime, restored)."""
        def made(restore: Optional[Mapping[str, Any]]) -> Engine:
            engine = make(restore)
            answer = engine.execute_value({"op": "journal", "start": self.journal(key)})
            if answer.get("ok") is not True:
                engine.close()
                error = answer.get("error") or {}
                raise YaiaError(str(error.get("code", "bad_journal")), f"the inspector's journal did not start: {error.get('message')}")
            timeline = Timeline(self.journal(key), self.server.config.runtime)
            with self.lock:
                old = self.timelines.get(key)
                self.timelines[key] = timeline
                self.travels.pop(key, None)
            if old is not None:
                old.close()
            return engine
        return made

    def watch(self, key: str) -> Any:
        """The session's watch: after its inputs, tells the key's inspectors
        (once per burst, on the loop)."""
        def changed() -> None:
            loop = self.loop
            if loop is None or self.dirty.get(key):
                return
            self.dirty[key] = True
            try:
                loop.call_soon_threadsafe(lambda: asyncio.ensure_future(self._notify(key)))
            except RuntimeError:
                pass
        return changed

    async def _notify(self, key: str) -> None:
        # Followed whether an inspector is open or not: one that opens then
        # finds the timeline ready rather than following it all at once.
        # One follow at a time per session: the bursts during a slow one (a
        # big state) ask for one more after it, not one task each.
        if key in self.notifying:
            return
        self.notifying.add(key)
        try:
            while self.dirty.get(key):
                self.dirty[key] = False
                source = self.source_of(key)
                if source is None:
                    return
                try:
                    count = await source.catch_up()
                except Exception:
                    return
                for channel in list(self.channels.get(key, [])):
                    await channel.send({"event": "inputs", "inputs": count, "travel": self.travels.get(key)})
        finally:
            self.notifying.discard(key)

    def source_of(self, key: Any) -> Optional[Source]:
        if not isinstance(key, str) or key not in self.server.live:
            return None
        timeline = self.timelines.get(key)
        if timeline is None:
            return None

        def session() -> Any:
            connection = self.server.live.get(key)
            return connection.session if connection is not None else None
        return LiveSource(timeline, self.folder, session, self.travels, key, self.watch(key))

    def scratch_engine(self) -> Engine:
        """A runtime of the session's scenes that replays files in the folder."""
        config = dict(self.server.config.runtime)
        config.pop("plugins", None)
        config.pop("journal", None)
        config["allow"] = {"ops": ["replay", "scenario_from_journal"], "files": [self.folder]}
        return RuntimeEngine(config)

    # -- HTTP

    async def socket(self, request: web.Request) -> web.StreamResponse:
        refused = self.server.refusal(request)
        if refused is not None:
            return refused
        self.loop = asyncio.get_running_loop()
        ws = web.WebSocketResponse(max_msg_size=64 << 10, autoping=True, compress=False)
        await ws.prepare(request)
        key: List[str] = []

        def attach(frame: Dict[str, Any]) -> Optional[Source]:
            session = frame.get("session")
            if not isinstance(session, str):
                return None
            source = self.source_of(session)
            if source is not None and frame.get("import") is not None:
                source = self.files.opened(session, frame.get("import"))
            if source is not None:
                key.append(session)
                self.channels.setdefault(session, []).append(channel)
            return source
        channel = Channel(ws, None, attach)
        try:
            await channel.serve()
        finally:
            for k in key:
                if channel in self.channels.get(k, []):
                    self.channels[k].remove(channel)
        return ws

    def routes(self, app: web.Application) -> None:
        app.router.add_get("/inspector/", page)
        app.router.add_get("/inspector/ws", self.socket)
        self.files.routes(app, self.server.refusal)
        app.router.add_static("/inspector/", PAGE_DIR, follow_symlinks=False)
        app.on_startup.append(self._started)
        app.on_cleanup.append(self._cleanup)

    async def _started(self, app: web.Application) -> None:
        self.loop = asyncio.get_running_loop()

    async def _cleanup(self, app: web.Application) -> None:
        for timeline in list(self.timelines.values()):
            timeline.close()
        self.files.close()
        if self.owned:
            shutil.rmtree(self.folder, ignore_errors=True)
