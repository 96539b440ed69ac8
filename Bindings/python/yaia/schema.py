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
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Tuple

from .errors import YaiaError

__all__ = ["SceneSchema", "Validator", "nearest"]

#: A failed check: (JSON Pointer of the offending value, message).
Failure = Tuple[str, str]

# At most this many $refs are followed on the way to one value, past which
# it is accepted: a definition that is only a $ref to itself would never end.
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


# The runtime's words for the JSON types (docs/scene-documents.md).
_TYPE_WORDS = {
    "null": "null",
    "boolean": "a boolean",
    "object": "an object",
    "array": "an array",
    "number": "a number",
    "integer": "a whole number",
    "string": "a string",
}


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
    """Compact JSON text, as the runtime writes values in messages."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return repr(value)


# ---------------------------------------------------------------- validation


#: A compiled schema: check(value, at, refs) -> the first failure or None;
#: ``refs`` counts the $refs followed on the way to the value.
Check = Callable[[Any, str, int], Optional[Failure]]

_TYPES: Dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "number": _is_number,
    # A whole number, whichever way it is written (1 and 1.0).
    "integer": lambda v: _is_number(v) and (isinstance(v, int) or float(v).is_integer()),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, (list, tuple)),
    "null": lambda v: v is None,
}


def _accept(value: Any, at: str, refs: int) -> Optional[Failure]:
    return None


def _type_names(schema: Mapping[str, Any]) -> List[str]:
    types = schema.get("type")
    if isinstance(types, str):
        return [types]
    return [t for t in types if isinstance(t, str)] if isinstance(types, list) else []


def _sequence(checks: List[Check]) -> Check:
    if not checks:
        return _accept
    if len(checks) == 1:
        return checks[0]

    def check(value: Any, at: str, refs: int) -> Optional[Failure]:
        for part in checks:
            failure = part(value, at, refs)
            if failure is not None:
                return failure
        return None

    return check


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

    Each schema is compiled once into a chain of checks of just the
    keywords it has (sends check actions on the hot path); the root and
    its schemas must not change afterwards.
    """

    def __init__(self, root: Any) -> None:
        self.root = root
        self._compiled: Dict[int, Check] = {}
        self._keep: List[Any] = []  # the schemas compiled, so that their ids stay theirs

    def check(self, value: Any, schema: Any, at: str = "") -> Optional[Failure]:
        """The first way ``value`` (found at the pointer ``at``) fails
        ``schema``, or None when it matches. Messages say what the value at
        ``at`` must be ("must be a string, not a number", "is missing")."""
        return self.compile(schema)(value, at, 0)

    def matches(self, value: Any, schema: Any) -> bool:
        return self.compile(schema)(value, "", 0) is None

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

    def compile(self, schema: Any) -> Check:
        """The check of ``schema``, made the first time it is asked for."""
        found = self._compiled.get(id(schema))
        if found is not None:
            return found
        if not isinstance(schema, dict):
            return _accept  # true, and anything that is no schema, accept
        self._keep.append(schema)
        checks: List[Check] = []
        ref = schema.get("$ref")
        if isinstance(ref, str):
            checks.append(self._ref(ref))
        names = _type_names(schema)
        if names:
            checks.append(self._type(names))
        if "const" in schema:
            checks.append(self._const(schema["const"]))
        if isinstance(schema.get("enum"), list):
            checks.append(self._enum(schema["enum"]))
        length = self._range(schema.get("minLength"), schema.get("maxLength"),
                             lambda v: len(v) if isinstance(v, str) else None, "character")
        if length is not None:
            checks.append(length)
        bounds = self._range(schema.get("minimum"), schema.get("maximum"),
                             lambda v: v if _is_number(v) else None, "")
        if bounds is not None:
            checks.append(bounds)
        members = self._object(schema)
        if members is not None:
            checks.append(members)
        items = schema.get("items")
        if isinstance(items, (dict, bool)) and items is not True:
            checks.append(self._items(self.compile(items) if isinstance(items, dict) else _reject))
        for keyword in ("anyOf", "oneOf"):
            options = schema.get(keyword)
            if isinstance(options, list) and options:
                checks.append(self._alternatives(options))
        check = _sequence(checks)
        self._compiled[id(schema)] = check
        return check

    def _ref(self, ref: str) -> Check:
        # Compiled when first followed: a definition may refer to itself.
        resolved: List[Check] = []

        def check(value: Any, at: str, refs: int) -> Optional[Failure]:
            if refs >= _MAX_REFS:
                return None
            if not resolved:
                target = self.resolve(ref)
                resolved.append(_accept if target is None else self.compile(target))
            return resolved[0](value, at, refs + 1)

        return check

    @staticmethod
    def _type(names: List[str]) -> Check:
        known = [_TYPES[name] for name in names if name in _TYPES]
        if len(known) < len(names):
            return _accept  # a type this binding does not know: the runtime decides
        expected = " or ".join(_TYPE_WORDS[name] for name in names)
        whole = "integer" in names

        def refusal(value: Any, at: str) -> Failure:
            # A number where a whole one was expected is shown as it is.
            return at, f"must be {expected}, not {_text(value) if whole and _is_number(value) else _kind(value)}"

        if len(known) == 1:
            fits = known[0]

            def one(value: Any, at: str, refs: int) -> Optional[Failure]:
                return None if fits(value) else refusal(value, at)

            return one

        def check(value: Any, at: str, refs: int) -> Optional[Failure]:
            return None if any(fits(value) for fits in known) else refusal(value, at)

        return check

    @staticmethod
    def _const(constant: Any) -> Check:
        if isinstance(constant, str):

            def text(value: Any, at: str, refs: int) -> Optional[Failure]:
                return None if isinstance(value, str) and value == constant else (at, f"must be {_text(constant)}")

            return text

        def check(value: Any, at: str, refs: int) -> Optional[Failure]:
            return None if json_equal(value, constant) else (at, f"must be {_text(constant)}")

        return check

    @staticmethod
    def _enum(options: List[Any]) -> Check:
        def check(value: Any, at: str, refs: int) -> Optional[Failure]:
            if any(json_equal(value, option) for option in options):
                return None
            return at, "must be one of " + ", ".join(_text(option) for option in options)

        return check

    @staticmethod
    def _range(low: Any, high: Any, measure: Callable[[Any], Any], unit: str) -> Optional[Check]:
        """minLength/maxLength (measure: the length of a string, in code
        points as the runtime counts) or minimum/maximum (of a number); other
        values pass."""
        low = low if _is_number(low) else None
        high = high if _is_number(high) else None
        if low is None and high is None:
            return None

        def check(value: Any, at: str, refs: int) -> Optional[Failure]:
            measured = measure(value)
            if measured is None:
                return None
            if low is not None and measured < low:
                return at, "must be at least " + _measured(low, unit)
            if high is not None and measured > high:
                return at, "must be at most " + _measured(high, unit)
            return None

        return check

    def _object(self, schema: Mapping[str, Any]) -> Optional[Check]:
        properties = schema.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        required = schema.get("required")
        required = [r for r in required if isinstance(r, str)] if isinstance(required, list) else []
        extra = schema.get("additionalProperties")
        extra_check: Optional[Check] = None
        if isinstance(extra, dict):
            extra_check = self.compile(extra)
        elif extra is False:
            extra_check = _no_member
        if not properties and not required and extra_check is None:
            return None
        # In the runtime's order: missing members, then members one by one, then members not allowed.
        needed = [(name, "/" + _token(name)) for name in required]
        described = [(name, "/" + _token(name), self.compile(member)) for name, member in properties.items()]

        def check(value: Any, at: str, refs: int) -> Optional[Failure]:
            if not isinstance(value, dict):
                return None
            members = value
            for key in value:
                if type(key) is not str:
                    members = {_key(k): v for k, v in value.items()}
                    break
            for name, token in needed:
                if name not in members:
                    return at + token, "is missing"
            for name, token, member_check in described:
                if name in members:
                    failure = member_check(members[name], at + token, refs)
                    if failure is not None:
                        return failure
            if extra_check is not None:
                for name, member in members.items():
                    if name not in properties:
                        if extra_check is _no_member:
                            return f"{at}/{_token(name)}", "is not allowed" + _hint(name, properties)
                        failure = extra_check(member, f"{at}/{_token(name)}", refs)
                        if failure is not None:
                            return failure
            return None

        return check

    @staticmethod
    def _items(element: Check) -> Check:
        def check(value: Any, at: str, refs: int) -> Optional[Failure]:
            if not isinstance(value, (list, tuple)):
                return None
            for index, item in enumerate(value):
                failure = element(item, f"{at}/{index}", refs)
                if failure is not None:
                    return failure
            return None

        return check

    def _alternatives(self, options: List[Any]) -> Check:
        compiled = [self.compile(option) for option in options]
        wording = "must be " + " or ".join(describe(option) for option in options)

        def check(value: Any, at: str, refs: int) -> Optional[Failure]:
            failures = []
            for option in compiled:
                failure = option(value, at, refs)
                if failure is None:
                    return None
                failures.append(failure)
            # When only one alternative is of the value's type, its own complaint says most.
            typed = [f for f, o in zip(failures, options) if not isinstance(o, dict) or _type_fits(value, o)]
            return typed[0] if len(typed) == 1 else (at, wording)

        return check


