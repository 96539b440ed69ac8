"""Time travel and spans of a journal, on the runtime that wrote it.

The runtime's ``rewind`` restores the state it replays to with each effect's
own restore policy: an effect in flight then whose policy is ``reissue`` (the
notes list's load) is performed again, and one whose policy is ``cancel``
tells its scene of an interruption. The inspector rewinds without either:
the runtime replays its journal to the input (``replay`` with ``to``, in a
scratch runtime with no services) and restores that snapshot with every
effect in flight held (shadow.held). The restore is journaled like any, so
the journal still replays identically."""

from __future__ import annotations

import json
import os
from typing import Any, Dict

from ..web.engine import Engine
from .lines import JournalReader
from .shadow import held

__all__ = ["rewind", "span", "flush", "TravelError"]


class TravelError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _ok(answer: Dict[str, Any]) -> Dict[str, Any]:
    if answer.get("ok") is not True:
        error = answer.get("error") if isinstance(answer.get("error"), dict) else {}
        raise TravelError(str(error.get("code", "internal")), str(error.get("message", "the runtime refused")))
    return answer


def flush(engine: Engine) -> None:
    _ok(engine.execute_value({"op": "journal", "flush": True}))


def snapshot_at(engine: Engine, journal: str, seq: int, live: bool = True) -> Dict[str, Any]:
    """The snapshot right after input ``seq`` of a journal: the runtime's own
    (``live``: flushed first), or a file it replays."""
    if live:
        flush(engine)
    answer = _ok(engine.execute_value({"op": "replay", "journal": journal, "to": seq}))
    if answer.get("identical") is not True or not isinstance(answer.get("snapshot"), dict):
        raise TravelError("bad_journal", f"the journal does not replay identically up to input {seq}: {answer.get('divergence')}")
    snapshot: Dict[str, Any] = answer["snapshot"]
    return snapshot


def rewind(engine: Engine, journal: str, seq: int) -> Dict[str, Any]:
    """Brings the runtime back to right after input ``seq``, reaching no
    service. Answers with the restore's answer (view models, effects)."""
    answer = _ok(engine.execute_value({"op": "restore", "snapshot": held(snapshot_at(engine, journal, seq))}))
    answer["to"] = seq
    return answer


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
