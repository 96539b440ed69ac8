"""The notes app driven from Python: log in, create a note, edit it, list,
delete, log out. Auth and store are served by the example plugins, the
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

    def popped(self) -> yaia.Update:
        """An editor's write ends in two events: the editor's own, whose pop
        changes the flow, and the list's, which received the result ("from"
        the editor), in either order. Returns the list's."""
        a, b = self.event(), self.event()
        result, pop = (a, b) if a.from_scene is not None else (b, a)
        expect(result.from_scene == pop.scene and pop.stack is not None, f"the editor should pop: {a.raw} {b.raw}")
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
            rows += [(f"#{n['id']}", f"{json.dumps(n['title'])}  {json.dumps(n['preview'])}") for n in vm["notes"]]
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
    listed = ui.popped().view_model["notes"]
    expect(listed == [{"id": 1, "title": "Groceries", "preview": "Milk"}], f"the list should show the new note: {listed}")
    ui.show("editor: save (store.put) -> pop", 'list got {"saved": note 1}')

    # edit it
    ui.send("open", 1)
    ui.send("titleChanged", "Groceries for Sunday")
    ui.show("list: open 1; editor: edit the title")
    ui.send("save")
    expect(ui.popped().view_model["notes"][0]["title"] == "Groceries for Sunday", "the list should show the new title")
    ui.show("editor: save (store.put) -> pop", 'list got {"saved": note 1}')

    # what the store holds now
    ui.send("load")
    expect(ui.event().view_model["notes"][0]["title"] == "Groceries for Sunday", "the store should hold the edit")
    ui.show("list: load (store.list)")

    # delete it
    ui.send("open", 1)
    (delete,) = ui.send("delete").effects
    expect((delete.service, delete.op) == ("store", "delete"), f"delete: {delete}")
    expect(ui.popped().view_model["notes"] == [], "the list should be empty again")
    ui.show("list: open 1; editor: delete -> pop", 'list got {"deleted": 1}')
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
