"""Time travel and spans of a journal, on the runtime that wrote it.

The runtime's ``rewind`` restores the state it replays to with each effect's
own restore policy: an effect in flight then whose policy is ``reissue`` (the
notes list's load) is performed again, and one whose policy is ``cancel``
tells its scene of an interruption. The inspector rewinds without either:
the runtime replays its journal to the input (``replay`` with ``to``, in a
scratch runtime with no services) and restores that snapshot with every
effect in flight held (shadow.held). The restore is journaled like any, so
the journal still replays identically.

A rewind does not replay from the journal's start: the timeline keeps a
snapshot every so many inputs (checkpoints.py), and the journal replayed is
a short one, that snapshot followed by the lines since (each still checked
against its digest); to a snapshot's own input, nothing is replayed."""

from __future__ import annotations

import json
import os
import re
import secrets
from typing import TYPE_CHECKING, Any, Dict, Optional

from ..web.engine import Engine
from .lines import JournalReader
from .shadow import held_text

if TYPE_CHECKING:
    from .timeline import Timeline

__all__ = ["rewind", "span", "flush", "TravelError"]


class TravelError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _ok(answer: Dict[str, Any]) -> Dict[str, Any]:
    if answer.get("ok") is not True:
        error = answer.get("error")
        if not isinstance(error, dict):
            error = {}
        raise TravelError(str(error.get("code", "internal")), str(error.get("message", "the runtime refused")))
    return answer


def flush(engine: Engine) -> int:
    """Writes the journal's queued lines; answers how many inputs it holds."""
    inputs = _ok(engine.execute_value({"op": "journal", "flush": True})).get("inputs")
    return inputs if isinstance(inputs, int) else 0


def journal_of(engine: Engine) -> str:
    """The path of the runtime's journal (flushed); bad_journal without one."""
    path = _ok(engine.execute_value({"op": "journal", "flush": True})).get("journal")
    if not isinstance(path, str):
        raise TravelError("bad_journal", "the runtime keeps no journal: give it one (config \"journal\")")
    return path


def snapshot_at(engine: Engine, journal: str, seq: int, live: bool = True,
                timeline: Optional["Timeline"] = None) -> Dict[str, Any]:
    """The snapshot right after input ``seq`` of a journal: the runtime's own
    (``live``: flushed first), or a file it replays. With the ``timeline``
    that follows it, from the nearest of its checkpoints."""
    snapshot = json.loads(snapshot_text_at(engine, journal, seq, live, timeline))
    if not isinstance(snapshot, dict):
        raise TravelError("bad_journal", f"no snapshot of input {seq}")
    return snapshot


# What the runtime answers a replay that reached its input: its members in
# the order it writes them (by name), the snapshot last.
_REPLAYED = re.compile(rb'\{"identical":true,"inputs":[0-9]+,"ok":true,"snapshot":')


def snapshot_text_at(engine: Engine, journal: str, seq: int, live: bool = True,
                     timeline: Optional["Timeline"] = None) -> bytes:
    """``snapshot_at``'s snapshot as the runtime wrote it (JSON text): a
    rewind hands it on to a restore, and a state of 10,000 notes is read
    and written again in Python for nothing."""
    if live:
        flush(engine)
    near = timeline.checkpoints.nearest(seq) if timeline is not None else None
    if near is not None and near[0] == seq:
        return near[2]
    path = journal
    if near is not None and timeline is not None:
        path = _short_journal(journal, near, timeline.end_of(seq))
    try:
        text = engine.execute(json.dumps({"op": "replay", "journal": path, "to": seq}).encode())
    finally:
        if path != journal:
            os.unlink(path)
    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    found = _REPLAYED.match(data)
    if found is not None and data.endswith(b"}"):
        return data[found.end():-1]
    answer = _ok(json.loads(data))
    if answer.get("identical") is not True or not isinstance(answer.get("snapshot"), dict):
        raise TravelError("bad_journal", f"the journal does not replay identically up to input {seq}: {answer.get('divergence')}")
    return json.dumps(answer["snapshot"], separators=(",", ":")).encode()


def _short_journal(journal: str, near: "tuple[int, int, bytes]", end: Optional[int]) -> str:
    """A journal beside ``journal`` that begins with a checkpoint's snapshot
    and holds the lines after it, up to ``end`` (to the file's end if None)."""
    _, start, snapshot = near
    path = os.path.join(os.path.dirname(journal), f"rewind-{secrets.token_hex(8)}.jsonl")
    with open(journal, "rb") as source, open(path, "wb") as out:
        out.write(b'{"format":"yaia.journal/1","kind":"begin","snapshot":' + snapshot + b',"t":0}\n')
        source.seek(start)
        left = None if end is None else max(0, end - start)
        while left is None or left > 0:
            chunk = source.read(1 << 20 if left is None else min(left, 1 << 20))
            if not chunk:
                break
            out.write(chunk)
            if left is not None:
                left -= len(chunk)
    return path


def rewind(engine: Engine, journal: str, seq: int, timeline: Optional["Timeline"] = None, flushed: bool = False) -> None:
    """Brings the runtime back to right after input ``seq``, reaching no
    service (its journal flushed first, unless ``flushed``). The restore's
    answer (every view model, whole) is not read: the tab is sent its views
    afresh."""
    snapshot = held_text(snapshot_text_at(engine, journal, seq, live=not flushed, timeline=timeline))
    text = engine.execute(b'{"op":"restore","snapshot":' + snapshot + b"}")
    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    # The runtime writes members by name: a refusal begins with its error.
    if data.startswith(b'{"error":'):
        _ok(json.loads(data))


def span(engine: Engine, journal: str, first: int, last: int, path: str, flush: bool = True) -> int:
    """Writes to ``path`` a journal of inputs ``first`` to ``last``: its
    first line the state before ``first``, then those inputs' lines as they
    were recorded. Answers how many inputs it holds."""
    if first < 1 or last < first:
        raise TravelError("bad_request", f"no inputs from {first} to {last}")
    snapshot = snapshot_at(engine, journal, first - 1, live=flush)
    reader = JournalReader(journal)
    count = 0
    with open(path, "w", encoding="utf-8") as out:
        begin = {"format": "yaia.journal/1", "kind": "begin", "snapshot": snapshot, "t": 0}
        out.write(json.dumps(begin, separators=(",", ":"), sort_keys=True) + "\n")
        for line in reader.read()[1:]:
            seq = line.get("seq")
            if isinstance(seq, int) and first <= seq <= last:
                out.write(json.dumps(line, separators=(",", ":"), sort_keys=True) + "\n")
                count += 1
    if reader.failure:
        os.unlink(path)
        raise TravelError("bad_journal", reader.failure)
    return count
