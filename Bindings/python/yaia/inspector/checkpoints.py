"""Snapshots of a journal's runtime every so many inputs, so that a rewind
replays only the inputs since the nearest one, not the journal from its
start. Each is the shadow's snapshot (the state the session had right after
that input), kept compressed, with where its input's line ends in the file.

A big snapshot is taken less often: the next is due no sooner than one
input per ``per_input`` bytes of the last (on the ``every`` grid), so that
taking them costs following about as much per input whatever the state's
size (with 10,000 notes in row scenes a snapshot is some 6 MB: one every
192 inputs rather than every 16). Rewinds replay more lines then, which
costs little beside restoring such a state.

Memory is bounded: at most ``max_bytes`` of compressed snapshots and
``max_count`` of them. Past either, every other one is dropped and the
spacing doubles, so they stay evenly spread over the whole journal and a
rewind replays at most ``every`` inputs (the spacing now). A snapshot bigger
than ``max_bytes`` alone is not kept: rewinds then replay from the start."""

from __future__ import annotations

import bisect
import threading
import zlib
from typing import List, Optional, Tuple

__all__ = ["Checkpoints", "EVERY", "MAX_BYTES", "MAX_COUNT", "PER_INPUT"]

#: Inputs between two snapshots, to begin with.
EVERY = 16
#: Compressed snapshots kept per journal, in bytes and in number.
MAX_BYTES = 64 << 20
MAX_COUNT = 1024
#: Bytes of snapshot text per input between two snapshots, at most.
PER_INPUT = 32 << 10


class Checkpoints:
    """The snapshots of one journal, by input seq. Safe from any thread."""

    def __init__(self, every: int = EVERY, max_bytes: int = MAX_BYTES, max_count: int = MAX_COUNT,
                 per_input: int = PER_INPUT) -> None:
        self.every = max(1, every)
        self.per_input = max(1, per_input)
        #: No snapshot is due before this input (the last one's size says).
        self.next = 0
        self.max_bytes = max_bytes
        self.max_count = max(1, max_count)
        self.seqs: List[int] = []
        self.items: List[Tuple[int, bytes]] = []  # (the offset after its line, the compressed snapshot)
        self.bytes = 0
        self.lock = threading.Lock()

    def due(self, seq: int) -> bool:
        return seq % self.every == 0 and seq >= self.next

    def add(self, seq: int, end: int, snapshot: bytes) -> None:
        """Keeps ``snapshot`` (JSON text) as the state right after input
        ``seq``, whose line ends at byte ``end`` of the journal."""
        packed = zlib.compress(snapshot, 1)
        with self.lock:
            self.next = seq + len(snapshot) // self.per_input
            if len(packed) > self.max_bytes or (self.seqs and seq <= self.seqs[-1]):
                return
            self.seqs.append(seq)
            self.items.append((end, packed))
            self.bytes += len(packed)
            while len(self.seqs) > 1 and (self.bytes > self.max_bytes or len(self.seqs) > self.max_count):
                self._thin()

    def _thin(self) -> None:
        self.every *= 2
        keep = [i for i, s in enumerate(self.seqs) if s % self.every == 0]
        if len(keep) in (0, len(self.seqs)):  # off the grid: every other, the latest kept
            keep = list(range(len(self.seqs) - 1, -1, -2))[::-1]
        self.seqs = [self.seqs[i] for i in keep]
        self.items = [self.items[i] for i in keep]
        self.bytes = sum(len(p) for _, p in self.items)

    def nearest(self, seq: int) -> Optional[Tuple[int, int, bytes]]:
        """The latest snapshot at or before input ``seq``: its seq, the
        offset after its line, and its JSON text; None when there is none."""
        with self.lock:
            i = bisect.bisect_right(self.seqs, seq) - 1
            if i < 0:
                return None
            at, (end, packed) = self.seqs[i], self.items[i]
        return at, end, zlib.decompress(packed)

    def __len__(self) -> int:
        with self.lock:
            return len(self.seqs)
