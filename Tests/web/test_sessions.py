"""The web server over real runtimes (the examples pack): sessions apart,
a privileged op refused, a reload resumed from the runtime's snapshot."""

from __future__ import annotations

import asyncio

from conftest import needs_library, open_tab
from yaia.web import WebConfig

pytestmark = needs_library


def test_two_sessions_are_isolated(make_server, examples_pack) -> None:  # type: ignore[no-untyped-def]
    server = make_server(WebConfig(runtime={"scenes": [examples_pack]}))

    async def run() -> None:
        a, _, close_a = await open_tab(server.ws_url)
        b, _, close_b = await open_tab(server.ws_url)
        opened = await a.ask({"op": "open", "scene": "example/login", "tag": 1})
        assert opened["ok"] is True and opened["scene"] == 1
        await a.ask({"op": "send", "scene": 1, "action": {"type": "emailChanged", "payload": "a@b.c"}, "tag": 2})
        # B's runtime has no scene 1, and lists none of A's.
        refused = await b.ask({"op": "state", "scene": 1, "tag": 1})
        assert refused["ok"] is False and refused["error"]["code"] == "no_such_scene"
        assert (await b.ask({"op": "scenes", "tag": 2}))["scenes"] == []
        await b.ask({"op": "open", "scene": "example/login", "tag": 3})
        state = await b.ask({"op": "state", "scene": 1, "tag": 4})
        assert state["viewModel"]["email"] == ""
        await close_a()
        await close_b()
    asyncio.run(run())


def test_a_privileged_op_is_refused_and_changes_nothing(make_server, examples_pack) -> None:  # type: ignore[no-untyped-def]
    server = make_server(WebConfig(runtime={"scenes": [examples_pack]}))

    async def run() -> None:
        tab, _, close = await open_tab(server.ws_url)
        await tab.ask({"op": "open", "scene": "example/login", "tag": 1})
        for i, request in enumerate([
            {"op": "bind", "service": "sys", "library": "libc.so.6", "ops": {"system": "int(string)"}},
            {"op": "perform", "effect": {"service": "sys", "op": "system", "args": ["true"]}},
            {"op": "restore", "snapshot": {}},
            {"op": "load_plugin", "path": "/tmp/x.so"},
        ], start=10):
            answer = await tab.ask({**request, "tag": i})
            assert answer["error"]["code"] == "not_permitted", answer
        assert len((await tab.ask({"op": "scenes", "tag": 1}))["scenes"]) == 1
        await close()
    asyncio.run(run())


def test_a_reload_resumes_the_flow_where_it_was(make_server, examples_pack) -> None:  # type: ignore[no-untyped-def]
    server = make_server(WebConfig(runtime={"scenes": [examples_pack]}))

    async def run() -> None:
        tab, hello, close = await open_tab(server.ws_url)
        started = await tab.ask({"op": "start", "scene": "example/login", "tag": 1})
        await tab.ask({"op": "send", "flow": started["flow"], "action": {"type": "emailChanged", "payload": "ada@example.com"}, "tag": 2})
        gone = server.detached()
        await close()
        assert await asyncio.get_running_loop().run_in_executor(None, gone.wait, 30)
        _, again, close = await open_tab(server.ws_url, session=hello["session"])
        assert again["resumed"] is True
        (flow,) = again["flows"]
        assert flow["flow"] == started["flow"] and flow["stack"][0]["viewModel"]["email"] == "ada@example.com"
        await close()
    asyncio.run(run())
