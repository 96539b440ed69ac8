"""yaia.patch: RFC 6902 JSON Patch applied to JSON values, checked against the
json-patch-tests suite and against the jsonpatch package (PyPI) on random
values and patches; patch_held, which changes in place what nothing else
references, against apply_patch."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from yaia import YaiaError
from yaia import patch as patching
from yaia.patch import apply_patch, patch_held, pointer_tokens

SUITE = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "json-patch"


def _cases() -> List[Any]:
    out: List[Any] = []
    for name in ("tests.json", "spec_tests.json"):
        path = SUITE / name
        if not path.exists():
            continue
        for i, record in enumerate(json.loads(path.read_text())):
            if record.get("disabled") or "patch" not in record or not ("expected" in record or "error" in record):
                continue
            comment = record.get("comment") or record.get("error") or ""
            out.append(pytest.param(record, id=f"{name}[{i}] {comment}"[:80]))
    return out


CASES = _cases()


def test_the_suite_is_read_whole() -> None:
    if not CASES:
        pytest.skip(f"{SUITE} is absent: the JSON Patch conformance suite is not beside the repository")
    assert len(CASES) == 92 + 16


@pytest.mark.parametrize("record", CASES or [pytest.param(None, id="absent")])
def test_conformance(record: Optional[Dict[str, Any]]) -> None:
    if record is None:
        pytest.skip(f"{SUITE} is absent: the JSON Patch conformance suite is not beside the repository")
    before = json.dumps(record["doc"], sort_keys=True)
    holder = [copy.deepcopy(record["doc"])]
    if "expected" in record:
        assert apply_patch(record["doc"], record["patch"]) == record["expected"]
        patch_held(holder, record["patch"])
        assert holder == [record["expected"]]
    else:
        with pytest.raises(YaiaError) as e:
            apply_patch(record["doc"], record["patch"])
        assert e.value.code in ("bad_patch", "patch_test_failed")
        assert e.value.at is not None and e.value.at.startswith("/")
        with pytest.raises(YaiaError) as held:
            patch_held(holder, record["patch"])
        assert (held.value.code, held.value.at) == (e.value.code, e.value.at) and holder == []
    assert json.dumps(record["doc"], sort_keys=True) == before, "the document given is left as it was"


def test_pointer_escaping() -> None:
    assert pointer_tokens("") == []
    assert pointer_tokens("/") == [""]
    assert pointer_tokens("/a~1b/m~0n/~01") == ["a/b", "m~n", "~1"]
    assert pointer_tokens("a") is None
    assert pointer_tokens("/~2") is None
    assert pointer_tokens("/x~") is None
    doc = {"a/b": 1, "m~n": {"~1": 2}}
    assert apply_patch(doc, [{"op": "replace", "path": "/m~0n/~01", "value": 3}]) == {"a/b": 1, "m~n": {"~1": 3}}


@pytest.mark.parametrize(
    "patch, code, at",
    [
        ({}, "bad_patch", ""),
        ([1], "bad_patch", "/0"),
        ([{"path": "/a"}], "bad_patch", "/0/op"),
        ([{"op": "nope", "path": "/a"}], "bad_patch", "/0/op"),
        ([{"op": "add", "path": "a", "value": 1}], "bad_patch", "/0/path"),
        ([{"op": "add", "path": "/a/0"}], "bad_patch", "/0/value"),
        ([{"op": "copy", "path": "/x"}], "bad_patch", "/0/from"),
        ([{"op": "test", "path": "/a/0", "value": 1}, {"op": "add", "path": "/a/2", "value": 1}], "bad_patch", "/1/path"),
        ([{"op": "add", "path": "/a/01", "value": 1}], "bad_patch", "/0/path"),
        ([{"op": "remove", "path": "/b/x"}], "bad_patch", "/0/path"),
        ([{"op": "remove", "path": ""}], "bad_patch", "/0/path"),
        ([{"op": "move", "from": "/b", "path": "/b/c/d"}], "bad_patch", "/0/path"),
        ([{"op": "move", "from": "/z", "path": "/y"}], "bad_patch", "/0/from"),
        ([{"op": "add", "path": "/x", "value": {1, 2}}], "bad_patch", "/0/value"),
        ([{"op": "add", "path": "/x", "value": float("nan")}], "bad_patch", "/0/value"),
        ([{"op": "test", "path": "/a", "value": [2]}], "patch_test_failed", "/0/value"),
        ([{"op": "test", "path": "/a/0", "value": True}], "patch_test_failed", "/0/value"),
    ],
)
def test_refusals_carry_a_code_and_point_into_the_patch(patch: Any, code: str, at: str) -> None:
    doc = {"a": [1], "b": {"c": 1}}
    with pytest.raises(YaiaError) as e:
        apply_patch(doc, patch)
    assert (e.value.code, e.value.at) == (code, at)
    assert doc == {"a": [1], "b": {"c": 1}}


def test_all_or_nothing() -> None:
    doc = {"a": 1, "l": [1, 2]}
    with pytest.raises(YaiaError):
        apply_patch(doc, [{"op": "add", "path": "/l/-", "value": 3}, {"op": "test", "path": "/a", "value": 2}])
    assert doc == {"a": 1, "l": [1, 2]}


def test_only_the_path_is_copied() -> None:
    items = [{"id": i, "done": False} for i in range(1000)]
    doc = {"title": "todo", "items": items, "other": {"x": [1]}}
    out = apply_patch(doc, [{"op": "replace", "path": "/items/7/done", "value": True}])
    assert out["items"][7] == {"id": 7, "done": True} and items[7] == {"id": 7, "done": False}
    assert out["other"] is doc["other"], "an untouched part is shared, not copied"
    assert out["items"][8] is items[8]
    # Containers a patch made are its own: the second change does not copy the list again.
    twice = apply_patch(doc, [{"op": "replace", "path": f"/items/{i}/done", "value": True} for i in (1, 2)])
    assert twice["items"][1]["done"] and twice["items"][2]["done"] and not items[1]["done"]


class Items(list):  # type: ignore[type-arg]
    """A list whose copy is a plain list: its type tells whether it was copied."""


def test_patch_held_changes_in_place_only_what_nothing_else_references() -> None:
    assert patching._ALONE > 0, "CPython counts references: patch_held can tell what is unshared"
    holder: List[Any] = [{"title": "todo", "items": Items({"id": i, "done": False} for i in range(1000))}]
    root = id(holder[0])
    patch_held(holder, [{"op": "replace", "path": "/items/7/done", "value": True}])
    assert id(holder[0]) == root and type(holder[0]["items"]) is Items, "nothing else held them: not copied"
    assert holder[0]["items"][7] == {"id": 7, "done": True}
    kept, item = holder[0]["items"], holder[0]["items"][8]
    patch_held(holder, [{"op": "replace", "path": "/items/8/done", "value": True}])
    assert type(holder[0]["items"]) is list and holder[0]["items"][8]["done"], "a caller held them: copied"
    assert kept[8] is item and item == {"id": 8, "done": False}, "what the caller holds is as it was"
    assert holder[0]["items"][9] is kept[9], "off the path, shared"
    whole = holder[0]
    patch_held(holder, [{"op": "add", "path": "/items/-", "value": {"id": 1000, "done": False}}])
    assert holder[0] is not whole and len(whole["items"]) == 1000 and len(holder[0]["items"]) == 1001


def test_a_copy_is_not_aliased() -> None:
    out = apply_patch({"a": {"b": 1}}, [{"op": "copy", "from": "/a", "path": "/c"}, {"op": "replace", "path": "/c/b", "value": 2}])
    assert out == {"a": {"b": 1}, "c": {"b": 2}}


def test_limits() -> None:
    # Copying the root into one member then the other makes it grow as
    # Fibonacci's numbers: forty copies would make some 10^8 nodes.
    doubling = [{"op": "copy", "from": "", "path": "/x" if i % 2 else "/y"} for i in range(40)]
    with pytest.raises(YaiaError) as e:
        apply_patch({"x": list(range(10))}, doubling, max_nodes=100_000)
    assert e.value.code == "limit_exceeded" and e.value.envelope["error"]["limit"] == "patch_nodes"
    deep: Any = []
    for _ in range(19):
        deep = [deep]
    with pytest.raises(YaiaError) as e:
        apply_patch({"a": [1]}, [{"op": "add", "path": "/a/0", "value": deep}], max_depth=20)
    assert e.value.envelope["error"]["limit"] == "depth" and e.value.at == "/0/value"
    assert apply_patch({"a": [1]}, [{"op": "add", "path": "/a/0", "value": deep}], max_depth=22)["a"][0] == deep
    with pytest.raises(YaiaError) as e:
        apply_patch(1, [{"op": "test", "path": "", "value": 1}] * 11, max_operations=10)
    assert e.value.envelope["error"]["limit"] == "patch_operations"


def test_test_compares_json_values() -> None:
    assert apply_patch({"n": 1}, [{"op": "test", "path": "/n", "value": 1.0}]) == {"n": 1}
    assert apply_patch({"o": {"a": 2, "b": 1}}, [{"op": "test", "path": "/o", "value": {"b": 1, "a": 2}}])
    with pytest.raises(YaiaError):
        apply_patch({"n": 1}, [{"op": "test", "path": "/n", "value": True}])
    with pytest.raises(YaiaError):
        apply_patch({"n": [0]}, [{"op": "test", "path": "/n", "value": [False]}])


# -- against jsonpatch (PyPI), an independent implementation

# No "-": jsonpatch takes it for the end of a list even in an object.
KEYS = ["a", "b", "c", "a/b", "m~n", "", "0"]


def _value(rng: random.Random, depth: int) -> Any:
    # No 0 or 1 and no integral floats: jsonpatch compares with Python's ==,
    # for which True == 1 and 2 == 2.0.
    kind = rng.randrange(9 if depth > 0 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.randrange(2, 9)
    if kind == 3:
        return rng.choice([0.5, 2.25, -3.5])
    if kind in (4, 5):
        return rng.choice(["", "x", "y", "é"])
    if kind == 6:
        return [_value(rng, depth - 1) for _ in range(rng.randrange(5))]
    return {rng.choice(KEYS): _value(rng, depth - 1) for _ in range(rng.randrange(5))}


def _pointers(doc: Any, prefix: str = "") -> List[str]:
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _pointers(v, prefix + "/" + k.replace("~", "~0").replace("/", "~1"))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _pointers(v, f"{prefix}/{i}")
    return out


def _op(rng: random.Random, doc: Any) -> Dict[str, Any]:
    # Not the root: jsonpatch mishandles whole-document operations on values
    # other than objects (the conformance suite covers them).
    places = _pointers(doc)[1:] + ["/" + rng.choice(KEYS)]
    where = rng.choice(places)
    # Sometimes a place that is not there, or an index past the end.
    if rng.random() < 0.15:
        where += "/" + rng.choice(KEYS + ["-", "7", "01"])
    name = rng.choice(["add", "add", "remove", "replace", "move", "copy", "test"])
    op: Dict[str, Any] = {"op": name, "path": where}
    if name in ("add", "replace", "test"):
        op["value"] = _value(rng, 2) if name != "test" or rng.random() < 0.5 else _at(doc, where)
    if name in ("move", "copy"):
        op["from"] = rng.choice(places)
    return op


def _at(doc: Any, pointer: str) -> Any:
    try:
        return apply_patch(doc, [{"op": "copy", "from": pointer, "path": ""}])
    except YaiaError:
        return None


def _outcome(fn: Any) -> Any:
    try:
        return ("ok", fn())
    except YaiaError:
        return ("refused", None)


@pytest.mark.parametrize("seed", range(4))
def test_random_patches_agree_with_jsonpatch(seed: int) -> None:
    jsonpatch = pytest.importorskip("jsonpatch", reason="the jsonpatch package is not installed (make deps installs it)")
    rng = random.Random(seed)
    applied = 0
    for _ in range(300):
        # An object, as a view model is (jsonpatch refuses an add at the root of null).
        doc = {rng.choice(KEYS): _value(rng, 3) for _ in range(rng.randrange(5))}
        patch = [_op(rng, doc) for _ in range(rng.randrange(1, 4))]
        before = json.dumps(doc, sort_keys=True)
        mine = _outcome(lambda: apply_patch(doc, patch))
        try:
            theirs = ("ok", jsonpatch.apply_patch(copy.deepcopy(doc), patch))
        except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException, TypeError):
            # (jsonpatch raises TypeError for an add into a string or a number)
            theirs = ("refused", None)
        assert mine[0] == theirs[0], f"{doc} {patch}: {mine} vs {theirs}"
        assert json.dumps(mine[1], sort_keys=True) == json.dumps(theirs[1], sort_keys=True), f"{doc} {patch}"
        assert json.dumps(doc, sort_keys=True) == before
        applied += mine[0] == "ok"
    assert applied > 90, "many random patches apply: the check is not all refusals"


def _containers(doc: Any) -> List[Any]:
    out = [doc] if isinstance(doc, (dict, list)) else []
    for v in doc.values() if isinstance(doc, dict) else doc if isinstance(doc, list) else ():
        out += _containers(v)
    return out


@pytest.mark.parametrize("seed", range(4))
def test_patch_held_gives_what_apply_patch_gives_and_changes_nothing_a_caller_holds(seed: int) -> None:
    rng = random.Random(200 + seed)
    in_place = unkept = 0
    for _ in range(300):
        doc = {rng.choice(KEYS): _value(rng, 3) for _ in range(rng.randrange(5))}
        patch = [_op(rng, doc) for _ in range(rng.randrange(1, 4))]
        patch_text = json.dumps(patch, sort_keys=True)
        expected = _outcome(lambda: apply_patch(doc, patch))
        mine = copy.deepcopy(doc)
        # Sometimes a caller keeps one of its containers (an earlier view model, a part of it).
        kept = rng.choice(_containers(mine)) if rng.random() < 0.5 else None
        kept_text = json.dumps(kept, sort_keys=True)
        holder = [mine]
        before = id(mine)
        del mine
        outcome = _outcome(lambda: patch_held(holder, patch))
        assert outcome[0] == expected[0], f"{doc} {patch}"
        if expected[0] == "ok":
            assert json.dumps(holder[0], sort_keys=True) == json.dumps(expected[1], sort_keys=True), f"{doc} {patch}"
            unkept += kept is None
            in_place += kept is None and id(holder[0]) == before
        else:
            assert holder == []
        assert json.dumps(kept, sort_keys=True) == kept_text, f"{doc} {patch}: what a caller holds changed"
        assert json.dumps(patch, sort_keys=True) == patch_text, "the patch's values are not changed"
    assert in_place == unkept > 20, "a document nothing else references is patched in place"


@pytest.mark.parametrize("seed", range(4))
def test_jsonpatch_diffs_apply(seed: int) -> None:
    jsonpatch = pytest.importorskip("jsonpatch", reason="the jsonpatch package is not installed (make deps installs it)")
    rng = random.Random(100 + seed)
    for _ in range(300):
        a, b = _value(rng, 4), _value(rng, 4)
        patch = jsonpatch.make_patch(a, b).patch
        assert json.dumps(apply_patch(a, patch), sort_keys=True) == json.dumps(b, sort_keys=True), f"{a} -> {b}: {patch}"
