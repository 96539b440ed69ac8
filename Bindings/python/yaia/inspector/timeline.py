"""A journal's inputs as the inspector lists them: read as the file grows,
each followed in a shadow runtime to learn its state change, and kept as a
small entry (the input, its patches bounded, the effects it started) so that
a page of the timeline, filtered, costs a walk over entries, never a state."""

from __future__ import annotations

import threading
from typing import Any, Dict, List, Mapping, Optional, Set

from .checkpoints import Checkpoints
from .diff import bounded
from .lines import JournalReader
from .shadow import Shadow

__all__ = ["Timeline", "KINDS"]

#: What the page filters by: the kind of each input line.
KINDS = {"send": "action", "outcome": "effect", "open": "scene", "close": "scene", "start": "flow",
         "popped": "flow", "link": "flow", "restore": "restore", "register": "register"}

# A patch kept per scene per input: a bigger one is cut, with a marker.
_PATCH_BYTES = 48 << 10
# The longest action or result kept in an entry, as JSON text.
_VALUE_BYTES = 4 << 10


def _short(value: Any) -> Any:
    import json
    text = json.dumps(value, separators=(",", ":"))
    return value if len(text) <= _VALUE_BYTES else {"truncated": f"{len(text)} bytes", "start": text[:200]}


def _kind(line: Dict[str, Any]) -> str:
    kind = str(line.get("kind"))
    if kind == "close" and "flow" in line:
        return "flow"
    if kind == "outcome":
        error = line.get("error")
        if isinstance(error, dict) and error.get("code") == "timeout":
            return "clock"
    return KINDS.get(kind, "other")


