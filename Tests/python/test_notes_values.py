"""The notes app's scenes (notes/login, notes/list, notes/editor) tested as
values with yaia.testing.SceneTest, each test twice: over the built pack,
libnotes.so (the Swift scenes), and over the folder of scene documents,
Examples/notes-documents (the same scenes as JSON data). The two must agree.

The Python twin of Examples/notes/Tests/NotesTests: the same walks, driven
through libyaia.so's JSON C ABI in a runtime with no services and no
plugins, so every effect stays pending as data until the test resolves it.
No IO, no threads, no waiting. Exhaustive throughout: each step's state
change, every effect and every route is asserted. Each scene also has
deliberately wrong expectations, proving that SceneTest fails with an
AssertionError whose message holds the diff line (JSON Pointer, expected
value, actual value).

The pack is YAIA_NOTES_PACK, else Examples/notes/.build/release/libnotes.so
(`make notes` builds it); its runs are skipped when it is not built, and
the documents' runs still run.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping

import pytest

import yaia
from yaia.testing import SceneTest

REPO = Path(__file__).resolve().parents[2]
NOTES_PACK = Path(os.environ.get("YAIA_NOTES_PACK") or REPO / "Examples" / "notes" / ".build" / "release" / "libnotes.so")
NOTES_DOCS = REPO / "Examples" / "notes-documents"

# What the runtime loads for each implementation (its "scenes" entry), and why it may be missing.
IMPLEMENTATIONS = {"swift pack": NOTES_PACK, "documents": NOTES_DOCS}
MISSING = {"swift pack": "is not built; `make notes` builds it (see Examples/notes/README.md)",
           "documents": "is missing: the notes scene documents are part of the repository"}

# The implementation the running test drives (set by the fixture below).
SCENES = ""


def documents() -> bool:
    """Whether the running test drives the documents. The tests branch on it
    only where the format cannot say what the Swift scenes do; each such
    place is listed in Examples/notes-documents/README.md ("Where the
    documents differ"), and asserts what each side does."""
    return SCENES == str(NOTES_DOCS)


@pytest.fixture(autouse=True, params=list(IMPLEMENTATIONS))
def implementation(request: pytest.FixtureRequest) -> Iterator[str]:
    """Runs every test once per implementation; each is skipped on its own when missing."""
    global SCENES
    path = IMPLEMENTATIONS[request.param]
    if not path.exists():
        pytest.skip(f"{request.param}: {path} {MISSING[request.param]}")
    SCENES = str(path)
    yield request.param
    SCENES = ""

ADA = {"email": "ada@example.com"}
GROCERIES = {"id": 1, "title": "Groceries", "body": "Milk\nEggs"}
BANK = {"id": 2, "title": "Call the bank", "body": ""}


# ---------------------------------------------------------------- helpers


def login(**keywords: Any) -> SceneTest:
    return SceneTest("notes/login", scenes=[SCENES], **keywords)


def notes_list(**keywords: Any) -> SceneTest:
    if "state" not in keywords and "args" not in keywords:
        keywords["args"] = {"user": ADA}
    return SceneTest("notes/list", scenes=[SCENES], **keywords)


def editor(**keywords: Any) -> SceneTest:
    return SceneTest("notes/editor", scenes=[SCENES], **keywords)


def note(id: int, title: str = "", body: str = "") -> Dict[str, Any]:
    return {"id": id, "title": title, "body": body}


def listed(notes: List[Dict[str, Any]]) -> Dict[str, Any]:
    """What store.list answers for these notes (in key order, as the store does)."""
    return {"items": [{"key": f"note/{n['id']}", "value": n} for n in notes]}


def list_state(notes: List[Dict[str, Any]], **changes: Any) -> Dict[str, Any]:
    """A notes/list state that has loaded ``notes``."""
    state: Dict[str, Any] = {
        "user": ADA, "notes": notes, "nextID": max([n["id"] for n in notes], default=0) + 1, "hasLoaded": True,
        "isTruncated": False, "isLoading": False, "unreadable": 0, "error": None, "query": "",
    }
    state.update(changes)
    return state


def editor_state(n: Mapping[str, Any], *, is_new: bool = False, **changes: Any) -> Dict[str, Any]:
    """A notes/editor state with ``n`` opened, unchanged."""
    state: Dict[str, Any] = {"note": dict(n), "original": dict(n), "isNew": is_new, "busy": None, "error": None}
    state.update(changes)
    return state


def row_view(n: Mapping[str, Any], preview: str = "") -> Dict[str, Any]:
    """The view model of note n's row (a notes/row child of the list), as it opens."""
    return {"id": n["id"], "title": n["title"], "preview": preview, "draft": None, "titleError": None, "confirming": False,
            "isSaving": False, "isDeleting": False, "error": None}


def load(t: SceneTest, notes: List[Dict[str, Any]]) -> None:
    """A list's load, answered with ``notes``."""
    t.send("load", state={"isLoading": True})
    request = t.receive_effect("store", "list")
    t.resolve(request, result=listed(notes), state={
        "isLoading": False, "hasLoaded": True, "notes": sorted(notes, key=lambda n: int(n["id"])),
        "nextID": max([n["id"] for n in notes], default=0) + 1,
    })


def fails(*lines: str) -> Any:
    """pytest.raises(AssertionError) whose message contains each of ``lines`` literally."""
    return pytest.raises(AssertionError, match="(?s)" + "".join(f"(?=.*{re.escape(line)})" for line in lines))


def vm_editor(**fields: Any) -> Dict[str, Any]:
    """An editor's view model for a note at rest, with ``fields`` changed."""
    vm: Dict[str, Any] = {
        "heading": "Edit note", "title": "", "body": "", "titleError": None, "titleCounter": "0/200",
        "hasChanges": False, "canSave": True, "canDelete": True, "isSaving": False, "isDeleting": False, "error": None,
    }
    vm.update(fields)
    return vm


# ---------------------------------------------------------------- notes/login


def test_login_logs_in_through_auth_login_and_pushes_the_list() -> None:
    with login() as t:
        assert t.state == {"email": "", "password": "", "isSubmitting": False, "error": None}
        t.send("emailChanged", " ada@example.com ", state={"email": " ada@example.com "})
        t.send("passwordChanged", "hunter2", state={"password": "hunter2"})
        t.expect_view_model({"email": " ada@example.com ", "emailError": None, "canSubmit": True, "isSubmitting": False, "error": None})
        t.send("submit", state={"isSubmitting": True})
        # The email is sent trimmed; the whole request, as the reducer made it.
        request = t.receive_effect({"service": "auth", "op": "login",
                                    "args": {"email": "ada@example.com", "password": "hunter2"},
                                    "then": "loginSucceeded", "catch": "loginFailed", "timeout": 10})
        assert t.pending_effects == [request]
        t.expect_view_model({"canSubmit": False, "isSubmitting": True}, partial=True)
        t.send("submit")  # a second tap while the first is in flight sends nothing
        t.resolve(request, result={"user": ADA}, state={"isSubmitting": False, "password": ""})
        t.expect_route({"push": "notes/list", "args": {"user": ADA}})
        t.expect_view_model({"email": " ada@example.com ", "emailError": None, "canSubmit": False, "isSubmitting": False, "error": None})
        assert t.pending_effects == []


def test_login_checks_the_form_before_sending_anything() -> None:
    with login() as t:
        t.expect_view_model({"email": "", "emailError": None, "canSubmit": False, "isSubmitting": False, "error": None})
        t.send("submit", state={"error": "Enter your email address"})
        # An edit answers the last error.
        t.send("emailChanged", "ada", state={"email": "ada", "error": None})
        t.expect_view_model({"emailError": "Enter a valid email address", "canSubmit": False}, partial=True)
        t.send("submit", state={"error": "Enter a valid email address"})
        for typo in ("a da@example.com", "ada@@example.com", "@example.com", "ada@", "ada@exa\tmple.com", "ada\u00a0x@example.com"):
            t.send("emailChanged", typo, state={"email": typo, "error": None})
            t.expect_view_model({"emailError": "Enter a valid email address", "canSubmit": False}, partial=True)
        # Blanks only: no error shown for an empty field, but nothing can be sent.
        t.send("emailChanged", "   ", state={"email": "   "})
        t.expect_view_model({"email": "   ", "emailError": None, "canSubmit": False, "isSubmitting": False, "error": None})
        t.send("submit", state={"error": "Enter your email address"})
        t.send("emailChanged", "ada@example.com", state={"email": "ada@example.com", "error": None})
        t.send("submit", state={"error": "Enter your password"})
        t.expect_view_model({"email": "ada@example.com", "emailError": None, "canSubmit": False, "isSubmitting": False,
                             "error": "Enter your password"})
        t.send("passwordChanged", "pw", state={"password": "pw", "error": None})
        t.expect_view_model({"canSubmit": True, "error": None}, partial=True)


def test_login_refused_then_timed_out() -> None:
    with login() as t:
        t.send("emailChanged", "ada@example.com", state={"email": "ada@example.com"})
        t.send("passwordChanged", "letmein", state={"password": "letmein"})
        t.send("submit", state={"isSubmitting": True})
        request = t.receive_effect("auth", "login", args={"email": "ada@example.com", "password": "letmein"})
        t.resolve(request, error={"message": "Wrong email or password"},
                  state={"isSubmitting": False, "error": "Login failed: Wrong email or password"})
        # A refusal keeps the password (it is cleared only once a login succeeds).
        t.expect_view_model({"canSubmit": True, "isSubmitting": False, "error": "Login failed: Wrong email or password"}, partial=True)
        t.send("submit", state={"isSubmitting": True, "error": None})
        request = t.receive_effect("auth", "login")
        # The runtime's own time-out, as a value: {"code": "timeout"}.
        t.resolve(request, error={"code": "timeout"},
                  state={"isSubmitting": False, "error": "Login failed: the service did not answer in time"})
        t.send("submit", state={"isSubmitting": True, "error": None})
        request = t.receive_effect("auth", "login")
        # A message wins over a code; a code alone is shown in parentheses.
        t.resolve(request, error={"code": "denied", "message": "nope"}, state={"isSubmitting": False, "error": "Login failed: nope"})
        t.send("loginFailed", {"code": "denied"}, error=True, state={"error": "Login failed (denied)"})
        t.send("loginFailed", {"code": "denied", "message": ""}, error=True)
        t.send("loginFailed", {}, error=True, state={"error": "Login failed"})


def test_login_refuses_what_it_cannot_read() -> None:
    with login() as t:
        t.send_fails("dance", code="unknown_action", at="/type")
        t.send_fails("emailChanged", 42, code="bad_payload", at="/payload")
        t.send_fails("loginSucceeded", {"user": {"name": "Ada"}}, code="bad_payload", at="/payload/user/email")
        t.send("emailChanged", "ada@example.com", state={"email": "ada@example.com"})
        t.send("passwordChanged", "hunter2", state={"password": "hunter2"})
        t.send("submit", state={"isSubmitting": True})
        request = t.receive_effect("auth", "login")
        # A bad outcome is refused, and the effect stays in flight.
        t.resolve_fails(request, result={"user": {"name": "Ada"}}, code="bad_payload", at="/user/email")
        assert t.pending_effects == [request]
        t.resolve(request, result={"user": ADA}, state={"isSubmitting": False, "password": ""})
        t.expect_route({"push": "notes/list", "args": {"user": ADA}})
    with pytest.raises(yaia.YaiaError) as info:
        login(args={"email": 7})
    assert (info.value.code, info.value.at) == ("bad_args", "/args/email")
    mistyped = {"email": 1, "password": "", "isSubmitting": False, "error": None}
    if documents():
        # A document's restore checks the state's fields, not their types.
        with login(state=mistyped) as t:
            assert t.state == mistyped
    else:
        with pytest.raises(yaia.YaiaError) as info:
            login(state=mistyped)
        assert info.value.code == "bad_state"


def test_login_opens_with_an_email_or_in_any_state() -> None:
    with login(args={"email": "ada@example.com"}) as t:
        assert t.state == {"email": "ada@example.com", "password": "", "isSubmitting": False, "error": None}
        t.send("passwordChanged", "hunter2", state={"password": "hunter2"})
        t.send("submit", state={"isSubmitting": True})
        t.receive_effect("auth", "login", args={"email": "ada@example.com", "password": "hunter2"})
        t.exhaustive = False  # the login is left in flight: closing the scene cancels it
    # A login in flight, as a snapshot would restore it: its outcome arrives as an action.
    submitting = {"email": "ada@example.com", "password": "hunter2", "isSubmitting": True, "error": None}
    with login(state=submitting) as t:
        t.expect_view_model({"email": "ada@example.com", "emailError": None, "canSubmit": False, "isSubmitting": True, "error": None})
        t.send("submit")
        t.send("loginSucceeded", {"user": ADA}, state={"isSubmitting": False, "password": ""})
        t.expect_route({"push": "notes/list", "args": {"user": ADA}})


def test_login_wrong_expectations_fail_with_the_diff() -> None:
    with login() as t:
        with fails('send emailChanged "ada@example.com": the state is not the expected one:',
                   '\n  /email: expected "ada@example.org", got "ada@example.com"'):
            t.send("emailChanged", "ada@example.com", state={"email": "ada@example.org"})
        with fails("send passwordChanged \"pw\": the state is not the expected one (no state= was given: it must not change):",
                   '/password: expected "", got "pw"'):
            t.send("passwordChanged", "pw")
        t.send("submit", state={"isSubmitting": True})
        with fails("receive_effect auth.login", '/args/password: expected "PW", got "pw"'):
            t.receive_effect("auth", "login", args={"email": "ada@example.com", "password": "PW"})
        (request,) = t.pending_effects
        with fails("resolve #0 auth.login", '/isSubmitting: expected true, got false',
                   '/password: expected "pw", got ""'):
            t.resolve(request, result={"user": ADA}, state={"error": None})
        with fails("expect_route", '/args/user/email: expected "bob@example.com", got "ada@example.com"'):
            t.expect_route({"push": "notes/list", "args": {"user": {"email": "bob@example.com"}}})
        with fails("expect_view_model: the view model is not the expected one:", "/canSubmit: expected true, got false"):
            t.expect_view_model({"canSubmit": True}, partial=True)
    # An effect never resolved fails at the end.
    t = login(args={"email": "ada@example.com"})
    try:
        t.send("passwordChanged", "pw", state={"password": "pw"})
        t.send("submit", state={"isSubmitting": True})
        t.receive_effect("auth", "login")
        with fails("finish: 1 effect is still in flight", "#0 auth.login"):
            t.finish()
    finally:
        t.close()


# ---------------------------------------------------------------- notes/list


def test_list_loads_the_notes_by_prefix_in_id_order() -> None:
    with notes_list() as t:
        assert t.state == {"user": ADA, "notes": [], "nextID": 1, "hasLoaded": False, "isTruncated": False,
                           "isLoading": False, "unreadable": 0, "error": None, "query": ""}
        t.expect_view_model({"user": "ada@example.com", "shown": [], "rows": [], "isLoading": False, "canCreate": False,
                             "placeholder": "Loading…", "error": None, "query": ""})
        t.send("load", state={"isLoading": True})
        request = t.receive_effect({"service": "store", "op": "list", "args": {"prefix": "note/", "limit": 10000},
                                    "then": "loaded", "catch": "loadFailed", "id": "load", "policy": "latest",
                                    "restore": "reissue"})
        assert request.key == "load"
        t.expect_view_model({"isLoading": True, "placeholder": "Loading…"}, partial=True)
        # The store answers in key order: "note/10" before "note/2".
        ten = note(10, "Ten", "  first line\nsecond line")
        t.resolve(request, result=listed([ten, BANK]),
                  state={"isLoading": False, "hasLoaded": True, "notes": [BANK, ten], "nextID": 11})
        # One row per note, a child scene each; the list's view says which the search shows.
        t.expect_view_model({"user": "ada@example.com", "shown": [2, 10], "rows": [row_view(BANK), row_view(ten, "first line")],
                             "isLoading": False, "canCreate": True, "placeholder": None, "error": None, "query": ""})


def test_list_skips_and_counts_what_is_not_a_note() -> None:
    with notes_list() as t:
        t.send("load", state={"isLoading": True})
        request = t.receive_effect("store", "list")
        items = {"items": [{"key": "note/1", "value": GROCERIES},
                           {"key": "note/2", "value": "not a note"},
                           {"key": "note/9", "value": GROCERIES}]}  # under another note's key
        t.resolve(request, result=items,
                  state={"isLoading": False, "hasLoaded": True, "notes": [GROCERIES], "nextID": 2, "unreadable": 2})
        t.expect_view_model({"error": "2 stored notes could not be read", "shown": [1], "rows": [row_view(GROCERIES, "Milk")]},
                            partial=True)
        t.send("load", state={"isLoading": True})
        request = t.receive_effect("store", "list")
        t.resolve(request, result={"items": [{"key": "note/1", "value": GROCERIES}, {"key": "note/3", "value": {"id": 3}}]},
                  state={"isLoading": False, "unreadable": 1})
        t.expect_view_model({"error": "1 stored note could not be read"}, partial=True)


def test_list_load_fails_and_is_retried() -> None:
    with notes_list() as t:
        t.send("load", state={"isLoading": True})
        request = t.receive_effect("store", "list")
        t.resolve(request, error={"code": "sqlite_error", "message": "disk I/O error"},
                  state={"isLoading": False, "error": "Could not load your notes: disk I/O error"})
        t.expect_view_model({"error": "Could not load your notes: disk I/O error", "canCreate": False, "placeholder": "Loading…"},
                            partial=True)
        t.send("load", state={"isLoading": True, "error": None})
        request = t.receive_effect("store", "list")
        t.resolve(request, error={"code": "timeout"},
                  state={"isLoading": False, "error": "Could not load your notes: the service did not answer in time"})
        t.send("load", state={"isLoading": True, "error": None})
        request = t.receive_effect("store", "list")
        t.resolve(request, result={"items": []}, state={"isLoading": False, "hasLoaded": True})
        t.expect_view_model({"user": "ada@example.com", "shown": [], "rows": [], "isLoading": False, "canCreate": True,
                             "placeholder": "No notes yet", "error": None, "query": ""})


def test_list_a_second_load_cancels_the_first() -> None:
    with notes_list() as t:
        t.send("load", state={"isLoading": True})
        first = t.receive_effect("store", "list")
        t.send("load")
        second = t.receive_effect("store", "list", key="load", policy="latest")
        # policy latest: the runtime cancelled the first; its outcome is never delivered.
        assert t.pending_effects == [second]
        with fails("resolve #0 store.list", "the scene cancelled the effect"):
            t.resolve(first, result=listed([GROCERIES]))
        t.resolve(second, result=listed([GROCERIES, BANK]),
                  state={"isLoading": False, "hasLoaded": True, "notes": [GROCERIES, BANK], "nextID": 3})


def test_list_new_note_takes_the_next_id_and_never_reuses_it() -> None:
    with notes_list() as t:
        t.send("newNote", state={"error": "Wait until your notes have loaded"})
        t.send("load", state={"isLoading": True, "error": None})
        t.resolve(t.receive_effect("store", "list"), result=listed([GROCERIES, BANK]),
                  state={"isLoading": False, "hasLoaded": True, "notes": [GROCERIES, BANK], "nextID": 3})
        t.send("newNote", state={"nextID": 4})
        t.expect_route({"push": "notes/editor", "args": {"note": note(3), "isNew": True}, "onResult": "editorClosed"})
        # The editor was cancelled (no result): the next new note still gets a fresh id.
        t.send("newNote", state={"nextID": 5})
        t.expect_route({"push": "notes/editor", "args": {"note": note(4), "isNew": True}, "onResult": "editorClosed"})
        # A reload with fewer notes does not hand an id out again.
        t.send("load", state={"isLoading": True})
        t.resolve(t.receive_effect("store", "list"), result=listed([GROCERIES]), state={"isLoading": False, "notes": [GROCERIES]})
        t.send("newNote", state={"nextID": 6})
        t.expect_route({"push": "notes/editor", "args": {"note": note(5), "isNew": True}, "onResult": "editorClosed"})


def test_list_opens_a_note_in_the_editor() -> None:
    with notes_list() as t:
        load(t, [GROCERIES, BANK])
        t.send("open", 1)
        t.expect_route({"push": "notes/editor", "args": {"note": GROCERIES, "isNew": False}, "onResult": "editorClosed"})
        t.send("open", 7, state={"error": "There is no note 7"})
        t.expect_view_model({"error": "There is no note 7"}, partial=True)
        t.send("open", 2, state={"error": None})
        t.expect_route({"push": "notes/editor", "args": {"note": BANK, "isNew": False}, "onResult": "editorClosed"})


def test_list_takes_what_the_editor_saved_or_deleted() -> None:
    with notes_list(state=list_state([GROCERIES, BANK])) as t:
        renamed = note(2, "Called the bank", "done")
        t.send("editorClosed", {"saved": renamed}, state={"/notes/1": renamed})
        fresh = note(3, "New")
        t.send("editorClosed", {"saved": fresh}, state={"/notes/-": fresh, "nextID": 4})
        t.send("editorClosed", {"deleted": 1}, state={"notes": [renamed, fresh]})
        # The saved note is its row's new args: the row shows it.
        t.expect_view_model({"user": "ada@example.com", "shown": [2, 3], "rows": [row_view(renamed, "done"), row_view(fresh)],
                             "isLoading": False, "canCreate": True, "placeholder": None, "error": None, "query": ""})
        # A saved note with an id beyond the list's goes in id order, and moves the next id past it.
        far = note(9, "Far")
        t.send("editorClosed", {"saved": far}, state={"/notes/-": far, "nextID": 10})
        older = note(1, "Back again")
        t.send("editorClosed", {"saved": older}, state={"notes": [older, renamed, fresh, far]})
        # A deleted id the list does not hold, and no result at all: nothing changes.
        t.send("editorClosed", {"deleted": 42})
        t.send("editorClosed", {})
        t.send("editorClosed", {"deleted": 9}, state={"notes": [older, renamed, fresh]})
        t.send("newNote", state={"nextID": 11})
        t.expect_route({"push": "notes/editor", "args": {"note": note(10), "isNew": True}, "onResult": "editorClosed"})
        t.send("editorClosed", {"saved": note(10, "Ten")}, state={"/notes/-": note(10, "Ten")})
        t.expect_view_model(lambda vm: vm["shown"] == [1, 2, 3, 10] and [row["id"] for row in vm["rows"]] == [1, 2, 3, 10])


def test_list_search_shows_the_notes_that_hold_the_query() -> None:
    milk = note(3, "Dairy", "Oat MILK")
    with notes_list(state=list_state([GROCERIES, BANK, milk])) as t:
        t.send("searchChanged", "mIlK", state={"query": "mIlK"})
        # The search picks rows; every note keeps its row.
        t.expect_view_model({"query": "mIlK", "placeholder": None, "shown": [1, 3], "/rows/2/preview": "Oat MILK"}, partial=True)
        t.expect_view_model(lambda vm: [row["id"] for row in vm["rows"]] == [1, 2, 3])
        t.send("searchChanged", "BANK", state={"query": "BANK"})
        t.expect_view_model(lambda vm: vm["shown"] == [2])
        # Lower case on both sides, then bytes: "É" finds "é"; "e" does not find "é".
        accents = note(4, "Café", "")
        t.send("editorClosed", {"saved": accents}, state={"/notes/-": accents, "nextID": 5})
        t.send("searchChanged", "CAFÉ", state={"query": "CAFÉ"})
        t.expect_view_model(lambda vm: vm["shown"] == [4])
        t.send("searchChanged", "cafe", state={"query": "cafe"})
        t.expect_view_model({"shown": [], "placeholder": "No notes match “cafe”"}, partial=True)
        t.send("searchChanged", "", state={"query": ""})
        t.expect_view_model(lambda vm: vm["shown"] == [1, 2, 3, 4] and vm["placeholder"] is None)
        t.send_fails("searchChanged", 1, code="bad_payload", at="/payload")


def test_list_logout_goes_back_to_the_login() -> None:
    with notes_list(state=list_state([GROCERIES, BANK])) as t:
        t.send("logout")
        t.expect_route({"popToRoot": True})


def test_list_that_filled_the_limit_hands_out_no_id() -> None:
    with notes_list() as t:
        t.send("load", state={"isLoading": True})
        request = t.receive_effect("store", "list")
        notes = [note(i, f"n{i}") for i in range(1, 10001)]
        # The document too, within its default step budget (the share of its data).
        t.resolve(request, result=listed(notes),
                  state={"isLoading": False, "hasLoaded": True, "isTruncated": True, "notes": notes, "nextID": 10001})
        t.expect_view_model(lambda vm: not vm["canCreate"] and len(vm["shown"]) == 10000 and len(vm["rows"]) == 10000)
        t.send("searchChanged", "N1234", state={"query": "N1234"})
        t.expect_view_model(lambda vm: vm["shown"] == [1234] and len(vm["rows"]) == 10000)
        t.send("newNote", state={"error": "There are too many notes to add another"})


def test_list_previews_the_first_line_in_at_most_80_characters() -> None:
    bodies = ["one\r\ntwo", "é" * 80, "é" * 81, "\n\n  spaced\nnext", "👍🏽" * 81]
    state = list_state([note(i + 1, f"n{i + 1}", body) for i, body in enumerate(bodies)])
    with notes_list(state=state) as t:
        previews = [row["preview"] for row in t.view_model["rows"]]
        # Characters, not code points: "👍🏽" is one (two code points in Python).
        # A document counts code points (Unicode scalars), as Python does.
        emoji = ("👍🏽" * 81)[:79] + "…" if documents() else "👍🏽" * 79 + "…"
        assert previews == ["one", "é" * 80, "é" * 79 + "…", "spaced", emoji]


def test_list_refuses_what_it_cannot_read() -> None:
    with pytest.raises(yaia.YaiaError) as info:
        notes_list(args={})
    assert (info.value.code, info.value.at) == ("bad_args", "/args/user")
    with pytest.raises(yaia.YaiaError) as info:
        notes_list(args={"user": {"email": True}})
    assert (info.value.code, info.value.at) == ("bad_args", "/args/user/email")
    with notes_list(state=list_state([GROCERIES])) as t:
        t.send_fails("open", "one", code="bad_payload", at="/payload")
        # A document reports a payload's missing members before its mistyped ones.
        t.send_fails("editorClosed", {"saved": {"id": "x"}}, code="bad_payload",
                     at="/payload/saved/title" if documents() else "/payload/saved/id")
        t.send("load", state={"isLoading": True})
        request = t.receive_effect("store", "list")
        t.resolve_fails(request, result={"items": [{"value": GROCERIES}]}, code="bad_payload", at="/items/0/key")
        t.resolve(request, result=listed([GROCERIES]), state={"isLoading": False})


def test_list_wrong_expectations_fail_with_the_diff() -> None:
    with notes_list() as t:
        t.send("load", state={"isLoading": True})
        with fails("receive_effect store.list", "/args/limit: expected 100, got 10000"):
            t.receive_effect("store", "list", args={"prefix": "note/", "limit": 100})
        (request,) = t.pending_effects
        with fails("resolve #0 store.list with result", "the state is not the expected one:", "/nextID: expected 3, got 11"):
            t.resolve(request, result=listed([note(10, "Ten"), BANK]),
                      state={"isLoading": False, "hasLoaded": True, "notes": [BANK, note(10, "Ten")], "nextID": 3})
        with fails("expect_view_model: the view model is not the expected one:", '/rows/0/title: expected "Call the Bank", got "Call the bank"'):
            t.expect_view_model({"/rows/0/title": "Call the Bank"}, partial=True)
        t.send("open", 2)
        with fails("expect_route", "/onResult: expected \"editorSaved\", got \"editorClosed\""):
            t.expect_route({"push": "notes/editor", "args": {"note": BANK, "isNew": False}, "onResult": "editorSaved"})
        t.send("logout")
        # A route never asserted fails at the next input.
        with fails("send load: 1 route emitted but never asserted:", '{"popToRoot":true}', "(assert what a step emits before the next input)"):
            t.send("load")
        # The refused step was not sent; sent now, its effect is never received.
        t.send("load", state={"isLoading": True})
        with fails("finish: 1 effect emitted but never received:", '#1 store.list {"args":{"limit":10000,"prefix":"note/"}'):
            t.finish()


# ---------------------------------------------------------------- notes/editor


def test_editor_saves_a_new_note_and_pops_with_it() -> None:
    with editor(args={"note": note(3), "isNew": True}) as t:
        assert t.state == editor_state(note(3), is_new=True)
        t.expect_view_model(vm_editor(heading="New note", titleError="A title is required", canSave=False))
        t.send("save", state={"error": "A title is required"})
        # An edit clears the error the last save left.
        t.send("titleChanged", "  Groceries ", state={"/note/title": "  Groceries ", "error": None})
        t.send("bodyChanged", "Milk\nEggs", state={"/note/body": "Milk\nEggs"})
        t.expect_view_model(vm_editor(heading="New note", title="  Groceries ", body="Milk\nEggs", titleCounter="9/200", hasChanges=True))
        t.send("save", state={"/note/title": "Groceries", "busy": "saving"})
        saved = note(3, "Groceries", "Milk\nEggs")
        put = t.receive_effect({"service": "store", "op": "put", "args": {"key": "note/3", "value": saved},
                                "then": "saved", "catch": "saveFailed"})
        t.expect_view_model(vm_editor(heading="New note", title="Groceries", body="Milk\nEggs", titleCounter="9/200", hasChanges=True,
                                      canSave=False, canDelete=False, isSaving=True))
        # The form is frozen while the write is in flight.
        t.send("titleChanged", "Other")
        t.send("bodyChanged", "Other")
        t.send("save")
        t.send("delete")
        t.send("cancel")
        t.resolve(put, result={"key": "note/3"}, state={"busy": None, "isNew": False, "original": saved})
        t.expect_route({"pop": True, "result": {"saved": saved}})
        t.expect_view_model(vm_editor(title="Groceries", body="Milk\nEggs", titleCounter="9/200"))


def test_editor_title_is_required_and_at_most_200_characters() -> None:
    with editor(args={"note": BANK}) as t:
        t.expect_view_model(vm_editor(title="Call the bank", titleCounter="13/200"))
        t.send("titleChanged", "   ", state={"/note/title": "   "})
        t.expect_view_model({"titleError": "A title is required", "canSave": False, "titleCounter": "0/200"}, partial=True)
        t.send("save", state={"error": "A title is required"})
        long = "ü" * 201
        t.send("titleChanged", long, state={"/note/title": long, "error": None})
        t.expect_view_model({"titleError": "The title is too long (201 characters; at most 200)", "titleCounter": "201/200",
                             "canSave": False}, partial=True)
        t.send("save", state={"error": "The title is too long (201 characters; at most 200)"})
        # Counted in Characters after trimming: 200 of them, and blanks around, fit.
        # A document counts Unicode scalars: 200 "👍🏽" are 400 of them; 200 "é" fit.
        limit = "é" * 200 if documents() else "👍🏽" * 200
        t.send("titleChanged", f" {limit}\n", state={"/note/title": f" {limit}\n", "error": None})
        t.expect_view_model({"titleError": None, "titleCounter": "200/200", "canSave": True}, partial=True)
        t.send("save", state={"/note/title": limit, "busy": "saving"})
        saved = note(2, limit)
        put = t.receive_effect("store", "put", args={"key": "note/2", "value": saved})
        t.resolve(put, result={"key": "note/2"}, state={"busy": None, "original": saved})
        t.expect_route({"pop": True, "result": {"saved": saved}})


def test_editor_failed_save_keeps_the_edits_and_shows_why() -> None:
    with editor(state=editor_state(BANK)) as t:
        t.send("bodyChanged", "today", state={"/note/body": "today"})
        t.send("save", state={"busy": "saving"})
        put = t.receive_effect("store", "put", args={"key": "note/2", "value": note(2, "Call the bank", "today")})
        t.resolve(put, error={"code": "sqlite_error", "message": "database is locked"},
                  state={"busy": None, "error": "Could not save the note: database is locked"})
        t.expect_view_model(vm_editor(title="Call the bank", body="today", titleCounter="13/200", hasChanges=True,
                                      error="Could not save the note: database is locked"))
        t.send("save", state={"busy": "saving", "error": None})
        put = t.receive_effect("store", "put")
        t.resolve(put, error={"code": "timeout"},
                  state={"busy": None, "error": "Could not save the note: the service did not answer in time"})
        t.send("saveFailed", {"code": "sqlite_full"}, error=True, state={"error": "Could not save the note (sqlite_full)"})


def test_editor_deletes_and_pops_with_the_id() -> None:
    with editor(args={"note": BANK}) as t:
        t.send("delete", state={"busy": "deleting"})
        request = t.receive_effect({"service": "store", "op": "delete", "args": {"key": "note/2"},
                                    "then": "deleted", "catch": "deleteFailed"})
        t.expect_view_model(vm_editor(title="Call the bank", titleCounter="13/200", canSave=False, canDelete=False, isDeleting=True))
        t.send("titleChanged", "Other")
        t.resolve(request, result={"key": "note/2", "deleted": True}, state={"busy": None})
        t.expect_route({"pop": True, "result": {"deleted": 2}})


def test_editor_failed_delete_shows_why_and_a_new_note_just_closes() -> None:
    with editor(state=editor_state(BANK)) as t:
        t.send("delete", state={"busy": "deleting"})
        request = t.receive_effect("store", "delete")
        t.resolve(request, error={"code": "sqlite_error"}, state={"busy": None, "error": "Could not delete the note (sqlite_error)"})
        t.expect_view_model({"error": "Could not delete the note (sqlite_error)", "canDelete": True, "isDeleting": False}, partial=True)
        t.send("delete", state={"busy": "deleting", "error": None})
        request = t.receive_effect("store", "delete")
        t.resolve(request, error={"message": "disk I/O error"}, state={"busy": None, "error": "Could not delete the note: disk I/O error"})
    with editor(args={"note": note(9), "isNew": True}) as t:
        t.send("titleChanged", "Draft", state={"/note/title": "Draft"})
        t.send("delete")  # never stored: nothing to delete, no result
        t.expect_route({"pop": True})


def test_editor_cancel_pops_without_a_result() -> None:
    with editor(state=editor_state(BANK)) as t:
        t.send("titleChanged", "Changed", state={"/note/title": "Changed"})
        t.expect_view_model({"hasChanges": True}, partial=True)
        t.send("cancel")
        t.expect_route({"pop": True})


def test_editor_opened_mid_write_is_frozen_until_the_outcome() -> None:
    edited = note(2, "Call the bank", "at 9")
    with editor(state=editor_state(BANK, note=edited, busy="saving")) as t:
        t.expect_view_model(vm_editor(title="Call the bank", body="at 9", titleCounter="13/200", hasChanges=True,
                                      canSave=False, canDelete=False, isSaving=True))
        for action in ("save", "delete", "cancel"):
            t.send(action)
        t.send("titleChanged", "x")
        t.send("saved", {"key": "note/2"}, state={"busy": None, "original": edited})
        t.expect_route({"pop": True, "result": {"saved": edited}})
    with editor(state=editor_state(BANK, busy="deleting")) as t:
        t.send("bodyChanged", "x")
        t.send("deleteFailed", {"code": "timeout"}, error=True,
               state={"busy": None, "error": "Could not delete the note: the service did not answer in time"})
        t.send("bodyChanged", "x", state={"/note/body": "x", "error": None})


def test_editor_refuses_what_it_cannot_read() -> None:
    with pytest.raises(yaia.YaiaError) as info:
        editor(args={})
    assert (info.value.code, info.value.at) == ("bad_args", "/args/note")
    with pytest.raises(yaia.YaiaError) as info:
        editor(args={"note": {"id": "2", "title": "", "body": ""}})
    assert (info.value.code, info.value.at) == ("bad_args", "/args/note/id")
    if documents():
        # A document's restore checks the state's fields, not their types.
        with editor(state=editor_state(BANK, busy="typing")) as t:
            t.expect_view_model({"canSave": False, "isSaving": False, "isDeleting": False}, partial=True)
    else:
        with pytest.raises(yaia.YaiaError) as info:
            editor(state=editor_state(BANK, busy="typing"))
        assert (info.value.code, info.value.at) == ("bad_state", "/state/busy")
    with editor(args={"note": BANK}) as t:
        t.send_fails("titleChanged", None, code="bad_payload", at="/payload")
        t.send_fails("publish", code="unknown_action", at="/type")


def test_editor_wrong_expectations_fail_with_the_diff() -> None:
    with editor(args={"note": note(3), "isNew": True}) as t:
        t.send("titleChanged", "  Groceries ", state={"/note/title": "  Groceries "})
        # The save trims the title: an expectation without that fails, naming the member.
        with fails("send save: the state is not the expected one:", '/note/title: expected "  Groceries ", got "Groceries"'):
            t.send("save", state={"busy": "saving"})
        with fails("receive_effect store.put", '/args/key: expected "note/1", got "note/3"'):
            t.receive_effect("store", "put", args={"key": "note/1", "value": note(3, "Groceries")})
        (put,) = t.pending_effects
        with fails("expect_view_model: the view model is not the expected one:", "/isSaving: expected false, got true",
                   "/canDelete: expected true, got false"):
            t.expect_view_model({"isSaving": False, "canDelete": True}, partial=True)
        with fails("resolve #0 store.put", '/busy: expected "saving", got null', "/isNew: expected true, got false"):
            t.resolve(put, result={"key": "note/3"})
        with fails("expect_route", '/result/saved/title: expected "  Groceries ", got "Groceries"'):
            t.expect_route({"pop": True, "result": {"saved": note(3, "  Groceries ")}})
        with fails("expect_view_model: the view model does not satisfy the predicate:"):
            t.expect_view_model(lambda vm: vm["heading"] == "New note")
    # An effect never received, and one never resolved, fail at the end.
    t = editor(state=editor_state(BANK))
    try:
        t.send("delete", state={"busy": "deleting"})
        with fails("finish: 1 effect emitted but never received:", '#0 store.delete {"args":{"key":"note/2"}'):
            t.finish()
    finally:
        t.close()


def test_the_walk_login_list_editor_as_values() -> None:
    """The three scenes chained by their routes: each route's args open the
    next scene, and the editor's pop result goes back to the list as its
    onResult action, as the runtime's navigation would deliver it."""
    with login() as t:
        t.send("emailChanged", "ada@example.com", state={"email": "ada@example.com"})
        t.send("passwordChanged", "hunter2", state={"password": "hunter2"})
        t.send("submit", state={"isSubmitting": True})
        t.resolve(t.receive_effect("auth", "login"), result={"user": ADA}, state={"isSubmitting": False, "password": ""})
        (pushed,) = t.unasserted_routes
        t.expect_route({"push": "notes/list", "args": {"user": ADA}})
    with notes_list(args=pushed["args"]) as lst:
        load(lst, [GROCERIES])
        lst.send("newNote", state={"nextID": 3})
        (opened,) = lst.unasserted_routes
        lst.expect_route({"push": "notes/editor", "args": {"note": note(2), "isNew": True}, "onResult": "editorClosed"})
        with editor(args=opened["args"]) as ed:
            ed.send("titleChanged", "Call the bank", state={"/note/title": "Call the bank"})
            ed.send("save", state={"busy": "saving"})
            ed.resolve(ed.receive_effect("store", "put", args={"key": "note/2", "value": BANK}), result={"key": "note/2"},
                       state={"busy": None, "isNew": False, "original": BANK})
            (popped,) = ed.unasserted_routes
            ed.expect_route({"pop": True, "result": {"saved": BANK}})
        lst.send(opened["onResult"], popped["result"], state={"/notes/-": BANK})
        lst.expect_view_model({"shown": [1, 2], "rows": [row_view(GROCERIES, "Milk"), row_view(BANK)]}, partial=True)
        lst.send("logout")
        lst.expect_route({"popToRoot": True})
