"""The notes app driven end to end through the Python binding with the real
auth and store plugins, each test twice: with its scene pack, libnotes.so
(Examples/notes, built as a package of its own), and with its scene
documents (the folder Examples/notes-documents). The two must agree.

The pack is YAIA_NOTES_PACK, else Examples/notes/.build/release/libnotes.so
(`make notes` builds it; `make test-python` does so first); its runs are
skipped when it is not built, and the documents' runs still run.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator, List, Optional, Tuple

import pytest

import yaia
from yaia.scenes import ChildScene

from conftest import PLUGIN_DIR, wait_event

REPO = Path(__file__).resolve().parents[2]
NOTES_PACK = Path(os.environ.get("YAIA_NOTES_PACK") or REPO / "Examples" / "notes" / ".build" / "release" / "libnotes.so")
NOTES_DOCS = REPO / "Examples" / "notes-documents"

# What the runtime loads for each implementation (its "scenes" entry), and why it may be missing.
IMPLEMENTATIONS = {"swift pack": NOTES_PACK, "documents": NOTES_DOCS}
MISSING = {"swift pack": "is not built; `make notes` builds it (see Examples/notes/README.md)",
           "documents": "is missing: the notes scene documents are part of the repository"}


@pytest.fixture(scope="module", params=list(IMPLEMENTATIONS))
def scenes(request: pytest.FixtureRequest) -> str:
    """The notes scenes, once per implementation; each is skipped on its own when missing."""
    path = IMPLEMENTATIONS[request.param]
    if not path.exists():
        pytest.skip(f"{request.param}: {path} {MISSING[request.param]}")
    return str(path)


@pytest.fixture(scope="module")
def store_so() -> str:
    path = PLUGIN_DIR / "store.so"
    if not path.is_file():
        pytest.skip(f"{path} is not built; `make plugins` builds it")
    return str(path)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "notes.db"


def runtime(scenes: str, auth_so: str, store_so: str, db: Path, **keywords: Any) -> yaia.Runtime:
    """The notes runtime; the tests' own requests may also perform and snapshot."""
    return yaia.Runtime(scenes=[scenes], plugins=[auth_so, {"path": store_so, "config": {"path": str(db)}}],
                        allow=["perform", "snapshot"], **keywords)


@pytest.fixture
def rt(scenes: str, auth_so: str, store_so: str, db: Path) -> Iterator[yaia.Runtime]:
    with runtime(scenes, auth_so, store_so, db) as r:
        yield r


def log_in(rt: yaia.Runtime) -> yaia.Flow:
    """A flow past the login, its list loaded."""
    flow = rt.start("notes/login", {"email": "ada@example.com"})
    flow.send("passwordChanged", "hunter2")
    flow.send("submit")
    pushed = wait_event(rt)
    assert [e.scene for e in pushed.stack or []] == ["notes/login", "notes/list"]
    flow.send("load")
    wait_event(rt)
    return flow


def popped(rt: yaia.Runtime, rows: int = 0) -> Tuple[yaia.Update, yaia.Update]:
    """The events that end an editor's write: the list's (with the result,
    "from" the editor) and the editor's (with the pop), and one for each
    row whose note changed (its new args, "from" the list), in no fixed
    order. Answers the list's and the editor's."""
    events = [wait_event(rt) for _ in range(2 + rows)]
    (pop,) = [e for e in events if e.stack is not None]
    (result,) = [e for e in events if e.from_scene == pop.scene]
    assert len([e for e in events if e.raw.get("path") is not None]) == rows
    return result, pop


def write(rt: yaia.Runtime, flow: yaia.Flow, title: str, body: str = "", open_id: Optional[int] = None) -> Any:
    """Opens the editor (a new note, or note open_id), types, saves; the
    list's view model once its rows have heard of it."""
    if open_id is None:
        flow.send("newNote")
    else:
        flow.send("open", open_id)
    flow.send("titleChanged", title)
    flow.send("bodyChanged", body)
    (put,) = flow.send("save").effects
    assert (put.service, put.op, put.status) == ("store", "put", "running")
    # A note saved again is its row's new args: the row hears them from the list.
    result, pop = popped(rt, rows=0 if open_id is None else 1)
    assert [e.scene for e in pop.stack or []] == ["notes/login", "notes/list"]
    return flow.top.view_model


