"""Sessions as files, over HTTP beside the inspector's socket: a session's
journal to download, a journal to upload (replayed, then browsable), and a
span of inputs as scenario files. Files are not frames: they may be big,
and a page saves them as they come."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
from typing import Any, Callable, Dict, Optional, Tuple

from aiohttp import web

from ..web.engine import Engine
from .source import FileSource, Source
from .timeline import Timeline
from .travel import TravelError

__all__ = ["FileRoutes", "IMPORT_BYTES"]

#: The largest journal an inspector uploads.
IMPORT_BYTES = 64 << 20
#: Imported journals kept per server (the oldest goes first).
IMPORTS = 16

Refusal = Callable[[web.Request], Optional[web.Response]]


def _error(status: int, code: str, message: str) -> web.Response:
    return web.json_response({"ok": False, "error": {"code": code, "message": message}}, status=status)


class FileRoutes:
    """``source_of(key)`` finds a live session's source; ``engine()`` makes
    a runtime that replays files in ``folder``. Imports are kept per
    session key: another tab's inspector cannot open them."""

    def __init__(self, folder: str, source_of: Callable[[Any], Optional[Source]], engine: Callable[[], Engine]) -> None:
        self.folder = folder
        self.source_of = source_of
        self.engine = engine
        self.imports: Dict[Tuple[str, str], FileSource] = {}

    def routes(self, app: web.Application, refusal: Refusal) -> None:
        def guarded(handler: Callable[[web.Request, Source], Any]) -> Any:
            async def handle(request: web.Request) -> web.StreamResponse:
                refused = refusal(request)
                if refused is not None:
                    return refused
                source = self.source_of(request.query.get("session"))
                if source is None:
                    return _error(404, "unknown_session", "no session of this server is connected under that key")
                try:
                    result: web.StreamResponse = await handler(request, source)
                    return result
                except TravelError as error:
                    return _error(400, error.code, error.message)
            return handle
        app.router.add_get("/inspector/export", guarded(self.export))
        app.router.add_post("/inspector/import", guarded(self.upload))
        app.router.add_get("/inspector/scenario", guarded(self.scenario))

    def opened(self, key: Any, name: Any) -> Optional[FileSource]:
        return self.imports.get((key, name)) if isinstance(key, str) and isinstance(name, str) else None

    async def export(self, request: web.Request, source: Source) -> web.StreamResponse:
        path = await source.export()
        return web.FileResponse(path, headers={"Content-Disposition": "attachment; filename=\"session.jsonl\"",
                                               "Content-Type": "application/x-ndjson"})

    async def scenario(self, request: web.Request, source: Source) -> web.StreamResponse:
        try:
            first, last = int(request.query.get("from", "")), int(request.query.get("to", ""))
        except ValueError:
            return _error(400, "bad_request", "from and to are input numbers")
        answer = await source.scenario(first, last)
        return web.json_response(answer, status=200 if answer.get("ok") is True else 400, dumps=_dumps)

    async def upload(self, request: web.Request, source: Source) -> web.StreamResponse:
        name = secrets.token_hex(8)
        path = os.path.join(self.folder, f"import-{name}.jsonl")
        size = 0
        with open(path, "wb") as out:
            async for chunk in request.content.iter_chunked(1 << 16):
                size += len(chunk)
                if size > IMPORT_BYTES:
                    out.close()
                    os.unlink(path)
                    return _error(413, "limit_exceeded", f"a journal to import is at most {IMPORT_BYTES} bytes")
                out.write(chunk)
        engine = await asyncio.get_running_loop().run_in_executor(None, self.engine)
        imported = FileSource(Timeline(path, {"scenes": _scenes(source)}), self.folder, engine)
        replay = await imported.replay(path)
        if replay.get("ok") is not True:
            imported.close()
            os.unlink(path)
            return web.json_response(replay, status=400, dumps=_dumps)
        key = request.query["session"]
        self.imports[(key, name)] = imported
        while len(self.imports) > IMPORTS:
            old = next(iter(self.imports))
            self.imports.pop(old).close()
        return web.json_response({"ok": True, "import": name, "replay": _short(replay)}, dumps=_dumps)

    def close(self) -> None:
        for source in self.imports.values():
            source.close()
        self.imports.clear()


def _scenes(source: Source) -> Any:
    return source.timeline.config.get("scenes", [])


def _short(replay: Dict[str, Any]) -> Dict[str, Any]:
    # A divergence carries the view model it got: cut to what a page shows.
    out = dict(replay)
    divergence = out.get("divergence")
    if isinstance(divergence, dict) and "viewModel" in divergence:
        text = json.dumps(divergence["viewModel"])
        if len(text) > 8192:
            divergence = dict(divergence, viewModel={"truncated": f"{len(text)} bytes", "start": text[:400]})
            out["divergence"] = divergence
    return out


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))
