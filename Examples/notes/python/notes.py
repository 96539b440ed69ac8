"""The notes app driven from Python: log in, create a note, rename it in its
row, edit it, list, delete it from its row, log out. Auth and store are served by the example plugins, the
store on a SQLite file in a temporary folder.

    python3 notes.py [SCENES [PATH_TO_auth.so PATH_TO_store.so]]

SCENES is what the runtime loads the notes scenes from: the scene pack
(Examples/notes/.build/release/libnotes.so, the Swift scenes) or the folder
of scene documents (Examples/notes-documents, the same scenes as JSON);
both behave the same. Without arguments it is the pack (or YAIA_NOTES_PACK).
Without the plugins' paths they come from YAIA_PLUGIN_DIR (default
.build/yaia/plugins). The `yaia` package is Bindings/python (PYTHONPATH, or
`pip install Bindings/python`). Exits non-zero on anything unexpected.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, List, Tuple

import yaia
from yaia.scenes import ChildScene

NOTES = Path(__file__).resolve().parents[1]
REPO = NOTES.parents[1]
WAIT = 10.0  # seconds: an upper bound for a plugin's answer


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise SystemExit(f"notes: unexpected: {what}")


def paths() -> Tuple[str, str, str]:
    """The scenes (a pack or a folder of documents), auth.so and store.so."""
    if len(sys.argv) == 4:
        return sys.argv[1], sys.argv[2], sys.argv[3]
    expect(len(sys.argv) <= 2, f"usage: {sys.argv[0]} [SCENES [PATH_TO_auth.so PATH_TO_store.so]]"
                               " (SCENES: libnotes.so or a folder of scene documents)")
    scenes = Path(sys.argv[1] if len(sys.argv) == 2 else os.environ.get("YAIA_NOTES_PACK") or NOTES / ".build" / "release" / "libnotes.so")
    plugins = Path(os.environ.get("YAIA_PLUGIN_DIR") or REPO / ".build" / "yaia" / "plugins")
    expect(scenes.exists(), f"{scenes} is not there (see Examples/notes/README.md)")
    for path in (plugins / "auth.so", plugins / "store.so"):
        expect(path.is_file(), f"{path} is not built (see Examples/notes/README.md)")
    return str(scenes), str(plugins / "auth.so"), str(plugins / "store.so")


class UI:
    """Plays the UI: sends what the user does to the flow, prints the screen
    of the scene on top, and waits for the plugins' answers."""

    def __init__(self, rt: yaia.Runtime) -> None:
        self.rt = rt
        self.flow = rt.start("notes/login", name="notes")

    def send(self, action: str, payload: Any = yaia.MISSING) -> yaia.Update:
        update = self.flow.send(action, payload)
        expect(not update.navigation_errors, f"{action}: {update.navigation_errors}")
        return update

    def event(self) -> yaia.Update:
        update = self.rt.receive(timeout=WAIT)
        expect(update is not None, f"no answer from a plugin within {WAIT} s")
        assert update is not None
        return update

    def row(self, note: int) -> ChildScene:
        """A note's row in the list, a child scene: sends to it go by its
        path from the list, ["rows", ID]."""
        (listed,) = [entry for entry in self.flow.stack if entry.scene == "notes/list"]
        return ChildScene(self.rt, listed.id, []).child("rows", note)

    def told(self, count: int) -> List[yaia.Update]:
        """The next `count` events, in the order they came: a row's, say,
        and the list's, which received the row's output as an action
        ("from" the row)."""
        return [self.event() for _ in range(count)]

    def heard(self, events: List[yaia.Update]) -> yaia.Update:
        """The list's update among `events`: it heard a row's output."""
        (listed,) = [e for e in events if e.raw.get("path") is None and e.from_scene is not None]
        return listed

    def popped(self, rows: int = 0) -> yaia.Update:
        """An editor's write ends in two events: the editor's own, whose pop
        changes the flow, and the list's, which received the result ("from"
        the editor); and one more for each row whose note changed (its new
        args, "from" the list). Their order is not fixed. Returns the list's."""
        events = self.told(2 + rows)
        (pop,) = [e for e in events if e.stack is not None]
        (result,) = [e for e in events if e.from_scene == pop.scene]
        expect(len([e for e in events if e.raw.get("path") is not None]) == rows, f"the editor should pop: {[e.raw for e in events]}")
        return result

    def show(self, what: str, note: str = "") -> None:
        stack = self.flow.stack
        names = " > ".join(entry.scene.split("/")[-1] for entry in stack)
        print(f"  {what:<38} {names}" + (f"   {note}" if note else ""))
        top = stack[-1]
        vm = top.view_model
        keys: List[Tuple[str, str]]
        if top.scene == "notes/login":
            keys = [("email", "email"), ("!", "emailError"), ("canSubmit", "canSubmit")]
        elif top.scene == "notes/list":
            keys = [("user", "user")]
        else:
            keys = [("heading", "heading"), ("title", "title"), ("!", "titleError"), ("body", "body"), ("canSave", "canSave")]
        rows = [(label, json.dumps(vm[key])) for label, key in keys if vm[key] is not None]
        if top.scene == "notes/list":
            # The rows are the children's view models; the list says which the search shows.
            shown = set(vm["shown"])
            for n in vm["rows"]:
                if n["id"] in shown:
                    title = json.dumps(n["title"] if n["draft"] is None else n["draft"])
                    rows.append((f"#{n['id']}", f"{title}  {json.dumps(n['preview'])}" + ("  (renaming)" if n["draft"] is not None else "")
                                 + ("  delete?" if n["confirming"] else "")))
            rows += [("", json.dumps(vm["placeholder"]))] if vm["placeholder"] is not None else []
        rows += [("error", json.dumps(vm["error"]))] if vm["error"] is not None else []
        for label, text in rows:
            print(f"        {label:<10} {text}")


