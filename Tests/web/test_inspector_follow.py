"""Following a journal: an input that moves one scene costs that scene's
state, not the list of every scene (which a list of 10,000 row scenes makes
big), and the timeline is the one the whole list gives: the same patches,
scenes opened and closed."""

from __future__ import annotations

import json
from typing import Any, Dict, List

import pytest

from conftest import REPO, needs_library
from yaia.inspector import shadow as shadow_module
from yaia.inspector import travel
from yaia.inspector.lines import JournalReader, snapshot_text
from yaia.inspector.shadow import Shadow
from yaia.inspector.timeline import Timeline
from yaia.web.engine import RuntimeEngine

NOTES = str(REPO / "Examples/notes-documents")
EMAILS = 30


def record(path: str) -> None:
    """A login scene beside a list of five row scenes: the login's edits,
    then a row renamed, a search, and a row deleted (its scene closed)."""
    engine = RuntimeEngine({"scenes": [NOTES], "journal": path, "allow": {"ops": ["journal"]}})
    try:
        login = engine.execute_value({"op": "open", "scene": "notes/login"})["scene"]
        listed = engine.execute_value({"op": "open", "scene": "notes/list", "args": {"user": {"email": "a@b.c"}}})["scene"]
        load = engine.execute_value({"op": "send", "scene": listed, "action": {"type": "load"}})["effects"][0]["id"]
        items = [{"key": f"note/{i}", "value": {"id": i, "title": f"Title {i}", "body": f"body {i}"}} for i in range(1, 6)]
        assert engine.execute_value({"op": "resolve", "effect": load, "result": {"items": items}})["ok"] is True
        for i in range(EMAILS):
            engine.execute_value({"op": "send", "scene": login, "action": {"type": "emailChanged", "payload": f"u{i}@example.com"}})
        for action in ({"type": "startRename"}, {"type": "draftChanged", "payload": "New"}):
            assert engine.execute_value({"op": "send", "scene": listed, "path": ["rows", 2], "action": action})["ok"] is True
        engine.execute_value({"op": "send", "scene": listed, "action": {"type": "searchChanged", "payload": "title 3"}})
        engine.execute_value({"op": "send", "scene": listed, "path": ["rows", 4], "action": {"type": "askDelete"}})
        answer = engine.execute_value({"op": "send", "scene": listed, "path": ["rows", 4], "action": {"type": "confirmDelete"}})
        for effect in answer.get("effects") or []:
            engine.execute_value({"op": "resolve", "effect": effect["id"], "result": {}})
        while engine.receive() is not None:
            pass
        travel.flush(engine)
    finally:
        engine.close()


def followed(path: str) -> Timeline:
    timeline = Timeline(path, {"scenes": [NOTES]})
    timeline.catch_up()
    assert timeline.failure is None
    return timeline


def shown(timeline: Timeline) -> List[Dict[str, Any]]:
    keys = ("seq", "changes", "opened", "closed", "error", "stack", "effects")
    return [{k: e[k] for k in keys if k in e} for e in timeline.entries]


