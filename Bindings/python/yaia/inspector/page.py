"""The inspector's page as served: index.html with its stylesheet and its
script put inside it, so that opening the page is one response and not three
(the trees and the graph are imported when their tab opens). The files stay
as they are, and each works on its own: the page as a file still loads them."""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

__all__ = ["PAGE_DIR", "page_text", "page"]


def _page_dir() -> Path:
    from ..web.server import CLIENT_DIR
    return CLIENT_DIR / "inspector"


PAGE_DIR = _page_dir()

_STYLE = '<link rel="stylesheet" href="/inspector/style.css">'
_SCRIPT = '<script type="module" src="/inspector/inspector.js"></script>'


def page_text(folder: Path = PAGE_DIR) -> str:
    """index.html with style.css and inspector.js inline (each read afresh:
    a few kilobytes). A file that would end its element early stays a link."""
    html = (folder / "index.html").read_text(encoding="utf-8")
    style = (folder / "style.css").read_text(encoding="utf-8")
    script = (folder / "inspector.js").read_text(encoding="utf-8")
    if "</style" not in style.lower():
        html = html.replace(_STYLE, f"<style>\n{style}</style>")
    if "</script" not in script.lower():
        html = html.replace(_SCRIPT, f'<script type="module">\n{script}</script>')
    return html


async def page(request: web.Request) -> web.StreamResponse:
    return web.Response(text=page_text(), content_type="text/html")