def rows(view_model: Any) -> List[Tuple[int, str, str]]:
    """The rows the list shows: its children's view models, those the search shows."""
    shown = set(view_model["shown"])
    return [(n["id"], n["title"], n["preview"]) for n in view_model["rows"] if n["id"] in shown]


def row(flow: yaia.Flow, note: int) -> ChildScene:
    """The row of note `note`: a child scene of the list, sent to by its path."""
    (listed,) = [e for e in flow.stack if e.scene == "notes/list"]
    return ChildScene(flow.runtime, listed.id, []).child("rows", note)


# -- the scenes


def test_the_pack_or_the_documents_bring_three_scenes(rt: yaia.Runtime, scenes: str) -> None:
    listing = rt.scenes()
    assert {"notes/login", "notes/list", "notes/row", "notes/editor"} <= set(listing["types"])
    if scenes == str(NOTES_DOCS):
        # One document a file, named after its scene.
        described = {d["scene"]: Path(d["file"]).name for d in listing["documents"]}
        assert described == {"notes/editor": "editor.json", "notes/list": "list.json", "notes/login": "login.json", "notes/row": "row.json"}
        assert [p for p in listing.get("packs", []) if p["name"] == "notes"] == []
    else:
        (pack,) = [p for p in listing["packs"] if p["name"] == "notes"]
        assert pack["version"] == "1.0.0"
        assert sorted(pack["scenes"]) == ["notes/editor", "notes/list", "notes/login", "notes/row"]
        assert [d for d in listing.get("documents", []) if d["scene"].startswith("notes/")] == []


# -- the walk


def test_login_refuses_a_wrong_password_then_pushes_the_list(rt: yaia.Runtime) -> None:
    flow = rt.start("notes/login")
    assert flow.started is not None
    assert flow.started.view_model == {"canSubmit": False, "email": "", "emailError": None, "error": None, "isSubmitting": False}
    assert flow.send("submit").view_model["error"] == "Enter your email address"
    flow.send("emailChanged", "ada@example.com")
    flow.send("passwordChanged", "letmein")
    (login,) = flow.send("submit").effects
    assert (login.service, login.op, login.args) == ("auth", "login", {"email": "ada@example.com", "password": "letmein"})
    refused = wait_event(rt)
    assert refused.view_model["error"] == "Login failed: Wrong email or password"
    assert refused.stack is None
    flow.send("passwordChanged", "hunter2")
    flow.send("submit")
    accepted = wait_event(rt)
    assert accepted.routes == [{"push": "notes/list", "args": {"user": {"email": "ada@example.com"}}}]
    assert [(e.scene, e.presentation) for e in accepted.stack or []] == [("notes/login", "root"), ("notes/list", "push")]
    # The password is not kept once used.
    assert rt.execute({"op": "state", "scene": flow.stack[0].id})["state"]["password"] == ""


