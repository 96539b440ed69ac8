"""The web server against hostile and ordinary tabs, with fake engines:
frames it refuses, limits it keeps, sessions it keeps apart and resumes."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, Dict, List

import pytest

from conftest import FakeEngine, aiohttp, open_tab
from yaia.web import WebConfig

import aiohttp


def fakes(*engines: FakeEngine):  # type: ignore[no-untyped-def]
    """make_engine handing out the given engines in turn (then fresh ones)."""
    made: List[FakeEngine] = []
    queue = list(engines)

    def make(restore: Any) -> FakeEngine:
        engine = queue.pop(0) if queue else FakeEngine()
        engine.restored = restore  # type: ignore[attr-defined]
        made.append(engine)
        return engine
    make.made = made  # type: ignore[attr-defined]
    return make


def test_hello_gives_a_session_and_forwards_requests(make_server) -> None:  # type: ignore[no-untyped-def]
    make = fakes()
    server = make_server(WebConfig(start="x/y"), make)

    async def run() -> None:
        tab, hello, close = await open_tab(server.ws_url)
        assert hello["ok"] is True and hello["op"] == "hello" and hello["resumed"] is False
        assert len(hello["session"]) >= 16 and hello["start"] == "x/y" and hello["flows"] == [] and hello["scenes"] == []
        answer = await tab.ask({"op": "open", "scene": "a/b", "tag": 7})
        assert answer == {"ok": True, "echo": "open", "tag": 7}
        await close()
    asyncio.run(run())
    assert make.made[0].requests[-1] == {"op": "open", "scene": "a/b", "tag": 7}


class BytesEngine(FakeEngine):
    """Answers with UTF-8 bytes, as the runtime's engine does."""

    def execute(self, request: bytes) -> Any:
        return json.dumps(json.loads(super().execute(request)), ensure_ascii=False).encode("utf-8")

    def receive(self) -> Any:
        text = super().receive()
        return None if text is None else json.dumps(json.loads(text), ensure_ascii=False).encode("utf-8")


def test_the_runtime_s_bytes_go_out_as_text_frames(make_server) -> None:  # type: ignore[no-untyped-def]
    engine = BytesEngine({"send": lambda r: {"ok": True, "viewModel": {"placeholder": "No notes match “kiwi” ✓"}}})
    engine.push({"event": "update", "viewModel": {"title": "Café"}})
    server = make_server(WebConfig(), fakes(engine))

    async def run() -> None:
        tab, hello, close = await open_tab(server.ws_url)
        assert hello["ok"] is True  # the hello's own answer, made by the server
        assert await tab.frame() == {"event": "update", "viewModel": {"title": "Café"}}
        answer = await tab.ask({"op": "send", "scene": 1, "action": {"type": "x"}, "tag": 3})
        assert answer == {"ok": True, "viewModel": {"placeholder": "No notes match “kiwi” ✓"}, "tag": 3}
        await close()
    asyncio.run(run())


def test_malformed_frames_are_refused_and_the_socket_stays_usable(make_server) -> None:  # type: ignore[no-untyped-def]
    server = make_server(WebConfig(), fakes())

    async def run() -> None:
        client = aiohttp.ClientSession()
        ws = await client.ws_connect(server.ws_url)
        from conftest import Tab
        tab = Tab(ws)
        await tab.send({"op": "open", "tag": 1})  # before hello
        assert (await tab.frame())["error"]["code"] == "bad_request"
        await tab.ask({"op": "hello", "tag": 0})
        cases = [("{not json", "invalid_json"), ("[1,2]", "not_an_object"), ('{"op":5}', "bad_request"),
                 ('{"tag":1}', "bad_request"), ("[" * 200000 + "]" * 200000, "limit_exceeded"),
                 ('{"op":"hello"}', "bad_request"), ('{"op":"no such op"}', "unknown_op"), ("\udcff", "invalid_json")]
        for text, code in cases:
            await ws.send_str(text) if text != "\udcff" else await ws.send_bytes(b"\xff\xfe")
            frame = await tab.frame()
            assert frame["ok"] is False and frame["error"]["code"] in (code, "bad_request"), (text[:20], frame)
        assert (await tab.ask({"op": "state", "scene": 1, "tag": 9}))["ok"] is True
        await ws.close()
        await client.close()
    asyncio.run(run())


def test_an_oversized_frame_closes_only_its_socket(make_server) -> None:  # type: ignore[no-untyped-def]
    server = make_server(WebConfig(frame_bytes=4096), fakes())

    async def run() -> None:
        tab, _, close = await open_tab(server.ws_url)
        await tab.send({"op": "send", "scene": 1, "action": {"type": "x", "payload": "a" * 10000}, "tag": 1})
        message = await asyncio.wait_for(tab.ws.receive(), 30)
        assert message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING)
        assert tab.ws.close_code == 1009
        await close()
        other, hello, close2 = await open_tab(server.ws_url)
        assert hello["ok"] is True
        assert (await other.ask({"op": "state", "scene": 1, "tag": 2}))["ok"] is True
        await close2()
    asyncio.run(run())


