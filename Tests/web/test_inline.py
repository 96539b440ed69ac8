"""Requests run on the server's event loop (inline.py): which do, and that
neither a request that turns out slow nor a flooding tab holds up another
tab, with fake engines and injected clocks."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, Callable, Dict, List, Optional

from conftest import FakeEngine, open_tab
from yaia.web import WebConfig
from yaia.web.inline import Costs, LoopBudget, kind_of


class ThreadEngine(FakeEngine):
    """Records each send in ``log`` (shared by several engines): the name of
    the tab, the request's tag and the thread that ran it; ``effects`` maps an action
    type to what running it does besides answering."""

    def __init__(self, name: str, log: List[Dict[str, Any]],
                 effects: Optional[Dict[str, Callable[["ThreadEngine", Dict[str, Any]], None]]] = None) -> None:
        super().__init__()
        self.name = name
        self.log = log
        self.effects = effects or {}

    def execute(self, request: bytes) -> str:
        value = json.loads(request)
        action = value.get("action") or {}
        if value.get("op") != "send":
            return super().execute(request)  # the hello's own
        self.log.append({"tab": self.name, "tag": value.get("tag"), "type": action.get("type"),
                         "thread": threading.current_thread().name})
        effect = self.effects.get(action.get("type"))
        if effect is not None:
            effect(self, action)
        return super().execute(request)


def engines(*made: FakeEngine):  # type: ignore[no-untyped-def]
    queue = list(made)
    return lambda restore: queue.pop(0) if queue else FakeEngine()


def on_worker(entry: Dict[str, Any]) -> bool:
    return str(entry["thread"]).startswith("yaia-web-")


def send(tag: int, kind: str, payload: Any = None) -> Dict[str, Any]:
    return {"op": "send", "scene": 1, "action": {"type": kind, "payload": payload}, "tag": tag}


def test_a_kind_runs_on_the_loop_once_it_ran_cheaply_on_the_worker(make_server) -> None:  # type: ignore[no-untyped-def]
    log: List[Dict[str, Any]] = []
    server = make_server(WebConfig(), engines(ThreadEngine("a", log)), clock=lambda: 0.0)  # every call costs nothing

    async def run() -> None:
        tab, _, close = await open_tab(server.ws_url)
        for tag, kind in enumerate(["t", "t", "t", "u", "u"], start=1):
            assert (await tab.ask(send(tag, kind)))["echo"] == "send"
        big = await tab.ask(send(9, "t", "x" * 5000))  # a payload its kind's cost does not foretell
        assert big["echo"] == "send"
        await close()
    asyncio.run(run())
    where = [(e["type"], on_worker(e)) for e in log]
    assert where == [("t", True), ("t", False), ("t", False), ("u", True), ("u", False), ("t", True)]
    assert all(e["thread"] == server.thread.name for e in log if not on_worker(e))


def test_inline_ms_0_keeps_every_request_on_the_worker(make_server) -> None:  # type: ignore[no-untyped-def]
    log: List[Dict[str, Any]] = []
    server = make_server(WebConfig(inline_ms=0), engines(ThreadEngine("a", log)), clock=lambda: 0.0)  # even a call that costs nothing

    async def run() -> None:
        tab, _, close = await open_tab(server.ws_url)
        for tag in range(1, 4):
            await tab.ask(send(tag, "t"))
        await close()
    asyncio.run(run())
    assert [on_worker(e) for e in log] == [True, True, True]


def test_a_kind_too_slow_for_the_loop_stays_on_the_worker(make_server) -> None:  # type: ignore[no-untyped-def]
    now = [0.0]
    log: List[Dict[str, Any]] = []
    costs = {"slow": [0.002] * 3, "turns": [0.0, 0.010] * 3 + [0.0, 0.0]}

    def costly(engine: ThreadEngine, action: Dict[str, Any]) -> None:
        now[0] += costs[action["type"]].pop(0)
    engine = ThreadEngine("a", log, {"slow": costly, "turns": costly})
    server = make_server(WebConfig(inline_ms=1.0, inline_share=1.0), engines(engine), clock=lambda: now[0])

    async def run() -> None:
        tab, _, close = await open_tab(server.ws_url)
        for tag, kind in enumerate(["slow"] * 3 + ["turns"] * 8, start=1):
            assert (await tab.ask(send(tag, kind)))["tag"] == tag
        await close()
    asyncio.run(run())
    # 2 ms each time: never on the loop. Cheap on the worker, 10 ms on the
    # loop, three times: barred from it for the session, however cheap it is
    # on the worker after.
    assert [on_worker(e) for e in log] == [True] * 3 + [True, False] * 3 + [True, True]


def test_the_loop_s_budget_sends_requests_to_the_workers_until_it_is_paid_back(make_server) -> None:  # type: ignore[no-untyped-def]
    now = [0.0]
    log: List[Dict[str, Any]] = []

    def takes(engine: ThreadEngine, action: Dict[str, Any]) -> None:
        now[0] += action.get("payload") or 0.0
    # 30 ms is cheap here: what sends request 3 to the worker is the budget.
    config = WebConfig(inline_ms=100.0, inline_share=0.5)
    server = make_server(config, engines(ThreadEngine("a", log, {"t": takes})), clock=lambda: now[0])

    async def run() -> None:
        tab, _, close = await open_tab(server.ws_url)
        await tab.ask(send(1, "t"))  # learnt on the worker
        await tab.ask(send(2, "t", 0.030))  # on the loop, 30 ms of its time: the budget is overdrawn
        await tab.ask(send(3, "t"))  # 15 ms paid back of the 20 ms overdrawn: on the worker
        now[0] += 1.0
        await tab.ask(send(4, "t"))  # paid back: on the loop again
        await close()
    asyncio.run(run())
    assert [on_worker(e) for e in log] == [True, False, True, False]


def test_a_flooding_tab_takes_turns_with_another_on_the_loop(make_server) -> None:  # type: ignore[no-untyped-def]
    # While the loop runs tab A's request, A's next 100 frames and one of
    # B's arrive: the loop takes them in turns, B's is not run after A's 100.
    log: List[Dict[str, Any]] = []
    entered, gate = threading.Event(), threading.Event()

    def hold(engine: ThreadEngine, action: Dict[str, Any]) -> None:
        if action.get("payload") == "hold":
            entered.set()
            gate.wait(30)
    server = make_server(WebConfig(queue=200), engines(ThreadEngine("a", log, {"t": hold}), ThreadEngine("b", log)),
                         clock=lambda: 0.0)
    flood = 100

    async def run() -> None:
        a, _, close_a = await open_tab(server.ws_url)
        b, _, close_b = await open_tab(server.ws_url)
        await a.ask(send(1, "t"))
        await b.ask(send(1, "t"))
        await a.send(send(2, "t", "hold"))
        assert await asyncio.get_running_loop().run_in_executor(None, entered.wait, 30)
        for tag in range(3, 3 + flood):
            await a.send(send(tag, "t"))
        await b.send(send(2, "t"))
        gate.set()
        assert (await b.ask(send(3, "t")))["tag"] == 3
        tags = set()
        while len(tags) < flood + 1:
            tags.add((await a.frame())["tag"])
        assert tags == set(range(2, 3 + flood))
        await close_a()
        await close_b()
    asyncio.run(run())
    held = next(e for e in log if e["tab"] == "a" and e["tag"] == 2)
    assert not on_worker(held), "the held request ran on the loop"
    order = [(e["tab"], e["tag"]) for e in log]
    b_at, a_after = order.index(("b", 2)), [i for i, (tab, tag) in enumerate(order) if tab == "a" and tag > 2]
    assert len(a_after) == flood
    assert b_at < a_after[10], f"B's request ran after {sum(i < b_at for i in a_after)} of A's"


def test_a_request_on_the_loop_waits_its_turn_behind_the_worker_s(make_server) -> None:  # type: ignore[no-untyped-def]
    # Tab A's slow request holds its worker; a cheap one after it must not
    # overtake it on the loop: it is queued, and answered after.
    log: List[Dict[str, Any]] = []
    entered, gate = threading.Event(), threading.Event()

    def hold(engine: ThreadEngine, action: Dict[str, Any]) -> None:
        if action.get("payload") == "hold":
            entered.set()
            gate.wait(30)
    server = make_server(WebConfig(), engines(ThreadEngine("a", log, {"slow": hold})), clock=lambda: 0.0)

    async def run() -> None:
        tab, _, close = await open_tab(server.ws_url)
        await tab.ask(send(1, "t"))
        await tab.send(send(2, "slow", "hold"))  # unknown kind: the worker
        assert await asyncio.get_running_loop().run_in_executor(None, entered.wait, 30)
        await tab.send(send(3, "t"))
        other, _, close_other = await open_tab(server.ws_url)  # the loop is free meanwhile
        assert (await other.ask({"op": "state", "scene": 1, "tag": 1}))["ok"] is True
        gate.set()
        assert [(await tab.frame())["tag"] for _ in range(2)] == [2, 3]
        await close_other()
        await close()
    asyncio.run(run())
    assert [(e["tag"], on_worker(e)) for e in log] == [(1, True), (2, True), (3, True)]


def test_events_of_a_request_run_on_the_loop_follow_its_answer(make_server) -> None:  # type: ignore[no-untyped-def]
    log: List[Dict[str, Any]] = []

    def emits(engine: ThreadEngine, action: Dict[str, Any]) -> None:
        engine.push({"event": "update", "scene": 1, "seq": action.get("payload")})
    server = make_server(WebConfig(), engines(ThreadEngine("a", log, {"t": emits})), clock=lambda: 0.0)

    async def run() -> None:
        tab, _, close = await open_tab(server.ws_url)
        for tag in (1, 2):
            await tab.send(send(tag, "t", tag))
            answer, event = await tab.frame(), await tab.frame()
            assert answer["tag"] == tag and event == {"event": "update", "scene": 1, "seq": tag}
        await close()
    asyncio.run(run())
    assert [on_worker(e) for e in log] == [True, False]


def test_kinds_costs_and_the_budget() -> None:
    assert kind_of({"op": "send", "action": {"type": "x" * 100}}) == "send:" + "x" * 64
    assert kind_of({"op": "state", "scene": 1}) == "state" and kind_of({"op": "send", "action": 5}) == "send"
    costs = Costs(0.001)
    assert not costs.cheap("a")
    costs.ran("a", 0.0005, on_loop=False)
    assert costs.cheap("a")
    costs.ran("a", 0.002, on_loop=False)  # slow on the worker: not barred, not cheap
    assert not costs.cheap("a")
    for _ in range(3):  # three overruns on the loop bar it
        costs.ran("a", 0.0, on_loop=False)
        assert costs.cheap("a")
        costs.ran("a", 0.002, on_loop=True)
    costs.ran("a", 0.0, on_loop=False)
    assert not costs.cheap("a")
    for i in range(200):  # a tab making up kinds does not grow the table
        costs.ran(f"k{i}", 0.0, on_loop=False)
    assert len(costs.last) == 64 and not costs.cheap("k199")
    now = [0.0]
    budget = LoopBudget(0.25, lambda: now[0])
    assert budget.allows()
    budget.spend(0.050)
    now[0] = 0.1
    assert not budget.allows()  # 25 ms of 50 paid back
    now[0] = 1000.0
    assert budget.allows() and budget.balance <= 0.01  # saved up to the burst, no more
