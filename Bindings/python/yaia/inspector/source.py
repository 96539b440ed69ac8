"""What an inspector looks at: a live session of the web server (its
runtime, its journal, time travel), or a journal file on its own (replayed
in a runtime of the inspector's own; no travel). The channel asks both the
same things."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import secrets
from typing import Any, Callable, Dict, List, Optional

from ..web.engine import Engine, full_views
from . import travel
from .graph import scene_graph
from .timeline import Timeline

__all__ = ["Source", "LiveSource", "FileSource"]


class Source:
    """A timeline and the runtime behind it. ``run`` calls a function with
    the engine where it may be called (a session's worker, or here)."""

    live = False

    def __init__(self, timeline: Timeline, folder: str) -> None:
        self.timeline = timeline
        self.folder = folder
        self.travel: Optional[int] = None

    async def run(self, fn: Callable[[Engine], Any]) -> Any:
        raise NotImplementedError

    async def catch_up(self, wait: bool = True) -> int:
        """Follows the journal's new lines; without ``wait``, answers at once
        when another catch-up is under way (it tells the page when done)."""
        return await asyncio.get_running_loop().run_in_executor(None, self.timeline.catch_up, wait)

    def later(self) -> None:
        """Has the journal followed soon, off the caller's path."""

    async def attached(self) -> int:
        """How many inputs a page that attaches opens on: the journal
        followed to now (without waiting for a catch-up under way)."""
        return await self.catch_up(wait=not self.live)

    async def state(self, scene: int) -> Dict[str, Any]:
        raise NotImplementedError

    async def now(self) -> Dict[str, Any]:
        """The scenes open now and the flows' stacks, view models left out."""
        views = await self.run(full_views)
        flows = [{"flow": f.get("flow"), "name": f.get("name"), "version": f.get("version"),
                  "stack": [{"scene": e.get("scene"), "id": e.get("id")} for e in f.get("stack") or [] if isinstance(e, dict)]}
                 for f in views.get("flows", [])]
        scenes = [{"scene": s.get("scene"), "name": s.get("name"), "seq": s.get("seq")} for s in views.get("scenes", [])]
        return {"flows": flows, "scenes": scenes}

    async def graph(self) -> Dict[str, Any]:
        graph: Dict[str, Any] = await self.run(scene_graph)
        return graph

    async def scenario(self, first: int, last: int) -> Dict[str, Any]:
        """The scenarios of inputs ``first`` to ``last`` (scenario_from_journal
        of a journal of that span)."""
        path = os.path.join(self.folder, f"span-{secrets.token_hex(8)}.jsonl")

        def work(engine: Engine) -> Dict[str, Any]:
            try:
                travel.span(engine, self.timeline.path, first, last, path, flush=isinstance(self, LiveSource))
                answer = engine.execute_value({"op": "scenario_from_journal", "path": path})
                # Each file names the scenes it runs, so `yaia test FILE` needs nothing else.
                scenes = [str(s) for s in self.timeline.config.get("scenes", []) if isinstance(s, str)]
                for scenario in answer.get("scenarios") or []:
                    if isinstance(scenario, dict) and scenes:
                        scenario.setdefault("scenes", scenes)
                return answer
            finally:
                if os.path.exists(path):
                    os.unlink(path)
        spans: Dict[str, Any] = await self.run(work)
        return spans

    async def replay(self, path: str) -> Dict[str, Any]:
        answer: Dict[str, Any] = await self.run(lambda e: e.execute_value({"op": "replay", "journal": path}))
        return answer

    async def export(self) -> str:
        """The journal file, whole (flushed first when live)."""
        return self.timeline.path

    async def rewind(self, seq: int) -> Dict[str, Any]:
        raise travel.TravelError("not_permitted", "a journal file is replayed, not travelled: open it live to travel")

    async def resume(self) -> Dict[str, Any]:
        raise travel.TravelError("not_permitted", "a journal file is replayed, not travelled")


class LiveSource(Source):
    """A session of the web server: ``session`` finds its live Session (None
    once its tab went away)."""

    live = True

    def __init__(self, timeline: Timeline, folder: str, session: Callable[[], Any], travels: Dict[str, int], key: str,
                 kick: Optional[Callable[[], None]] = None) -> None:
        super().__init__(timeline, folder)
        self.session = session
        self.travels = travels
        self.key = key
        self.kick = kick

    def later(self) -> None:
        if self.kick is not None:
            self.kick()

    async def run(self, fn: Callable[[Engine], Any]) -> Any:
        session = self.session()
        if session is None:
            raise travel.TravelError("bad_handle", "the tab's session is not connected")
        return await asyncio.wrap_future(session.call(fn))

    async def catch_up(self, wait: bool = True) -> int:
        await self.run(travel.flush)
        return await super().catch_up(wait)

    async def attached(self) -> int:
        # The hub follows the journal after each burst of the tab's inputs,
        # and tells the session's pages when done (hub.py): a page opens on
        # what is followed, without a trip through the tab's worker.
        return len(self.timeline.entries)

    async def state(self, scene: int) -> Dict[str, Any]:
        answer: Dict[str, Any] = await self.run(lambda e: e.execute_value({"op": "state", "scene": scene}))
        return answer

    async def export(self) -> str:
        await self.run(travel.flush)
        return self.timeline.path

    @property
    def travelling(self) -> Optional[int]:
        return self.travels.get(self.key)

    async def rewind(self, seq: int) -> Dict[str, Any]:
        def work(engine: Engine) -> int:
            last = travel.flush(engine)  # the last input before this rewind
            travel.rewind(engine, self.timeline.path, seq, self.timeline, flushed=True)
            return last
        last = await self.run(work)
        live = self.travels.get(self.key, last)
        self.travels[self.key] = live
        self._redraw()
        self.later()
        return {"ok": True, "to": seq, "live": live}

    async def resume(self) -> Dict[str, Any]:
        live = self.travels.get(self.key)
        if live is None:
            return {"ok": True, "live": None}
        await self.run(lambda e: travel.rewind(e, self.timeline.path, live, self.timeline))
        del self.travels[self.key]
        self._redraw()
        self.later()
        return {"ok": True, "live": live}

    def _redraw(self) -> None:
        # The app's tab gets every view model whole, as after a gap.
        session = self.session()
        if session is not None:
            session.sync(None)


class FileSource(Source):
    """A journal file, with a runtime of the inspector's own (the file's
    scene types; replay and scenario_from_journal granted in ``folder``)."""

    def __init__(self, timeline: Timeline, folder: str, engine: Engine) -> None:
        super().__init__(timeline, folder)
        self.engine = engine
        # One thread calls the engine, as a session's worker does.
        self.worker = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="yaia-inspector")

    async def run(self, fn: Callable[[Engine], Any]) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.worker, fn, self.engine)

    def close(self) -> None:
        self.worker.shutdown(wait=True)
        self.engine.close()
        self.timeline.close()

    async def state(self, scene: int) -> Dict[str, Any]:
        shadow = self.timeline.shadow
        if shadow is None or scene not in shadow.states:
            return {"ok": False, "error": {"code": "unknown_scene", "message": f"no scene {scene} at the journal's end"}}
        return {"ok": True, "scene": scene, "name": shadow.names.get(scene), "state": shadow.state(scene)}

    async def now(self) -> Dict[str, Any]:
        shadow = self.timeline.shadow
        if shadow is None:
            return {"flows": [], "scenes": []}
        listing: List[Dict[str, Any]] = [{"scene": i, "name": shadow.names.get(i), "seq": s} for i, s in shadow.seqs.items()]
        return {"flows": [], "scenes": listing}
