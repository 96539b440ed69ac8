"""A journal file read as it grows: whole lines only, each bounded, and
what each kind of input line asks of a runtime (docs/journal.md)."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

__all__ = ["JournalReader", "request_of", "snapshot_text", "FORMAT"]

FORMAT = "yaia.journal/1"

# The members of each kind of input line that make its request; anything
# else a line holds (a hostile file's extra "op", say) is left out.
_REQUESTS: Dict[str, Tuple[str, Tuple[str, ...]]] = {
    "open": ("open", ("scene", "args", "state")),
    "send": ("send", ("scene", "flow", "action")),
    "outcome": ("resolve", ("effect", "result", "error")),
    "close": ("close", ("scene", "flow")),
    "start": ("start", ("name", "scene", "args")),
    "popped": ("popped", ("flow", "depth")),
    "link": ("link", ("flow", "path")),
    "restore": ("restore", ("snapshot",)),
    "register": ("register", ("document",)),
}


def request_of(line: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The request that applies an input line to a runtime, or None for a
    kind no request applies."""
    known = _REQUESTS.get(str(line.get("kind")))
    if known is None:
        return None
    op, members = known
    request: Dict[str, Any] = {"op": op}
    for name in members:
        if name in line:
            request[name] = line[name]
    return request


def snapshot_text(line: Dict[str, Any], text: bytes) -> Optional[bytes]:
    """A restore line's snapshot as JSON text, cut from the line's ``text``
    as the runtime writes it (members by name: digest, kind, seq, snapshot,
    t), so that a state of 10,000 notes is not written again to be restored;
    None for a line laid out otherwise (its parsed snapshot is written then)."""
    if line.get("kind") != "restore" or set(line) != {"digest", "kind", "seq", "snapshot", "t"}:
        return None
    head = ('{"digest":' + json.dumps(line["digest"]) + ',"kind":"restore","seq":' + json.dumps(line["seq"])
            + ',"snapshot":').encode()
    tail = (',"t":' + json.dumps(line["t"]) + "}").encode()
    if len(text) <= len(head) + len(tail) or not text.startswith(head) or not text.endswith(tail):
        return None
    return text[len(head):len(text) - len(tail)]


class JournalReader:
    """Reads the lines added to a journal since the last call. A line longer
    than ``max_line`` bytes, or one that is not a JSON object, ends the
    reading with ``failure`` set: a journal is a file, and files are hostile."""

    def __init__(self, path: str, max_line: int = 16 << 20) -> None:
        self.path = path
        self.max_line = max_line
        self.offset = 0
        self.rest = b""
        self.number = 0
        self.failure: Optional[str] = None
        #: Where each line the last ``read`` gave ends in the file (the byte
        #: after its newline): a rewind copies the lines after a snapshot.
        self.ends: List[int] = []
        #: Each restore line's text, as read (None for the other lines).
        self.texts: List[Optional[bytes]] = []

    def read(self, limit: int = 1 << 30) -> List[Dict[str, Any]]:
        if self.failure is not None:
            return []
        out: List[Dict[str, Any]] = []
        self.ends = []
        self.texts = []
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                chunk = f.read(min(limit, 64 << 20))
        except OSError as error:
            self.failure = f"{self.path}: {error.strerror or error}"
            return out
        base = self.offset - len(self.rest)  # where data starts in the file
        self.offset += len(chunk)
        data = self.rest + chunk
        start = 0
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                break
            text = data[start:end]
            start = end + 1
            self.number += 1
            if not text.strip():
                continue
            if len(text) > self.max_line:
                self.failure = f"line {self.number} is longer than {self.max_line} bytes"
                return out
            try:
                value = json.loads(text)
            except (ValueError, RecursionError):
                self.failure = f"line {self.number} is not JSON"
                return out
            if not isinstance(value, dict):
                self.failure = f"line {self.number} is not a JSON object"
                return out
            out.append(value)
            self.ends.append(base + start)
            self.texts.append(text if value.get("kind") == "restore" else None)
        self.rest = data[start:]
        if len(self.rest) > self.max_line:
            self.failure = f"line {self.number + 1} is longer than {self.max_line} bytes"
        return out
