"""yaia.js in Chromium: the JSON Patch suite, view models kept from patches
and resynced after a gap, actions refused in the page, reconnecting."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any, Dict, List

import pytest

from conftest import FakeEngine
from yaia.web import WebConfig

SUITE = Path(os.environ.get("YAIA_JSON_PATCH_TESTS", Path(__file__).resolve().parents[3] / "shared/conformance/json-patch"))

RUN_SUITE = """async (cases) => {
  const { applyPatch, jsonEqual } = await import("/yaia/patch.js");
  const failures = [];
  let ran = 0;
  for (const t of cases) {
    if (t.disabled) continue;
    ran++;
    const before = JSON.stringify(t.doc);
    let got, error;
    try { got = applyPatch(t.doc, t.patch); } catch (e) { error = e; }
    const ok = "error" in t ? error !== undefined : error === undefined && (!("expected" in t) || jsonEqual(got, t.expected));
    if (!ok) failures.push([t.comment || "", String(error), JSON.stringify(got)]);
    if (JSON.stringify(t.doc) !== before) failures.push([t.comment || "", "the document given was changed", ""]);
  }
  return { ran, failures };
}"""


def test_the_patch_applier_passes_the_json_patch_suite(make_server, page) -> None:  # type: ignore[no-untyped-def]
    files = [SUITE / "tests.json", SUITE / "spec_tests.json"]
    if not all(f.is_file() for f in files):
        pytest.skip(f"the JSON Patch suite is not at {SUITE} (../shared/conformance/json-patch)")
    cases: List[Dict[str, Any]] = [case for f in files for case in json.loads(f.read_text())]
    server = make_server(WebConfig(), lambda restore: FakeEngine())
    page.goto(server.url)
    result = page.evaluate(RUN_SUITE, cases)
    assert result["failures"] == []
    assert result["ran"] == len([c for c in cases if not c.get("disabled")]) > 100


# Patches as a diff writes them for a list (members of rows replaced in turn,
# rows removed from the highest index down, rows added in order), which the
# applier takes in runs, checked against the same operations applied one at
# a time; and patches whose runs must fail at the operation that is wrong.
RUNS = """async () => {
  const { applyPatch } = await import("/yaia/patch.js");
  const rows = Array.from({ length: 8 }, (_, i) => ({ id: i, t: "t" + i, u: "u" + i }));
  const doc = { rows, n: 8 };
  const one = (d, patch) => patch.reduce((x, op) => applyPatch(x, [op]), d);
  const cases = [
    [{ op: "replace", path: "/rows/0/t", value: "a" }, { op: "replace", path: "/rows/0/u", value: "b" },
     { op: "replace", path: "/rows/1/t", value: "c" }, { op: "remove", path: "/rows/6" }, { op: "remove", path: "/rows/5" },
     { op: "remove", path: "/rows/4" }, { op: "add", path: "/rows/2", value: { id: 20 } }, { op: "add", path: "/rows/3", value: { id: 21 } },
     { op: "replace", path: "/n", value: 7 }],
    [{ op: "add", path: "/rows/8", value: 1 }, { op: "add", path: "/rows/9", value: 2 }, { op: "remove", path: "/rows/9" }, { op: "remove", path: "/rows/8" }],
    [{ op: "replace", path: "/rows/0/t", value: "x" }, { op: "remove", path: "/rows/0" }, { op: "replace", path: "/rows/0/t", value: "y" }],
    [{ op: "replace", path: "/rows/2/t", value: "x" }, { op: "test", path: "/rows/2/t", value: "x" }, { op: "replace", path: "/rows/2/u", value: "y" }],
    [{ op: "replace", path: "/rows/1", value: { id: 9, t: "new" } }, { op: "replace", path: "/rows/1/t", value: "newer" }],
  ];
  const results = cases.map((patch) => JSON.stringify(applyPatch(doc, patch)) === JSON.stringify(one(doc, patch)));
  const root = applyPatch([0, 1, 2, 3, 4], [{ op: "remove", path: "/4" }, { op: "remove", path: "/3" }, { op: "add", path: "/1", value: 9 }, { op: "add", path: "/2", value: 8 }]);
  const aliased = applyPatch({ a: { x: 0 } }, [{ op: "replace", path: "/a/x", value: 1 }, { op: "copy", from: "/a", path: "/b" }, { op: "replace", path: "/a/x", value: 2 }]);
  const failing = [
    [{ op: "remove", path: "/rows/9" }, { op: "remove", path: "/rows/8" }],
    [{ op: "add", path: "/rows/10", value: 0 }, { op: "add", path: "/rows/11", value: 0 }],
    [{ op: "remove", path: "/rows/1" }, { op: "remove", path: "/rows/0" }, { op: "remove", path: "/rows/-1" }],
    [{ op: "replace", path: "/rows/0/t", value: 0 }, { op: "replace", path: "/rows/0/zz", value: 0 }],
    [{ op: "replace", path: "/rows/0/t", value: 0 }, { op: "replace", path: "/rows/0/t/x", value: 0 }],
  ].map((patch) => { try { applyPatch(doc, patch); return null; } catch (e) { return e.index; } });
  return { results, root, aliased, failing, unchanged: JSON.stringify(doc) === JSON.stringify({ rows: Array.from({ length: 8 }, (_, i) => ({ id: i, t: "t" + i, u: "u" + i })), n: 8 }) };
}"""


def test_the_applier_takes_a_diff_s_runs_as_one_operation_at_a_time_would(make_server, page) -> None:  # type: ignore[no-untyped-def]
    server = make_server(WebConfig(), lambda restore: FakeEngine())
    page.goto(server.url)
    got = page.evaluate(RUNS)
    assert got["results"] == [True] * 5
    assert got["root"] == [0, 9, 8, 1, 2]
    assert got["aliased"] == {"a": {"x": 2}, "b": {"x": 1}}
    assert got["failing"] == [0, 0, 2, 1, 1]
    assert got["unchanged"] is True


def scripted() -> FakeEngine:
    """A session holding one free scene of a declared type, as a runtime with patches would answer."""
    schema = {"declared": True, "ok": True, "scene": "t/list", "schema": {"$defs": {"action": {"oneOf": [
        {"properties": {"type": {"const": "add"}}}, {"properties": {"type": {"const": "clear"}}}]}}}}
    return FakeEngine({
        "scenes": lambda r: {"ok": True, "flows": [], "scenes": [{"id": 1, "name": "t/list", "seq": 0}]},
        "state": lambda r: {"ok": True, "scene": 1, "name": "t/list", "seq": 0, "viewModel": {"items": ["a"]}},
        "schema": lambda r: schema,
        "view": lambda r: {"ok": True, "scene": 1, "seq": 5, "viewModel": {"items": ["whole"]}},
        "send": lambda r: {"ok": True, "scene": 1, "seq": 1, "viewBase": 0, "viewPatch": [{"op": "add", "path": "/items/-", "value": r["action"]["type"]}]},
    })


def view_of(page) -> Any:  # type: ignore[no-untyped-def]
    return json.loads(page.text_content("#view") or "null")


def test_the_client_keeps_view_models_from_patches_and_resyncs_after_a_gap(make_server, page) -> None:  # type: ignore[no-untyped-def]
    engines: List[FakeEngine] = []
    server = make_server(WebConfig(), lambda restore: engines.append(scripted()) or engines[-1])
    page.goto(server.url)
    page.wait_for_function("() => document.querySelector('#view').textContent.includes('\"a\"')")
    engine = engines[0]
    # A send whose answer is a patch to the view model the page holds.
    page.evaluate("() => window.app.send('add')")
    page.wait_for_function("() => JSON.parse(document.querySelector('#view').textContent).items.length === 2")
    assert view_of(page) == {"items": ["a", "add"]}
    # An event two reductions ahead: a gap, so the page asks for the view model whole.
    engine.push({"event": "update", "ok": True, "scene": 1, "seq": 3, "viewBase": 2, "viewPatch": [{"op": "remove", "path": "/items/0"}]})
    page.wait_for_function("() => document.querySelector('#view').textContent.includes('whole')")
    assert view_of(page) == {"items": ["whole"]}
    assert {"op": "view", "scene": 1} in [{k: v for k, v in r.items() if k != "tag"} for r in engine.requests]
    # An older update than the one held changes nothing; the next one in line applies.
    engine.push({"event": "update", "ok": True, "scene": 1, "seq": 4, "viewModel": {"items": ["old"]}})
    engine.push({"event": "update", "ok": True, "scene": 1, "seq": 6, "viewBase": 5, "viewPatch": [{"op": "replace", "path": "/items/0", "value": "next"}]})
    page.wait_for_function("() => document.querySelector('#view').textContent.includes('next')")
    # Events were dropped: everything is asked for again.
    scenes_asked = len([r for r in engine.requests if r["op"] == "scenes"])
    engine.push({"event": "update", "ok": True, "dropped": 3, "scene": 1, "seq": 9, "viewBase": 6, "viewPatch": []})
    page.wait_for_function("() => document.querySelector('#view').textContent.includes('\"a\"')")
    assert len([r for r in engine.requests if r["op"] == "scenes"]) == scenes_asked + 1
    assert page.errors == []


def test_an_undeclared_action_is_refused_in_the_page(make_server, page) -> None:  # type: ignore[no-untyped-def]
    engines: List[FakeEngine] = []
    server = make_server(WebConfig(), lambda restore: engines.append(scripted()) or engines[-1])
    page.goto(server.url)
    page.wait_for_function("() => document.querySelector('#view').textContent.includes('\"a\"')")
    refusal = page.evaluate("() => window.app.send('claer').then(() => null, (e) => ({code: e.code, message: e.message, at: e.at}))")
    assert refusal == {"code": "unknown_action", "message": 'unknown action type "claer"', "at": "/action/type"}
    page.wait_for_function("() => document.querySelector('#error').textContent.startsWith('unknown_action')")
    assert not [r for r in engines[0].requests if r["op"] == "send"]
    refusal = page.evaluate("() => window.app.send('cleer').catch((e) => e.message)")
    assert refusal == 'unknown action type "cleer"; did you mean "clear"?'
    names = page.evaluate("() => window.app.actions('t/list').then(Object.keys)")
    assert names == ["add", "clear"]


def test_the_client_reconnects_and_resumes_its_session(make_server, page) -> None:  # type: ignore[no-untyped-def]
    engines: List[FakeEngine] = []
    restored: List[Any] = []

    def make(restore: Any) -> FakeEngine:
        restored.append(restore)
        engines.append(scripted())
        return engines[-1]
    server = make_server(WebConfig(), make)
    page.goto(server.url)
    page.wait_for_function("() => window.app && window.app.ready")
    key = page.evaluate("() => sessionStorage.getItem('yaia.session')")
    gone = server.detached()
    # The server drops the socket (a restart, a network fault): the page comes back by itself.
    server.call(lambda: [__import__("asyncio").ensure_future(c.ws.close()) for c in list(server.server.live.values())])
    assert gone.wait(30)
    page.wait_for_function("() => window.app.ready && window.app.resumed")
    assert page.evaluate("() => window.app.session") == key
    assert restored == [None, {"fake": True}]


# The page's frames run when the test says: requestAnimationFrame only keeps
# its callbacks. Each render is recorded with `busy` and the items shown.
FRAMES_BY_HAND = """() => {
  const app = window.app;
  window.frames_ = [];
  globalThis.requestAnimationFrame = (f) => window.frames_.push(f);
  window.seen = [];
  const render = app.options.render;
  app.options.render = (vm, send, context) => { window.seen.push({ busy: context.busy, items: vm.items.length }); render(vm, send, context); };
}"""
PAINT = "() => { const n = window.seen.length; window.frames_.splice(0).forEach((f) => f(0)); return window.seen.slice(n); }"
# Every microtask the send left has run once a task has.
SETTLED = "() => new Promise((resolve) => setTimeout(resolve, 0))"


def test_a_request_is_drawn_busy_with_the_next_frame_unless_its_answer_came_first(make_server, page) -> None:  # type: ignore[no-untyped-def]
    gate = threading.Event()
    gate.set()
    engine = scripted()
    engine.gate = gate
    sent = iter(range(1, 10))

    def send(request: Dict[str, Any]) -> Dict[str, Any]:
        seq = next(sent)
        return {"ok": True, "scene": 1, "seq": seq, "viewBase": seq - 1, "viewPatch": [{"op": "add", "path": "/items/-", "value": seq}]}
    engine.answers["send"] = send
    server = make_server(WebConfig(), lambda restore: engine)
    page.goto(server.url)
    page.wait_for_function("() => document.querySelector('#view').textContent.includes('\"a\"')")
    page.evaluate(FRAMES_BY_HAND)
    page.evaluate("() => window.app.actions('t/list')")  # the scene's schema, asked once
    page.evaluate(PAINT)
    # What the schema's answer drew, in a task that may run after the
    # evaluation that asked for it, is drawn and forgotten before counting.
    page.wait_for_function("() => !window.app.renderQueued")
    page.evaluate("() => { window.seen = []; }")
    # The answer comes before the frame: its render is the only one, drawn
    # once the send's caller has had the answer.
    assert page.evaluate("() => window.app.send('add').then(() => window.seen.length)") == 0
    page.evaluate(SETTLED)
    assert page.evaluate("() => window.seen.length") == 1
    assert page.evaluate(PAINT) == []
    assert page.evaluate("() => window.seen") == [{"busy": False, "items": 2}]
    # The answer is held back: nothing is drawn for the request until the next frame, which shows it busy.
    gate.clear()
    page.evaluate("() => { window.answered = window.app.send('add'); }")
    page.evaluate(SETTLED)
    assert page.evaluate("() => window.seen.length") == 1
    assert page.evaluate(PAINT) == [{"busy": True, "items": 2}]
    gate.set()
    page.wait_for_function("() => window.seen.length === 3")
    assert page.evaluate("() => window.seen[2]") == {"busy": False, "items": 3}
    assert page.errors == []


def test_an_isolated_server_s_page_is_cross_origin_isolated_and_connects(make_server, page) -> None:  # type: ignore[no-untyped-def]
    for isolated in (True, False):
        server = make_server(WebConfig(isolated=isolated), lambda restore: scripted())
        page.goto(server.url)
        page.wait_for_function("() => document.querySelector('#view').textContent.includes('\"a\"')")
        assert page.evaluate("() => crossOriginIsolated") is isolated
        assert page.evaluate("() => window.app.send('add').then((answer) => answer.ok)") is True
    assert page.errors == []
