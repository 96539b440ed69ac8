"""The inspector in Chromium beside the notes app (the scene documents, the
auth plugin and the SQLite store): the timeline and its patches, a search in
state, time travel seen in the app's page, a session exported and imported,
a span saved as a scenario that `yaia test` passes, and the divergence a
changed document shows. Screenshots for docs/inspector.md."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, needs_library
from test_notes_web import add_note, assert_real_png, log_in, screen
from yaia.web import WebConfig

pytestmark = needs_library
# The screenshots go beside the app's (the docs' copies are refreshed from
# here by hand): a test run leaves the checkout as it found it.
IMAGES = REPO / ".build" / "web-screenshots"


@pytest.fixture
def notes(make_server, tmp_path):  # type: ignore[no-untyped-def]
    plugins = Path(os.environ.get("YAIA_PLUGIN_DIR") or REPO / ".build/yaia/plugins")
    if not (plugins / "auth.so").is_file() or not (plugins / "store.so").is_file():
        pytest.skip(f"the example plugins are not built in {plugins} (make plugins)")
    documents = tmp_path / "documents"
    shutil.copytree(REPO / "Examples/notes-documents", documents)
    runtime = {"scenes": [str(documents)], "plugins": [str(plugins / "auth.so"),
                                                       {"path": str(plugins / "store.so"), "config": {"path": str(tmp_path / "notes.db")}}]}
    server = make_server(WebConfig(runtime=runtime, start="notes/login", static=str(REPO / "Examples/notes-web"),
                                   inspector=True, inspector_dir=str(tmp_path / "inspector")))
    server.documents = documents
    return server


def open_inspector(browser: Any, server: Any, key: str) -> Any:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    page = context.new_page()
    page.goto(server.url.split("?")[0] + "inspector/#session=" + key)
    page.wait_for_selector(".badge.live")
    page.wait_for_selector(".row")
    return page


def row(page: Any, text: str) -> Any:
    return page.locator(".row", has_text=text).last


def test_the_inspector_beside_the_notes_app(notes, page, browser, tmp_path) -> None:  # type: ignore[no-untyped-def]
    page.goto(notes.url)
    log_in(page)
    add_note(page, "Groceries", "milk, eggs")
    key = page.evaluate("() => window.app.session")
    inspector = open_inspector(browser, notes, key)
    IMAGES.mkdir(parents=True, exist_ok=True)

    # The timeline: each input, with what it changed.
    inspector.wait_for_selector(".row:has-text('titleChanged')")
    row(inspector, "titleChanged").click()
    inspector.wait_for_selector("#tab-input .op-replace:has-text('/title')")
    assert "Groceries" in inspector.text_content("#tab-input .patch")
    inspector.screenshot(path=str(IMAGES / "inspector-timeline.png"))
    assert_real_png(IMAGES / "inspector-timeline.png")
    # Filtered: only actions that changed something.
    inspector.check("#filters [name=changed]")
    inspector.select_option("#filters [name=kind]", "action")
    inspector.wait_for_function("() => [...document.querySelectorAll('.row .kind')].every(k => k.textContent === 'action')")
    assert inspector.locator(".row.unchanged").count() == 0
    inspector.uncheck("#filters [name=changed]")
    inspector.select_option("#filters [name=kind]", "")

    # A search in state finds the note.
    inspector.click("#tabs [data-tab=tree]")
    inspector.wait_for_function("() => document.querySelector('#treeform [name=scene]').options.length > 0")
    inspector.select_option("#treeform [name=scene]", label=inspector.evaluate(
        "() => [...document.querySelector('#treeform [name=scene]').options].map(o => o.label).find(l => l.startsWith('notes/list'))"))
    inspector.fill("#treeform [name=search]", "groceries")
    inspector.press("#treeform [name=search]", "Enter")
    inspector.wait_for_selector("#matches .match:has-text('/notes/0/title')")
    inspector.click("#matches .match")
    inspector.wait_for_selector("#tree .node .key:text-is('title')")
    inspector.screenshot(path=str(IMAGES / "inspector-state.png"))
    assert_real_png(IMAGES / "inspector-state.png")

    # Time travel: rewound to the password typed, the app shows the login
    # form; resumed, the list with the note.
    row(inspector, "passwordChanged").click()
    inspector.click("#rewind")
    inspector.wait_for_selector("#travel:not([hidden])")
    screen(page, "notes/login")
    assert page.input_value("input[name=email]") == "ada@example.com"
    inspector.click("#resume")
    screen(page, "notes/list")
    page.wait_for_selector(".notes .title:text-is('Groceries')")

    # The scene graph, the scene on top now highlighted.
    inspector.click("#tabs [data-tab=graph]")
    inspector.wait_for_selector("#graph g.current[data-scene='notes/list']")
    assert inspector.locator("#graph g.node").count() == 4  # login, list, row, editor
    inspector.screenshot(path=str(IMAGES / "inspector-graph.png"))
    assert_real_png(IMAGES / "inspector-graph.png")

    # A span saved as scenarios: each passes yaia test.
    inspector.click("#tabs [data-tab=input]")
    row(inspector, "emailChanged").click()
    row(inspector, "titleChanged").click(modifiers=["Shift"])
    saved = tmp_path / "scenarios"
    saved.mkdir()
    with inspector.expect_download() as first:
        inspector.click("#scenario")
    first.value.save_as(str(saved / first.value.suggested_filename))
    inspector.wait_for_selector("#banner:has-text('scenario file')")
    for i, scenario in enumerate(inspector.evaluate("() => window.lastScenarios")):
        (saved / f"s{i}.scenario.json").write_text(json.dumps(scenario))
    cli = os.environ.get("YAIA_CLI") or str(REPO / ".build/release/yaia")
    if not Path(cli).is_file():
        pytest.skip(f"{cli} is not built (make lib)")
    ran = subprocess.run([cli, "test", str(saved)], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, YAIA_LIBRARY=os.environ.get("YAIA_LIBRARY", "")))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert " 0 failed" in ran.stdout.strip().splitlines()[-1] and "PASS" in ran.stdout

    # Exported, then imported: it replays with no divergence.
    exported = tmp_path / "session.jsonl"
    with inspector.expect_download() as download:
        inspector.click("#export")
    download.value.save_as(str(exported))
    assert exported.read_text().startswith('{"format":"yaia.journal/1"')
    inspector.set_input_files("#import", str(exported))
    inspector.wait_for_selector("#banner.ok:has-text('replay identically')")
    inspector.wait_for_selector(".badge:has-text('file')")

    # The list document changed since: the import shows where it diverges.
    listing = notes.documents / "list.json"
    document = json.loads(listing.read_text())
    document["view"]["edited"] = "since the session was recorded"
    listing.write_text(json.dumps(document))
    inspector.evaluate("() => { document.getElementById('banner').textContent = ''; }")
    inspector.set_input_files("#import", str(exported))
    inspector.wait_for_function("() => document.getElementById('banner').textContent !== ''")
    assert "diverges at input" in inspector.text_content("#banner"), inspector.text_content("#banner")
    assert inspector.get_attribute("#banner", "data-divergence")
    assert not page.errors and not inspector.context.pages[0].evaluate("() => window.inspectorErrors || null")


def test_the_inspector_opens_on_one_request_and_one_drawing(notes, page, browser) -> None:  # type: ignore[no-untyped-def]
    """The page's head asks for the timeline as soon as its socket opens:
    one frame, tag 0, before the page's script has run; the rows in view are
    built once, a scroll that keeps them builds none, and only the rows in
    view are in the page."""
    page.goto(notes.url)
    log_in(page)
    key = page.evaluate("() => window.app.session")
    page.evaluate("""async () => {
      const login = window.app.flow.stack[0].id;
      for (let i = 0; i < 150; i++)
        await window.app.request({op: "send", scene: login, action: {type: "emailChanged", payload: "u" + i + "@example.com"}});
    }""")
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    # Once the timeline has followed them all, a page that opens has nothing
    # more to hear of.
    following = context.new_page()
    following.goto(notes.url.split("?")[0] + "inspector/#session=" + key)
    following.wait_for_function("() => parseInt(document.getElementById('count').textContent) >= 150")
    following.close()
    inspector = context.new_page()
    sent: list = []
    inspector.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(json.loads(payload))))
    inspector.goto(notes.url.split("?")[0] + "inspector/#session=" + key)
    inspector.wait_for_function("() => window.inspectorTimes.open !== null")
    inspector.wait_for_timeout(100)
    assert len(sent) == 1
    assert (sent[0]["op"], sent[0]["tag"], sent[0]["rows"], sent[0]["session"]) == ("attach", 0, 100, key)
    drawn = inspector.evaluate("() => window.inspectorDraws")
    assert drawn == 1
    inspector.evaluate("() => document.getElementById('timeline').dispatchEvent(new Event('scroll'))")
    inspector.wait_for_timeout(50)
    assert inspector.evaluate("() => window.inspectorDraws") == drawn
    in_view = inspector.evaluate("() => Math.ceil(document.getElementById('timeline').clientHeight / 28) + 30")
    assert 0 < inspector.locator("#rows .row").count() <= in_view
    inspector.evaluate("() => { document.getElementById('timeline').scrollTop = 0; }")
    inspector.wait_for_selector("#rows .row[data-seq='1']")
    assert inspector.evaluate("() => window.inspectorDraws") > drawn
    context.close()
