"""The inspector's server side: its JSON Patch diff, trees and journal
reading on their own; then a web server with the inspector on, driven by
raw sockets: what an inspector sees of its tab, what it cannot reach, time
travel that reaches no service, and frames kept under 64 KB."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, Dict, List

import pytest

from conftest import REPO, Tab, aiohttp, needs_library, open_tab
from yaia.inspector.channel import FRAME_BYTES
from yaia.inspector.diff import bounded, diff
from yaia.inspector.lines import JournalReader
from yaia.inspector import tree
from yaia.patch import apply_patch
from yaia.web import WebConfig
from yaia.web.engine import RuntimeEngine

CASES = [
    ({"a": 1, "b": [1, 2, 3]}, {"a": 2, "b": [1, 3], "c": None}),
    ([1, 2, 3, 4, 5], [1, 9, 4, 5, 6, 7]),
    ({"notes": [{"id": i, "t": str(i)} for i in range(50)]}, {"notes": [{"id": i, "t": str(i)} for i in range(50) if i != 17]}),
    (1, True), (True, 1), ({"x": {"y": "~/"}}, {"x": {"y/z~": 1}}), ([], [[]]), ("", None),
]


@pytest.mark.parametrize("before,after", CASES)
def test_a_diff_applied_gives_the_value_after(before: Any, after: Any) -> None:
    patch = diff(before, after)
    assert json.dumps(apply_patch(before, patch)) == json.dumps(after)
    assert diff(after, after) == []


def test_a_small_change_to_a_big_value_is_a_small_patch() -> None:
    notes = [{"id": i, "title": f"note {i}"} for i in range(10000)]
    changed = [dict(n) for n in notes]
    changed[5000]["title"] = "renamed"
    assert diff({"notes": notes}, {"notes": changed}) == [{"op": "replace", "path": "/notes/5000/title", "value": "renamed"}]


def test_a_patch_is_cut_to_its_budget_with_a_count() -> None:
    patch = [{"op": "add", "path": f"/{i}", "value": "x" * 100} for i in range(1000)]
    kept, left = bounded(patch, 4096)
    assert 0 < len(kept) < 1000 and left == 1000 - len(kept)
    assert len(json.dumps(kept, separators=(",", ":"))) <= 4096
    huge, _ = bounded([{"op": "add", "path": "/big", "value": "y" * 100000}], 4096)
    assert "value" not in huge[0] and "100" in huge[0]["truncated"]


def test_a_tree_is_paged_and_searched_within_bounds() -> None:
    value = {"notes": [{"id": i, "title": f"Note {i}"} for i in range(1000)]}
    root = tree.node(value, "")
    assert root["children"][0]["key"] == "notes" and root["children"][0]["size"] == 1000
    page = tree.node(value, "/notes", offset=200)
    assert len(page["children"]) == tree.PAGE and page["children"][0]["key"] == 200 and page["more"] == 600
    assert tree.node(value, "/nothing") is None
    found = tree.search(value, "note 42")
    assert found["matches"][0] == {"path": "/notes/42/title", "preview": "\"Note 42\""}
    assert tree.search(value, "note", limit=10)["more"] is True


def test_a_journal_is_read_in_whole_lines_and_a_hostile_one_stops(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "j.jsonl"
    path.write_bytes(b'{"kind":"begin"}\n{"kind":"send","seq":1')
    reader = JournalReader(str(path), max_line=100)
    assert [line["kind"] for line in reader.read()] == ["begin"]
    with open(path, "ab") as f:
        f.write(b'}\n[1]\n')
    assert [line["seq"] for line in reader.read()] == [1]
    assert reader.read() == [] and "not a JSON object" in str(reader.failure)
    long = tmp_path / "long.jsonl"
    long.write_bytes(b"x" * 500)
    reader = JournalReader(str(long), max_line=100)
    assert reader.read() == [] and "longer than 100" in str(reader.failure)


# -- a server with the inspector on, over the notes documents and services of the test's own

NOTES = str(REPO / "Examples/notes-documents")


class Services:
    """auth and store as host services: each call counted, store calls left
    pending (deferred) so that a test decides when they end."""

    def __init__(self) -> None:
        self.calls: List[str] = []
        self.pending: List[Any] = []
        self.lock = threading.Lock()

    def install(self, engine: RuntimeEngine) -> None:
        def auth(op: str, args: Any) -> Any:
            with self.lock:
                self.calls.append(f"auth.{op}")
            return {"user": {"email": args.get("email")}}

        def store(call: Any) -> None:
            with self.lock:
                self.calls.append(f"store.{call.op}" if hasattr(call, "op") else "store")
                self.pending.append(call)
        engine.runtime.add_service("auth", auth)
        engine.runtime.add_service("store", store, deferred=True)


@pytest.fixture
def inspected(make_server, tmp_path):  # type: ignore[no-untyped-def]
    services = Services()
    config = WebConfig(runtime={"scenes": [NOTES]}, start="notes/login", inspector=True, inspector_dir=str(tmp_path))

    def make_engine(restore: Any) -> RuntimeEngine:
        engine = RuntimeEngine(config.runtime_config(restore))
        services.install(engine)
        return engine
    server = make_server(config, make_engine)
    server.services = services
    return server


def inspector_url(server: Any) -> str:
    return server.ws_url.replace("/ws", "/inspector/ws")


async def open_inspector(server: Any, key: str, **extra: Any) -> Any:
    client = aiohttp.ClientSession()
    ws = await client.ws_connect(inspector_url(server), max_msg_size=0)
    inspector = Tab(ws)
    answer = await inspector.ask({"op": "attach", "session": key, "tag": 0, **extra})

    async def close() -> None:
        await ws.close()
        await client.close()
    return inspector, answer, close


async def log_in(tab: Tab) -> int:
    """Starts the flow and logs in; answers the flow's id."""
    started = await tab.ask({"op": "start", "scene": "notes/login", "tag": 1})
    flow = started["flow"]
    await tab.ask({"op": "send", "flow": flow, "action": {"type": "emailChanged", "payload": "ada@example.com"}, "tag": 2})
    await tab.ask({"op": "send", "flow": flow, "action": {"type": "passwordChanged", "payload": "hunter2"}, "tag": 3})
    await tab.ask({"op": "send", "flow": flow, "action": {"type": "submit"}, "tag": 4})
    return int(flow)


