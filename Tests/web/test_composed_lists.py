"""A session's runtime holds a composed list of 10,000 notes: a row is a
child scene, and the server's own bound on a tab's scenes leaves room for a
full list. Below it, the rows past the bound do not open, and every update
of the list carries an error for each of them: with 10,000 notes, 1.3 MB of
childErrors on every keystroke in the search field, read by the page."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict

import pytest
from conftest import REPO, needs_library

from yaia.web import WebConfig
from yaia.web.engine import RuntimeEngine, full_views

NOTES = 10_000


def scenes(kind: str) -> str:
    if kind == "documents":
        return str(REPO / "Examples/notes-documents")
    path = os.environ.get("YAIA_NOTES_PACK") or str(REPO / "Examples/notes/.build/release/libnotes.so")
    if not Path(path).is_file():
        pytest.skip(f"{path} is not built (make notes)")
    return path


def send(engine: RuntimeEngine, flow: int, type_: str, payload: Any) -> "tuple[Dict[str, Any], int]":
    """The answer to an action sent to the flow, and its size in bytes as it goes to the tab."""
    text = engine.execute(json.dumps({"op": "send", "flow": flow, "action": {"type": type_, "payload": payload}}).encode())
    answer = json.loads(text)
    assert answer.get("ok") is True, answer
    return answer, len(text)


@needs_library
@pytest.mark.parametrize("kind", ["pack", "documents"])
def test_a_tab_s_runtime_opens_a_row_for_each_of_10000_notes(kind: str) -> None:
    # The runtime a session gets: the server's config, its limits included.
    engine = RuntimeEngine(WebConfig(runtime={"scenes": [scenes(kind)], "view": "patch"}).runtime_config())
    try:
        started = engine.execute_value({"op": "start", "scene": "notes/list", "args": {"user": {"email": "ada@example.com"}}})
        assert started.get("ok") is True, started
        items = [{"key": f"note/{i}", "value": {"id": i, "title": f"Note {i}", "body": f"about lyon {i}" if i % 10 == 0 else "x"}}
                 for i in range(1, NOTES + 1)]
        loaded, _ = send(engine, started["flow"], "loaded", {"items": items})
        assert "childErrors" not in loaded
        assert engine.execute_value({"op": "limits"})["usage"]["scenes"] == NOTES + 1
        # A keystroke that changes the query and the rows shown: its answer
        # says so, and nothing about rows that did not change.
        narrowed, size = send(engine, started["flow"], "searchChanged", "lyon")
        assert "childErrors" not in narrowed
        assert {op["path"] for op in narrowed["viewPatch"]} == {"/query", "/shown"}
        assert size < 20_000, f"a keystroke's answer is {size} bytes"
        # One that changes only the query: a patch of one operation.
        same, size = send(engine, started["flow"], "searchChanged", "lyo")
        assert "childErrors" not in same
        assert [op["path"] for op in same["viewPatch"]] == ["/query"]
        assert size < 1000, f"a keystroke's answer is {size} bytes"
        # What a tab gets whole on connect and after a gap: the flow, whose
        # list holds its rows' view models, and no row again on its own.
        views = full_views(engine)
        assert views["scenes"] == []
        assert len(views["flows"][0]["stack"][-1]["viewModel"]["rows"]) == NOTES
    finally:
        engine.close()
