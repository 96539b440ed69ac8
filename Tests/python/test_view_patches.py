"""Patch mode as a property (docs/abi.md, "Patch mode"): for every example
scene, Swift (the examples pack) and document, over seeded random sequences
of actions, effect outcomes and time-outs, each update's viewPatch applied
by an independent implementation (the jsonpatch package) to the view model
before it gives exactly the view model a whole-mode runtime reports for the
same inputs; and a change to one list element gives operations under that
element's path only.

The steps are drawn as the simulator draws them (docs/simulation.md): an
action the scene declares with its payload drawn from its schema, a pending
effect resolved (one time in four with an error), or the manual clock moved
past the time-outs. A Swift scene declares no payloads: ACTIONS does.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import jsonpatch  # type: ignore[import-untyped]
import pytest

import yaia

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = [REPO / "Examples" / "notes-documents", REPO / "Tests" / "documents" / "simulate"]

STRING = {"type": "string"}
ITEM = {"type": "object", "required": ["key", "title"], "properties": {"key": STRING, "title": STRING}}
ENTRY = {"type": "object", "required": ["key", "value"],
         "properties": {"key": STRING, "value": {"type": "object", "required": ["title"], "properties": {"title": STRING}}}}
FAILURE = {"type": "object", "required": ["message"], "properties": {"message": STRING}}

#: The actions of the examples pack's scenes and their payload schemas (None: no payload).
ACTIONS: Dict[str, Dict[str, Any]] = {
    "example/login": {"emailChanged": STRING, "passwordChanged": STRING, "submit": None,
                      "loginSucceeded": {"type": "object", "required": ["user"], "properties": {"user": {"type": "object"}}},
                      "loginFailed": FAILURE},
    "example/feed": {"load": None, "loaded": {"type": "object", "required": ["items"],
                                               "properties": {"items": {"type": "array", "items": STRING}}},
                     "failed": FAILURE},
    "example/search": {"queryChanged": STRING, "searchFailed": FAILURE,
                       "results": {"type": "object", "required": ["items"], "properties": {"items": {"type": "array", "items": STRING}}}},
    "example/home": {"load": None, "loaded": {"type": "object", "required": ["items"],
                                               "properties": {"items": {"type": "array", "items": ENTRY}}},
                     "loadFailed": FAILURE, "select": STRING, "itemSaved": ITEM, "showAbout": None, "logout": None},
    "example/detail": {"titleChanged": STRING, "save": None, "saved": None, "saveFailed": FAILURE, "cancel": None},
    "example/about": {},
    "example/jobs": {"run": {"type": "object", "required": ["service", "op"],
                             "properties": {"service": {"enum": ["jobs", "store"]}, "op": {"enum": ["a", "b"]},
                                            "timeout": {"type": "integer", "minimum": 1, "maximum": 5}}},
                     "cancel": STRING, "done": {"type": "integer"}, "failed": FAILURE},
    "example/rows": {"add": {"type": "object", "required": ["id", "title"],
                             "properties": {"id": {"type": "integer", "minimum": 1, "maximum": 6}, "title": STRING}},
                     "remove": {"type": "integer", "minimum": 1, "maximum": 6},
                     "retitle": {"type": "object", "required": ["id", "title"],
                                 "properties": {"id": {"type": "integer", "minimum": 1, "maximum": 6}, "title": STRING}}},
    "example/row": {"rename": STRING, "save": None, "saved": None, "saveFailed": STRING, "togglePin": None, "open": None},
    "example/todo": {"add": STRING, "toggle": {"type": "integer", "minimum": 1, "maximum": 6},
                     "remove": {"type": "integer", "minimum": 1, "maximum": 6}, "clearDone": None,
                     "show": {"enum": ["all", "active", "done"]}, "draft": STRING},
}

#: Open arguments of the scenes that need some.
ARGS: Dict[str, Dict[str, Any]] = {
    "example/home": {"user": {"email": "a@b.c"}},
    "example/detail": {"key": "note/1", "title": "first"},
    "example/todo": {"todos": [{"id": 1, "title": "one", "done": False}, {"id": 2, "title": "two", "done": True},
                               {"id": 3, "title": "three", "done": False}]},
    "notes/list": {"user": {"email": "a@b.c"}},
    "notes/editor": {"note": {"id": 1, "title": "t", "body": "b"}},
    "notes/row": {"id": 1, "title": "t", "body": "b"},
    "example/row": {"id": 1, "title": "t"},
}

RUNS = 8
STEPS = 30


class Draw:
    """Values drawn from the JSON Schema subset documents declare, as the simulator draws them."""

    STRINGS = ["", "a", "note/1", "note/2", "Ada", "x y", "a@b.c"]

    def __init__(self, rng: random.Random, root: Any) -> None:
        self.rng = rng
        self.root = root

    def value(self, schema: Any, depth: int = 0) -> Any:
        rng = self.rng
        if not isinstance(schema, dict) or depth > 4:
            return rng.choice([None, 0, 1, "a", True, [], {}])
        if "$ref" in schema:
            node: Any = self.root
            for token in schema["$ref"].lstrip("#/").split("/"):
                node = node.get(token, {}) if isinstance(node, dict) else {}
            return self.value(node, depth + 1)
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            return rng.choice(schema["enum"])
        for key in ("oneOf", "anyOf"):
            if key in schema and schema[key]:
                return self.value(rng.choice(schema[key]), depth + 1)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = rng.choice(kind)
        if kind == "null":
            return None
        if kind == "boolean":
            return rng.random() < 0.5
        if kind in ("integer", "number"):
            lo, hi = schema.get("minimum", -3), schema.get("maximum", 12)
            n = rng.choice([lo, hi, 0, 1, rng.randint(int(lo), int(hi))])
            return n if kind == "number" or isinstance(n, int) else int(n)
        if kind == "string":
            return rng.choice(self.STRINGS)[: schema.get("maxLength", 99)]
        if kind == "array":
            return [self.value(schema.get("items", {}), depth + 1) for _ in range(rng.randint(0, 4))]
        if kind == "object" or "properties" in schema:
            props = schema.get("properties", {})
            required = set(schema.get("required", ()))
            return {k: self.value(v, depth + 1) for k, v in props.items() if k in required or rng.random() < 0.5}
        return rng.choice([None, 0, 1, "a", True, [], {"id": 1, "title": "t", "body": "b"}])


def declared_actions(rt: yaia.Runtime, scene: str) -> Tuple[Dict[str, Any], Any]:
    """A document's actions and their payload schemas, from the schema op."""
    answer = rt.execute({"op": "schema", "scene": scene})
    schema = answer["schema"]
    actions: Dict[str, Any] = {}
    for option in schema.get("$defs", {}).get("action", {}).get("oneOf", []):
        props = option.get("properties", {})
        name = props.get("type", {}).get("const")
        if isinstance(name, str):
            actions[name] = props.get("payload")
    assert actions, f"{scene} declares no actions"
    return actions, schema


