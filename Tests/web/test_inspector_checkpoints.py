"""Checkpoints: a rewind far back, from the nearest snapshot, reaches the
same state as one replayed from the journal's start; the snapshots kept stay
under their cap, spread over the whole journal."""

from __future__ import annotations

import json
from typing import Any, Dict

import pytest

from conftest import REPO, needs_library
from yaia.inspector.checkpoints import Checkpoints
from yaia.inspector.shadow import held, held_text
from yaia.inspector.timeline import Timeline
from yaia.inspector import travel
from yaia.web.engine import RuntimeEngine

NOTES = str(REPO / "Examples/notes-documents")


def test_the_cap_thins_snapshots_evenly_and_holds() -> None:
    points = Checkpoints(every=4, max_bytes=1 << 30, max_count=8)
    for seq in range(1, 201):
        if points.due(seq):
            points.add(seq, seq * 10, json.dumps({"seq": seq}).encode())
    assert len(points) <= 8 and points.every == 32  # 50 due at 4, thinned to every 32
    assert points.seqs == [32 * i for i in range(1, 7)]
    at, end, text = points.nearest(100) or (0, 0, b"")
    assert (at, end, json.loads(text)) == (96, 960, {"seq": 96})
    assert points.nearest(31) is None
    # Bytes: incompressible snapshots of 1000 bytes, at most 5000 kept.
    import os
    small = Checkpoints(every=1, max_bytes=5000, max_count=1000)
    for seq in range(1, 101):
        small.add(seq, seq, os.urandom(1000))
        assert small.bytes <= 5000
    assert 1 <= len(small) <= 5 and small.seqs[-1] >= 64
    too_big = Checkpoints(every=1, max_bytes=100)
    too_big.add(1, 1, os.urandom(1000))
    assert len(too_big) == 0


def record(path: str, sends: int) -> RuntimeEngine:
    engine = RuntimeEngine({"scenes": [NOTES], "journal": path,
                            "allow": {"ops": ["journal", "replay", "restore", "snapshot"], "files": [str(REPO), "/tmp", path.rsplit("/", 1)[0]]}})
    opened = engine.execute_value({"op": "open", "scene": "notes/login"})
    for i in range(sends):
        engine.execute_value({"op": "send", "scene": opened["scene"], "action": {"type": "emailChanged", "payload": f"u{i}@example.com"}})
    return engine


def state_of(snapshot: Dict[str, Any]) -> Any:
    return [(s["id"], s["seq"], s["state"]) for s in snapshot["scenes"]]


@needs_library
def test_a_rewind_from_a_checkpoint_is_the_rewind_from_the_start(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = str(tmp_path / "j.jsonl")
    engine = record(path, 60)
    try:
        travel.flush(engine)
        timeline = Timeline(path, {"scenes": [NOTES]}, checkpoints=Checkpoints(every=8))
        assert timeline.catch_up() == 61
        assert timeline.checkpoints.seqs == [8 * i for i in range(1, 8)]
        for seq in (1, 8, 13, 40, 47, 59):
            near = travel.snapshot_at(engine, path, seq, timeline=timeline)
            whole = travel.snapshot_at(engine, path, seq)
            assert state_of(near) == state_of(whole)
            assert near["scenes"][0]["state"]["email"] == (f"u{seq - 2}@example.com" if seq > 1 else "")
        # The rewind itself: the runtime's state is the one at that input.
        travel.rewind(engine, path, 21, timeline)
        snap = engine.execute_value({"op": "snapshot"})["snapshot"]
        assert snap["scenes"][0]["state"]["email"] == "u19@example.com"
        # A checkpoint that lies (not the state at its input) is caught by the digests.
        seq, end, text = timeline.checkpoints.nearest(21) or (0, 0, b"")
        forged = json.loads(text)
        forged["scenes"][0]["state"]["password"] = "forged"
        timeline.checkpoints.items[timeline.checkpoints.seqs.index(seq)] = (end, __import__("zlib").compress(json.dumps(forged).encode()))
        with pytest.raises(travel.TravelError, match="replay identically"):
            travel.snapshot_at(engine, path, 21, timeline=timeline)
        timeline.close()
    finally:
        engine.close()


@needs_library
def test_a_rewind_hands_the_snapshot_on_as_text(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The snapshot a rewind restores is the runtime's text, not read into
    Python: the same snapshot as read, from a checkpoint or replayed, and
    held with its effects in flight as ``held`` holds them."""
    path = str(tmp_path / "j.jsonl")
    engine = record(path, 40)
    try:
        travel.flush(engine)
        timeline = Timeline(path, {"scenes": [NOTES]}, checkpoints=Checkpoints(every=8))
        timeline.catch_up()
        for seq in (8, 13, 40):
            text = travel.snapshot_text_at(engine, path, seq, timeline=timeline)
            replayed = engine.execute_value({"op": "replay", "journal": path, "to": seq})
            assert replayed["identical"] is True
            assert state_of(json.loads(text)) == state_of(replayed["snapshot"])
            assert held_text(text) == text  # nothing in flight: as it is
        timeline.close()
    finally:
        engine.close()
    effect = {"service": "store", "op": "list", "payload": {}, "restore": "reissue"}
    snapshot = {"effects": [{"id": 3, "scene": 1, "effect": effect, "status": "pending"}], "flows": [],
                "format": "yaia.snapshot/1", "next": {"effect": 4, "flow": 1, "scene": 2},
                "scenes": [{"id": 1, "name": "notes/list", "seq": 2, "state": {"é": "ü", "notes": [1, 2]}}]}
    text = json.dumps(snapshot, separators=(",", ":"), ensure_ascii=False).encode()
    assert json.loads(held_text(text)) == held(snapshot)
    assert json.loads(held_text(text))["effects"][0]["effect"]["restore"] == "await"
    # Members in another order (a snapshot with documents, say) are read whole.
    documents = json.dumps({"documents": [], **snapshot}).encode()
    assert json.loads(held_text(documents)) == held({"documents": [], **snapshot})


def test_the_timeline_gives_its_last_rows(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The page that opens asks for the last rows (``tail``): the end of
    the timeline, filtered or not, and where they start."""
    timeline = Timeline(str(tmp_path / "none.jsonl"), {})
    for seq in range(1, 251):
        timeline.entries.append({"seq": seq, "kind": "action", "line": "send", "type": "a" if seq % 2 else "b",
                                 "changes": {}, "ops": 0, "end": seq})
    page = timeline.rows(0, 100, {}, tail=True)
    assert (page["total"], page["start"], [r["seq"] for r in page["rows"]]) == (250, 150, list(range(151, 251)))
    page = timeline.rows(0, 100, {"type": "a"}, tail=True)
    assert (page["total"], page["start"], page["rows"][-1]["seq"], len(page["rows"])) == (125, 25, 249, 100)
    assert timeline.rows(0, 500, {}, tail=True)["start"] == 0
    assert [r["seq"] for r in timeline.rows(10, 3, {})["rows"]] == [11, 12, 13]


def test_a_big_snapshot_is_taken_less_often() -> None:
    """One input per ``per_input`` bytes of the last snapshot passes before
    the next is due, on the ``every`` grid: small snapshots come every 4
    inputs, one of 10 KB at 1 KB per input holds the next off for 10."""
    points = Checkpoints(every=4, per_input=1000)
    taken = []
    for seq in range(1, 61):
        if points.due(seq):
            points.add(seq, seq, b"x" * (10_000 if seq == 12 else 100))
            taken.append(seq)
    assert taken == [4, 8, 12, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60]
    assert points.seqs == taken