def test_create_edit_list_delete(rt: yaia.Runtime) -> None:
    flow = log_in(rt)
    assert flow.top.view_model == {"canCreate": True, "error": None, "isLoading": False, "rows": [], "shown": [],
                                   "placeholder": "No notes yet", "query": "", "user": "ada@example.com"}

    # A new note: the title is required.
    pushed = flow.send("newNote")
    assert pushed.routes == [{"push": "notes/editor", "args": {"note": {"id": 1, "title": "", "body": ""}, "isNew": True},
                              "onResult": "editorClosed"}]
    assert flow.send("save").view_model["error"] == "A title is required"
    flow.send("titleChanged", "x" * 201)
    assert flow.top.view_model["titleError"] == "The title is too long (201 characters; at most 200)"
    flow.send("titleChanged", "  Groceries  ")
    flow.send("bodyChanged", "Milk\nEggs")
    (put,) = flow.send("save").effects
    assert put.args == {"key": "note/1", "value": {"id": 1, "title": "Groceries", "body": "Milk\nEggs"}}
    result, pop = popped(rt)
    assert pop.routes == [{"pop": True, "result": {"saved": {"id": 1, "title": "Groceries", "body": "Milk\nEggs"}}}]
    assert rows(result.view_model) == [(1, "Groceries", "Milk")]

    # A second one, then an edit of the first.
    assert rows(write(rt, flow, "Call the bank")) == [(1, "Groceries", "Milk"), (2, "Call the bank", "")]
    edited = write(rt, flow, "Groceries for Sunday", "Milk\nEggs\nBread", open_id=1)
    assert rows(edited) == [(1, "Groceries for Sunday", "Milk"), (2, "Call the bank", "")]

    # The store holds what the list shows.
    flow.send("load")
    assert rows(wait_event(rt).view_model) == [(1, "Groceries for Sunday", "Milk"), (2, "Call the bank", "")]
    stored = rt.perform("store", "get", {"key": "note/1"})
    assert stored["value"] == {"id": 1, "title": "Groceries for Sunday", "body": "Milk\nEggs\nBread"}

    # Delete the first.
    flow.send("open", 1)
    (delete,) = flow.send("delete").effects
    assert (delete.op, delete.args) == ("delete", {"key": "note/1"})
    result, pop = popped(rt)
    assert pop.routes == [{"pop": True, "result": {"deleted": 1}}]
    assert rows(result.view_model) == [(2, "Call the bank", "")]
    flow.send("load")
    assert rows(wait_event(rt).view_model) == [(2, "Call the bank", "")]

    # Cancel: nothing comes back, nothing is written.
    flow.send("open", 2)
    flow.send("titleChanged", "Changed my mind")
    cancelled = flow.send("cancel")
    assert [e.scene for e in cancelled.stack or []] == ["notes/login", "notes/list"]
    assert cancelled.effects == []  # no write in flight
    assert rt.receive() is None
    flow.send("load")
    assert rows(wait_event(rt).view_model) == [(2, "Call the bank", "")]

    assert flow.send("logout").routes == [{"popToRoot": True}]
    assert [e.scene for e in flow.stack] == ["notes/login"]


def test_notes_outlive_the_runtime_and_ids_continue(scenes: str, auth_so: str, store_so: str, db: Path) -> None:
    with runtime(scenes, auth_so, store_so, db) as first:
        flow = log_in(first)
        write(first, flow, "One")
        write(first, flow, "Two")
    with runtime(scenes, auth_so, store_so, db) as second:
        flow = log_in(second)
        assert flow.top.view_model["shown"] == [1, 2]
        # The next id follows the loaded ones: no clock, no collision.
        assert flow.send("newNote").routes[0]["args"]["note"]["id"] == 3


def test_a_row_renames_and_deletes_its_note_and_tells_the_list(rt: yaia.Runtime) -> None:
    flow = log_in(rt)
    write(rt, flow, "Groceries", "Milk")
    write(rt, flow, "Call the bank")
    listed = flow.top
    first = row(flow, 1)
    assert first.send("startRename").view_model["draft"] == "Groceries"
    first.send("draftChanged", " ")
    assert first.send("commitRename").view_model["error"] == "A title is required"
    first.send("draftChanged", "Shopping ")
    (put,) = first.send("commitRename").effects
    assert (put.service, put.op, put.args) == ("store", "put", {"key": "note/1", "value": {"id": 1, "title": "Shopping", "body": "Milk"}})
    # The outcome resolves into the row; its output then reaches the list as
    # an action, and the note the list now holds is the row's new args.
    saved, *told = [wait_event(rt) for _ in range(3)]
    assert (saved.raw["top"], saved.raw["path"]) == (listed.id, ["rows", 1])
    assert saved.view_model["title"] == "Shopping" and saved.view_model["draft"] is None
    (heard,) = [e for e in told if e.scene == listed.id]
    (args,) = [e for e in told if e.scene == saved.scene]
    assert heard.from_scene == saved.scene and args.from_scene == listed.id
    assert rt.execute({"op": "state", "scene": listed.id})["state"]["notes"][0]["title"] == "Shopping"
    assert rt.perform("store", "get", {"key": "note/1"})["value"]["title"] == "Shopping"

    # Open: the row's output makes the list push the editor.
    row(flow, 2).send("open")
    opened = wait_event(rt)
    assert opened.routes == [{"push": "notes/editor", "args": {"note": {"id": 2, "title": "Call the bank", "body": ""}, "isNew": False},
                              "onResult": "editorClosed"}]
    flow.send("cancel")

    # Delete after a confirmation: the row deletes, the list drops the note, the row closes.
    assert row(flow, 2).send("confirmDelete").effects == []
    assert row(flow, 2).send("askDelete").view_model["confirming"]
    (delete,) = row(flow, 2).send("confirmDelete").effects
    assert (delete.op, delete.args) == ("delete", {"key": "note/2"})
    (heard,) = [e for e in (wait_event(rt), wait_event(rt)) if e.scene == listed.id]
    assert rows(heard.view_model) == [(1, "Shopping", "Milk")]
    with pytest.raises(yaia.YaiaError) as info:
        row(flow, 2).send("open")
    assert info.value.code == "no_such_child"
    assert rt.receive() is None