class Pair:
    """Two runtimes fed the same inputs, one sending whole view models, one patches."""

    def __init__(self, scenes: List[str]) -> None:
        self.whole = yaia.Runtime(scenes=scenes, clock="manual")
        self.patch = yaia.Runtime(scenes=scenes, clock="manual", view="patch")
        # The view model a patch-mode host holds, by scene, with its seq.
        self.held: Dict[int, Tuple[Any, int]] = {}
        self.updates = 0

    def close(self) -> None:
        self.whole.close()
        self.patch.close()

    def both(self, request: Dict[str, Any]) -> Tuple[Optional[Dict[str, Any]], Optional[Dict[str, Any]]]:
        """The request's answers, or None from both when both refuse it alike."""
        answers: List[Any] = []
        for rt in (self.whole, self.patch):
            try:
                answers.append(rt.execute(request))
            except yaia.YaiaError as e:
                answers.append(e.code)
        whole, patch = answers
        if isinstance(whole, str) or isinstance(patch, str):
            assert whole == patch, f"{request}: {whole!r} against {patch!r}"
            return None, None
        return whole, patch

    def check(self, whole: Dict[str, Any], patch: Dict[str, Any]) -> None:
        """One update: the patch turns the held view model into the whole one."""
        assert "viewModel" not in patch and "viewPatch" in patch, patch
        assert {k: v for k, v in whole.items() if k != "viewModel"} == \
            {k: v for k, v in patch.items() if k not in ("viewPatch", "viewBase")}
        scene = patch["scene"]
        if "top" in patch:
            # A child scene: the host holds its view model inside the top
            # scene's, at its viewAt, and its patch applies there.
            top, top_seq = self.held[patch["top"]]
            before = jsonpatch.JsonPointer(patch["viewAt"]).resolve(top)
        else:
            before, seq = self.held[scene]
            assert patch["viewBase"] == seq
        after = jsonpatch.apply_patch(before, patch["viewPatch"])
        assert after == whole["viewModel"], f"{patch['viewPatch']} on {before}"
        one_element_changes_stay_inside(before, after, patch["viewPatch"])
        if after == before:
            assert patch["viewPatch"] == []
        if "top" in patch:
            placed = jsonpatch.apply_patch(top, [{"op": "replace", "path": patch["viewAt"], "value": after}])
            self.held[patch["top"]] = (placed, top_seq)
        else:
            self.held[scene] = (after, patch["seq"])
        self.updates += 1

    def drain(self) -> None:
        while True:
            whole, patch = self.whole.receive_event(0), self.patch.receive_event(0)
            assert (whole is None) == (patch is None)
            if whole is None or patch is None:
                return
            assert isinstance(whole, yaia.Update) and isinstance(patch, yaia.Update)
            self.check(whole.raw, patch.raw)


