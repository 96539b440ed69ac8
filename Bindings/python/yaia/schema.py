"""Scene schemas on the Python side: checking actions before they are sent,
and describing a scene type's actions for people (``help(scene)``).

A scene document declares its interface, and the runtime describes it as a
JSON Schema (draft 2020-12) with ``$defs`` ``args``, ``state``, ``action``,
``effect``, ``route`` and ``viewModel`` (``{"op": "schema"}``,
docs/scene-documents.md). :class:`Validator` checks values against exactly
the subset of JSON Schema those schemas use, with no third-party package.
It leans towards accepting: the runtime checks every action anyway, so the
binding refuses only what the runtime would refuse too.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

from .errors import YaiaError

__all__ = ["SceneSchema", "Validator", "nearest"]

#: A failed check: (JSON Pointer of the offending value, message).
Failure = Tuple[str, str]

# $ref chains that do not descend into the value stop here (a schema whose
# definition refers to itself would otherwise never end), and accept.
_MAX_REFS = 64


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


# ---------------------------------------------------------------- JSON values


def _token(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _key(key: Any) -> str:
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


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_type(value: Any, name: str) -> bool:
    if name == "string":
        return isinstance(value, str)
    if name == "number":
        return _is_number(value)
    if name == "integer":
        # A whole number, whichever way it is written (1 and 1.0).
        return _is_number(value) and (isinstance(value, int) or float(value).is_integer())
    if name == "boolean":
        return isinstance(value, bool)
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, (list, tuple))
    if name == "null":
        return value is None
    return True  # a type this binding does not know: the runtime decides


def _kind(value: Any) -> str:
    """The JSON kind of ``value``, with its article, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if _is_number(value):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def _with_article(name: str) -> str:
    if name == "null":
        return "null"
    return ("an " if name[:1] in "aeiou" else "a ") + name


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values: 1 == 1.0, but true is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_number(a) or _is_number(b):
        return _is_number(a) and _is_number(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        x = {_key(k): v for k, v in a.items()}
        y = {_key(k): v for k, v in b.items()}
        return x.keys() == y.keys() and all(json_equal(x[k], y[k]) for k in x)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _text(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    except (TypeError, ValueError):
        return repr(value)


# ---------------------------------------------------------------- validation


class Validator:
    """Checks JSON values against the schemas of one JSON Schema document.

    ``root`` is the document that ``$ref``s of the form "#/$defs/NAME" (or
    any "#/..." pointer) resolve in. The keywords understood are ``type``
    (a name or a list), ``properties``, ``required``,
    ``additionalProperties`` (a boolean or a schema), ``items``, ``enum``,
    ``const``, ``minLength`` and ``maxLength`` (in code points),
    ``minimum``, ``maximum``, ``anyOf``, ``oneOf`` and ``$ref``; others
    (``description``, ``default``, ``$schema``...) are ignored. ``oneOf``
    is checked as ``anyOf``: where alternatives overlap, a value matching
    two is still taken, since the runtime takes it.
    """

    def __init__(self, root: Any) -> None:
        self.root = root

    def check(self, value: Any, schema: Any, at: str = "") -> Optional[Failure]:
        """The first way ``value`` (found at the pointer ``at``) fails
        ``schema``, or None when it matches."""
        return self._check(value, schema, at, 0)

    def matches(self, value: Any, schema: Any) -> bool:
        return self._check(value, schema, "", 0) is None

    def resolve(self, ref: str) -> Any:
        """The schema a "#/..." reference names, or None."""
        if not ref.startswith("#"):
            return None
        node = self.root
        for token in ref[1:].split("/")[1:]:
            token = token.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                return None
        return node

    def _check(self, value: Any, schema: Any, at: str, refs: int) -> Optional[Failure]:
        if schema is True or not isinstance(schema, dict):
            return None  # true, and anything that is no schema, accept
        ref = schema.get("$ref")
        if isinstance(ref, str) and refs < _MAX_REFS:
            target = self.resolve(ref)
            if target is not None:
                failure = self._check(value, target, at, refs + 1)
                if failure is not None:
                    return failure
        types = schema.get("type")
        if types is not None:
            names = [types] if isinstance(types, str) else [t for t in types if isinstance(t, str)] if isinstance(types, list) else []
            if names and not any(_is_type(value, name) for name in names):
                expected = " or ".join(_with_article(name) for name in names)
                return at, f"must be {expected}, not {_kind(value)}"
        if "const" in schema and not json_equal(value, schema["const"]):
            return at, f"must be {_text(schema['const'])}"
        enum = schema.get("enum")
        if isinstance(enum, list) and not any(json_equal(value, option) for option in enum):
            return at, "must be one of " + ", ".join(_text(option) for option in enum)
        if isinstance(value, str):
            failure = self._check_length(value, schema, at)
            if failure is not None:
                return failure
        if _is_number(value):
            low, high = schema.get("minimum"), schema.get("maximum")
            if _is_number(low) and value < low:
                return at, f"must be at least {_text(low)}"
            if _is_number(high) and value > high:
                return at, f"must be at most {_text(high)}"
        if isinstance(value, dict):
            failure = self._check_object(value, schema, at, refs)
            if failure is not None:
                return failure
        if isinstance(value, (list, tuple)):
            items = schema.get("items")
            if isinstance(items, (dict, bool)):
                for index, element in enumerate(value):
                    failure = self._check(element, items, f"{at}/{index}", refs)
                    if failure is not None:
                        return failure
        for keyword in ("anyOf", "oneOf"):
            options = schema.get(keyword)
            if isinstance(options, list) and options:
                failure = self._check_alternatives(value, options, at, refs)
                if failure is not None:
                    return failure
        return None

    @staticmethod
    def _check_length(value: str, schema: Dict[str, Any], at: str) -> Optional[Failure]:
        low: Any = schema.get("minLength")
        high: Any = schema.get("maxLength")
        length = len(value)  # code points, as the runtime counts
        if _is_number(low) and length < low:
            return at, f"must have at least {_text(low)} character{'' if low == 1 else 's'}, not {length}"
        if _is_number(high) and length > high:
            return at, f"must have at most {_text(high)} character{'' if high == 1 else 's'}, not {length}"
        return None

    def _check_object(self, value: Dict[Any, Any], schema: Dict[str, Any], at: str, refs: int) -> Optional[Failure]:
        members = value if all(isinstance(k, str) for k in value) else {_key(k): v for k, v in value.items()}
        properties = schema.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        required = schema.get("required")
        required = [r for r in required if isinstance(r, str)] if isinstance(required, list) else []
        # Member by member, in the schema's order; then required members it does not describe.
        for name, member_schema in properties.items():
            if name in members:
                failure = self._check(members[name], member_schema, f"{at}/{_token(name)}", refs)
                if failure is not None:
                    return failure
            elif name in required:
                return f"{at}/{_token(name)}", "is missing"
        for name in required:
            if name not in members and name not in properties:
                return f"{at}/{_token(name)}", "is missing"
        extra = schema.get("additionalProperties")
        if extra is not None and extra is not True:
            for name, member in members.items():
                if name in properties:
                    continue
                if extra is False:
                    return f"{at}/{_token(name)}", "is not allowed (no such member)"
                failure = self._check(member, extra, f"{at}/{_token(name)}", refs)
                if failure is not None:
                    return failure
        return None

    def _check_alternatives(self, value: Any, options: List[Any], at: str, refs: int) -> Optional[Failure]:
        failures = []
        for option in options:
            failure = self._check(value, option, at, refs)
            if failure is None:
                return None
            failures.append(failure)
        # When only one alternative is of the value's type, its own complaint says most.
        typed = [f for f, o in zip(failures, options) if not isinstance(o, dict) or self._type_fits(value, o)]
        if len(typed) == 1:
            return typed[0]
        return at, "must be " + " or ".join(describe(o, self) for o in options)

    def _type_fits(self, value: Any, schema: Dict[str, Any]) -> bool:
        types = schema.get("type")
        if isinstance(types, str):
            return _is_type(value, types)
        if isinstance(types, list):
            return any(_is_type(value, t) for t in types if isinstance(t, str))
        return "const" not in schema and "enum" not in schema


# ---------------------------------------------------------------- descriptions


def describe(schema: Any, validator: Optional[Validator] = None, depth: int = 0) -> str:
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
        return _text(schema["const"])
    enum = schema.get("enum")
    if isinstance(enum, list):
        return " | ".join(_text(option) for option in enum)
    for keyword in ("oneOf", "anyOf"):
        options = schema.get(keyword)
        if isinstance(options, list) and options:
            return " | ".join(describe(option, validator, depth + 1) for option in options)
    types = schema.get("type")
    names = [types] if isinstance(types, str) else [t for t in types if isinstance(t, str)] if isinstance(types, list) else []
    if not names:
        names = ["object"] if "properties" in schema else ["array"] if "items" in schema else []
    if not names:
        return "any"
    return " | ".join(_describe_type(name, schema, validator, depth) for name in names)


def _describe_type(name: str, schema: Dict[str, Any], validator: Optional[Validator], depth: int) -> str:
    if name == "object":
        properties = schema.get("properties")
        if not isinstance(properties, dict) or not properties:
            return "object"
        required = schema.get("required")
        required = required if isinstance(required, list) else []
        members = [
            f"{key}{'' if key in required else '?'}: {describe(member, validator, depth + 1)}"
            for key, member in properties.items()
        ]
        return "{" + ", ".join(members) + "}"
    if name == "array":
        items = schema.get("items")
        return f"[{describe(items, validator, depth + 1)}]" if isinstance(items, dict) and items else "array"
    bounds: List[str] = []
    if name == "string":
        low, high = schema.get("minLength"), schema.get("maxLength")
        if low is not None or high is not None:
            bounds.append(f"length {_text(low) if low is not None else 0}..{_text(high) if high is not None else ''}")
    if name in ("number", "integer"):
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None or high is not None:
            bounds.append(f"{_text(low) if low is not None else ''}..{_text(high) if high is not None else ''}")
    return f"{name} ({', '.join(bounds)})" if bounds else name


# ---------------------------------------------------------------- a scene's schema


class SceneSchema:
    """A scene type's schema, as ``{"op": "schema"}`` answers it, ready to
    check actions the way the runtime will.

    ``scene`` is the type's name, ``declared`` whether it declares its
    interface (a scene document does; Swift and pack scenes do not, and
    their schema takes any action), ``schema`` the JSON Schema.
    """

    def __init__(self, response: Mapping[str, Any]) -> None:
        self.scene: str = str(response.get("scene", ""))
        self.declared: bool = response.get("declared") is True
        schema = response.get("schema")
        self.schema: Dict[str, Any] = schema if isinstance(schema, dict) else {}
        self.validator = Validator(self.schema)
        defs = self.schema.get("$defs")
        self.defs: Dict[str, Any] = defs if isinstance(defs, dict) else {}
        self.actions = self._alternatives() if self.declared else None

    def _alternatives(self) -> Optional[Dict[str, Dict[str, Any]]]:
        """Action type -> its alternative in ``$defs/action``; None when the
        definition is not one constant type per alternative (then this
        binding cannot tell an unknown type, and leaves it to the runtime)."""
        action = self.defs.get("action")
        options = action.get("oneOf", action.get("anyOf")) if isinstance(action, dict) else None
        if not isinstance(options, list):
            return None
        alternatives: Dict[str, Dict[str, Any]] = {}
        for option in options:
            properties = option.get("properties") if isinstance(option, dict) else None
            kind = properties.get("type") if isinstance(properties, dict) else None
            name = kind.get("const") if isinstance(kind, dict) else None
            if not isinstance(name, str):
                return None
            alternatives[name] = option
        return alternatives

    def payloads(self) -> Dict[str, Any]:
        """Action type -> the JSON Schema of its payload (``{}``: any, or
        none); empty when the scene declares nothing."""
        result: Dict[str, Any] = {}
        for name, option in (self.actions or {}).items():
            properties = option.get("properties")
            payload = properties.get("payload", {}) if isinstance(properties, dict) else {}
            result[name] = payload
        return result

    def payload_required(self, name: str) -> bool:
        option = (self.actions or {}).get(name)
        required = option.get("required") if option is not None else None
        return isinstance(required, list) and "payload" in required

    def check(self, action: Mapping[str, Any]) -> Optional[YaiaError]:
        """The error the runtime would answer a send of ``action`` with
        (``unknown_action`` at "/action/type", ``bad_payload`` at
        "/action/payload/..."), or None when this schema cannot fault it."""
        if self.actions is None:
            return None
        kind = action.get("type")
        if not isinstance(kind, str):
            return None  # not an action at all: the runtime says what is wrong
        option = self.actions.get(kind)
        if option is None:
            suggestion = nearest(kind, self.actions)
            hint = f'; did you mean "{suggestion}"?' if suggestion is not None else ""
            return _refusal("unknown_action", f'unknown action type "{kind}"{hint}', "/action/type")
        failure = self.validator.check(action, option, "/action")
        if failure is None:
            return None
        at, problem = failure
        if at == "/action/payload" and "payload" not in action:
            payload = self.payloads().get(kind)
            return _refusal("bad_payload", f"{kind} needs a payload: {describe(payload, self.validator)}", at)
        return _refusal("bad_payload", f"{kind}: {_subject(at)} {problem}", at)

    def doc(self) -> str:
        """The scene type described for people: its actions and their
        payloads, then its view model's fields (for ``help(scene)``)."""
        lines = [f'A scene of type "{self.scene}", which declares its interface (a scene document).', ""]
        lines.append('Actions, sent with scene.send("TYPE", PAYLOAD); "payload?" may be left out:')
        lines.append("")
        for name, option in (self.actions or {}).items():
            payload = self.payloads()[name]
            optional = "" if self.payload_required(name) else "?"
            lines.append(f"    {name}(payload{optional}: {describe(payload, self.validator)})")
            for text in (option.get("description"), payload.get("description") if isinstance(payload, dict) else None):
                if isinstance(text, str) and text:
                    lines.append(f"        {text}")
        view = self.defs.get("viewModel")
        fields = view.get("properties") if isinstance(view, dict) else None
        if isinstance(fields, dict) and fields:
            lines += ["", "View model fields:", ""]
            lines += [f"    {name}: {describe(field, self.validator)}" for name, field in fields.items()]
        lines += ["", "scene.actions maps each action type to its payload's JSON Schema;",
                  "runtime.schema(scene.name) is the whole schema."]
        return "\n".join(lines)


def _subject(at: str) -> str:
    """Names the part of an action a pointer points at, for messages."""
    if at == "/action/payload":
        return "the payload"
    if at.startswith("/action/payload/"):
        return "the payload at " + at[len("/action/payload"):]
    return at[len("/action"):] or "the action"


def _refusal(code: str, message: str, at: str) -> YaiaError:
    """The exception for a refusal, shaped as the runtime's error envelope."""
    return YaiaError(code, message, at, {"ok": False, "error": {"code": code, "message": message, "at": at}})
