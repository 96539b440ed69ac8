"""Updates awaited from an asyncio loop, woken by the notifier (no polling)."""

from __future__ import annotations

import asyncio
import threading
from typing import List, Optional

import yaia


def test_next_update_wakes_when_a_service_completes_later(rt: yaia.Runtime) -> None:
    calls: List[yaia.Call] = []

    def feed(call: yaia.Call) -> None:
        calls.append(call)
        threading.Timer(0.05, lambda: call.complete({"items": ["a", "b"]})).start()

    rt.add_service("feed", feed, deferred=True)
    scene = rt.open("example/feed")

    async def main() -> Optional[yaia.Update]:
        scene.send("load")
        return await rt.next_update(timeout=5)

    update = asyncio.run(main())
    assert update is not None
    assert update.event == "update"
    assert update.view_model == {"error": None, "isLoading": False, "items": ["a", "b"]}


def test_next_update_times_out_with_none(rt: yaia.Runtime) -> None:
    rt.open("example/login")
    assert asyncio.run(rt.next_update(timeout=0.05)) is None


def test_updates_iterates_events_in_order(rt: yaia.Runtime) -> None:
    rt.add_service("feed", lambda op, args: {"items": [args]})
    scene = rt.open("example/jobs")

    async def main() -> List[int]:
        for n in range(3):
            scene.send("run", {"service": "feed", "op": "x", "args": n})
        seen: List[int] = []
        async for update in rt.updates():
            seen.append(update.seq)
            if len(seen) == 3:
                break
        return seen

    assert asyncio.run(main()) == [2, 4, 6]
