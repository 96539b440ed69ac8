"""Scene schemas in the binding: Runtime.schema and register, actions the
runtime refuses, help() for declared scenes.

The first part checks the Python pieces against canned schemas shaped as the
runtime's {"op": "schema"} answers (docs/scene-documents.md, "The schema of a
scene"); the second runs scene documents in a runtime.
"""

from __future__ import annotations

import copy
import json
import pydoc
import re
from collections import Counter
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

import yaia
from yaia.jsonvalues import json_equal
from yaia.schema import SceneSchema, describe

from conftest import HOST


def alternative(name: str, payload: Optional[Dict[str, Any]] = None, required: bool = False, **more: Any) -> Dict[str, Any]:
    """One action type of $defs/action, as the runtime writes it."""
    properties: Dict[str, Any] = {"type": {"const": name}}
    if payload is not None:
        properties["payload"] = payload
    return {"type": "object", "properties": properties, "required": ["type", "payload"] if required else ["type"], **more}


# The actions of example/login (a Swift scene), declared as a document would
# declare them: the same actions go through the binding's check and the
# scene's own, and must be judged alike.
LOGIN = {
    "scene": "example/login",
    "declared": True,
    "schema": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {
            "args": {"type": "object", "properties": {"email": {"type": "string", "default": ""}}},
            "state": {"type": "object"},
            "action": {
                "oneOf": [
                    alternative("emailChanged", {"type": "string"}, True, description="The email field changed."),
                    alternative("passwordChanged", {"type": "string"}, True),
                    alternative("submit"),
                    alternative("loginSucceeded", {"type": "object", "properties": {"user": {}}, "required": ["user"]}, True),
                    alternative("loginFailed", {}),
                ]
            },
            "effect": {},
            "route": {},
            "viewModel": {
                "type": "object",
                "properties": {"email": {"type": "string"}, "canSubmit": {"type": "boolean"}, "error": {"type": ["string", "null"]}},
            },
        },
    },
}

GENERIC = {
    "scene": "example/home",
    "declared": False,
    "schema": {"$defs": {"action": {"type": "object", "properties": {"type": {"type": "string"}}, "required": ["type"]}}},
}


# ---------------------------------------------------------------- JSON equality


def test_json_equal() -> None:
    assert json_equal([1, 2.0], (1.0, 2)) and json_equal({"a": 1}, {"a": 1.0})
    assert not json_equal(True, 1) and not json_equal(0, False) and not json_equal("1", 1)
    assert not json_equal({"a": 1}, {"a": 1, "b": 2}) and not json_equal([1], [1, 1])


# ---------------------------------------------------------------- descriptions


def test_describe() -> None:
    assert describe({}) == "any" and describe(True) == "any"
    assert describe({"type": "string"}) == "string"
    assert describe({"type": ["string", "null"]}) == "string | null"
    assert describe({"type": "string", "minLength": 1, "maxLength": 200}) == "string (length 1..200)"
    assert describe({"type": "integer", "minimum": 0}) == "integer (0..)"
    assert describe({"enum": ["a", "b"]}) == '"a" | "b"'
    assert describe({"const": 3}) == "3"
    assert describe({"type": "array", "items": {"type": "string"}}) == "[string]"
    assert describe({"type": "object", "properties": {"id": {"type": "integer"}, "title": {"type": "string"}}, "required": ["id"]}) == (
        "{id: integer, title?: string}"
    )
    assert describe({"anyOf": [{"type": "string"}, {"$ref": "#/$defs/note"}]}) == "string | note"


# ---------------------------------------------------------------- a scene's schema


def test_scene_schema_payloads_and_doc() -> None:
    schema = SceneSchema(LOGIN)
    assert schema.payloads() == {
        "emailChanged": {"type": "string"},
        "passwordChanged": {"type": "string"},
        "submit": {},
        "loginSucceeded": {"type": "object", "properties": {"user": {}}, "required": ["user"]},
        "loginFailed": {},
    }
    assert schema.payload_required("emailChanged") and not schema.payload_required("submit")
    doc = schema.doc()
    assert "    emailChanged(payload: string)\n        The email field changed." in doc
    assert "    submit(payload?: any)" in doc and "    loginSucceeded(payload: {user: any})" in doc
    assert "    error: string | null" in doc


