"""A JSON Patch (RFC 6902) from one value to another, as the inspector
shows a state change: small for a small change however big the value, and
cut to a budget with a marker when it is not."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Tuple

__all__ = ["diff", "bounded", "pointer"]

Patch = List[Dict[str, Any]]


def pointer(tokens: List[Any]) -> str:
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in tokens)


def _same(a: Any, b: Any) -> bool:
    # bool is an int in Python, and 1 == 1.0: JSON tells them apart by type.
    return a is b or (type(a) is type(b) and a == b)


def diff(before: Any, after: Any) -> Patch:
    """The operations that turn ``before`` into ``after``: objects member by
    member, lists by their common head and tail, then element by element
    where the lengths agree, the rest removed (from the end) or added."""
    out: Patch = []
    _diff(before, after, [], out)
    return out


def _diff(a: Any, b: Any, at: List[Any], out: Patch) -> None:
    if _same(a, b):
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key in a:
            if key not in b:
                out.append({"op": "remove", "path": pointer(at + [key])})
        for key, value in b.items():
            if key in a:
                _diff(a[key], value, at + [key], out)
            else:
                out.append({"op": "add", "path": pointer(at + [key]), "value": value})
        return
    if isinstance(a, list) and isinstance(b, list):
        _diff_list(a, b, at, out)
        return
    out.append({"op": "replace", "path": pointer(at), "value": b})


def _diff_list(a: List[Any], b: List[Any], at: List[Any], out: Patch) -> None:
    head = 0
    limit = min(len(a), len(b))
    while head < limit and _same(a[head], b[head]):
        head += 1
    tail = 0
    while tail < limit - head and _same(a[len(a) - 1 - tail], b[len(b) - 1 - tail]):
        tail += 1
    old, new = a[head:len(a) - tail], b[head:len(b) - tail]
    common = min(len(old), len(new))
    for i in range(common):
        _diff(old[i], new[i], at + [head + i], out)
    # Removed from the highest index down, so each index is still right.
    for i in range(len(old) - 1, common - 1, -1):
        out.append({"op": "remove", "path": pointer(at + [head + i])})
    for i in range(common, len(new)):
        out.append({"op": "add", "path": pointer(at + [head + i]), "value": new[i]})


def bounded(patch: Patch, budget: int) -> Tuple[Patch, int]:
    """The patch's operations that fit ``budget`` bytes of JSON, and how many
    were left out (0: it is whole). A value too big to show is replaced by a
    marker saying so: the operation's path still tells what changed."""
    kept: Patch = []
    used = 2
    for i, op in enumerate(patch):
        text = json.dumps(op, separators=(",", ":"))
        if len(text) > budget // 4 and "value" in op:
            op = {k: v for k, v in op.items() if k != "value"}
            op["truncated"] = f"a value of {len(text)} bytes"
            text = json.dumps(op, separators=(",", ":"))
        if used + len(text) + 1 > budget:
            return kept, len(patch) - i
        kept.append(op)
        used += len(text) + 1
    return kept, 0