async def rows_of(inspector: Tab, until: int, **filters: Any) -> Dict[str, Any]:
    """The timeline once it holds ``until`` inputs (asked afresh each time)."""
    for _ in range(200):
        page = await inspector.ask({"op": "inputs", "start": 0, "count": 500, "filter": filters, "fresh": True, "tag": 9})
        if page["inputs"] >= until:
            return page
        await asyncio.sleep(0.02)
    raise AssertionError(f"the timeline did not reach {until} inputs: {page}")


@needs_library
def test_the_timeline_shows_each_input_with_its_patch(inspected) -> None:  # type: ignore[no-untyped-def]
    async def run() -> None:
        tab, hello, close_tab = await open_tab(inspected.ws_url)
        inspector, attached, close_inspector = await open_inspector(inspected, hello["session"])
        assert attached["ok"] is True and attached["live"] is True
        await log_in(tab)
        page = await rows_of(inspector, 4)
        sends = [r for r in page["rows"] if r["line"] == "send"]
        assert [r["type"] for r in sends][:3] == ["emailChanged", "passwordChanged", "submit"]
        email = await inspector.ask({"op": "input", "seq": sends[0]["seq"], "tag": 10})
        patch = next(iter(email["input"]["changes"].values()))
        assert {"op": "replace", "path": "/email", "value": "ada@example.com"} in patch
        submit = await inspector.ask({"op": "input", "seq": sends[2]["seq"], "tag": 11})
        assert [e["service"] for e in submit["input"]["effects"]] == ["auth"]
        assert submit["input"]["effects"][0]["fate"]["ok"] is True  # the outcome's input follows
        only = await rows_of(inspector, 4, kind="action", changed=True)
        assert all(r["kind"] == "action" and r["ops"] > 0 for r in only["rows"])
        # A page that opens is given the timeline's last rows with its attach.
        again, opened, close_again = await open_inspector(inspected, hello["session"], rows=2)
        whole = await rows_of(again, 4)
        assert opened["page"]["total"] == len(whole["rows"]) == opened["inputs"]
        assert opened["page"]["rows"] == whole["rows"][-2:] and opened["page"]["start"] == len(whole["rows"]) - 2
        await close_again()
        await close_inspector()
        await close_tab()
    asyncio.run(run())


