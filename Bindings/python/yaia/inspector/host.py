"""The inspector of a Python host's own Runtime, live: ``serve(runtime,
scenes)`` serves the page on loopback from a thread of its own while the
host goes on driving its runtime. The runtime must keep a journal and grant
the ``journal`` request (the inspector flushes it to follow it); the
timeline, patches and checkpoints come from a shadow runtime, as beside the
web shell; the trees and the flows are the host runtime's own, now.

Time travel rewinds the host's runtime itself, so it is off unless the host
asks for it (``travel=True``, which also needs ``restore`` granted): the
snapshot is made in a scratch runtime of the inspector's (replayed from the
nearest checkpoint, no services), and restored in the host's runtime with
every effect in flight held. The host's Scene objects keep their ids; a
scene the rewind closes answers ``unknown_scene`` from then on."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import threading
from typing import Any, Dict, List, Optional

from ..runtime import Runtime
from ..web.engine import RuntimeEngine, full_views
from . import travel
from .offline import Address, serve_source
from .shadow import held
from .source import FileSource
from .timeline import Timeline

__all__ = ["serve", "HostSource", "Served"]


class _HostEngine(RuntimeEngine):
    """The host's runtime as an engine; its grants apply; never closed here."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self._lib = runtime._lib
        self._handle = runtime.handle

    def close(self) -> None:
        pass


class HostSource(FileSource):
    """A host's runtime and its journal. ``run`` calls the inspector's
    scratch runtime (replays, scenarios); states, flows and travel reach
    the host's."""

    def __init__(self, runtime: Runtime, scenes: List[str], folder: str, travels: bool) -> None:
        self.host = _HostEngine(runtime)
        path = os.path.realpath(travel.journal_of(self.host))
        scratch = RuntimeEngine({"scenes": list(scenes), "allow": {"ops": ["replay", "scenario_from_journal"],
                                                                   "files": [folder, os.path.dirname(path)]}})
        super().__init__(Timeline(path, {"scenes": list(scenes)}), folder, scratch)
        self.runtime = runtime
        self.live = travels  # the page offers travel when true
        self.at: Optional[int] = None

    @property
    def travelling(self) -> Optional[int]:
        return self.at

    async def catch_up(self, wait: bool = True) -> int:
        await self.run(lambda _: travel.flush(self.host))
        return await super().catch_up(wait)

    async def state(self, scene: int) -> Dict[str, Any]:
        answer: Dict[str, Any] = await self.run(lambda _: self.host.execute_value({"op": "state", "scene": scene}))
        return answer

    async def now(self) -> Dict[str, Any]:
        views = await self.run(lambda _: full_views(self.host))
        flows = [{"flow": f.get("flow"), "name": f.get("name"), "version": f.get("version"),
                  "stack": [{"scene": e.get("scene"), "id": e.get("id")} for e in f.get("stack") or [] if isinstance(e, dict)]}
                 for f in views.get("flows", [])]
        return {"flows": flows, "scenes": [{"scene": s.get("scene"), "name": s.get("name"), "seq": s.get("seq")}
                                           for s in views.get("scenes", [])]}

    async def export(self) -> str:
        await self.run(lambda _: travel.flush(self.host))
        return self.timeline.path

    async def scenario(self, first: int, last: int) -> Dict[str, Any]:
        await self.run(lambda _: travel.flush(self.host))
        return await super().scenario(first, last)

    def _travel(self, seq: int) -> int:
        last = travel.flush(self.host)
        snapshot = travel.snapshot_at(self.engine, self.timeline.path, seq, live=False, timeline=self.timeline)
        self.runtime.restore(held(snapshot))
        return last

    async def rewind(self, seq: int) -> Dict[str, Any]:
        if not self.live:
            raise travel.TravelError("not_permitted", "the host did not open its runtime to travel (serve(..., travel=True))")
        last = await self.run(lambda _: self._travel(seq))
        self.at = last if self.at is None else self.at
        return {"ok": True, "to": seq, "live": self.at}

    async def resume(self) -> Dict[str, Any]:
        if self.at is None:
            return {"ok": True, "live": None}
        live = self.at
        await self.run(lambda _: self._travel(live))
        self.at = None
        return {"ok": True, "live": live}


class Served:
    """A running inspector: its ``url``; ``close`` stops it."""

    def __init__(self, url: str, loop: asyncio.AbstractEventLoop, task: "asyncio.Future[None]", thread: threading.Thread) -> None:
        self.url = url
        self._loop, self._task, self._thread = loop, task, thread

    def close(self) -> None:
        self._loop.call_soon_threadsafe(self._task.cancel)
        self._thread.join(30)


def serve(runtime: Runtime, scenes: List[str], host: str = "127.0.0.1", port: int = 0,
          token: Optional[str] = None, travel: bool = False) -> Served:
    """Serves the inspector of ``runtime`` (which keeps a journal) from a
    thread of its own; ``scenes`` are the scene types it was made with.
    Answers once the server listens."""
    folder = tempfile.mkdtemp(prefix="yaia-inspector-")
    try:
        source = HostSource(runtime, scenes, folder, travel)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    urls: List[str] = []
    holder: List["asyncio.Future[None]"] = []

    def started(url: str) -> None:
        urls.append(url)
        ready.set()

    def run() -> None:
        asyncio.set_event_loop(loop)
        holder.append(loop.create_task(serve_source(source, scenes, Address(host, port, token), started)))
        ready_task = holder[0]
        try:
            loop.run_until_complete(ready_task)
        except BaseException:
            pass
        finally:
            ready.set()
            shutil.rmtree(folder, ignore_errors=True)
            loop.close()
    thread = threading.Thread(target=run, name="yaia-inspector", daemon=True)
    thread.start()
    ready.wait(60)
    if not urls:
        thread.join(30)
        raise OSError(f"the inspector did not start on {host}:{port}")
    return Served(urls[0], loop, holder[0], thread)