def one_element_changes_stay_inside(before: Any, after: Any, ops: List[Dict[str, Any]], at: str = "") -> None:
    """Where a list keeps its length and one element changed, every
    operation inside the list is under that element's path."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in before.keys() & after.keys():
            token = key.replace("~", "~0").replace("/", "~1")
            one_element_changes_stay_inside(before[key], after[key], ops, f"{at}/{token}")
    elif isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        changed = [i for i, (a, b) in enumerate(zip(before, after)) if a != b or type(a) is not type(b)]
        if len(changed) == 1:
            inside = f"{at}/{changed[0]}"
            for op in ops:
                if op["path"].startswith(at + "/"):
                    assert op["path"] == inside or op["path"].startswith(inside + "/"), f"{op} outside {inside}"
        for i, (a, b) in enumerate(zip(before, after)):
            one_element_changes_stay_inside(a, b, ops, f"{at}/{i}")


def run(pair: Pair, scene: str, actions: Dict[str, Any], schema: Any, seed: int) -> None:
    """One seeded run of STEPS steps on a new scene of each runtime."""
    rng = random.Random(seed)
    draw = Draw(rng, schema)
    opened = {"op": "open", "scene": scene, "args": ARGS.get(scene, {})}
    whole, patch = pair.both(opened)
    assert whole is not None and patch is not None, f"{scene} does not open"
    assert whole == patch, "open gives the whole view model in either mode"
    pair.held[patch["scene"]] = (patch["viewModel"], patch["seq"])
    scene_id = patch["scene"]
    pending: List[Dict[str, Any]] = []
    for _ in range(STEPS):
        roll = rng.random()
        if pending and roll < 0.3:
            effect = pending.pop(rng.randrange(len(pending)))
            if rng.random() < 0.25:
                request: Dict[str, Any] = {"op": "resolve", "effect": effect["id"], "error": draw.value(FAILURE)}
            else:
                request = {"op": "resolve", "effect": effect["id"], "result": draw.value({})}
        elif roll < 0.4:
            request = {"op": "advance", "seconds": 60}
        elif roll < 0.45:
            request = {"op": "view", "scene": scene_id}
        else:
            name = rng.choice(sorted(actions)) if actions else None
            if name is None:
                continue
            action: Dict[str, Any] = {"type": name}
            if actions[name] is not None:
                action["payload"] = draw.value(actions[name])
            request = {"op": "send", "scene": scene_id, "action": action}
        whole, patch = pair.both(request)
        if whole is not None and patch is not None:
            if request["op"] == "view":
                assert whole["viewModel"] == patch["viewModel"] and whole["seq"] == patch["seq"]
                assert patch["view"] == "patch" and whole["view"] == "whole"
                pair.held[scene_id] = (patch["viewModel"], patch["seq"])
            elif request["op"] != "advance":
                pair.check(whole, patch)
                pending += [e for e in patch.get("effects", []) if e.get("status") == "pending"]
        pair.drain()
    for rt in (pair.whole, pair.patch):
        rt.execute({"op": "close", "scene": scene_id})


def example_scenes(examples_pack: str) -> Iterator[Tuple[str, Dict[str, Any], Any]]:
    with yaia.Runtime(scenes=[examples_pack]) as rt:
        types = rt.scenes()["types"]
    missing = [t for t in types if t not in ACTIONS]
    assert not missing, f"example scenes the test does not drive: {missing}"
    for name in types:
        yield name, ACTIONS[name], {}


@pytest.mark.parametrize("seed", range(RUNS))
def test_patches_give_the_whole_view_models_of_every_example_scene(examples_pack: str, seed: int) -> None:
    pair = Pair([examples_pack])
    try:
        for name, actions, schema in example_scenes(examples_pack):
            run(pair, name, actions, schema, seed)
        assert pair.updates > 0
    finally:
        pair.close()


@pytest.mark.parametrize("seed", range(RUNS))
def test_patches_give_the_whole_view_models_of_every_example_document(seed: int) -> None:
    folders = [str(d) + "/" for d in DOCUMENTS]
    pair = Pair(folders)
    try:
        documents = [d["scene"] for d in pair.whole.scenes()["documents"]]
        assert len(documents) >= 7
        for name in documents:
            actions, schema = declared_actions(pair.whole, name)
            run(pair, name, actions, schema, seed)
        assert pair.updates > 0
    finally:
        pair.close()


def test_a_change_to_one_list_element_is_a_patch_under_its_path(examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack], view="patch") as rt:
        home = rt.open("example/home", ARGS["example/home"])
        items = [{"key": f"note/{i}", "value": {"title": f"t{i}"}} for i in range(50)]
        home.send("loaded", {"items": items})
        update = home.send("itemSaved", {"key": "note/17", "title": "changed"})
        assert update.view_patch, "the change shows"
        paths = [op["path"] for op in update.view_patch]
        listed = [k for k, v in update.view_model.items() if isinstance(v, list) and len(v) == 50]
        assert listed, update.view_model
        for path in paths:
            if any(path.startswith(f"/{k}/") for k in listed):
                assert any(path.startswith(f"/{k}/17") for k in listed), paths
