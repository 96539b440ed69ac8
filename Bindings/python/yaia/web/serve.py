"""Running a server: its config checked once before it listens, then
served until cancelled."""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Optional

from aiohttp import web

from ..errors import YaiaError
from .config import WebConfig
from .engine import RuntimeEngine
from .server import Server

__all__ = ["check", "serve", "started"]


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
