"""Scene schemas in the binding: Runtime.schema and register, actions checked
before they are sent, help() for declared scenes.

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
from yaia.schema import SceneSchema, Validator, describe, json_equal, nearest

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


# ---------------------------------------------------------------- suggestions


def test_nearest_picks_plausible_typos() -> None:
    actions = ["emailChanged", "passwordChanged", "submit", "loginSucceeded", "loginFailed"]
    assert nearest("emailChaged", actions) == "emailChanged"  # one left out
    assert nearest("sbumit", actions) == "submit"  # a swap of neighbours is one edit
    assert nearest("subit", actions) == "submit"
    assert nearest("logout", actions) is None  # too far from any
    assert nearest("", actions) is None
    assert nearest("x" * 300, ["x" * 300]) is None  # long words are no typos
    assert nearest("ab", ["ax", "aa"]) == "aa"  # equally near: the smaller name


# ---------------------------------------------------------------- the validator


def check(value: Any, schema: Any, root: Any = None) -> Optional[Tuple[str, str]]:
    return Validator(root if root is not None else schema).check(value, schema, "/payload")


@pytest.mark.parametrize(
    ("name", "good", "bad"),
    [
        ("string", ["", "é"], [1, None, True, [], {}]),
        ("number", [0, -1.5, 10**20], ["1", True, None]),
        ("integer", [0, -3, 2.0], [1.5, True, "1"]),
        ("boolean", [True, False], [0, 1, "true", None]),
        ("object", [{}, {"a": 1}], [[], "x", None]),
        ("array", [[], [1, "a"], (1, 2)], [{}, "ab", None]),
        ("null", [None], [0, "", False]),
    ],
)
def test_type(name: str, good: List[Any], bad: List[Any]) -> None:
    for value in good:
        assert check(value, {"type": name}) is None, value
    for value in bad:
        failure = check(value, {"type": name})
        assert failure is not None and failure[0] == "/payload", value
        words = {"null": "null", "integer": "a whole number", "object": "an object", "array": "an array"}
        assert failure[1].startswith(f"must be {words.get(name, 'a ' + name)}, not "), failure


def test_type_list_and_unknown_type_names() -> None:
    schema = {"type": ["string", "null"]}
    assert check("a", schema) is None and check(None, schema) is None
    assert check(1, schema) == ("/payload", "must be a string or null, not a number")
    assert check(1, {"type": "decimal"}) is None  # not a name this binding knows: the runtime judges


def test_properties_required_and_pointers() -> None:
    schema = {
        "type": "object",
        "properties": {"title": {"type": "string"}, "a/b": {"type": "integer"}, "m~n": {"type": "integer"}, "tags": {"type": "array"}},
        "required": ["title", "id"],
    }
    assert check({"title": "x", "id": 1, "other": True}, schema) is None  # other members are allowed
    assert check({"id": 1}, schema) == ("/payload/title", "is missing")
    assert check({"title": "x"}, schema) == ("/payload/id", "is missing")  # required, not described
    assert check({"title": 3, "id": 1}, schema) == ("/payload/title", "must be a string, not a number")
    assert check({"title": "x", "id": 1, "a/b": "1"}, schema) == ("/payload/a~1b", "must be a whole number, not a string")
    assert check({"title": "x", "id": 1, "m~n": 1.5}, schema) == ("/payload/m~0n", "must be a whole number, not 1.5")
    # As the runtime: missing members first, then members in the schema's order.
    assert check({"title": 1, "tags": 2}, schema) == ("/payload/id", "is missing")
    assert check({"title": 1, "id": 1, "tags": 2}, schema) == ("/payload/title", "must be a string, not a number")
    # Properties apply to objects only; required too.
    assert check("text", {"properties": {"a": {"type": "string"}}, "required": ["a"]}) is None


def test_member_names_as_json_writes_them() -> None:
    schema = {"properties": {"1": {"type": "string"}, "true": {"type": "string"}}, "required": ["1"]}
    assert check({1: "one", True: "yes"}, schema) is None
    assert check({1: 1}, schema) == ("/payload/1", "must be a string, not a number")
    assert check({True: "yes"}, schema) == ("/payload/1", "is missing")


def test_additional_properties() -> None:
    closed = {"type": "object", "properties": {"a": {}}, "additionalProperties": False}
    assert check({"a": 1}, closed) is None
    assert check({"a": 1, "extra": 2}, closed) == ("/payload/extra", "is not allowed")
    assert check({"title": 1}, {"properties": {"titel": {}}, "additionalProperties": False}) == (
        "/payload/title",
        'is not allowed; did you mean "titel"?',
    )
    typed = {"type": "object", "properties": {"a": {}}, "additionalProperties": {"type": "integer"}}
    assert check({"a": "x", "b": 2}, typed) is None
    assert check({"a": "x", "b": "2"}, typed) == ("/payload/b", "must be a whole number, not a string")
    assert check({"b": "2"}, {"additionalProperties": True}) is None


def test_items() -> None:
    schema = {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}}
    assert check([{"id": 1}, {"id": 2}], schema) is None
    assert check([{"id": 1}, {"id": "2"}], schema) == ("/payload/1/id", "must be a whole number, not a string")
    assert check([{"id": 1}, {}], schema) == ("/payload/1/id", "is missing")
    assert check(({"id": 1}, {"id": 1.5}), schema) == ("/payload/1/id", "must be a whole number, not 1.5")  # a tuple is an array
    assert check([1, 2], {"items": False}) == ("/payload/0", "is not allowed")


def test_enum_and_const() -> None:
    assert check("b", {"enum": ["a", "b"]}) is None
    assert check("c", {"enum": ["a", "b", 1, {"x": [1]}]}) == ("/payload", 'must be one of "a", "b", 1, {"x":[1]}')
    assert check(1.0, {"enum": [1]}) is None  # 1 and 1.0 are the same number
    assert check(True, {"enum": [1]}) is not None  # true is not 1
    assert check(1, {"const": True}) == ("/payload", "must be true")
    assert check({"a": [1, {"b": None}]}, {"const": {"a": [1, {"b": None}]}}) is None
    assert check({"a": [1, {"b": 0}]}, {"const": {"a": [1, {"b": None}]}}) is not None
    assert check(None, {"const": None}) is None and check(0, {"const": None}) is not None


def test_json_equal() -> None:
    assert json_equal([1, 2.0], (1.0, 2)) and json_equal({"a": 1}, {"a": 1.0})
    assert not json_equal(True, 1) and not json_equal(0, False) and not json_equal("1", 1)
    assert not json_equal({"a": 1}, {"a": 1, "b": 2}) and not json_equal([1], [1, 1])


def test_string_lengths_count_code_points() -> None:
    schema = {"type": "string", "minLength": 2, "maxLength": 3}
    assert check("ab", schema) is None and check("abc", schema) is None
    assert check("a", schema) == ("/payload", "must be at least 2 characters long")
    assert check("abcd", schema) == ("/payload", "must be at most 3 characters long")
    assert check("😀é", schema) is None  # two code points, six bytes in UTF-8
    assert check("😀", {"maxLength": 1}) is None
    assert check("", {"minLength": 1}) == ("/payload", "must be at least 1 character long")
    assert check(12345, {"maxLength": 1}) is None  # lengths bind strings only


def test_minimum_and_maximum() -> None:
    schema = {"type": "number", "minimum": 0, "maximum": 10}
    assert check(0, schema) is None and check(10, schema) is None and check(2.5, schema) is None
    assert check(-0.5, schema) == ("/payload", "must be at least 0")
    assert check(11, schema) == ("/payload", "must be at most 10")
    assert check("11", {"maximum": 10}) is None  # bounds bind numbers only
    assert check(True, {"maximum": 0}) is None  # a boolean is no number


def test_any_of_and_one_of() -> None:
    either = [{"type": "string"}, {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}]
    for keyword in ("anyOf", "oneOf"):
        schema = {keyword: either}
        assert check("x", schema) is None and check({"id": 1}, schema) is None
        # Only one alternative is of the value's type: its complaint is the one given.
        assert check({"id": "1"}, schema) == ("/payload/id", "must be a whole number, not a string")
        assert check(3, schema) == ("/payload", "must be string or {id: integer}")
    # Overlapping alternatives: a value matching both is taken, as the runtime takes it.
    assert check(3, {"oneOf": [{"type": "number"}, {"type": "integer"}]}) is None


def test_refs_resolve_in_the_root() -> None:
    root = {
        "$defs": {
            "title": {"type": "string", "minLength": 1},
            "note": {"type": "object", "properties": {"title": {"$ref": "#/$defs/title"}, "next": {"$ref": "#/$defs/note"}}},
            "a/b": {"type": "integer"},
            "loop": {"$ref": "#/$defs/loop"},
        }
    }
    validator = Validator(root)
    note = {"$ref": "#/$defs/note"}
    assert validator.check({"title": "x", "next": {"title": "y"}}, note) is None
    assert validator.check({"title": "x", "next": {"title": ""}}, note, "/payload") == (
        "/payload/next/title",
        "must be at least 1 character long",
    )
    assert validator.check("x", {"$ref": "#/$defs/a~1b"}) == ("", "must be a whole number, not a string")
    assert validator.check("x", {"$ref": "#/$defs/nothing"}) is None  # nothing to check against
    assert validator.check("x", {"$ref": "#/$defs/loop"}) is None  # ends, and accepts
    assert validator.resolve("#/$defs/title") == {"type": "string", "minLength": 1}


def test_other_keywords_are_ignored() -> None:
    schema = {"type": "string", "description": "a title", "default": "", "title": "Title", "format": "email", "pattern": "^x"}
    assert check("not an email", schema) is None
    assert check("x", True) is None and check("x", {}) is None


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


def test_scene_schema_refuses_as_the_runtime() -> None:
    schema = SceneSchema(LOGIN)
    assert schema.declared and schema.scene == "example/login"
    assert schema.check({"type": "emailChanged", "payload": "a@b.c"}) is None
    assert schema.check({"type": "submit"}) is None and schema.check({"type": "submit", "payload": [1]}) is None
    assert schema.check({"type": "loginSucceeded", "payload": {"user": None}, "error": False, "meta": {"x": 1}}) is None

    unknown = schema.check({"type": "emailChaged", "payload": "x"})
    assert unknown is not None and (unknown.code, unknown.at) == ("unknown_action", "/action/type")
    assert unknown.message == 'unknown action type "emailChaged"; did you mean "emailChanged"?'
    assert unknown.envelope == {"ok": False, "error": {"code": "unknown_action", "message": unknown.message, "at": "/action/type"}}
    far = schema.check({"type": "dance"})
    assert far is not None and far.message == 'unknown action type "dance"'

    wrong = schema.check({"type": "emailChanged", "payload": 3})
    assert wrong is not None and (wrong.code, wrong.at) == ("bad_payload", "/action/payload")
    assert wrong.message == "emailChanged's payload must be a string, not a number"
    missing = schema.check({"type": "emailChanged"})
    assert missing is not None and (missing.code, missing.at, missing.message) == (
        "bad_payload",
        "/action/payload",
        "emailChanged's payload is missing: it must be a string",
    )
    member = schema.check({"type": "loginSucceeded", "payload": {}})
    assert member is not None and (member.code, member.at) == ("bad_payload", "/action/payload/user")
    assert member.message == "loginSucceeded's payload at /user is missing"

    # Not an action: the runtime says what is wrong with it.
    assert schema.check({"payload": 1}) is None and schema.check({"type": 3}) is None


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


def test_a_generic_schema_checks_nothing() -> None:
    schema = SceneSchema(GENERIC)
    assert not schema.declared and schema.actions is None and schema.payloads() == {}
    assert schema.check({"type": "anything", "payload": object()}) is None
    # Declared, but not one constant type per alternative: unknown types are left to the runtime.
    odd = copy.deepcopy(LOGIN)
    odd["schema"]["$defs"]["action"] = {"anyOf": [{"type": "object", "properties": {"type": {"enum": ["a", "b"]}}}]}
    assert SceneSchema(odd).check({"type": "c"}) is None


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
    lib = CountingLib(runtime._lib)
    runtime._lib = lib  # type: ignore[assignment]
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


def test_refused_before_sending(canned: yaia.Runtime) -> None:
    login = canned.open("example/login")
    lib = counted(canned)
    with pytest.raises(yaia.YaiaError) as refused:
        login.send("emailChanged", 3, tag="t1")
    assert (refused.value.code, refused.value.at) == ("bad_payload", "/action/payload")
    assert refused.value.envelope["tag"] == "t1"
    with pytest.raises(yaia.YaiaError) as unknown:
        login.send("emailChaged", "a@b.c")
    assert unknown.value.code == "unknown_action" and 'did you mean "emailChanged"' in unknown.value.message
    assert lib.sends == 0 and login.seq == 0
    login.send("emailChanged", "a@b.c")
    assert lib.sends == 1 and login.state["email"] == "a@b.c"


def test_validation_can_be_skipped(canned: yaia.Runtime, examples_pack: str) -> None:
    login = canned.open("example/login")
    lib = counted(canned)
    with pytest.raises(yaia.YaiaError) as refused:
        login.send("emailChanged", 3, validate=False)
    assert lib.sends == 1 and refused.value.message == "emailChanged takes a string payload, not a number"  # the scene's own words
    with yaia.Runtime(scenes=[examples_pack], validate=False) as quiet:
        quiet._schemas["example/login"] = SceneSchema(LOGIN)
        scene = quiet.open("example/login")
        assert not quiet.validate
        quiet_lib = counted(quiet)
        with pytest.raises(yaia.YaiaError):
            scene.send("emailChanged", 3)
        assert quiet_lib.sends == 1
        with pytest.raises(yaia.YaiaError) as forced:
            scene.send("emailChanged", 3, validate=True)
        assert quiet_lib.sends == 1 and forced.value.message == "emailChanged's payload must be a string, not a number"


def test_what_cannot_be_json_fails_as_before(canned: yaia.Runtime) -> None:
    login = canned.open("example/login")
    with pytest.raises(ValueError):
        login.send("emailChanged", float("nan"))
    with pytest.raises(TypeError):
        login.send("emailChanged", object())
    with pytest.raises(TypeError):
        login.send({"type": "emailChanged"}, "x")


def test_the_check_agrees_with_the_scene(canned: yaia.Runtime) -> None:
    """Actions LOGIN declares as example/login takes them: the binding's
    check and the scene's own refuse the same ones, with the same codes and
    pointers, and accept the rest."""
    actions = [
        {"type": "emailChanged", "payload": "a@b.c"},
        {"type": "emailChanged", "payload": 3},
        {"type": "emailChanged", "payload": None},
        {"type": "emailChanged"},
        {"type": "passwordChanged", "payload": ["x"]},
        {"type": "nope"},
        {"type": "emailChaged", "payload": "x"},
        {"type": "loginSucceeded", "payload": {}},
        {"type": "loginSucceeded", "payload": "user"},
        {"type": "loginSucceeded", "payload": {"user": {"id": 1}}},
        {"type": "loginFailed", "payload": {"message": "no"}, "error": True},
        {"type": "submit"},
    ]
    checked, unchecked = canned.open("example/login"), canned.open("example/login")
    for action in actions:
        assert outcome(checked, action, True) == outcome(unchecked, action, False), action
    assert checked.state == unchecked.state


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


def test_flow_checks_the_scene_on_top(canned: yaia.Runtime) -> None:
    canned._schemas["example/home"] = SceneSchema(GENERIC)
    with canned.start("example/login") as flow:
        lib = counted(canned)
        with pytest.raises(yaia.YaiaError) as refused:
            flow.send("emailChanged", 3)
        assert (refused.value.code, refused.value.at, lib.sends) == ("bad_payload", "/action/payload", 0)
        pushed = flow.send("loginSucceeded", {"user": 1})  # pushes example/home, which declares nothing
        assert pushed.stack is not None and pushed.stack[-1].scene == "example/home"
        with pytest.raises(yaia.YaiaError) as unknown:
            flow.send("emailChanged", "a@b.c")  # no longer login's action: home refuses it
        assert unknown.value.code == "unknown_action" and lib.sends == 2


def test_flow_asks_again_when_its_top_changed_unseen(canned: yaia.Runtime) -> None:
    canned._schemas["example/home"] = SceneSchema(GENERIC)
    with canned.start("example/login") as flow:
        canned.flow(flow.id).send("loginSucceeded", {"user": 1})  # another handle moves the flow on
        lib = counted(canned)
        update = flow.send("showAbout")  # not an action of login, as last seen: the top is asked for
        assert lib.sends == 1 and update.scene != flow.started.scene  # type: ignore[union-attr]
        assert flow.top.scene != "example/login"


def test_a_restored_id_is_checked_by_its_new_type(canned: yaia.Runtime, examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack], **HOST) as other:
        other.open("example/home", {"user": 1})
        snapshot = other.snapshot()
    login = canned.open("example/login")
    assert login.id == 1
    canned.restore(snapshot)  # scene 1 is example/home now
    canned._schemas.update({"example/login": SceneSchema(LOGIN), "example/home": SceneSchema(GENERIC)})
    lib = counted(canned)
    login.send("showAbout")
    assert lib.sends == 1


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
        assert Validator(answer["schema"]).check({"type": "anything", "payload": [1]}, action) is None
        assert type(runtime.open("example/login")) is yaia.Scene
        with pytest.raises(yaia.YaiaError) as unknown:
            runtime.schema("example/logon")
        assert unknown.value.code == "unknown_scene"


def test_the_check_agrees_with_the_runtime(documents: yaia.Runtime) -> None:
    """Every action of ACTIONS, through the binding's check and through the
    runtime alone: the same refusals (code, pointer and message), the same
    states."""
    checked, unchecked = documents.open("test/editor"), documents.open("test/editor")
    lib = counted(documents)
    for action in ACTIONS:
        sends = lib.sends
        expected = outcome(unchecked, action, False, message=True)
        assert outcome(checked, action, True, message=True) == expected, action
        # The checked refusals are the binding's: they never reached the runtime.
        assert lib.sends - sends == (2 if expected[0] == "accepted" else 1), action
    assert checked.state == unchecked.state


def test_document_refusals_before_sending(documents: yaia.Runtime) -> None:
    editor = documents.open("test/editor")
    lib = counted(documents)
    with pytest.raises(yaia.YaiaError) as unknown:
        editor.send("renmae", {"title": "x"})
    assert (unknown.value.code, unknown.value.at) == ("unknown_action", "/action/type")
    assert 'did you mean "rename"' in unknown.value.message
    with pytest.raises(yaia.YaiaError) as wrong:
        editor.send("rename", {"title": "abcdef"})
    assert (wrong.value.code, wrong.value.at) == ("bad_payload", "/action/payload/title")
    assert lib.sends == 0 and editor.seq == 0
    with pytest.raises(yaia.YaiaError) as runtime_says:
        editor.send("rename", {"title": "abcdef"}, validate=False)
    assert (runtime_says.value.code, runtime_says.value.at, lib.sends) == ("bad_payload", "/action/payload/title", 1)


def test_flows_of_documents(documents: yaia.Runtime) -> None:
    with documents.start("test/editor") as flow:
        lib = counted(documents)
        with pytest.raises(yaia.YaiaError) as refused:
            flow.send("bump", "3")
        assert (refused.value.code, refused.value.at, lib.sends) == ("bad_payload", "/action/payload", 0)
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
