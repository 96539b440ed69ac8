"""Checkpoints: a rewind far back, from the nearest snapshot, reaches the
same state as one replayed from the journal's start; the snapshots kept stay
under their cap, spread over the whole journal."""

from __future__ import annotations

import json
from typing import Any, Dict

import pytest

from conftest import REPO, needs_library
from yaia.inspector.checkpoints import Checkpoints
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
