"""A web shell for any Yaia runtime: browser tabs drive its scenes and flows
over a WebSocket, with the JSON requests and events of the C ABI
(docs/web.md). Needs aiohttp (PyPI).

    python -m yaia.web Examples/notes-documents --plugin-dir .build/yaia/plugins --start notes/login

or from Python::

    from yaia.web import WebConfig, serve
    asyncio.run(serve(WebConfig(runtime={"scenes": [...]}, start="notes/login")))
"""

from __future__ import annotations

from .config import TAB_OPS, WebConfig
from .server import CLIENT_DIR, Server
from .serve import check, serve, started

__all__ = ["CLIENT_DIR", "Server", "TAB_OPS", "WebConfig", "check", "serve", "started"]
