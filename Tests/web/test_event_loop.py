"""The command's event loop: uvloop's when it is installed, asyncio's own
otherwise (docs/web.md, "Why aiohttp")."""

from __future__ import annotations

import asyncio
import sys
import types
from typing import Any, List

from yaia.web.serve import run as run_server


def loop_of_a_run() -> List[str]:
    """Runs a coroutine with serve.run; the module of the loop it ran on."""
    seen: List[str] = []

    async def main() -> None:
        seen.append(type(asyncio.get_running_loop()).__module__)
    run_server(main())
    return seen


def test_the_server_runs_on_uvloop_when_it_is_installed(monkeypatch: Any) -> None:
    used: List[str] = []
    fake = types.ModuleType("uvloop")

    def run(main: Any) -> None:
        used.append("uvloop")
        asyncio.run(main)
    fake.run = run  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "uvloop", fake)
    assert loop_of_a_run() and used == ["uvloop"]


def test_the_server_runs_on_asyncio_s_loop_without_uvloop(monkeypatch: Any) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # import uvloop raises ImportError
    assert loop_of_a_run()[0].startswith("asyncio")
