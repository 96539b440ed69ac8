"""Frames out to a tab: a request's answer and the events queued by then
leave the worker together, in order, and a tab that stops reading is still
bounded by the outbox."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, Dict, List

from conftest import FakeEngine, aiohttp, open_tab
from yaia.web import WebConfig
from yaia.web.connection import Connection
from yaia.web.engine import Frame
from yaia.web.session import Session
from test_server import fakes


def test_an_answer_and_the_events_queued_by_then_are_one_hand_off_in_order() -> None:
    engine = FakeEngine()

    def send(request: Dict[str, Any]) -> Dict[str, Any]:
        for seq in (1, 2):
            engine.push({"event": "update", "seq": seq})
        return {"ok": True, "seq": 0}
    engine.answers["send"] = send
    handed: List[List[Frame]] = []
    done = threading.Event()

    def sink(frames: List[Frame]) -> None:
        handed.append(frames)
        if len(handed) == 2:
            done.set()
    session = Session("k" * 32, lambda restore: engine, sink, queue=4)
    session.start({})
    assert session.submit(b'{"op":"send","tag":1}')
    assert done.wait(30)
    session.detach().result(30)
    hello, answer = [[json.loads(frame) for frame in frames] for frames in handed]
    assert [frame.get("op") for frame in hello] == ["hello"]
    assert answer == [{"ok": True, "seq": 0, "tag": 1}, {"event": "update", "seq": 1}, {"event": "update", "seq": 2}]


def test_a_tab_reads_each_answer_before_the_events_its_request_queued(make_server) -> None:  # type: ignore[no-untyped-def]
    engine = FakeEngine()

    def send(request: Dict[str, Any]) -> Dict[str, Any]:
        for seq in (1, 2):
            engine.push({"event": "update", "seq": request["tag"] * 10 + seq})
        return {"ok": True}
    engine.answers["send"] = send
    server = make_server(WebConfig(), fakes(engine))

    async def run() -> None:
        tab, _, close = await open_tab(server.ws_url)
        for tag in (1, 2, 3):
            await tab.send({"op": "send", "tag": tag})
        frames = [await tab.frame() for _ in range(9)]
        assert [f.get("tag", f.get("seq")) for f in frames] == [1, 11, 12, 2, 21, 22, 3, 31, 32]
        await close()
    asyncio.run(run())


def test_a_tab_that_stops_reading_is_closed_past_the_outbox(make_server, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # Answers of 1 MiB each, far more than the socket's buffers hold: with
    # the tab not reading, the writer waits and the frames pile up.
    engine = FakeEngine({"send": lambda r: {"ok": True, "blob": "x" * (1 << 20)}})
    server = make_server(WebConfig(outbox=4, queue=256), fakes(engine))
    overflowed = threading.Event()
    put = Connection.put

    def watched(self: Connection, text: Frame) -> None:
        put(self, text)
        if self.closing:
            overflowed.set()
    monkeypatch.setattr(Connection, "put", watched)
    sent = 48

    async def run() -> None:
        tab, _, close = await open_tab(server.ws_url)
        for tag in range(1, sent + 1):
            await tab.send({"op": "send", "tag": tag})
        assert await asyncio.get_running_loop().run_in_executor(None, overflowed.wait, 30)
        answers = 0
        while True:
            message = await asyncio.wait_for(tab.ws.receive(), 30)
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            answers += 1
        assert message.type == aiohttp.WSMsgType.CLOSE and message.data == 1008
        assert answers < sent
        await close()
    asyncio.run(run())