def test_privileged_ops_are_refused_before_the_runtime(make_server) -> None:  # type: ignore[no-untyped-def]
    make = fakes()
    server = make_server(WebConfig(), make)

    async def run() -> None:
        tab, _, close = await open_tab(server.ws_url)
        for i, op in enumerate(["snapshot", "restore", "perform", "bind", "load_plugin", "journal", "replay",
                                "register", "rewind", "scenario_from_journal", "simulate", "scenario", "services"]):
            answer = await tab.ask({"op": op, "tag": i, "path": "/etc/passwd"})
            assert answer["ok"] is False and answer["error"]["code"] == "not_permitted" and answer["error"]["at"] == "/op", answer
        await close()
    asyncio.run(run())
    assert [r["op"] for r in make.made[0].requests] == ["scenes"]  # only the hello's own


def test_a_granted_op_reaches_the_runtime(make_server) -> None:  # type: ignore[no-untyped-def]
    make = fakes()
    server = make_server(WebConfig(allow=frozenset({"logic"})), make)

    async def run() -> None:
        tab, _, close = await open_tab(server.ws_url)
        assert (await tab.ask({"op": "logic", "rule": 1, "tag": 1}))["echo"] == "logic"
        await close()
    asyncio.run(run())


def test_a_flooding_tab_is_bounded_and_does_not_block_another(make_server) -> None:  # type: ignore[no-untyped-def]
    gate = threading.Event()
    flooded = FakeEngine(gate=gate)
    make = fakes(flooded)
    server = make_server(WebConfig(queue=4), make)
    flood = 50

    async def run() -> None:
        gate.set()  # let the hello through
        tab, _, close = await open_tab(server.ws_url)
        gate.clear()
        for i in range(1, flood + 1):
            await tab.send({"op": "send", "scene": 1, "action": {"type": "t"}, "tag": i})
        refused: Dict[int, Dict[str, Any]] = {}
        # The first request holds the worker; at most `queue` more wait: the rest are refused at once.
        while len(refused) < flood - 5:
            frame = await tab.frame()
            assert frame["error"]["limit"] == "queue"
            refused[frame["tag"]] = frame
        # Meanwhile another tab, with a session and a worker of its own, is answered.
        other, hello, close2 = await open_tab(server.ws_url)
        assert hello["ok"] is True and hello["session"] != ""
        assert (await other.ask({"op": "state", "scene": 1, "tag": 1}))["ok"] is True
        gate.set()
        answered = set(refused)
        while len(answered) < flood:
            frame = await tab.frame()
            assert frame["tag"] not in answered
            answered.add(frame["tag"])
        assert answered == set(range(1, flood + 1))
        await close()
        await close2()
    asyncio.run(run())
    assert len([r for r in flooded.requests if r["op"] == "send"]) <= 5


def test_sessions_are_bounded(make_server) -> None:  # type: ignore[no-untyped-def]
    server = make_server(WebConfig(sessions=1), fakes())

    async def run() -> None:
        _, first, close = await open_tab(server.ws_url)
        assert first["ok"] is True
        _, second, close2 = await open_tab(server.ws_url)
        assert second["ok"] is False and second["error"]["limit"] == "sessions"
        await close2()
        await close()
    asyncio.run(run())


def test_a_reload_resumes_from_the_snapshot_until_it_expires(make_server) -> None:  # type: ignore[no-untyped-def]
    now = [0.0]
    make = fakes()
    server = make_server(WebConfig(resume_seconds=60), make, clock=lambda: now[0])

    async def run() -> None:
        _, first, close = await open_tab(server.ws_url)
        gone = server.detached()
        await close()
        assert await asyncio.get_running_loop().run_in_executor(None, gone.wait, 30)
        _, again, close = await open_tab(server.ws_url, session=first["session"])
        assert again["resumed"] is True and again["session"] == first["session"]
        gone = server.detached()
        await close()
        assert await asyncio.get_running_loop().run_in_executor(None, gone.wait, 30)
        now[0] = 61.0
        _, late, close = await open_tab(server.ws_url, session=first["session"])
        assert late["resumed"] is False and late["session"] != first["session"]
        gone = server.detached()  # the last runtime is closed once its tab is detached
        await close()
        assert await asyncio.get_running_loop().run_in_executor(None, gone.wait, 30)
    asyncio.run(run())
    assert make.made[1].restored == {"fake": True} and make.made[2].restored is None
    assert all(engine.closed for engine in make.made)


def test_a_duplicated_tab_never_shares_a_live_session(make_server) -> None:  # type: ignore[no-untyped-def]
    server = make_server(WebConfig(), fakes())

    async def run() -> None:
        _, first, close = await open_tab(server.ws_url)
        _, copy, close2 = await open_tab(server.ws_url, session=first["session"])
        assert copy["resumed"] is False and copy["session"] != first["session"]
        await close2()
        await close()
    asyncio.run(run())


