"""Updates awaited from an asyncio loop, woken by the notifier (no polling)."""

from __future__ import annotations

import asyncio
import threading
from typing import List, Optional

import yaia
from conftest import WAIT


def test_next_update_wakes_when_a_service_completes_later(rt: yaia.Runtime) -> None:
    calls: List[yaia.Call] = []
    rt.add_service("feed", calls.append, deferred=True)
    scene = rt.open("example/feed")
    completers: List[threading.Thread] = []

    def complete_from_a_thread() -> None:
        (call,) = calls
        completers.append(threading.Thread(target=call.complete, args=({"items": ["a", "b"]},)))
        completers[0].start()

    async def main() -> Optional[yaia.Update]:
        scene.send("load")
        waiting = asyncio.ensure_future(rt.next_update(timeout=WAIT))
        # Runs once the task has started and awaits the notifier: the
        # completion comes while next_update waits.
        asyncio.get_running_loop().call_soon(complete_from_a_thread)
        return await waiting

    update = asyncio.run(main())
    completers[0].join()
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