def test_a_generic_schema_lists_no_actions() -> None:
    schema = SceneSchema(GENERIC)
    assert not schema.declared and schema.actions is None and schema.payloads() == {}
    # Declared, but not one constant type per alternative: no action types to list.
    odd = copy.deepcopy(LOGIN)
    odd["schema"]["$defs"]["action"] = {"anyOf": [{"type": "object", "properties": {"type": {"enum": ["a", "b"]}}}]}
    assert SceneSchema(odd).actions is None and SceneSchema(odd).payloads() == {}


def test_problems_of_an_error() -> None:
    problems = [
        {"code": "unknown_member", "message": '"thne" is not a member of an effect; did you mean "then"?', "at": "/actions/a/effects/0/thne"},
        {"code": "bad_var", "message": "no root", "at": "/view/x"},
    ]
    envelope = {"ok": False, "error": {"code": "bad_document", "message": "2 problems", "at": problems[0]["at"], "problems": problems}}
    error = yaia.YaiaError.from_envelope(envelope)
    assert error.problems == problems and error.at == "/actions/a/effects/0/thne"
    assert str(error).splitlines() == [
        "bad_document: 2 problems at /actions/a/effects/0/thne",
        '  /actions/a/effects/0/thne: unknown_member: "thne" is not a member of an effect; did you mean "then"?',
        "  /view/x: bad_var: no root",
    ]
    assert yaia.YaiaError("unknown_scene", "no such scene").problems is None


# ---------------------------------------------------------------- in a runtime, with a canned schema


class CountingLib:
    """The runtime's library, counting the requests that reach it by op."""

    def __init__(self, lib: Any) -> None:
        self.lib = lib
        self.ops: Counter[str] = Counter()

    @property
    def sends(self) -> int:
        return self.ops["send"]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.lib, name)

    def yaia_execute_n(self, handle: int, data: bytes, size: int) -> Any:
        op = re.match(rb'\{"op":"([^"]*)"', data)
        self.ops[op.group(1).decode() if op else "?"] += 1
        return self.lib.yaia_execute_n(handle, data, size)


def counted(runtime: yaia.Runtime) -> CountingLib:
    """Counts the runtime's requests, and its scenes' sends through yaia_send as sends."""
    lib = CountingLib(runtime._lib)
    runtime._lib = lib  # type: ignore[assignment]
    send_scene = runtime._send_scene

    def counting(*args: Any) -> Any:
        lib.ops["send"] += 1
        return send_scene(*args)

    runtime._send_scene = counting
    return lib


@pytest.fixture
def canned(examples_pack: str) -> Iterator[yaia.Runtime]:
    """A runtime whose schema of example/login is LOGIN (as if it had asked for it)."""
    with yaia.Runtime(scenes=[examples_pack], **HOST) as runtime:
        runtime._schemas["example/login"] = SceneSchema(LOGIN)
        yield runtime


def outcome(scene: Any, action: Any, validate: bool, message: bool = False) -> Tuple[str, Optional[str], Optional[str]]:
    try:
        scene.send(action, validate=validate)
    except yaia.YaiaError as exc:
        return exc.code, exc.at, exc.message if message else None
    return "accepted", None, None


def test_what_cannot_be_json_fails_as_before(canned: yaia.Runtime) -> None:
    login = canned.open("example/login")
    with pytest.raises(ValueError):
        login.send("emailChanged", float("nan"))
    with pytest.raises(TypeError):
        login.send("emailChanged", object())
    with pytest.raises(TypeError):
        login.send({"type": "emailChanged"}, "x")


def test_help_lists_the_actions(canned: yaia.Runtime) -> None:
    login = canned.open("example/login")
    text = pydoc.render_doc(login, renderer=pydoc.plaintext)
    for line in ("emailChanged(payload: string)", "submit(payload?: any)", "loginSucceeded(payload: {user: any})", "canSubmit: boolean"):
        assert line in text, line
    assert "send(self, action" in text  # and the methods of every Scene
    assert type(login).__doc__ == login.__doc__ and "emailChanged(payload: string)" in (login.__doc__ or "")
    assert isinstance(login, yaia.Scene) and type(canned.open("example/login")) is type(login)  # one class per type
    assert login.actions == SceneSchema(LOGIN).payloads()
    login.actions["submit"]["type"] = "integer"  # a copy
    assert login.actions["submit"] == {}