def test_a_reload_takes_its_session_over_before_the_old_socket_closed(make_server) -> None:  # type: ignore[no-untyped-def]
    # A reloaded page's hello can come before the server sees the old page's
    # socket close: with "takeover" it closes that socket and resumes.
    make = fakes()
    server = make_server(WebConfig(), make)

    async def run() -> None:
        old, first, close_old = await open_tab(server.ws_url)
        new, again, close_new = await open_tab(server.ws_url, session=first["session"], takeover=True)
        assert again["resumed"] is True and again["session"] == first["session"]
        closed = await asyncio.wait_for(old.ws.receive(), 30)
        assert closed.type == aiohttp.WSMsgType.CLOSE and closed.data == 4000
        assert (await new.ask({"op": "send", "tag": 1}))["echo"] == "send"
        # A takeover of a key nobody holds is a new session, as any unknown key.
        _, other, close_other = await open_tab(server.ws_url, session="x" * 32, takeover=True)
        assert other["resumed"] is False and other["session"] != first["session"]
        await close_other()
        await close_new()
        await close_old()
    asyncio.run(run())
    assert make.made[0].closed and make.made[1].restored == {"fake": True}
    assert make.made[1].requests[-1]["op"] == "send"


def test_events_reach_their_tab_in_order(make_server) -> None:  # type: ignore[no-untyped-def]
    make = fakes()
    server = make_server(WebConfig(), make)

    async def run() -> None:
        tab, _, close = await open_tab(server.ws_url)
        engine = make.made[0]
        for seq in range(1, 4):
            engine.push({"event": "update", "ok": True, "scene": 1, "seq": seq, "viewModel": {"n": seq}})
        assert [(await tab.frame())["seq"] for _ in range(3)] == [1, 2, 3]
        await close()
    asyncio.run(run())


@pytest.mark.parametrize("origin,status", [("http://evil.example", 403), (None, 101)])
def test_pages_of_other_origins_cannot_connect(make_server, origin, status) -> None:  # type: ignore[no-untyped-def]
    server = make_server(WebConfig(), fakes())

    async def run() -> None:
        headers = {"Origin": origin} if origin else {}
        async with aiohttp.ClientSession() as client:
            if status == 403:
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await client.ws_connect(server.ws_url, headers=headers)
                assert refused.value.status == 403
            else:
                _, hello, close = await open_tab(server.ws_url, headers={"Origin": server.url.rstrip("/")})
                assert hello["ok"] is True
                await close()
    asyncio.run(run())


def test_a_token_is_required_when_set(make_server) -> None:  # type: ignore[no-untyped-def]
    server = make_server(WebConfig(token="s3cret-token"), fakes())

    async def run() -> None:
        async with aiohttp.ClientSession() as client:
            for url in (server.ws_url, server.ws_url + "?token=wrong"):
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await client.ws_connect(url)
                assert refused.value.status == 401
        _, hello, close = await open_tab(server.ws_url + "?token=s3cret-token")
        assert hello["ok"] is True
        await close()
    asyncio.run(run())


def test_listening_beyond_loopback_needs_a_token() -> None:
    with pytest.raises(ValueError, match="token"):
        WebConfig(host="0.0.0.0")
    with pytest.raises(ValueError, match="cannot grant"):
        WebConfig(allow=frozenset({"send", "nonsense"}))


def test_the_runtime_keeps_its_own_request_bound() -> None:
    # The socket bounds a tab's frames; the runtime's request_bytes also bounds
    # what services answer (a store listing 10,000 notes is over 1 MiB), so the
    # server leaves it as the runtime has it, unless the host sets it.
    assert "request_bytes" not in WebConfig().runtime_config()["limits"]
    given = WebConfig(runtime={"limits": {"request_bytes": 4096}})
    assert given.runtime_config()["limits"]["request_bytes"] == 4096


@pytest.mark.parametrize("isolated", [True, False])
def test_an_isolated_server_serves_everything_cross_origin_isolated(make_server, isolated) -> None:  # type: ignore[no-untyped-def]
    server = make_server(WebConfig(isolated=isolated), fakes())
    policies = {"Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "credentialless"}

    async def run() -> None:
        async with aiohttp.ClientSession() as client:
            for path in ("", "yaia/yaia.js", "index.html", "no-such-file"):
                async with client.get(server.url + path) as response:
                    assert response.status == (404 if path == "no-such-file" else 200)
                    got = {name: response.headers.get(name) for name in policies}
                    assert got == (policies if isolated else dict.fromkeys(policies)), path
        _, hello, close = await open_tab(server.ws_url)  # the socket is the same either way
        assert hello["ok"] is True
        await close()
    asyncio.run(run())