def walk(ui: UI) -> None:
    ui.show("start notes/login")
    ui.send("submit")
    ui.show("submit (empty form)")

    # login: a wrong password, then the right one
    ui.send("emailChanged", "ada@example.com")
    ui.send("passwordChanged", "letmein")
    (login,) = ui.send("submit").effects
    expect((login.service, login.op) == ("auth", "login"), f"submit: {login}")
    failed = ui.event()
    expect(failed.view_model["error"] == "Login failed: Wrong email or password", f"wrong password: {failed.raw}")
    ui.show("submit, password 'letmein' (auth)")
    ui.send("passwordChanged", "hunter2")
    ui.send("submit")
    expect(ui.event().routes == [{"push": "notes/list", "args": {"user": {"email": "ada@example.com"}}}], "login should push the list")

    # the list: the UI asks for the notes when it appears
    ui.send("load")
    expect(ui.event().view_model["placeholder"] == "No notes yet", "a new store should have no notes")
    ui.show("submit, password 'hunter2' -> list", "(load: store.list)")

    # a new note: the title is required
    ui.send("newNote")
    ui.show("list: newNote -> editor")
    expect(ui.send("save").view_model["error"] == "A title is required", "an empty title should not be saved")
    ui.show("editor: save (no title)")
    ui.send("titleChanged", "Groceries")
    ui.send("bodyChanged", "Milk\nEggs\nBread")
    ui.show("editor: type a title and a body")
    (put,) = ui.send("save").effects
    expect((put.service, put.op, put.args["key"]) == ("store", "put", "note/1"), f"save: {put}")
    listed = ui.popped().view_model["rows"]
    expect([(n["id"], n["title"], n["preview"]) for n in listed] == [(1, "Groceries", "Milk")], f"the list should show the new note: {listed}")
    ui.show("editor: save (store.put) -> pop", 'list got {"saved": note 1}')

    # rename it in its row: the row writes it, then tells the list
    row = ui.row(1)
    row.send("startRename")
    row.send("draftChanged", "  ")
    expect(row.send("commitRename").view_model["error"] == "A title is required", "an empty title should not be saved")
    row.send("draftChanged", "Groceries for Sunday")
    ui.show("row 1: rename, type a title")
    (put,) = row.send("commitRename").effects
    expect((put.service, put.op, put.args["key"]) == ("store", "put", "note/1"), f"commitRename: {put}")
    # The row's update (store.put's answer), the list's (it heard the row's
    # renamed) and the row's again (its args, the note as the list now holds it).
    events = ui.told(3)
    saved = events[0]
    expect(saved.raw.get("path") == ["rows", 1] and saved.view_model["title"] == "Groceries for Sunday", f"the row: {saved.raw}")
    heard = ui.heard(events)
    expect(heard.from_scene == saved.scene, f"the list should hear the row: {heard.raw}")
    expect(ui.flow.top.view_model["rows"][0]["title"] == "Groceries for Sunday", "the list should show the new title")
    ui.show("row 1: commitRename (store.put)", "list got the row's renamed")

    # open it from its row and edit the body
    row.send("open")
    (pushed,) = ui.told(1)
    expect(pushed.routes[0]["push"] == "notes/editor", f"the row's open should push the editor: {pushed.raw}")
    ui.send("bodyChanged", "Milk, eggs and bread")
    ui.show("row 1: open -> editor; edit the body")
    ui.send("save")
    # The saved note is its row's new args: the row hears them from the list.
    ui.popped(rows=1)
    expect(ui.flow.top.view_model["rows"][0]["preview"] == "Milk, eggs and bread", "the row should show the new body")
    ui.show("editor: save (store.put) -> pop", 'list got {"saved": note 1}; row 1 its note')

    # what the store holds now
    ui.send("load")
    expect(ui.event().view_model["rows"][0]["title"] == "Groceries for Sunday", "the store should hold the rename")
    ui.show("list: load (store.list)")

    # delete it from its row, after a confirmation
    expect(not row.send("confirmDelete").effects, "no delete before the row asks")
    expect(row.send("askDelete").view_model["confirming"], "the row should ask first")
    ui.show("row 1: askDelete")
    (delete,) = row.send("confirmDelete").effects
    expect((delete.service, delete.op) == ("store", "delete"), f"confirmDelete: {delete}")
    heard = ui.heard(ui.told(2))
    expect(heard.view_model["rows"] == [] and heard.view_model["placeholder"] == "No notes yet", f"the list should be empty again: {heard.raw}")
    ui.show("row 1: confirmDelete (store.delete)", "list got the row's deleted")
    ui.send("load")
    expect(ui.event().view_model["placeholder"] == "No notes yet", "the store should have no notes left")
    ui.show("list: load (store.list)")

    expect(ui.send("logout").routes == [{"popToRoot": True}], "logout should go back to the login")
    ui.show("list: logout")
    expect(ui.rt.receive(timeout=0) is None, "an event nobody expected")
    ui.flow.close()


def main() -> None:
    scenes, auth, store = paths()
    with tempfile.TemporaryDirectory(prefix="yaia-notes-") as folder:
        db = Path(folder) / "notes.db"
        with yaia.Runtime(scenes=[scenes], plugins=[auth, {"path": store, "config": {"path": str(db)}}]) as rt:
            print(f"yaia {yaia.library_version()}; scenes from {scenes}; store at {db}\n")
            walk(UI(rt))
    print("\ndone.")


if __name__ == "__main__":
    main()
