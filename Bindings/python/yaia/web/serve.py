"""Running a server: its config checked once before it listens, then
served until cancelled."""

from __future__ import annotations

import asyncio
import importlib
from typing import Any, Callable, Coroutine, Optional

from aiohttp import web

from ..errors import YaiaError
from .config import WebConfig
from .engine import RuntimeEngine
from .server import Server

__all__ = ["check", "run", "serve", "started"]


def check(config: WebConfig) -> None:
    """Makes one runtime from the config, so that a pack, plugin or grant it
    cannot use fails here, once, rather than in every tab. Raises YaiaError."""
    engine = RuntimeEngine(config.runtime_config())
    try:
        if config.start is not None:
            answer = engine.execute_value({"op": "schema", "scene": config.start})
            error = answer.get("error")
            if isinstance(error, dict) and error.get("code") == "unknown_scene":
                raise YaiaError("unknown_scene", f"--start names no scene type: {config.start}")
    finally:
        engine.close()


def started(url: str) -> None:
    print(f"yaia web: open {url}", flush=True)


async def serve(config: WebConfig, on_start: Callable[[str], Any] = started,
                server: Optional[Server] = None) -> None:
    """Serves until cancelled; ``on_start`` gets the page's URL (with the
    port the system chose when ``config.port`` is 0, and the token)."""
    server = server or Server(config)
    runner = web.AppRunner(server.app(), handle_signals=False, access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    try:
        site = web.TCPSite(runner, config.host, config.port)
        await site.start()
        host, port = runner.addresses[0][:2]
        shown = f"[{host}]" if ":" in host else host
        url = f"http://{shown}:{port}/" + (f"?token={config.token}" if config.token else "")
        on_start(url)
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


def run(main: Coroutine[Any, Any, None]) -> None:
    """Runs ``main`` on uvloop when it is installed, else on asyncio's own
    loop. uvloop's loop is written in C: each frame costs the loop less, and
    an action's round trip takes several loop turns (the frame read, the
    hand-off back from the session's thread, the write)."""
    try:
        uvloop: Any = importlib.import_module("uvloop")
    except ImportError:
        asyncio.run(main)
        return
    uvloop.run(main)
