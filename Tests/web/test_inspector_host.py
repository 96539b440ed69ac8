"""The inspector of a Python host's own Runtime: served from a thread while
the host drives its runtime; the timeline follows it; travel, when the host
opts in, rewinds the host's runtime and reaches no service."""

from __future__ import annotations

import asyncio
from typing import Any, List

import pytest

from conftest import REPO, Tab, aiohttp, needs_library
import yaia
from yaia.inspector import serve

NOTES = str(REPO / "Examples/notes-documents")


def host_runtime(journal: str, calls: List[str]) -> yaia.Runtime:
    runtime = yaia.Runtime(scenes=[NOTES], config={"journal": journal}, allow=["journal", "restore"])

    def auth(op: str, args: Any) -> Any:
        calls.append(f"auth.{op}")
        return {"user": {"email": args.get("email")}}
    runtime.add_service("auth", auth)
    runtime.add_service("store", lambda call: calls.append("store"), deferred=True)
    return runtime


async def attach(url: str) -> Any:
    client = aiohttp.ClientSession()
    ws = await client.ws_connect(url.split("#")[0].replace("http://", "ws://").replace("/inspector/", "/inspector/ws"))
    inspector = Tab(ws)
    answer = await inspector.ask({"op": "attach", "session": "file", "tag": 0})
    return inspector, answer, client


async def inputs(inspector: Tab, until: int) -> Any:
    for _ in range(200):
        page = await inspector.ask({"op": "inputs", "start": 0, "count": 100, "fresh": True, "tag": 1})
        if page["inputs"] >= until:
            return page
        await asyncio.sleep(0.02)
    raise AssertionError(page)


@needs_library
def test_a_hosts_runtime_travels_when_it_opts_in(tmp_path) -> None:  # type: ignore[no-untyped-def]
    calls: List[str] = []
    runtime = host_runtime(str(tmp_path / "host.jsonl"), calls)
    served = serve(runtime, [NOTES], travel=True)
    try:
        flow = runtime.start("notes/login")
        login = flow.top
        for action in ({"type": "emailChanged", "payload": "ada@example.com"}, {"type": "passwordChanged", "payload": "hunter2"},
                       {"type": "submit"}, {"type": "load"}):
            runtime.execute({"op": "send", "flow": flow.id, "action": action})

        async def run() -> None:
            inspector, attached, client = await attach(served.url)
            assert attached["ok"] is True and attached["live"] is True
            page = await inputs(inspector, 5)
            email = next(r for r in page["rows"] if r.get("type") == "emailChanged")
            detail = await inspector.ask({"op": "input", "seq": email["seq"], "tag": 2})
            assert {"op": "replace", "path": "/email", "value": "ada@example.com"} in next(iter(detail["input"]["changes"].values()))
            rewound = await inspector.ask({"op": "rewind", "to": email["seq"], "tag": 3})
            assert rewound["ok"] is True
            # The host's own runtime is at that input: on the login form, no password.
            assert [e.scene for e in runtime.flow(flow.id).stack] == ["notes/login"]
            assert runtime.execute({"op": "state", "scene": login.id})["state"]["password"] == ""
            resumed = await inspector.ask({"op": "resume", "tag": 4})
            assert resumed["live"] == rewound["live"]
            assert [e.scene for e in runtime.flow(flow.id).stack] == ["notes/login", "notes/list"]
            tree = await inspector.ask({"op": "search", "scene": login.id, "source": "state", "text": "ada@", "tag": 5})
            assert tree["matches"][0]["path"] == "/email"
            await inspector.ws.close()
            await client.close()
        asyncio.run(run())
        assert calls == ["auth.login", "store"]  # the store's load, in flight, was held: not called again
    finally:
        served.close()
        runtime.close()


@needs_library
def test_a_hosts_runtime_is_not_travelled_unless_it_opts_in(tmp_path) -> None:  # type: ignore[no-untyped-def]
    runtime = host_runtime(str(tmp_path / "host.jsonl"), [])
    served = serve(runtime, [NOTES])
    try:
        opened = runtime.execute({"op": "open", "scene": "notes/login"})
        runtime.execute({"op": "send", "scene": opened["scene"], "action": {"type": "emailChanged", "payload": "bob@example.com"}})

        async def run() -> None:
            inspector, attached, client = await attach(served.url)
            assert attached["live"] is False
            await inputs(inspector, 2)
            refused = await inspector.ask({"op": "rewind", "to": 1, "tag": 2})
            assert refused["error"]["code"] == "not_permitted"
            await inspector.ws.close()
            await client.close()
        asyncio.run(run())
        assert runtime.execute({"op": "state", "scene": 1})["state"]["email"] == "bob@example.com"
    finally:
        served.close()
        runtime.close()


def test_a_runtime_without_a_journal_is_refused() -> None:
    pytest.importorskip("yaia")
    from yaia.inspector.travel import TravelError
    try:
        runtime = yaia.Runtime(scenes=[NOTES], allow=["journal"])
    except Exception as error:  # no library: nothing to check
        pytest.skip(str(error))
    try:
        with pytest.raises(TravelError, match="keeps no journal"):
            serve(runtime, [NOTES])
    finally:
        runtime.close()