def test_undeclared_scenes_are_plain_scenes(canned: yaia.Runtime) -> None:
    canned._schemas["example/home"] = SceneSchema(GENERIC)
    home = canned.open("example/home", {"user": 1})
    assert type(home) is yaia.Scene and home.actions == {}
    lib = counted(canned)
    with pytest.raises(yaia.YaiaError) as refused:
        home.send("nope")
    assert refused.value.code == "unknown_action" and lib.sends == 1


def test_schema_is_asked_once_and_copied(canned: yaia.Runtime) -> None:
    first = canned.schema("example/login")
    assert first == {"scene": "example/login", "declared": True, "schema": LOGIN["schema"]}
    first["schema"]["$defs"].clear()
    assert canned.schema("example/login")["schema"] == LOGIN["schema"]


# ---------------------------------------------------------------- scene documents in a runtime

EDITOR: Dict[str, Any] = {
    "yaia": 1,
    "scene": "test/editor",
    "description": "A title, tags and a counter, for checking payloads.",
    "args": {"title": {"type": "string", "default": ""}},
    "state": {"title": {"var": "args.title"}, "tags": [], "count": 0, "level": 0, "mode": "a", "note": None, "saved": False},
    "actions": {
        "rename": {
            "payload": {
                "schema": {
                    "type": "object",
                    "required": ["title"],
                    "properties": {"title": {"type": "string", "minLength": 1, "maxLength": 5}},
                    "additionalProperties": False,
                }
            },
            "set": {"title": {"var": "payload.title"}},
        },
        "setTags": {"payload": ["string"], "set": {"tags": {"var": "payload"}}},
        "bump": {"payload": "integer", "set": {"count": {"var": "payload"}}},
        "level": {"payload": {"schema": {"type": "number", "minimum": 0, "maximum": 10}}, "set": {"level": {"var": "payload"}}},
        "mode": {"payload": {"schema": {"type": "string", "enum": ["a", "b"]}}, "set": {"mode": {"var": "payload"}}},
        "setFilter": {"payload": {"schema": {"enum": ["all", "active", "done"]}}, "set": {"mode": {"var": "payload"}}},
        "note": {"payload": "string?", "set": {"note": {"var": "payload"}}},
        "shape": {"payload": {"note": {"id": "integer", "title": "string"}, "tags": ["string"], "extra": "boolean?"}, "set": {"saved": True}},
        "save": {"set": {"saved": True}},
        "anything": {"payload": "any", "set": {"saved": False}},
    },
    "view": {"title": {"var": "state.title"}, "count": {"var": "state.count"}, "saved": {"var": "state.saved"}},
}