class Timeline:
    """The inputs of one journal file, indexed up to where it was read.
    ``catch_up`` reads and follows the lines added since, one thread at a
    time, taking a snapshot every so many inputs (``checkpoints``, for
    rewinds); everything else answers from the entries, without waiting for
    a catch-up in progress. Safe to call from any thread."""

    def __init__(self, path: str, config: Mapping[str, Any], max_line: int = 16 << 20,
                 checkpoints: Optional[Checkpoints] = None) -> None:
        self.path = path
        self.checkpoints = checkpoints if checkpoints is not None else Checkpoints()
        self.following = threading.Lock()
        self.names: Set[str] = set()
        self.types: Set[str] = set()
        self.reader = JournalReader(path, max_line)
        self.config = dict(config)
        self.shadow: Optional[Shadow] = None
        self.entries: List[Dict[str, Any]] = []
        self.fates: Dict[int, Dict[str, Any]] = {}
        self.started: Dict[int, Dict[str, Any]] = {}
        self.failure: Optional[str] = None
        self.lock = threading.Lock()

    def close(self) -> None:
        with self.following:
            if self.shadow is not None:
                self.shadow.close()
                self.shadow = None

    @property
    def last(self) -> int:
        return int(self.entries[-1]["seq"]) if self.entries else 0

    def catch_up(self, wait: bool = True) -> int:
        """Follows the lines added to the file; answers how many inputs are
        known now. Without ``wait``, answers at once while another thread
        is following."""
        if not self.following.acquire(blocking=wait):
            return len(self.entries)
        try:
            lines = self.reader.read()
            for line, end, text in zip(lines, self.reader.ends, self.reader.texts):
                self._follow(line, end, text)
            if self.reader.failure and not self.failure:
                self.failure = self.reader.failure
            return len(self.entries)
        finally:
            self.following.release()

    def _follow(self, line: Dict[str, Any], end: int, text: Optional[bytes] = None) -> None:
        if self.failure is not None:
            return
        if self.shadow is None:
            self.shadow = Shadow(self.config)
            problem = self.shadow.begin(line)
            if problem:
                self.failure = problem
            return
        seq = line.get("seq")
        if not isinstance(seq, int):
            self.failure = f"line {self.reader.number} has no seq"
            return
        done = self.shadow.apply(line, text)
        if self.shadow.broken is not None:
            self.failure = f"input {seq}: {self.shadow.broken}"
            return
        entry: Dict[str, Any] = {"seq": seq, "kind": _kind(line), "line": str(line.get("kind")), "t": line.get("t")}
        scene = done.get("scene", line.get("scene") if isinstance(line.get("scene"), int) else None)
        if scene is not None:
            entry["scene"] = scene
            entry["name"] = self.shadow.names.get(scene)
        elif isinstance(line.get("scene"), str):
            entry["name"] = line["scene"]
        if isinstance(line.get("flow"), int):
            entry["flow"] = line["flow"]
        if isinstance(line.get("action"), dict):
            entry["type"] = str(line["action"].get("type"))
            entry["action"] = _short(line["action"])
        if "effect" in line:
            entry["effect"] = line.get("effect")
            entry["outcome"] = _short(line["result"]) if "result" in line else {"error": _short(line.get("error"))}
            if isinstance(line.get("effect"), int):
                with self.lock:
                    self.fates[line["effect"]] = {"seq": seq, "ok": "result" in line}
        for key in ("opened", "closed", "routes", "stack", "error"):
            if key in done:
                entry[key] = done[key]
        if "effects" in done:
            entry["effects"] = done["effects"]
            with self.lock:
                for record in done["effects"]:
                    if isinstance(record.get("id"), int):
                        self.started[record["id"]] = dict(record, seq=seq)
        patches: Dict[str, Any] = {}
        cut: Dict[str, int] = {}
        for key, patch in (done.get("changes") or {}).items():
            kept, left = bounded(patch, _PATCH_BYTES)
            patches[key] = kept
            if left:
                cut[key] = left
        entry["changes"] = patches
        entry["ops"] = sum(len(p) for p in (done.get("changes") or {}).values())
        if cut:
            entry["cut"] = cut
        entry["end"] = end
        with self.lock:
            self.entries.append(entry)
            if entry.get("name"):
                self.names.add(str(entry["name"]))
            if entry.get("type"):
                self.types.add(str(entry["type"]))
        if self.checkpoints.due(seq) and "error" not in done:
            snapshot = self.shadow.snapshot()
            if snapshot is not None:
                self.checkpoints.add(seq, end, snapshot)

    def end_of(self, seq: int) -> Optional[int]:
        """Where input ``seq``'s line ends in the file, once followed."""
        with self.lock:
            found = self._find(seq)
            return None if found is None else int(found["end"])

    # -- answers

    def _matches(self, entry: Dict[str, Any], f: Mapping[str, Any]) -> bool:
        if f.get("changed") and not entry["ops"] and not entry.get("opened") and not entry.get("closed"):
            return False
        if f.get("scene") and entry.get("name") != f["scene"]:
            return False
        if f.get("kind") and entry["kind"] != f["kind"]:
            return False
        if f.get("type") and entry.get("type") != f["type"]:
            return False
        return True

    def rows(self, start: int, count: int, filters: Mapping[str, Any], tail: bool = False) -> Dict[str, Any]:
        """A page of the timeline: the entries matching ``filters`` from
        ``start`` (an index among them), or the last ``count`` of them
        (``tail``), each without its patches but with their size and first
        paths."""
        count = max(0, min(count, 500))
        with self.lock:
            chosen = [e for e in self.entries if self._matches(e, filters)] if any(filters.values()) else self.entries
            start = max(0, len(chosen) - count if tail else start)
            rows = [self._row(e) for e in chosen[start:start + count]]
            return {"total": len(chosen), "start": start, "rows": rows, "inputs": len(self.entries),
                    "failure": self.failure}

    def _row(self, entry: Dict[str, Any]) -> Dict[str, Any]:
        row: Dict[str, Any] = {k: entry[k] for k in ("seq", "kind", "line", "t", "scene", "name", "flow", "type", "effect", "ops", "error")
               if k in entry}
        paths: List[str] = []
        for patch in entry["changes"].values():
            paths += [f"{op['op']} {op['path']}" for op in patch[:3]]
        row["paths"] = paths[:3]
        row["effects"] = len(entry.get("effects") or [])
        return row

    def entry(self, seq: int) -> Optional[Dict[str, Any]]:
        """One input whole: its patches, the effects it started and what
        became of each."""
        with self.lock:
            found = self._find(seq)
            if found is None:
                return None
            out = {k: v for k, v in found.items() if k != "end"}
            out["effects"] = [dict(e, fate=self.fates.get(e.get("id"))) for e in found.get("effects") or []]
            return out

    def _find(self, seq: int) -> Optional[Dict[str, Any]]:
        lo, hi = 0, len(self.entries)
        while lo < hi:
            mid = (lo + hi) // 2
            if self.entries[mid]["seq"] < seq:
                lo = mid + 1
            else:
                hi = mid
        return self.entries[lo] if lo < len(self.entries) and self.entries[lo]["seq"] == seq else None

    def in_flight(self) -> List[Dict[str, Any]]:
        """The effects started and not yet ended, as the journal tells."""
        with self.lock:
            return [e for i, e in sorted(self.started.items()) if i not in self.fates
                    and e.get("status") not in ("cancelled", "failed", "completed")][:200]

    def facets(self) -> Dict[str, List[str]]:
        """The scene types and action types seen, for the filters."""
        with self.lock:
            names = sorted(self.names)
            types = sorted(self.types)
            return {"scenes": names[:200], "types": types[:500], "kinds": sorted(set(KINDS.values()) | {"clock"})}
