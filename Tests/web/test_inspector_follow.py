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
def test_following_rewinds_restores_the_last_once(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Rewinds' restore lines (each the whole state) tell their changes from
    the lines themselves; the shadow restores only the last of a series,
    before the next input, from the line's own text (its parsed snapshot not
    written again). The timeline and the states after are those of
    restoring each at once."""
    path = str(tmp_path / "j.jsonl")
    record(path)
    timeline = followed(path)
    last = timeline.last
    engine = RuntimeEngine({"scenes": [NOTES], "allow": {"ops": ["replay", "restore", "snapshot"], "files": [str(tmp_path)]}})
    try:
        snapshots = [travel.snapshot_text_at(engine, path, timeline.entries[i]["seq"], live=False) for i in (10, 3, -5)]
    finally:
        engine.close()
    timeline.close()
    login = {"action": {"payload": "after@example.com", "type": "emailChanged"}, "digest": "0", "kind": "send", "scene": 1}
    with open(path, "ab") as out:
        for i, snapshot in enumerate(snapshots):
            out.write(b'{"digest":"0","kind":"restore","seq":' + str(last + 1 + i).encode() + b',"snapshot":' + snapshot + b',"t":1}\n')
        out.write(json.dumps(dict(login, seq=last + 4, t=1), separators=(",", ":"), sort_keys=True).encode() + b"\n")
    reader = JournalReader(path)
    lines = reader.read()
    texts = reader.texts
    assert [t is not None for t in texts[-4:]] == [True, True, True, False]

    def follow(later: bool) -> Dict[str, Any]:
        shadow = Shadow({"scenes": [NOTES]})
        assert shadow.begin(lines[0]) is None
        done = [shadow.apply(line) for line in lines[1:-4]]
        if later:
            monkeypatch.setattr(shadow_module, "held", lambda snapshot: pytest.fail("the snapshot was written again"))
        else:
            monkeypatch.setattr(Shadow, "_put_off", lambda self, image, snapshot: None)
        restores = shadow.restores
        done += [shadow.apply(line, text) for line, text in zip(lines[-4:], texts[-4:])]
        monkeypatch.undo()
        states = {scene: shadow.state(scene) for scene in shadow.states}
        runtime = {scene: shadow.ask({"op": "state", "scene": scene}).get("state") for scene in shadow.states}
        assert runtime == states
        out = {"done": done, "states": states, "restores": shadow.restores - restores, "broken": shadow.broken}
        shadow.close()
        return out
    later, now = follow(True), follow(False)
    assert (later["restores"], now["restores"]) == (1, 3)
    assert later["broken"] is None and later["states"][1]["email"] == "after@example.com"
    assert {k: later[k] for k in ("done", "states")} == {k: now[k] for k in ("done", "states")}


@needs_library
def test_a_restore_put_off_and_refused_stops_the_timeline(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A restore line whose snapshot the runtime refuses, once the next input
    makes the shadow restore it, ends the following with the failure shown
    (the states shown for it were not the runtime's)."""
    path = tmp_path / "j.jsonl"
    empty = {"effects": [], "flows": [], "format": "yaia.snapshot/1", "next": {"effect": 1, "flow": 1, "scene": 2}, "scenes": []}
    forged = dict(empty, scenes=[{"id": 1, "name": "no/such", "seq": 0, "state": {}}])
    lines = [{"format": "yaia.journal/1", "kind": "begin", "snapshot": empty, "t": 0},
             {"digest": "0", "kind": "restore", "seq": 1, "snapshot": forged, "t": 1},
             {"action": {"type": "x"}, "digest": "0", "kind": "send", "scene": 1, "seq": 2, "t": 2}]
    path.write_text("".join(json.dumps(line, separators=(",", ":"), sort_keys=True) + "\n" for line in lines))
    timeline = Timeline(str(path), {"scenes": [NOTES]})
    timeline.catch_up()
    assert [e["seq"] for e in timeline.entries] == [1]
    assert timeline.entries[0]["opened"] == [1]
    assert timeline.failure is not None and "input 2" in timeline.failure and "refused" in timeline.failure
    timeline.close()
