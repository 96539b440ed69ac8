"""The inspector on a journal file alone: what a host that is not the web
shell (a C program, a Python one) opts into by writing a journal. The file
is replayed in a runtime of the inspector's own, with the scene types given;
the timeline, patches, trees of each scene's state at the journal's end,
scenarios and the scene graph work as live; time travel does not (there is
no session to travel)."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from typing import Any, Callable, Dict, List, Optional

from aiohttp import web

from ..web.config import WebConfig
from ..web.engine import RuntimeEngine
from ..web.server import CLIENT_DIR, Server
from .channel import Channel
from .files import FileRoutes
from .page import PAGE_DIR, page
from .source import FileSource
from .timeline import Timeline

__all__ = ["open_journal", "serve_journal", "serve_source", "Address"]


def open_journal(path: str, scenes: List[str], folder: str) -> FileSource:
    """A source for the journal at ``path``, whose scene types come from
    ``scenes`` (packs, documents, folders); ``folder`` holds the files the
    inspector writes (spans for scenarios)."""
    config: Dict[str, Any] = {"scenes": list(scenes)}
    engine = RuntimeEngine({"scenes": list(scenes),
                            "allow": {"ops": ["replay", "scenario_from_journal"], "files": [folder, os.path.dirname(os.path.realpath(path))]}})
    return FileSource(Timeline(os.path.realpath(path), config), folder, engine)


async def serve_journal(path: str, scenes: List[str], host: str = "127.0.0.1", port: int = 8090,
                        token: Optional[str] = None, on_start: Optional[Callable[[str], Any]] = None) -> None:
    """Serves the inspector of one journal file until cancelled."""
    folder = tempfile.mkdtemp(prefix="yaia-inspector-")
    try:
        await serve_source(open_journal(path, scenes, folder), scenes, Address(host, port, token), on_start)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class Address:
    """Where an inspector listens: loopback by default; ``token`` is asked
    of every socket and file (needed beyond loopback)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 8090, token: Optional[str] = None) -> None:
        self.host, self.port, self.token = host, port, token


#: How often a source with no session to say so is checked for new inputs.
POLL_SECONDS = 0.25


async def serve_source(source: FileSource, scenes: List[str], address: Address,
                       on_start: Optional[Callable[[str], Any]] = None) -> None:
    """Serves the inspector of ``source`` (a journal file's, or a host's
    runtime's) until cancelled; closes the source then. Pages are told of
    new inputs as the journal grows."""
    folder = source.folder
    token = address.token
    guard = Server(WebConfig(host=address.host, port=address.port, token=token))
    files = FileRoutes(folder, lambda key: source, lambda: RuntimeEngine(
        {"scenes": list(scenes), "allow": {"ops": ["replay", "scenario_from_journal"], "files": [folder]}}))
    channels: List[Channel] = []

    async def socket(request: web.Request) -> web.StreamResponse:
        refused = guard.refusal(request)
        if refused is not None:
            return refused
        ws = web.WebSocketResponse(max_msg_size=64 << 10, compress=False)
        await ws.prepare(request)

        def attach(frame: Dict[str, Any]) -> Any:
            imported = files.opened(frame.get("session"), frame.get("import"))
            return imported if frame.get("import") is not None else source
        channel = Channel(ws, None, attach)
        channels.append(channel)
        try:
            await channel.serve()
        finally:
            channels.remove(channel)
        return ws

    async def follow() -> None:
        known = -1
        while True:
            await asyncio.sleep(POLL_SECONDS)
            if not channels:
                continue
            try:
                count = await source.catch_up()
            except Exception:
                continue
            if count != known:
                known = count
                for channel in list(channels):
                    if channel.source is source:
                        await channel.send({"event": "inputs", "inputs": count, "travel": getattr(source, "travelling", None)})

    async def root(request: web.Request) -> web.StreamResponse:
        raise web.HTTPFound("/inspector/" + (f"?token={token}" if token else "") + "#session=file")

    app = web.Application()
    app.router.add_get("/", root)
    app.router.add_get("/inspector/", page)
    app.router.add_get("/inspector/ws", socket)
    files.routes(app, guard.refusal)
    app.router.add_static("/inspector/", PAGE_DIR, follow_symlinks=False)
    app.router.add_static("/yaia/", CLIENT_DIR, follow_symlinks=False)
    runner = web.AppRunner(app, handle_signals=False, access_log=None)
    await runner.setup()
    follower = asyncio.ensure_future(follow())
    try:
        site = web.TCPSite(runner, address.host, address.port)
        await site.start()
        bound, actual = runner.addresses[0][:2]
        url = f"http://{bound}:{actual}/inspector/" + (f"?token={token}" if token else "") + "#session=file"
        (on_start or (lambda u: print(f"yaia inspector: open {u}", flush=True)))(url)
        await asyncio.Event().wait()
    finally:
        follower.cancel()
        await runner.cleanup()
        files.close()
        source.close()
