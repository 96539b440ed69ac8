"""The notes app in Chromium (Examples/notes-web), over the scene documents
and over the Swift pack, with the auth plugin and the SQLite store: what a
person does, checked by what the page shows."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Dict

import pytest

from conftest import REPO, needs_library
from yaia.web import WebConfig

pytestmark = needs_library
SHOTS = REPO / ".build" / "web-screenshots"
PNG = b"\x89PNG\r\n\x1a\n"


def plugin_dir() -> Path:
    return Path(os.environ.get("YAIA_PLUGIN_DIR") or REPO / ".build/yaia/plugins")


def notes_runtime(kind: str, db: Path) -> Dict[str, Any]:
    """The notes app's runtime config over the scene documents or the Swift
    pack ("documents", "pack"), its store in db; skips what is not built."""
    if kind == "documents":
        scenes = str(REPO / "Examples/notes-documents")
    else:
        scenes = os.environ.get("YAIA_NOTES_PACK") or str(REPO / "Examples/notes/.build/release/libnotes.so")
        if not Path(scenes).is_file():
            pytest.skip(f"{scenes} is not built (make notes)")
    plugins = plugin_dir()
    if not (plugins / "auth.so").is_file() or not (plugins / "store.so").is_file():
        pytest.skip(f"the example plugins are not built in {plugins} (make plugins)")
    return {"scenes": [scenes], "plugins": [str(plugins / "auth.so"), {"path": str(plugins / "store.so"), "config": {"path": str(db)}}]}


@pytest.fixture(params=["documents", "pack"])
def notes_server(request, make_server, tmp_path):  # type: ignore[no-untyped-def]
    runtime = notes_runtime(request.param, tmp_path / "notes.db")
    server = make_server(WebConfig(runtime=runtime, start="notes/login", static=str(REPO / "Examples/notes-web")))
    server.kind = request.param
    return server


def screen(page: Any, scene: str) -> None:
    page.wait_for_selector(f".screen[data-scene='{scene}']")


def log_in(page: Any) -> None:
    screen(page, "notes/login")
    page.fill("input[name=email]", "ada@example.com")
    page.fill("input[name=password]", "hunter2")
    page.click("button[name=submit]")
    screen(page, "notes/list")


def add_note(page: Any, title: str, body: str) -> None:
    page.click("button[name=new]")
    screen(page, "notes/editor")
    page.fill("input[name=title]", title)
    page.fill("textarea[name=body]", body)
    page.click("button[name=save]")
    screen(page, "notes/list")
    page.wait_for_selector(f".notes .title:text-is('{title}')")


def titles(page: Any) -> Any:
    return page.eval_on_selector_all(".notes .title", "nodes => nodes.map(n => n.textContent)")


def test_the_notes_app_in_a_browser(notes_server, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(notes_server.url)
    screen(page, "notes/login")
    assert page.is_disabled("button[name=submit]")  # nothing typed yet
    # A wrong password: the error shows in the form, which stays.
    page.fill("input[name=email]", "ada@example.com")
    page.fill("input[name=password]", "letmein")
    page.click("button[name=submit]")
    page.wait_for_selector(".error:text('Wrong email or password')")
    assert page.query_selector(".screen[data-scene='notes/login']") is not None
    page.fill("input[name=password]", "hunter2")
    page.click("button[name=submit]")
    screen(page, "notes/list")
    page.wait_for_selector(".placeholder:text('No notes yet')")
    assert page.text_content("#who") == "ada@example.com"

    # Add two notes; an empty title cannot be saved.
    page.click("button[name=new]")
    screen(page, "notes/editor")
    assert page.is_disabled("button[name=save]")
    page.click("button[name=cancel]")
    screen(page, "notes/list")
    add_note(page, "Groceries", "Milk\nEggs")
    add_note(page, "Trip", "Train at 9")
    assert titles(page) == ["Groceries", "Trip"]

    # Rename the first.
    page.click(".notes button:has-text('Groceries')")
    screen(page, "notes/editor")
    assert page.input_value("input[name=title]") == "Groceries"
    page.fill("input[name=title]", "Groceries for Sunday")
    page.click("button[name=save]")
    screen(page, "notes/list")
    page.wait_for_selector(".notes .title:text-is('Groceries for Sunday')")

    # Rename in place: the row, a child scene of the list, checks the title,
    # writes it with its own store.put and tells the list.
    page.click(".notes li:has-text('Trip') button[name=rename]")
    page.wait_for_function("() => document.activeElement && document.activeElement.name === 'draft'")
    page.fill(".notes input[name=draft]:visible", "  ")
    page.press(".notes input[name=draft]:visible", "Enter")
    page.wait_for_selector(".notes .row-error:text('A title is required')")
    page.fill(".notes input[name=draft]:visible", "Trip to Lyon")
    page.press(".notes input[name=draft]:visible", "Enter")
    page.wait_for_selector(".notes .title:text-is('Trip to Lyon')")
    page.wait_for_function("() => [...document.querySelectorAll('.notes form.rename')].every(f => f.hidden)")
    assert titles(page) == ["Groceries for Sunday", "Trip to Lyon"]
    # The list heard it: its state holds the new title.
    assert page.evaluate("() => window.app.top().viewModel.rows.map(r => r.title)") == ["Groceries for Sunday", "Trip to Lyon"]

    # Search: the scene keeps the query and narrows its view model's rows (a body matches too).
    page.fill("input[name=search]", "TRAIN")
    page.wait_for_function("() => document.querySelectorAll('.notes li').length === 1")
    assert titles(page) == ["Trip to Lyon"]
    assert page.evaluate("() => window.app.top().viewModel.query") == "TRAIN"
    page.fill("input[name=search]", "kiwi")
    page.wait_for_selector(".placeholder:text('No notes match “kiwi”')")
    assert titles(page) == []
    page.fill("input[name=search]", "")
    page.wait_for_function("() => document.querySelectorAll('.notes li').length === 2")

    # The browser's back button pops the editor.
    page.click(".notes button:has-text('Trip')")
    screen(page, "notes/editor")
    page.go_back()
    screen(page, "notes/list")
    page.wait_for_function("() => window.app.flow.stack.length === 2")

    # Reload: the session resumes on the list, its notes there.
    page.reload()
    screen(page, "notes/list")
    page.wait_for_selector(".notes .title:text-is('Trip to Lyon')")
    assert page.evaluate("() => window.app.resumed") is True

    # Delete one from its row, after a confirmation.
    page.click(".notes li:has-text('Trip') button[name=delete]")
    page.wait_for_selector(".notes li:has-text('Trip') button[name=confirm]:visible")
    page.click(".notes li:has-text('Trip') button[name=confirm]")
    page.wait_for_function("() => document.querySelectorAll('.notes li').length === 1")
    assert titles(page) == ["Groceries for Sunday"]
    # And one from the editor.
    add_note(page, "Spare", "")
    page.click(".notes button:has-text('Spare')")
    screen(page, "notes/editor")
    page.click("button[name=delete]")
    screen(page, "notes/list")
    page.wait_for_function("() => document.querySelectorAll('.notes li').length === 1")
    assert titles(page) == ["Groceries for Sunday"]

    SHOTS.mkdir(parents=True, exist_ok=True)
    shot = SHOTS / f"notes-{notes_server.kind}.png"
    page.screenshot(path=str(shot))
    assert_real_png(shot)

    # Log out: back at the login.
    page.click("#logout")
    screen(page, "notes/login")
    assert page.errors == []


# Counts the frames carrying patches, and the requests the client sends.
WATCH = """() => {
  const client = window.app;
  window.seen = { patches: 0, ops: [] };
  const receive = client.receive.bind(client);
  client.receive = (text) => { if (text.includes('"viewPatch"')) window.seen.patches++; receive(text); };
  const transmit = client.transmit.bind(client);
  client.transmit = (item) => { window.seen.ops.push(item.request.op); transmit(item); };
}"""


def test_the_list_follows_patches_and_a_gap(notes_server, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(notes_server.url)
    log_in(page)
    for title, body in [("Apples", "red"), ("Bread", "rye"), ("Cherries", "red too")]:
        add_note(page, title, body)
    assert titles(page) == ["Apples", "Bread", "Cherries"]
    # Each editor's pop came with the list's update after it: no row twice, no error for the closed editor.
    assert page.evaluate("() => window.app.error") is None
    page.evaluate(WATCH)
    # The row kept in view is the same node, moved to its new place.
    page.evaluate("() => { window.cherries = [...document.querySelectorAll('.notes li')][2]; }")

    # Rows removed, then inserted again: patches, and the page shows what they make.
    page.fill("input[name=search]", "red")
    page.wait_for_function("() => document.querySelectorAll('.notes li').length === 2")
    assert titles(page) == ["Apples", "Cherries"]
    assert page.evaluate("() => window.cherries === [...document.querySelectorAll('.notes li')][1]") is True
    page.fill("input[name=search]", "")
    page.wait_for_function("() => document.querySelectorAll('.notes li').length === 3")
    assert titles(page) == ["Apples", "Bread", "Cherries"]
    assert page.evaluate("() => window.seen.patches") >= 2
    assert "view" not in page.evaluate("() => window.seen.ops")

    # A gap: the page holds an older view model than the next patch starts
    # from, asks for the view model whole, and shows the right rows.
    page.evaluate("() => { window.app.top().seq -= 1; }")
    page.fill("input[name=search]", "bread")
    page.wait_for_function("() => window.seen.ops.includes('view')")
    page.wait_for_function("() => document.querySelectorAll('.notes li').length === 1")
    assert titles(page) == ["Bread"]
    page.fill("input[name=search]", "r")
    page.wait_for_function("() => document.querySelectorAll('.notes li').length === 3")
    assert titles(page) == ["Apples", "Bread", "Cherries"]
    assert page.errors == []


def seed(db: Path, notes: Dict[int, str]) -> None:
    """Puts notes (id -> title) in the store at db, as the app would have."""
    import yaia
    store = {"path": str(plugin_dir() / "store.so"), "config": {"path": str(db)}}
    with yaia.Runtime(plugins=[store], allow=["perform"]) as rt:
        for i, title in notes.items():
            rt.perform("store", "put", {"key": f"note/{i}", "value": {"id": i, "title": title, "body": "fruit"}})


# Counts the changes to the list's children: a node made, moved or removed.
MUTATIONS = """() => {
  const list = document.querySelector('.notes');
  window.rows = [...list.children];
  window.changes = 0;
  new MutationObserver((records) => { window.changes += records.length; }).observe(list, {childList: true});
}"""


def test_a_search_writes_into_the_rows_it_has(notes_server, page, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # More notes than the list draws: a search that shows other notes, as
    # many, gives their rows the nodes drawn already, in place. Making and
    # placing rows anew had the browser style them anew: half of what a
    # keystroke cost the page over 10,000 notes.
    seed(tmp_path / "notes.db", {i: f"Apple {i}" if i <= 30 else f"Pear {i}" for i in range(1, 61)})
    page.goto(notes_server.url)
    log_in(page)
    page.wait_for_function("() => document.querySelectorAll('.notes li').length > 0")
    drawn = len(titles(page))
    assert drawn < 30 and titles(page)[0] == "Apple 1"
    page.evaluate(MUTATIONS)
    page.fill("input[name=search]", "pear")
    page.wait_for_function("() => [...document.querySelectorAll('.notes .title')].every(t => t.textContent.startsWith('Pear'))")
    assert titles(page) == [f"Pear {i}" for i in range(31, 31 + drawn)]
    assert page.evaluate("() => [...document.querySelectorAll('.notes li')].every((li, k) => li === window.rows[k])") is True
    assert page.evaluate("() => window.changes") == 0
    # Their buttons act on the notes they show now.
    assert page.get_attribute(".notes li button.open", "data-id") == "31"
    page.click(".notes li:has-text('Pear 31') button.open")
    screen(page, "notes/editor")
    assert page.input_value("input[name=title]") == "Pear 31"
    assert page.errors == []


def test_two_tabs_have_sessions_of_their_own(notes_server, browser) -> None:  # type: ignore[no-untyped-def]
    a = browser.new_context().new_page()
    b = browser.new_context().new_page()
    a.goto(notes_server.url)
    b.goto(notes_server.url)
    log_in(a)
    add_note(a, "From A", "a")
    screen(b, "notes/login")  # B's flow did not move with A's
    log_in(b)
    b.wait_for_selector(".notes .title:text-is('From A')")  # the same store, loaded by B's own list
    assert a.evaluate("() => window.app.session") != b.evaluate("() => window.app.session")
    a.context.close()
    b.context.close()


def assert_real_png(path: Path) -> None:
    """A PNG whose pixels are not all one colour (decoded with the standard library)."""
    import struct
    import zlib
    data = path.read_bytes()
    assert data[:8] == PNG, f"{path} is not a PNG"
    width, height, depth, colour = struct.unpack(">IIBB", data[16:26])
    assert width >= 320 and height >= 240 and depth == 8 and colour in (2, 6)
    chunks, at = [], 8
    while at < len(data):
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind == b"IDAT":
            chunks.append(data[at + 8:at + 8 + size])
        at += 12 + size
    raw = zlib.decompress(b"".join(chunks))
    stride = width * (4 if colour == 6 else 3) + 1
    rows = {raw[i * stride + 1:(i + 1) * stride] for i in range(0, height, max(1, height // 64))}
    distinct = {row[j:j + 3] for row in rows for j in range(0, len(row), 3 * 16)}
    assert len(distinct) > 8, f"{path} looks blank: {len(distinct)} colours sampled"


def test_a_blank_image_is_told_from_a_real_one(tmp_path) -> None:
    import struct
    import zlib

    def png(pixel: bytes) -> bytes:
        rows = b"".join(b"\x00" + pixel * 400 for _ in range(300))
        chunk = lambda kind, body: struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))  # noqa: E731
        return PNG + chunk(b"IHDR", struct.pack(">IIBBBBB", 400, 300, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
    blank = tmp_path / "blank.png"
    blank.write_bytes(png(b"\xff\xff\xff"))
    with pytest.raises(AssertionError, match="blank"):
        assert_real_png(blank)