def test_the_search_picks_rows_and_opens_none(rt: yaia.Runtime) -> None:
    flow = log_in(rt)
    for title in ("Groceries", "Call the bank", "Bank holidays"):
        write(rt, flow, title)
    listed = flow.top

    def children() -> Any:
        """The list's rows as a snapshot holds them, and the id the next scene would take."""
        snapshot = rt.snapshot()
        (entry,) = [s for s in snapshot["scenes"] if s["id"] == listed.id]
        return entry["children"]["rows"], snapshot["next"]["scene"]

    before = children()
    assert [(c["key"], c["args"]["title"]) for c in before[0]] == [(1, "Groceries"), (2, "Call the bank"), (3, "Bank holidays")]
    searched = flow.send("searchChanged", "BANK")
    assert searched.view_model["shown"] == [2, 3] and len(searched.view_model["rows"]) == 3
    assert children() == before  # no row closed, none opened
    assert rt.receive() is None


# -- refusals and failures


def test_scenes_refuse_what_they_cannot_read(rt: yaia.Runtime) -> None:
    with pytest.raises(yaia.YaiaError) as info:
        rt.open("notes/list", {})
    assert info.value.code == "bad_args"
    with pytest.raises(yaia.YaiaError) as info:
        rt.open("notes/editor", {"note": {"id": "one", "title": "", "body": ""}})
    assert info.value.code == "bad_args"
    login = rt.open("notes/login")
    with pytest.raises(yaia.YaiaError) as info:
        login.send("dance")
    assert (info.value.code, info.value.at) == ("unknown_action", "/action/type")
    with pytest.raises(yaia.YaiaError) as info:
        login.send("emailChanged", 42)
    assert (info.value.code, info.value.at) == ("bad_payload", "/action/payload")
    # The scene is unchanged and still usable.
    assert login.send("emailChanged", "ada@example.com").view_model["email"] == "ada@example.com"


def test_a_failing_store_shows_in_the_editor(scenes: str, auth_so: str) -> None:
    with yaia.Runtime(scenes=[scenes], plugins=[auth_so]) as rt:

        @rt.service("store")
        def store(op: str, args: Any) -> Any:
            if op == "list":
                return {"items": []}
            raise yaia.ServiceError({"code": "sqlite_error", "message": "database or disk is full"})

        flow = log_in(rt)
        flow.send("newNote")
        flow.send("titleChanged", "Groceries")
        flow.send("save")
        failed = wait_event(rt)
        assert failed.view_model["error"] == "Could not save the note: database or disk is full"
        assert failed.view_model["canSave"] and not failed.view_model["isSaving"]
        assert [e.scene for e in flow.stack] == ["notes/login", "notes/list", "notes/editor"]


def test_a_snapshot_restores_the_walk(rt: yaia.Runtime, scenes: str, auth_so: str, store_so: str, db: Path) -> None:
    flow = log_in(rt)
    write(rt, flow, "Groceries", "Milk")
    flow.send("open", 1)
    flow.send("bodyChanged", "Milk and eggs")
    snapshot = rt.snapshot()
    with runtime(scenes, auth_so, store_so, db, restore=snapshot) as copy:
        restored = copy.flow(flow.id)
        assert [(e.scene, e.view_model) for e in restored.stack] == [(e.scene, e.view_model) for e in flow.stack]
        assert restored.top.view_model["body"] == "Milk and eggs"
        assert restored.top.view_model["hasChanges"]
