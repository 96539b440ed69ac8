"""Short descriptions of the JSON Schemas a scene declares, for people
(``help(scene)``). Checking values against them is the runtime's: it
refuses an action with the error and the "did you mean" it words."""

from __future__ import annotations

from typing import Any, Dict, List

from .jsonvalues import compact

__all__ = ["describe"]


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