ACTIONS: List[Dict[str, Any]] = [
    {"type": "rename", "payload": {"title": "abc"}},
    {"type": "rename", "payload": {"title": ""}},
    {"type": "rename", "payload": {"title": "abcdef"}},
    {"type": "rename", "payload": {"title": "😀😀😀😀😀"}},
    {"type": "rename", "payload": {"title": "ab", "x": 1}},
    {"type": "rename", "payload": {}},
    {"type": "rename", "payload": {"titel": "x"}},
    {"type": "rename", "payload": {"title": "x", "titel": "x"}},
    {"type": "rename", "payload": "abc"},
    {"type": "rename"},
    {"type": "renmae", "payload": {"title": "x"}},
    {"type": "nope"},
    {"type": "setTags", "payload": ["a", "b"]},
    {"type": "setTags", "payload": ["a", 2]},
    {"type": "setTags", "payload": "a"},
    {"type": "bump", "payload": 3},
    {"type": "bump", "payload": 3.5},
    {"type": "bump", "payload": 2.0},
    {"type": "bump", "payload": None},
    {"type": "bump", "payload": True},
    {"type": "bump", "payload": "3"},
    {"type": "level", "payload": 0},
    {"type": "level", "payload": 10.5},
    {"type": "level", "payload": -1},
    {"type": "mode", "payload": "b"},
    {"type": "mode", "payload": "c"},
    {"type": "mode"},
    {"type": "setFilter", "payload": "done"},
    {"type": "setFilter", "payload": "none"},
    {"type": "setFilter"},
    {"type": "note", "payload": "hi"},
    {"type": "note", "payload": None},
    {"type": "note"},
    {"type": "note", "payload": 1},
    {"type": "shape", "payload": {"note": {"id": 1, "title": "t"}, "tags": []}},
    {"type": "shape", "payload": {"note": {"id": 1, "title": "t"}, "tags": [], "extra": None, "more": 1}},
    {"type": "shape", "payload": {"note": {"id": "1", "title": "t"}, "tags": []}},
    {"type": "shape", "payload": {"note": {"id": 1}, "tags": []}},
    {"type": "shape", "payload": {"note": {"id": 1, "title": "t"}, "tags": [1]}},
    {"type": "shape", "payload": {"note": {"id": 1, "title": "t"}, "tags": [], "extra": "yes"}},
    {"type": "save"},
    {"type": "save", "payload": {"any": "thing"}},
    {"type": "anything", "payload": [1, {"x": None}]},
    {"type": "anything"},
    {"type": "bump", "payload": "x", "error": True},
]


def write_document(folder: Path, document: Dict[str, Any], name: str = "editor.json") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(document))
    return path


@pytest.fixture
def documents(tmp_path: Path) -> Iterator[yaia.Runtime]:
    """A runtime with test/editor from a folder of documents, and the grant to register more."""
    folder = tmp_path / "scenes"
    write_document(folder, EDITOR)
    with yaia.Runtime(scenes=[folder], allow=["register"]) as runtime:
        yield runtime


def test_the_schema_of_a_document(documents: yaia.Runtime) -> None:
    answer = documents.schema("test/editor")
    assert answer["scene"] == "test/editor" and answer["declared"] is True
    defs = answer["schema"]["$defs"]
    assert {"args", "state", "action", "effect", "route", "viewModel"} <= set(defs)
    editor = documents.open("test/editor")
    assert set(editor.actions) == set(EDITOR["actions"])
    schema = SceneSchema(answer)
    assert schema.payload_required("bump") and not schema.payload_required("note") and not schema.payload_required("save")


def test_a_schema_is_asked_for_once(documents: yaia.Runtime) -> None:
    lib = counted(documents)
    first, second = documents.open("test/editor"), documents.open("test/editor")
    first.send("bump", 1)
    second.send("bump", 2)
    assert documents.schema("test/editor") == documents.schema("test/editor")
    assert lib.ops["schema"] == 1 and lib.sends == 2


def test_swift_scenes_declare_nothing(examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack]) as runtime:
        answer = runtime.schema("example/login")
        assert answer["declared"] is False
        action = answer["schema"]["$defs"]["action"]
        assert "oneOf" not in action and "anyOf" not in action  # any action type
        assert type(runtime.open("example/login")) is yaia.Scene
        with pytest.raises(yaia.YaiaError) as unknown:
            runtime.schema("example/logon")
        assert unknown.value.code == "unknown_scene"


def test_the_runtime_checks_every_action(documents: yaia.Runtime) -> None:
    """Every action of ACTIONS reaches the runtime, which refuses or takes
    it; ``validate`` changes nothing."""
    checked, unchecked = documents.open("test/editor"), documents.open("test/editor")
    lib = counted(documents)
    for action in ACTIONS:
        sends = lib.sends
        assert outcome(checked, action, True, message=True) == outcome(unchecked, action, False, message=True), action
        assert lib.sends - sends == 2, action
    assert checked.state == unchecked.state


def test_document_refusals_come_from_the_runtime(documents: yaia.Runtime) -> None:
    editor = documents.open("test/editor")
    lib = counted(documents)
    with pytest.raises(yaia.YaiaError) as unknown:
        editor.send("renmae", {"title": "x"}, tag="t1")
    assert (unknown.value.code, unknown.value.at) == ("unknown_action", "/action/type")
    assert 'did you mean "rename"' in unknown.value.message and unknown.value.envelope["tag"] == "t1"
    with pytest.raises(yaia.YaiaError) as wrong:
        editor.send("rename", {"title": "abcdef"})
    assert (wrong.value.code, wrong.value.at) == ("bad_payload", "/action/payload/title")
    assert lib.sends == 2 and editor.seq == 0


