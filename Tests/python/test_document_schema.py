"""docs/scene-document.schema.json: a valid JSON Schema (draft 2020-12) that
accepts the documents of docs/scene-documents.md and refuses malformed ones.

Independent of the library: it reads the two files only.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any, Callable, Dict, List

import jsonschema
import pytest

REPO = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / "docs" / "scene-document.schema.json").read_text())
PAGE = (REPO / "docs" / "scene-documents.md").read_text()
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def page_documents() -> List[Dict[str, Any]]:
    """The json blocks of the page that are whole documents (they have "yaia")."""
    found = []
    for block in re.findall(r"```json\n(.*?)```", PAGE, re.S):
        try:
            value = json.loads(block)
        except json.JSONDecodeError:
            continue  # a fragment, such as one member of a document
        if isinstance(value, dict) and "yaia" in value:
            found.append(value)
    return found


DOCUMENTS = page_documents()
LOGIN = DOCUMENTS[0]


def errors(document: Any) -> List[str]:
    return [e.message for e in VALIDATOR.iter_errors(document)]


def test_the_schema_is_a_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_the_page_has_documents() -> None:
    assert LOGIN["scene"] == "notes/login"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda d: d["scene"])
def test_the_page_documents_are_valid(document: Dict[str, Any]) -> None:
    assert errors(document) == []


def with_change(change: Callable[[Dict[str, Any]], None]) -> Dict[str, Any]:
    document = copy.deepcopy(LOGIN)
    change(document)
    return document


def every_form() -> Dict[str, Any]:
    """A document that uses every member the format has."""
    return {
        "yaia": 1,
        "scene": "t/all",
        "description": "every member",
        "args": {
            "user": {"type": {"email": "string", "tags": ["string"], "age": "integer?"}, "description": "who"},
            "limit": {"default": 10},
            "filter": {"type": {"schema": {"type": ["string", "null"], "enum": ["a", "b", None], "maxLength": 3}}},
        },
        "state": {"items": [], "count": {"var": "args.limit"}, "note": {"literal": {"if": 1}}},
        "actions": {
            "load": {
                "cancel": "load",
                "effects": [{
                    "service": "store", "op": "list", "args": {"prefix": "note/"}, "then": "loaded",
                    "catch": "failed", "id": "load", "policy": "latest", "timeout": 2.5, "restore": "reissue",
                    "description": "all notes",
                }],
            },
            "loaded": {
                "payload": {"schema": {"type": "object", "required": ["items"], "additionalProperties": False,
                                       "properties": {"items": {"type": "array", "items": {"type": "object"}},
                                                      "n": {"type": "integer", "minimum": 0, "maximum": 9,
                                                            "minLength": 0, "description": "x"}}}},
                "branches": [
                    {"when": {"var": "payload.items"}, "set": {"items": {"var": "payload.items"}, "items.0.done": True}},
                    {"set": {"items": []}},
                ],
                "description": "the store answered",
            },
            "failed": [{"route": {"pop": True, "result": {"error": {"var": "payload"}}}}],
            "open": {"payload": "integer", "route": {"push": "t/editor", "args": {"id": {"var": "payload"}}, "onResult": "loaded"}},
            "about": {"route": {"present": "t/about", "onResult": "loaded"}},
            "swap": {"route": {"replace": "t/other", "args": {}}},
            "close": {"route": {"dismiss": True}},
            "home": {"route": {"popToRoot": True}},
            "back": {"route": {"popTo": "t/home"}},
        },
        "view": {"count": {"var": "state.count"}},
    }


def test_every_member_of_the_format_is_accepted() -> None:
    assert errors(every_form()) == []


BAD: Dict[str, Callable[[Dict[str, Any]], None]] = {
    "another version": lambda d: d.update(yaia=2),
    "no scene": lambda d: d.pop("scene"),
    "an empty scene name": lambda d: d.update(scene=""),
    "no state": lambda d: d.pop("state"),
    "no actions": lambda d: d.pop("actions"),
    "an unknown top member": lambda d: d.update(actoins={}),
    "state not an object": lambda d: d.update(state=[]),
    "an argument not an object": lambda d: d["args"].update(email=""),
    "an unknown argument member": lambda d: d["args"]["email"].update(defualt=""),
    "an unknown type name": lambda d: d["actions"]["emailChanged"].update(payload="text"),
    "two declarations in an array": lambda d: d["actions"]["emailChanged"].update(payload=["string", "number"]),
    "an unknown schema keyword": lambda d: d["actions"]["emailChanged"].update(payload={"schema": {"pattern": "@"}}),
    "a negative minLength": lambda d: d["actions"]["emailChanged"].update(payload={"schema": {"minLength": -1}}),
    "an unknown branch member": lambda d: d["actions"]["emailChanged"].update(sett={}),
    "an empty list of branches": lambda d: d["actions"].update(submit=[]),
    "payload on a branch in a list": lambda d: d["actions"]["submit"][1].update(payload="string"),
    "branches and branch members together": lambda d: d["actions"].update(x={"branches": [{}], "set": {}}),
    "an action that is a string": lambda d: d["actions"].update(x="submit"),
    "a set path with an empty step": lambda d: d["actions"]["emailChanged"].update(set={"a..b": 1}),
    "effects not a list": lambda d: d["actions"]["submit"][0].update(effects={}),
    "an effect without op": lambda d: d["actions"]["submit"][0]["effects"][0].pop("op"),
    "an unknown effect member": lambda d: d["actions"]["submit"][0]["effects"][0].update(thne="x"),
    "an unknown policy": lambda d: d["actions"]["submit"][0]["effects"][0].update(policy="lates"),
    "a timeout of zero": lambda d: d["actions"]["submit"][0]["effects"][0].update(timeout=0),
    "a route with two kinds": lambda d: d["actions"]["loginSucceeded"]["route"].update(pop=True),
    "a route with no kind": lambda d: d["actions"]["loginSucceeded"].update(route={"args": {}}),
    "pop that is not true": lambda d: d["actions"]["loginSucceeded"].update(route={"pop": 1}),
    "a pop with args": lambda d: d["actions"]["loginSucceeded"].update(route={"pop": True, "args": {}}),
    "view not an object": lambda d: d.update(view=[]),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_malformed_documents_are_refused(name: str) -> None:
    assert errors(with_change(BAD[name])) != [], name