def _measured(value: Any, noun: str) -> str:
    """A bound as the runtime words it: "3", "1 character long", "5 characters long"."""
    if not noun:
        return _text(value)
    return f"{_text(value)} {noun}{'' if value == 1 else 's'} long"


def _reject(value: Any, at: str, refs: int) -> Optional[Failure]:
    return at, "is not allowed"


def _no_member(value: Any, at: str, refs: int) -> Optional[Failure]:
    return at, "is not allowed"


def _hint(word: str, candidates: Iterable[str]) -> str:
    """'; did you mean "NAME"?' when a candidate is near, as the runtime hints."""
    suggestion = nearest(word, candidates)
    return f'; did you mean "{suggestion}"?' if suggestion is not None else ""


def _type_fits(value: Any, schema: Mapping[str, Any]) -> bool:
    names = _type_names(schema)
    if names:
        return any(_TYPES.get(name, lambda v: True)(value) for name in names)
    return "const" not in schema and "enum" not in schema


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
        return _text(schema["const"])
    enum = schema.get("enum")
    if isinstance(enum, list):
        return " | ".join(_text(option) for option in enum)
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
        # What an action of each type is checked against: its alternative
        # but for "type", which finding the alternative has checked already.
        self._checks: Dict[str, Check] = {}
        for name, option in (self.actions or {}).items():
            rest = dict(option)
            properties = option.get("properties")
            if isinstance(properties, dict):
                rest["properties"] = {key: value for key, value in properties.items() if key != "type"}
            self._checks[name] = self.validator.compile(rest)

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
            return _refusal("unknown_action", f'unknown action type "{kind}"' + _hint(kind, self.actions), "/action/type")
        failure = self._checks[kind](action, "/action", 0)
        if failure is None:
            return None
        # In the runtime's words: "rename's payload at /title must be a string, not a number".
        at, problem = failure
        if at == "/action/payload" and "payload" not in action:
            payload = self.payloads().get(kind) or {}
            names = _type_names(payload)
            expected = " or ".join(_TYPE_WORDS.get(name, name) for name in names) or "any value"
            if isinstance(payload.get("enum"), list):
                expected = "one of " + ", ".join(_text(option) for option in payload["enum"])
            problem = f"is missing: it must be {expected}"
        if at == "/action/payload":
            subject = f"{kind}'s payload"
        elif at.startswith("/action/payload/"):
            subject = f"{kind}'s payload at {at[len('/action/payload'):]}"
        else:
            subject = f"{kind}'s {at[len('/action/'):]}"
        return _refusal("bad_payload", f"{subject} {problem}", at)

    def doc(self) -> str:
        """The scene type described for people: its actions and their
        payloads, then its view model's fields (for ``help(scene)``)."""
        lines = [f'A scene of type "{self.scene}", which declares its interface (a scene document).', ""]
        lines.append('Actions, sent with scene.send("TYPE", PAYLOAD); "payload?" may be left out:')
        lines.append("")
        for name, option in (self.actions or {}).items():
            payload = self.payloads()[name]
            optional = "" if self.payload_required(name) else "?"
            lines.append(f"    {name}(payload{optional}: {describe(payload)})")
            for text in (option.get("description"), payload.get("description") if isinstance(payload, dict) else None):
                if isinstance(text, str) and text:
                    lines.append(f"        {text}")
        view = self.defs.get("viewModel")
        fields = view.get("properties") if isinstance(view, dict) else None
        if isinstance(fields, dict) and fields:
            lines += ["", "View model fields:", ""]
            lines += [f"    {name}: {describe(field)}" for name, field in fields.items()]
        lines += ["", "scene.actions maps each action type to its payload's JSON Schema;",
                  "runtime.schema(scene.name) is the whole schema."]
        return "\n".join(lines)


def _refusal(code: str, message: str, at: str) -> YaiaError:
    """The exception for a refusal, shaped as the runtime's error envelope."""
    return YaiaError(code, message, at, {"ok": False, "error": {"code": code, "message": message, "at": at}})
