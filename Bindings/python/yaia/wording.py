"""How the runtime words things, said the same way on the Python side:
its "did you mean" suggestions, the names of JSON kinds and types, and short
descriptions of schemas (``help(scene)``)."""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Tuple

from .jsonvalues import compact, is_number

__all__ = ["nearest", "describe"]


# ---------------------------------------------------------------- suggestions


def _distance(a: bytes, b: bytes) -> int:
    """Edit distance counting a swap of neighbours as one edit (optimal string
    alignment), the distance the runtime's suggestions use."""
    if not a or not b:
        return max(len(a), len(b))
    older = [0] * (len(b) + 1)
    previous = list(range(len(b) + 1))
    current = [0] * (len(b) + 1)
    for i in range(1, len(a) + 1):
        current[0] = i
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], older[j - 2] + 1)
        older, previous, current = previous, current, older
    return previous[len(b)]


def nearest(word: str, candidates: Iterable[str]) -> Optional[str]:
    """The candidate closest to ``word``, when it is a plausible typo of it:
    at most a third of the word's length in edits (at least one), as the
    runtime's "did you mean" picks it (ties go to the smaller name)."""
    w = word.encode("utf-8")
    if not w or len(w) > 256:
        return None
    budget = max(1, len(w) // 3)
    best: Optional[Tuple[int, str]] = None
    for candidate in candidates:
        c = candidate.encode("utf-8")
        if abs(len(c) - len(w)) > budget:
            continue
        d = _distance(w, c)
        if d <= budget and (best is None or (d, candidate) < best):
            best = (d, candidate)
    return None if best is None else best[1]


def hint(word: str, candidates: Iterable[str]) -> str:
    """'; did you mean "NAME"?' when a candidate is near, as the runtime hints."""
    suggestion = nearest(word, candidates)
    return f'; did you mean "{suggestion}"?' if suggestion is not None else ""


# ---------------------------------------------------------------- kinds and types


def kind(value: Any) -> str:
    """The JSON kind of ``value``, with its article, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if is_number(value):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


# The runtime's words for the JSON types (docs/scene-documents.md).
TYPE_WORDS = {
    "null": "null",
    "boolean": "a boolean",
    "object": "an object",
    "array": "an array",
    "number": "a number",
    "integer": "a whole number",
    "string": "a string",
}


# ---------------------------------------------------------------- descriptions


def describe(schema: Any, depth: int = 0) -> str:
    """A short text for the values ``schema`` takes: ``string``,
    ``{title: string, id?: integer}``, ``[string]``, ``"a" | "b"``."""
    if schema is True or schema == {} or not isinstance(schema, dict):
        return "nothing" if schema is False else "any"
    if depth > 8:
        return "..."
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return ref.rsplit("/", 1)[-1]
    if "const" in schema:
        return compact(schema["const"])
    enum = schema.get("enum")
    if isinstance(enum, list):
        return " | ".join(compact(option) for option in enum)
    for keyword in ("oneOf", "anyOf"):
        options = schema.get(keyword)
        if isinstance(options, list) and options:
            return " | ".join(describe(option, depth + 1) for option in options)
    types = schema.get("type")
    names = [types] if isinstance(types, str) else [t for t in types if isinstance(t, str)] if isinstance(types, list) else []
    if not names:
        names = ["object"] if "properties" in schema else ["array"] if "items" in schema else []
    if not names:
        return "any"
    return " | ".join(_describe_type(name, schema, depth) for name in names)


def _describe_type(name: str, schema: Dict[str, Any], depth: int) -> str:
    if name == "object":
        properties = schema.get("properties")
        if not isinstance(properties, dict) or not properties:
            return "object"
        required = schema.get("required")
        required = required if isinstance(required, list) else []
        members = [
            f"{key}{'' if key in required else '?'}: {describe(member, depth + 1)}"
            for key, member in properties.items()
        ]
        return "{" + ", ".join(members) + "}"
    if name == "array":
        items = schema.get("items")
        return f"[{describe(items, depth + 1)}]" if isinstance(items, dict) and items else "array"
    bounds: List[str] = []
    if name == "string":
        low, high = schema.get("minLength"), schema.get("maxLength")
        if low is not None or high is not None:
            bounds.append(f"length {compact(low) if low is not None else 0}..{compact(high) if high is not None else ''}")
    if name in ("number", "integer"):
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None or high is not None:
            bounds.append(f"{compact(low) if low is not None else ''}..{compact(high) if high is not None else ''}")
    return f"{name} ({', '.join(bounds)})" if bounds else name
