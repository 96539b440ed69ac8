"""The todo document (Examples/todo-documents/todo.json) in a runtime with
default settings: 100,000 items open and take every action (add, toggle,
remove, the filter, clearing the done ones), the count left kept; the
step budget still stops a runaway, located and saying how to raise it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import jsonschema
import pytest

import yaia

from conftest import HOST

REPO = Path(__file__).resolve().parents[2]
TODO = REPO / "Examples" / "todo-documents" / "todo.json"
N = 100_000


def items(n: int) -> List[Dict[str, Any]]:
    """Ids 1..n, every third done (1, 4, 7, ...)."""
    return [{"id": i, "title": f"Todo number {i}", "done": i % 3 == 1} for i in range(1, n + 1)]


def test_the_document_is_valid_against_the_format_schema() -> None:
    schema = json.loads((REPO / "docs" / "scene-document.schema.json").read_text())
    errors = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(json.loads(TODO.read_text()))]
    assert errors == []


def test_a_hundred_thousand_items_take_every_action_with_default_settings() -> None:
    done = (N + 2) // 3
    with yaia.Runtime(scenes=[str(TODO)], **HOST) as rt:
        assert rt.limits()["limits"]["logic_steps"] == 100_000
        scene = rt.open("todo", {"todos": items(N)})
        vm = scene.opened.view_model
        assert (vm["total"], vm["left"], len(vm["items"])) == (N, N - done, N)

        vm = scene.send("toggle", N).view_model  # N is done: toggled, it is not
        assert vm["left"] == N - done + 1 and vm["items"][-1]["done"] is False
        vm = scene.send("add", "One more").view_model
        assert vm["total"] == N + 1 and vm["items"][-1] == {"id": N + 1, "title": "One more", "done": False}
        vm = scene.send("remove", 2).view_model
        assert vm["total"] == N and [item["id"] for item in vm["items"][:3]] == [1, 3, 4]
        vm = scene.send("show", "active").view_model
        assert len(vm["items"]) == vm["left"] == N - done + 1
        vm = scene.send("show", "done").view_model
        assert len(vm["items"]) == done - 1
        vm = scene.send("clearDone").view_model
        assert vm["items"] == [] and vm["total"] == vm["left"] == N - done + 1

        # A snapshot of the state restores, and the scene goes on.
        snapshot = rt.snapshot()
    with yaia.Runtime(scenes=[str(TODO)], restore=snapshot, **HOST) as again:
        vm = again.execute({"op": "send", "scene": scene.id, "action": {"type": "add", "payload": "After the restore"}})["viewModel"]
        assert vm["total"] == vm["left"] == N - done + 2


def test_the_budget_stops_a_runaway_at_its_expression_and_says_how_to_raise_it() -> None:
    document = json.loads(TODO.read_text())
    # Each item compared with every item: work that grows as the square of the list.
    document["view"]["pairs"] = {"length": {"filter": [{"var": "state.todos"},
                                                       {"some": [{"root": "state.todos"}, {"===": [{"var": "id"}, 0]}]}]}}
    path_free = {**document, "scene": "t/todo-pairs"}
    with yaia.Runtime(**HOST) as rt:
        rt.execute({"op": "register", "document": path_free})
        with pytest.raises(yaia.YaiaError) as info:
            rt.open("t/todo-pairs", {"todos": items(2_000)})
        assert info.value.code == "logic_budget_exceeded"
        assert info.value.at == "/view/pairs"
        assert '{"limits": {"logic_steps": ' in info.value.message
    # Raised in the config, the same work fits.
    with yaia.Runtime(limits={"logic_steps": 50_000_000}, **HOST) as rt:
        rt.execute({"op": "register", "document": path_free})
        assert rt.open("t/todo-pairs", {"todos": items(2_000)}).opened.view_model["pairs"] == 0
