"""Child scenes from Python: sends by path, outputs, intercept (docs/composition.md)."""

from typing import Any, Dict

import yaia

from conftest import HOST

CELL: Dict[str, Any] = {
    "yaia": 1, "scene": "py/cell", "args": {"n": {"type": "integer"}}, "state": {"n": {"var": "args.n"}},
    "actions": {"bump": {"set": {"n": {"+": [{"var": "state.n"}, 1]}}, "output": {"type": "bumped", "payload": {"+": [{"var": "state.n"}, 1]}}}},
}

LIST: Dict[str, Any] = {
    "yaia": 1, "scene": "py/list", "state": {"items": [{"id": 1, "n": 0}, {"id": 2, "n": 5}], "last": None},
    "actions": {"cellBumped": {"set": {"last": {"var": "payload"}}}},
    "children": {"cells": {"scene": "py/cell", "kind": "keyed", "from": {"var": "state.items"},
                           "args": {"n": {"var": "item.n"}}, "outputs": {"bumped": "cellBumped"}}},
}


def test_a_child_is_sent_to_by_its_path_and_its_output_reaches_the_parent() -> None:
    with yaia.Runtime(**HOST) as rt:
        for document in (CELL, LIST):
            rt.execute({"op": "register", "document": document})
        scene = rt.open("py/list")
        assert [c["n"] for c in scene.view_model["cells"]] == [0, 5]
        update = scene.child("cells", 2).send("bump")
        assert update.view_model == {"n": 6}
        assert update.raw["path"] == ["cells", 2] and update.raw["top"] == scene.id
        assert scene.state["last"] == {"key": 2, "output": 6}
        assert [c["n"] for c in scene.view_model["cells"]] == [0, 6]
        try:
            scene.child("cells", 9).send("bump")
        except yaia.YaiaError as error:
            assert error.code == "no_such_child"
        else:
            raise AssertionError("a send to no child was not refused")


def test_in_patch_mode_a_childs_updates_are_placed_in_its_top_scenes_view_model() -> None:
    with yaia.Runtime(view="patch", **HOST) as rt:
        for document in (CELL, LIST):
            rt.execute({"op": "register", "document": document})
        scene = rt.open("py/list")
        update = scene.child("cells", 2).send("bump")
        assert update.raw["viewAt"] == "/cells/1"
        assert update.view_model == {"n": 6}
        # The list's held view model has the row's change, where the runtime holds it:
        # the list's next patch applies to it and gives what the runtime says whole.
        after = scene.send("cellBumped", {"key": 1, "output": 1})
        assert after.view_model == rt.view(scene.id)
        assert [c["n"] for c in after.view_model["cells"]] == [0, 6]


def test_an_inspection_event_of_a_childs_action_says_where_the_child_sits() -> None:
    with yaia.Runtime(**HOST) as rt:
        for document in (CELL, LIST):
            rt.execute({"op": "register", "document": document})
        scene = rt.open("py/list")
        rt.inspect()
        scene.child("cells", 2).send("bump")
        actions = []
        while (event := rt.receive_event(0)) is not None:
            if isinstance(event, yaia.Inspection) and event.kind == "action":
                actions.append(event.raw)
        assert [(a["action"]["type"], a.get("top"), a.get("path")) for a in actions] == \
            [("bump", scene.id, ["cells", 2]), ("cellBumped", None, None)]