def test_flows_of_documents(documents: yaia.Runtime) -> None:
    with documents.start("test/editor") as flow:
        lib = counted(documents)
        with pytest.raises(yaia.YaiaError) as refused:
            flow.send("bump", "3")
        assert (refused.value.code, refused.value.at, lib.sends) == ("bad_payload", "/action/payload", 1)
        assert flow.send("bump", 3).view_model["count"] == 3


def test_help_of_a_document_scene(documents: yaia.Runtime) -> None:
    editor = documents.open("test/editor")
    text = pydoc.render_doc(editor, renderer=pydoc.plaintext)
    for name in EDITOR["actions"]:
        assert f"    {name}(payload" in text, name
    assert "bump(payload: integer)" in text and "setTags(payload: [string])" in text
    assert "save(payload?: any)" in text and "count: " in text


def test_an_enum_payload_is_required_and_says_what_it_takes(documents: yaia.Runtime) -> None:
    editor = documents.open("test/editor")
    accepts = 'one of "all", "active", "done"'
    for validate in (True, False):
        with pytest.raises(yaia.YaiaError) as missing:
            editor.send("setFilter", validate=validate)
        assert missing.value.code == "bad_payload"
        assert missing.value.message == "setFilter's payload is missing: it must be " + accepts
    assert SceneSchema(documents.schema("test/editor")).payload_required("setFilter")
    text = pydoc.render_doc(editor, renderer=pydoc.plaintext)
    assert 'setFilter(payload: "all" | "active" | "done")' in text


def test_a_document_file_in_the_config(tmp_path: Path) -> None:
    path = write_document(tmp_path, EDITOR, "one.json")
    with yaia.Runtime(scenes=[path]) as runtime:
        assert runtime.open("test/editor", {"title": "x"}).view_model["title"] == "x"


def test_register(tmp_path: Path, examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack]) as plain:
        with pytest.raises(yaia.YaiaError) as refused:
            plain.register(EDITOR)
        assert refused.value.code == "not_permitted"
        assert "test/editor" not in plain.scenes()["types"]
    with yaia.Runtime(scenes=[examples_pack], allow=["register"]) as runtime:
        assert runtime.register(EDITOR) == "test/editor"
        editor = runtime.open("test/editor")
        assert runtime.schema("test/editor")["declared"] is True
        with pytest.raises(yaia.YaiaError) as wrong:
            editor.send("bump", 1.5)
        assert wrong.value.code == "bad_payload"
        assert runtime.register(copy.deepcopy(EDITOR)) == "test/editor"  # the same again changes nothing
        with pytest.raises(yaia.YaiaError) as other:
            runtime.register({**EDITOR, "view": {"title": {"var": "state.title"}}})
        assert other.value.code == "duplicate_scene"
        with pytest.raises(yaia.YaiaError) as swift:
            runtime.register({**EDITOR, "scene": "example/login"})
        assert swift.value.code == "duplicate_scene"


def test_register_lists_every_problem(documents: yaia.Runtime) -> None:
    broken = copy.deepcopy(EDITOR)
    broken["scene"] = "test/broken"
    broken["actoins"] = broken.pop("actions")
    broken["view"]["title"] = {"var": "state.titel"}
    with pytest.raises(yaia.YaiaError) as refused:
        documents.register(broken)
    error = refused.value
    assert error.code == "bad_document" and error.problems is not None and len(error.problems) >= 2
    found = {(p["code"], p["at"]) for p in error.problems}
    assert ("unknown_member", "/actoins") in found
    assert any(code == "unknown_field" and at.startswith("/view/title") for code, at in found)
    assert error.at == "/document" + error.problems[0]["at"]  # the error points into the request
    assert all(f"{p['at']}: {p['code']}: " in str(error) for p in error.problems)
    with pytest.raises(yaia.YaiaError) as unknown:
        documents.open("test/broken")
    assert unknown.value.code == "unknown_scene"
