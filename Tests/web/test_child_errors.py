"""Children that could not open reach the page: yaia.js keeps each scene's
childErrors from its last update, and the notes page draws a note whose row
did not open as a row that says why, under a notice that counts them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import pytest

from conftest import REPO, FakeEngine, needs_library
from test_notes_web import log_in, notes_runtime, plugin_dir, titles
from yaia.web import WebConfig

NOTES = 8
# Scenes a session may hold: the login and the list under it, and three rows.
SCENES = 5
OPENED = SCENES - 2
LIMIT = f'{SCENES} scenes are open: the "scenes" limit is {SCENES}'


def seed(store_so: Path, db: Path) -> None:
    """Notes put in the store before the server starts, as a user's would be."""
    import yaia
    with yaia.Runtime(plugins=[{"path": str(store_so), "config": {"path": str(db)}}], allow=["perform"]) as rt:
        for i in range(1, NOTES + 1):
            rt.perform("store", "put", {"key": f"note/{i}", "value": {"id": i, "title": f"Note {i}", "body": "lyon" if i % 2 else "paris"}})


@pytest.fixture(params=["documents", "pack"])
def bounded_server(request, make_server, tmp_path):  # type: ignore[no-untyped-def]
    """The notes app on a server whose sessions hold too few scenes for a row per note."""
    db = tmp_path / "notes.db"
    runtime = notes_runtime(request.param, db)
    seed(plugin_dir() / "store.so", db)
    runtime["limits"] = {"scenes": SCENES}
    return make_server(WebConfig(runtime=runtime, start="notes/login", static=str(REPO / "Examples/notes-web")))


def failed_rows(page: Any) -> List[List[str]]:
    return page.eval_on_selector_all(".notes li.failed", "nodes => nodes.map(n => [n.dataset.id, n.querySelector('.row-error').textContent])")


