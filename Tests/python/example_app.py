"""Helpers for the tests of flows, snapshots and the journal: the
example app (example/login -> home -> detail, about) driven deterministically.

Logging in is done by sending loginSucceeded, and a store is served by a
Python function (on the sending thread), so no test depends on another
thread unless it says so.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Dict, List, Optional, Tuple

import yaia

USER = {"email": "a@b.c"}
ITEMS = {"item/1": {"title": "One"}, "item/2": {"title": "Two"}, "item/3": {"title": "Three"}}


def canonical(value: Any) -> str:
    """The canonical JSON text of a value, as the library prints it: keys
    sorted, no white space, non-ASCII as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def loaded_payload(items: Dict[str, Any]) -> Dict[str, Any]:
    """The payload of home's "loaded" action for a {key: value} mapping."""
    return {"items": [{"key": k, "value": v} for k, v in sorted(items.items())]}


class MemoryStore:
    """A host "store" service with the plugin's ops (get/put/delete/list);
    records every call."""

    def __init__(self, items: Optional[Dict[str, Any]] = None) -> None:
        self.items: Dict[str, Any] = dict(items if items is not None else ITEMS)
        self.calls: List[Tuple[str, Any]] = []
        self.lock = threading.Lock()

    def __call__(self, op: str, args: Any) -> Any:
        with self.lock:
            self.calls.append((op, args))
            if op == "put":
                self.items[args["key"]] = args["value"]
                return {"key": args["key"]}
            if op == "get":
                return {"key": args["key"], "value": self.items[args["key"]]}
            if op == "delete":
                return {"key": args["key"], "deleted": self.items.pop(args["key"], None) is not None}
            if op == "list":
                prefix = args.get("prefix", "")
                return loaded_payload({k: v for k, v in self.items.items() if k.startswith(prefix)})
            raise yaia.ServiceError({"code": "unknown_op", "message": f"unknown op {op}"})


def names(stack: Optional[List[yaia.StackEntry]]) -> List[str]:
    assert stack is not None, "no stack in the answer"
    return [e.scene for e in stack]


def shape(stack: Optional[List[yaia.StackEntry]]) -> List[Tuple[str, str]]:
    """(scene, presentation) for each entry, bottom to top."""
    assert stack is not None, "no stack in the answer"
    return [(e.scene, e.presentation) for e in stack]


def start_home(rt: yaia.Runtime, items: Optional[Dict[str, Any]] = None, name: Optional[str] = None) -> yaia.Flow:
    """A flow [login, home] with home's items loaded (from `items`, else ITEMS)."""
    flow = rt.start("example/login", name=name)
    pushed = flow.send("loginSucceeded", {"user": USER})
    assert names(pushed.stack) == ["example/login", "example/home"]
    flow.send("loaded", loaded_payload(ITEMS if items is None else items))
    return flow


def view_models(rt: yaia.Runtime) -> Dict[int, Tuple[str, str]]:
    """{scene id: (name, canonical view model)} of every open scene."""
    result: Dict[int, Tuple[str, str]] = {}
    for s in rt.scenes()["scenes"]:
        state = rt.execute({"op": "state", "scene": s["id"]})
        result[s["id"]] = (state["name"], canonical(state["viewModel"]))
    return result


def drain(rt: yaia.Runtime, timeout: float = 0) -> List[yaia.Update]:
    """Every update queued now (or within `timeout` for the first)."""
    out: List[yaia.Update] = []
    while True:
        update = rt.receive(timeout=timeout if not out else 0)
        if update is None:
            return out
        out.append(update)