@needs_library
def test_an_inspector_reaches_its_own_tab_and_no_other(inspected) -> None:  # type: ignore[no-untyped-def]
    async def run() -> None:
        tab_a, hello_a, close_a = await open_tab(inspected.ws_url)
        tab_b, hello_b, close_b = await open_tab(inspected.ws_url)
        await tab_b.ask({"op": "start", "scene": "notes/login", "tag": 1})
        await tab_b.ask({"op": "send", "flow": 1, "action": {"type": "emailChanged", "payload": "bob@example.com"}, "tag": 2})
        inspector, attached, close = await open_inspector(inspected, hello_a["session"])
        page = await rows_of(inspector, 0)
        assert not any("bob" in json.dumps(r) for r in page["rows"])
        # A key is the only way to a session: another made up is refused, as
        # is a second attach on a socket that has its session.
        again = await inspector.ask({"op": "attach", "session": hello_b["session"], "tag": 3})
        assert again["ok"] is True  # the same socket stays with tab A
        page = await rows_of(inspector, 0)
        assert not any("bob" in json.dumps(r) for r in page["rows"])
        _, other, close_other = await open_inspector(inspected, "A" * 32)
        assert other["error"]["code"] == "unknown_session"
        await close_other()
        # Files need the key too.
        async with aiohttp.ClientSession() as http:
            base = inspected.url.split("?")[0]
            async with http.get(base + "inspector/export?session=" + "B" * 32) as r:
                assert r.status == 404
        # The tab itself still cannot reach the ops the inspector uses.
        refused = await tab_a.ask({"op": "rewind", "to": 1, "tag": 5})
        assert refused["error"]["code"] == "not_permitted"
        await close()
        await close_a()
        await close_b()
    asyncio.run(run())


@needs_library
def test_hostile_inspector_frames_are_answered_and_bounded(inspected) -> None:  # type: ignore[no-untyped-def]
    async def run() -> None:
        tab, hello, close_tab = await open_tab(inspected.ws_url)
        client = aiohttp.ClientSession()
        ws = await client.ws_connect(inspector_url(inspected), max_msg_size=0)
        inspector = Tab(ws)
        await inspector.send("not json")
        assert (await inspector.frame())["error"]["code"] == "invalid_json"
        await inspector.send("[1]")
        assert (await inspector.frame())["error"]["code"] == "not_an_object"
        await inspector.send({"op": "inputs", "tag": 1})
        assert (await inspector.frame())["error"]["code"] == "bad_request"  # not attached yet
        await inspector.send({"op": "attach", "session": hello["session"], "tag": 2})
        assert (await inspector.frame())["ok"] is True
        await inspector.send({"op": "drop_tables", "tag": 3})
        assert (await inspector.frame())["error"]["code"] == "unknown_op"
        await inspector.send({"op": "input", "seq": -1, "tag": 4})
        assert (await inspector.frame())["error"]["code"] == "bad_request"
        await inspector.send({"op": "tree", "scene": 1, "path": "/x" * 5000, "tag": 5})
        assert (await inspector.frame())["error"]["code"] in ("bad_request", "limit_exceeded")
        await inspector.send("[" * 100000 + "]" * 100000)  # over 64 KB: the socket closes (1009)
        closing = await asyncio.wait_for(ws.receive(), 30)
        assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING)
        await client.close()
        # The tab's session is untouched.
        assert (await tab.ask({"op": "scenes", "tag": 6}))["ok"] is True
        await close_tab()
    asyncio.run(run())


