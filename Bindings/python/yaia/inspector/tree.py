"""A big JSON value shown a level at a time: a node's children a page at a
time, each with a preview, and a search that stops at a bounded number of
matches. What the page gets is always small, whatever the value's size."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

from ..patch import pointer_tokens
from .diff import pointer

__all__ = ["node", "search", "resolve"]

#: Children shown per page, and characters of a preview.
PAGE = 200
PREVIEW = 120


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return "number"


def preview(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(str(k) for k in list(value)[:6])[:PREVIEW] + (", …}" if len(value) > 6 else "}")
    if isinstance(value, list):
        return f"[{len(value)}]"
    text = json.dumps(value)
    return text if len(text) <= PREVIEW else text[:PREVIEW] + "…"


def resolve(value: Any, path: str) -> Tuple[bool, Any]:
    """The value at a JSON Pointer, and whether there is one."""
    tokens = pointer_tokens(path) if path else []
    if tokens is None:
        return False, None
    for token in tokens:
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return False, None
    return True, value


def node(value: Any, path: str, offset: int = 0) -> Optional[Dict[str, Any]]:
    """The node at ``path``: its kind and size, and a page of its children
    from ``offset`` (key, kind, size, preview each); None when absent."""
    found, at = resolve(value, path)
    if not found:
        return None
    out: Dict[str, Any] = {"path": path, "kind": _kind(at)}
    if isinstance(at, (dict, list)):
        items = list(at.items()) if isinstance(at, dict) else list(enumerate(at))
        offset = max(0, offset)
        out["size"] = len(items)
        out["offset"] = offset
        out["children"] = [{"key": k, "kind": _kind(v), "size": len(v) if isinstance(v, (dict, list)) else None,
                            "preview": preview(v)} for k, v in items[offset:offset + PAGE]]
        out["more"] = max(0, len(items) - offset - PAGE)
    else:
        out["preview"] = preview(at)
    return out


def search(value: Any, text: str, limit: int = 100) -> Dict[str, Any]:
    """Paths whose key or scalar value holds ``text`` (case folded), depth
    first, at most ``limit`` of them; ``more`` says the search stopped."""
    needle = text.casefold()
    matches: List[Dict[str, Any]] = []
    stack: List[Tuple[List[Any], Any]] = [([], value)]
    while stack:
        at, v = stack.pop()
        if isinstance(v, dict):
            items = list(v.items())
        elif isinstance(v, list):
            items = list(enumerate(v))
        else:
            if needle and needle in (v if isinstance(v, str) else json.dumps(v)).casefold():
                matches.append({"path": pointer(at), "preview": preview(v)})
                if len(matches) >= limit:
                    return {"matches": matches, "more": True}
            continue
        for k, child in reversed(items):
            if isinstance(k, str) and needle and needle in k.casefold() and not isinstance(child, (dict, list)):
                matches.append({"path": pointer(at + [k]), "preview": preview(child)})
                if len(matches) >= limit:
                    return {"matches": matches, "more": True}
                continue
            stack.append((at + [k], child))
    return {"matches": matches, "more": False}