@needs_library
def test_rows_that_could_not_open_are_shown_with_why(bounded_server, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(bounded_server.url)
    log_in(page)
    page.wait_for_selector(".notice:visible")
    assert page.text_content(".notice") == f"{NOTES - OPENED} notes could not open ({LIMIT})."
    assert titles(page) == [f"Note {i}" for i in range(1, OPENED + 1)]
    # Each note past the bound is a row of its own, in its place, with the runtime's message.
    assert failed_rows(page) == [[str(i), LIMIT] for i in range(OPENED + 1, NOTES + 1)]
    assert page.eval_on_selector_all(".notes li", "nodes => nodes.map(n => n.dataset.id || n.querySelector('.open').dataset.id)") == \
        [str(i) for i in range(1, NOTES + 1)]

    # The search narrows the rows shown, failed ones with them; every update repeats the errors.
    page.fill("input[name=search]", "paris")
    page.wait_for_function("() => document.querySelectorAll('.notes li').length === 4")
    assert titles(page) == ["Note 2"]
    assert failed_rows(page) == [[str(i), LIMIT] for i in (4, 6, 8)]
    assert page.text_content(".notice") == f"{NOTES - OPENED} notes could not open ({LIMIT})."
    page.fill("input[name=search]", "")
    page.wait_for_function(f"() => document.querySelectorAll('.notes li').length === {NOTES}")

    # A note deleted from its row frees a scene: the list's next update
    # opens the next note's row, and the count follows.
    page.click(".notes li:has-text('Note 1') button[name=delete]")
    page.click(".notes li:has-text('Note 1') button[name=confirm]")
    page.wait_for_function(f"() => document.querySelectorAll('.notes li').length === {NOTES - 1}")
    page.fill("input[name=search]", "note")
    page.wait_for_selector(".notes .title:text-is('Note 4')")
    assert titles(page) == ["Note 2", "Note 3", "Note 4"]
    assert failed_rows(page) == [[str(i), LIMIT] for i in range(OPENED + 2, NOTES + 1)]
    assert page.text_content(".notice") == f"{NOTES - OPENED - 1} notes could not open ({LIMIT})."
    assert page.errors == []


# The childErrors render is given, each time it is called.
WATCH = """() => {
  const client = window.app;
  window.rendered = [];
  const render = client.options.render;
  client.options.render = (vm, send, context) => {
    window.rendered.push({ top: context.childErrors, stack: context.stack.map((e) => e.childErrors) });
    return render(vm, send, context);
  };
}"""


def errors_of(page: Any) -> Any:
    return page.evaluate("() => window.app.childErrorsOf(1)")


def last_render(page: Any) -> Any:
    return page.evaluate("() => window.rendered[window.rendered.length - 1].top")


def test_the_client_keeps_a_scene_s_child_errors_from_its_last_update(make_server, page) -> None:  # type: ignore[no-untyped-def]
    held: Dict[str, int] = {"seq": 0}  # the seq a view model given whole has
    engines: List[FakeEngine] = []

    def make(restore: Any) -> FakeEngine:
        engines.append(FakeEngine({
            "scenes": lambda r: {"ok": True, "flows": [], "scenes": [{"id": 1, "name": "t/list", "seq": held["seq"]}]},
            "state": lambda r: {"ok": True, "scene": 1, "name": "t/list", "seq": held["seq"], "viewModel": {"items": ["a"]}},
            "view": lambda r: {"ok": True, "scene": 1, "seq": 5, "viewModel": {"items": ["whole"]}},
        }))
        return engines[-1]
    server = make_server(WebConfig(), make)
    page.goto(server.url)
    page.wait_for_function("() => window.app && window.app.ready && window.app.top()")
    page.evaluate(WATCH)
    engine = engines[0]
    a = [{"slot": "rows", "key": 4, "error": {"code": "limit_exceeded", "limit": "scenes", "message": "no room"}}]
    b = [{"slot": "rows", "key": 5, "error": {"code": "bad_child", "message": "a key twice"}}]

    def update(seq: int, errors: Any = None, **more: Any) -> Dict[str, Any]:
        u: Dict[str, Any] = {"event": "update", "ok": True, "effects": [], "routes": [], "scene": 1, "seq": seq, **more}
        if errors is not None:
            u["childErrors"] = errors
        return u

    assert errors_of(page) == []
    engine.push(update(1, a, viewModel={"items": ["one"]}))
    page.wait_for_function("() => window.app.childErrorsOf(1).length === 1")
    assert errors_of(page) == a
    page.wait_for_function("() => window.rendered.length > 0")
    assert last_render(page) == a
    # An older update changes nothing.
    engine.push(update(0, viewModel={"items": ["old"]}))
    # An update that is a gap still says which children failed; the view
    # model asked for whole (no update: it lists no effects) clears nothing.
    engine.push(update(3, b, viewBase=2, viewPatch=[]))
    page.wait_for_function("() => document.querySelector('#view').textContent.includes('whole')")
    assert errors_of(page) == b
    assert last_render(page) == b
    # An update without childErrors: none could not open.
    engine.push(update(6, viewBase=5, viewPatch=[]))
    page.wait_for_function("() => window.app.childErrorsOf(1).length === 0")
    page.wait_for_function("() => window.rendered[window.rendered.length - 1].top.length === 0")

    # After a gap the session is drawn whole: a scene that has not reduced
    # since keeps its errors, one that has loses them.
    engine.push(update(7, a, viewBase=6, viewPatch=[]))
    page.wait_for_function("() => window.app.childErrorsOf(1).length === 1")
    held["seq"] = 7
    syncs = len([r for r in engine.requests if r["op"] == "scenes"])
    # The scene is at seq 7 before the sync as after it: the sync is seen
    # by the scene's entry, which the client makes anew from its answer.
    page.evaluate("() => { window.beforeSync = window.app.scenes.get(1); }")
    engine.push(update(9, dropped=1, viewBase=8, viewPatch=[]))
    page.wait_for_function("() => window.app.scenes.get(1) !== window.beforeSync && window.app.scenes.get(1).seq === 7")
    assert len([r for r in engine.requests if r["op"] == "scenes"]) == syncs + 1
    assert errors_of(page) == a
    held["seq"] = 9
    engine.push(update(9, dropped=1, viewBase=8, viewPatch=[]))
    page.wait_for_function("() => window.app.scenes.get(1).seq === 9")
    assert errors_of(page) == []
    # A closed scene's are forgotten.
    engine.push(update(10, b, viewBase=9, viewPatch=[]))
    page.wait_for_function("() => window.app.childErrorsOf(1).length === 1")
    engine.push({"closed": True, "ok": True, "scene": 1})
    page.wait_for_function("() => !window.app.childErrors.has(1)")
    assert page.errors == []
    assert json.loads(page.evaluate("() => JSON.stringify(window.app.childErrorsOf(1))")) == []