@needs_library
def test_an_input_that_moves_one_scene_asks_for_no_list_of_scenes(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    path = str(tmp_path / "j.jsonl")
    record(path)
    timeline = followed(path)
    shadow = timeline.shadow
    assert shadow is not None
    emails = [e for e in timeline.entries if e.get("type") == "emailChanged"]
    assert len(emails) == EMAILS
    assert emails[-1]["changes"] == {"1": [{"op": "replace", "path": "/email", "value": f"u{EMAILS - 1}@example.com"}]}
    # The lists asked for: the opens, the list's own reductions (its slots
    # may open and close rows); none for the login's edits or a row's.
    assert shadow.listings < 10
    loaded = next(e for e in timeline.entries if e["line"] == "outcome")
    assert len(loaded["opened"]) == 5
    renamed = [e for e in timeline.entries if e.get("type") == "draftChanged"]
    assert renamed and any(op["path"] == "/draft" for patch in renamed[0]["changes"].values() for op in patch)
    closed = [e for e in timeline.entries if e.get("closed")]
    assert closed, "the deleted row's scene closes"
    # The same timeline as when every input asks for every scene.
    monkeypatch.setattr(Shadow, "_parent", lambda self, scene: True)
    whole = followed(path)
    assert whole.shadow is not None and whole.shadow.listings == len(whole.entries) + 1
    assert shown(whole) == shown(timeline)
    timeline.close()
    whole.close()


@needs_library
def test_lost_events_make_the_shadow_ask_for_every_scene(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """An input whose events the shadow's queue dropped (past its limit)
    is followed from the list of scenes and their seqs."""
    path = str(tmp_path / "j.jsonl")
    record(path)
    timeline = Timeline(path, {"scenes": [NOTES], "limits": {"events": 1}})
    timeline.catch_up()
    assert timeline.failure is None and timeline.shadow is not None
    loaded = next(e for e in timeline.entries if e["line"] == "outcome")
    assert len(loaded["opened"]) == 5
    assert shown(timeline) == shown(followed(path))
    timeline.close()


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__])


def test_a_restore_line_is_restored_from_its_own_text() -> None:
    """The snapshot of a restore line as the runtime writes it is cut from
    the line's text, not parsed and written again; a line laid out
    otherwise is not cut."""
    line = {"digest": "00ff", "kind": "restore", "seq": 7, "snapshot": {"scenes": [], "é": "ü"}, "t": 12}
    snapshot = json.dumps(line["snapshot"], separators=(",", ":"), ensure_ascii=False).encode()
    text = b'{"digest":"00ff","kind":"restore","seq":7,"snapshot":' + snapshot + b',"t":12}'
    assert snapshot_text(line, text) == snapshot
    assert snapshot_text(line, text.replace(b'"seq":7', b'"seq": 7')) is None
    assert snapshot_text(dict(line, extra=1), text) is None
    assert snapshot_text(dict(line, kind="send"), text) is None
    assert snapshot_text(line, b'{"digest":"00ff","kind":"restore","seq":7,"snapshot":,"t":12}') is None


@needs_library
def test_following_a_rewind_reads_its_snapshot_once(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A rewind's restore line (the whole state) is restored in the shadow
    from the line's own text: its parsed snapshot is not written again, and
    the timeline is the one that writing it gives."""
    path = str(tmp_path / "j.jsonl")
    record(path)
    timeline = followed(path)
    target = timeline.entries[10]["seq"]
    engine = RuntimeEngine({"scenes": [NOTES], "allow": {"ops": ["journal", "replay", "restore", "snapshot"], "files": [str(tmp_path)]}})
    try:
        snapshot = travel.snapshot_text_at(engine, path, target, live=False)
    finally:
        engine.close()
    last = timeline.last
    with open(path, "ab") as out:
        out.write(b'{"digest":"0","kind":"restore","seq":' + str(last + 1).encode() + b',"snapshot":' + snapshot + b',"t":1}\n')
    reader = JournalReader(path)
    lines = reader.read()
    texts = reader.texts
    assert texts[-1] is not None and all(t is None for t in texts[:-1])

    def follow(cut: bool) -> List[Dict[str, Any]]:
        shadow = Shadow({"scenes": [NOTES]})
        assert shadow.begin(lines[0]) is None
        done = [shadow.apply(line) for line in lines[1:-1]]
        if cut:
            monkeypatch.setattr(shadow_module, "held", lambda snapshot: pytest.fail("the snapshot was written again"))
        done.append(shadow.apply(lines[-1], texts[-1] if cut else None))
        monkeypatch.undo()
        states = [shadow.states.get(scene) for scene in sorted(shadow.states)]
        shadow.close()
        return done + [{"states": states}]
    assert follow(True) == follow(False)
    timeline.close()