@needs_library
def test_a_rewind_reaches_no_service_and_redraws_the_tab(inspected) -> None:  # type: ignore[no-untyped-def]
    async def run() -> None:
        tab, hello, close_tab = await open_tab(inspected.ws_url)
        inspector, _, close = await open_inspector(inspected, hello["session"])
        flow = await log_in(tab)
        await tab.ask({"op": "send", "flow": flow, "action": {"type": "load"}, "tag": 20})
        services = inspected.services
        assert services.calls.count("store.list") == 1
        page = await rows_of(inspector, 6)
        load = next(r for r in page["rows"] if r.get("type") == "load")
        # Rewound to the load, in flight there: the store is not asked again
        # (its restore policy, reissue, would have it asked by the runtime's rewind).
        answer = await inspector.ask({"op": "rewind", "to": load["seq"], "tag": 21})
        assert answer["ok"] is True and answer["to"] == load["seq"]
        while True:
            frame = await tab.frame()
            if frame.get("op") == "sync":
                break
        assert services.calls.count("store.list") == 1
        # Back before the login: the tab is on the login form again.
        email = next(r for r in page["rows"] if r.get("type") == "emailChanged")
        await inspector.ask({"op": "rewind", "to": email["seq"], "tag": 22})
        while True:
            frame = await tab.frame()
            if frame.get("op") == "sync":
                break
        stack = frame["flows"][0]["stack"]
        assert [e["scene"] for e in stack] == ["notes/login"]
        assert services.calls.count("auth.login") == 1
        resumed = await inspector.ask({"op": "resume", "tag": 23})
        assert resumed["live"] == answer["live"]
        while True:
            frame = await tab.frame()
            if frame.get("op") == "sync":
                break
        assert [e["scene"] for e in frame["flows"][0]["stack"]] == ["notes/login", "notes/list"]
        assert services.calls == ["auth.login", "store.list"]
        await close()
        await close_tab()
    asyncio.run(run())


@needs_library
def test_no_inspector_frame_exceeds_64_kb_with_a_big_state(inspected) -> None:  # type: ignore[no-untyped-def]
    async def run() -> None:
        tab, hello, close_tab = await open_tab(inspected.ws_url)
        inspector, _, close = await open_inspector(inspected, hello["session"])
        flow = await log_in(tab)
        await tab.ask({"op": "send", "flow": flow, "action": {"type": "load"}, "tag": 30})
        items = [{"key": f"note/{i}", "value": {"id": i, "title": f"Note {i}", "body": "x" * 40}} for i in range(1, 3001)]
        inspected.services.pending[0].complete({"items": items})
        page = await rows_of(inspector, 7)
        sizes = []
        for row in page["rows"]:
            await inspector.send({"op": "input", "seq": row["seq"], "tag": 31})
            message = await asyncio.wait_for(inspector.ws.receive(), 30)
            sizes.append(len(message.data.encode()))
        loaded = page["rows"][-1]
        detail = await inspector.ask({"op": "input", "seq": loaded["seq"], "tag": 32})
        assert detail["input"]["cut"], "the 3,000 notes' patch is cut, with a count"
        listing = await inspector.ask({"op": "now", "tag": 33})
        scene = listing["flows"][0]["stack"][-1]["id"]
        node = await inspector.ask({"op": "tree", "scene": scene, "source": "state", "path": "/notes", "tag": 34})
        assert node["node"]["size"] == 3000 and len(node["node"]["children"]) == 200
        found = await inspector.ask({"op": "search", "scene": scene, "source": "state", "text": "Note 2999", "tag": 35})
        assert found["matches"][0]["path"] == "/notes/2998/title"
        assert max(sizes) <= FRAME_BYTES
        await close()
        await close_tab()
    asyncio.run(run())


@needs_library
def test_a_hosts_journal_opens_on_its_own(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """What a C or Python host opts into: a journal file, opened with the
    scene types, its timeline and states read with no session."""
    from yaia.inspector import open_journal
    journal = tmp_path / "host.jsonl"
    host = RuntimeEngine({"scenes": [NOTES], "journal": str(journal)})
    opened = host.execute_value({"op": "open", "scene": "notes/login"})
    host.execute_value({"op": "send", "scene": opened["scene"], "action": {"type": "emailChanged", "payload": "c@example.com"}})
    host.close()
    source = open_journal(str(journal), [NOTES], str(tmp_path))
    try:
        assert source.timeline.catch_up() == 2
        page = source.timeline.rows(0, 10, {})
        assert [r["line"] for r in page["rows"]] == ["open", "send"]
        state = asyncio.run(source.state(opened["scene"]))
        assert state["state"]["email"] == "c@example.com"
        replay = asyncio.run(source.replay(str(journal)))
        assert replay["identical"] is True
        with pytest.raises(Exception, match="replayed, not travelled"):
            asyncio.run(source.rewind(1))
    finally:
        source.close()
