"""JSON values on the Python side, in one place: equality as JSON has it,
JSON Pointers (RFC 6901), values as text, and differences by pointer.

The schema checks (:mod:`yaia.schema`) and :mod:`yaia.testing` both use
these, so that the binding compares, points and words values one way.
"""

from __future__ import annotations

import enum
import json
import math
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

__all__ = ["ABSENT", "json_equal", "json_diff", "render"]


class _Absent(enum.Enum):
    ABSENT = 0

    def __repr__(self) -> str:
        return "ABSENT"


#: As an expected value: the member must not exist (in an exhaustive change,
#: the step removed it): ``state={"error": ABSENT}``, ``state={"/items/2": ABSENT}``.
ABSENT = _Absent.ABSENT

#: Differences beyond this many are summarized in one line.
MAX_DIFF_LINES = 40
#: Rendered values are shortened to this many characters.
MAX_VALUE_LENGTH = 240


# ---------------------------------------------------------------- equality


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def member_name(key: Any) -> str:
    """An object member's name as JSON text has it (the encoder turns
    numbers, booleans and None used as keys into strings)."""
    if isinstance(key, str):
        return key
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, float):
        return float.__repr__(key)
    return str(int(key))


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values: 1 == 1.0, but true is not 1; member order
    does not count."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) or is_number(b):
        return is_number(a) and is_number(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        x = {member_name(k): v for k, v in a.items()}
        y = {member_name(k): v for k, v in b.items()}
        return x.keys() == y.keys() and all(json_equal(x[k], y[k]) for k in x)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and bool(a == b)


def canonical(value: Any, at: str = "", absent: bool = False) -> Any:
    """A JSON value from Python's: tuples become lists; anything JSON cannot
    hold raises TypeError or ValueError (naming where). ``absent``: ABSENT
    may stand for a whole value."""
    if value is ABSENT:
        if absent:
            return value
        raise TypeError(f"ABSENT is not a JSON value (at {at or '(root)'})")
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ValueError(f"{value} is not a JSON number (at {at or '(root)'})")
        return value
    if isinstance(value, Mapping):
        out: Dict[str, Any] = {}
        for key, member in value.items():
            if not isinstance(key, str):
                raise TypeError(f"a JSON object's keys are strings, not {type(key).__name__} (at {at or '(root)'})")
            out[key] = canonical(member, append(at, key))
        return out
    if isinstance(value, (list, tuple)):
        return [canonical(v, append(at, i)) for i, v in enumerate(value)]
    raise TypeError(f"{type(value).__name__} is not a JSON value (at {at or '(root)'})")


# ---------------------------------------------------------------- text


def compact(value: Any) -> str:
    """Compact JSON text, as the runtime writes values in messages."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return repr(value)


def render(value: Any, limit: int = MAX_VALUE_LENGTH) -> str:
    """``value`` as compact JSON text, members sorted, shortened to ``limit`` characters."""
    if value is ABSENT:
        return "no member"
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


# ---------------------------------------------------------------- pointers


def escape(token: str) -> str:
    """A member name as a JSON Pointer token."""
    return token.replace("~", "~0").replace("/", "~1")


def append(pointer: str, token: Union[str, int]) -> str:
    return pointer + "/" + escape(str(token))


def tokens(pointer: str) -> List[str]:
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]


def index(token: str) -> Optional[int]:
    """An array index as RFC 6901 spells it ("0", "12"; not "01" or "-1")."""
    if token.isdigit() and token.isascii() and (token == "0" or not token.startswith("0")):
        return int(token)
    return None


def _walk(document: Any, path: List[str]) -> Tuple[Any, str]:
    """The value ``path`` leads to, and its pointer; raises LookupError
    naming the first step that is not there."""
    node = document
    at = ""
    for token in path:
        i = index(token)
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and i is not None and i < len(node):
            node = node[i]
        else:
            raise LookupError(f"there is no {append(at, token)}")
        at = append(at, token)
    return node, at


def lookup(document: Any, pointer: str) -> Any:
    """The value at ``pointer`` in ``document``; raises LookupError naming
    what is missing."""
    return _walk(document, tokens(pointer))[0]


def set_at(document: Any, pointer: str, value: Any) -> Any:
    """``document`` with ``value`` at ``pointer`` (changed in place where it
    can be; the root is replaced). ABSENT removes the member or element; "-"
    or the length of an array appends. Raises LookupError naming what is
    missing."""
    path = tokens(pointer)
    if not path:
        return None if value is ABSENT else value
    parent, at = _walk(document, path[:-1])
    last = path[-1]
    if isinstance(parent, dict):
        if value is ABSENT:
            parent.pop(last, None)
        else:
            parent[last] = value
    elif isinstance(parent, list):
        i = len(parent) if last == "-" else index(last)
        if i is not None and i == len(parent):
            if value is not ABSENT:
                parent.append(value)
        elif i is not None and i < len(parent):
            if value is ABSENT:
                del parent[i]
            else:
                parent[i] = value
        else:
            raise LookupError(f"{at or '(root)'} has no element {last} (it has {len(parent)})")
    else:
        raise LookupError(f"{at or '(root)'} is {render(parent, 60)}, neither an object nor an array")
    return document


# ---------------------------------------------------------------- differences


def json_diff(expected: Any, actual: Any, *, max_lines: int = MAX_DIFF_LINES) -> List[str]:
    """Where two JSON values differ: one line per differing leaf, named by its
    JSON Pointer, ``/email: expected "a@b.c", got ""``. Objects are compared
    member by member and arrays element by element; a missing member reads
    "no member", a missing element "no element". Empty when they are equal."""
    out: List[str] = []
    omitted = [0]

    def add(pointer: str, want: str, got: str) -> None:
        if len(out) < max_lines:
            out.append(f"{pointer or '(root)'}: expected {want}, got {got}")
        else:
            omitted[0] += 1

    def walk(e: Any, a: Any, at: str) -> None:
        if isinstance(e, dict) and isinstance(a, dict):
            for key in sorted(set(e) | set(a)):
                if key not in a:
                    add(append(at, key), render(e[key]), "no member")
                elif key not in e:
                    add(append(at, key), "no member", render(a[key]))
                else:
                    walk(e[key], a[key], append(at, key))
        elif isinstance(e, list) and isinstance(a, list):
            for i in range(max(len(e), len(a))):
                if i >= len(a):
                    add(append(at, i), render(e[i]), "no element")
                elif i >= len(e):
                    add(append(at, i), "no element", render(a[i]))
                else:
                    walk(e[i], a[i], append(at, i))
        elif not json_equal(e, a):
            add(at, render(e), render(a))

    walk(expected, actual, "")
    if omitted[0]:
        out.append(f"… and {omitted[0]} more difference{'' if omitted[0] == 1 else 's'}")
    return out
