"""Checking JSON values against the JSON Schemas the runtime describes
scenes with (``{"op": "schema"}``), with no third-party package."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from .jsonvalues import compact, escape, is_number, json_equal, lookup, member_name
from .wording import TYPE_WORDS, describe, hint, kind

__all__ = ["Validator", "Check", "Failure", "type_names"]

#: A failed check: (JSON Pointer of the offending value, message).
Failure = Tuple[str, str]

# At most this many $refs are followed on the way to one value, past which
# it is accepted: a definition that is only a $ref to itself would never end.
_MAX_REFS = 64


#: A compiled schema: check(value, at, refs) -> the first failure or None;
#: ``refs`` counts the $refs followed on the way to the value.
Check = Callable[[Any, str, int], Optional[Failure]]

_TYPES: Dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "number": is_number,
    # A whole number, whichever way it is written (1 and 1.0).
    "integer": lambda v: is_number(v) and (isinstance(v, int) or float(v).is_integer()),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, (list, tuple)),
    "null": lambda v: v is None,
}


def _accept(value: Any, at: str, refs: int) -> Optional[Failure]:
    return None


def type_names(schema: Mapping[str, Any]) -> List[str]:
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
        try:
            return lookup(self.root, ref[1:])
        except LookupError:
            return None

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
        names = type_names(schema)
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
                             lambda v: v if is_number(v) else None, "")
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
        expected = " or ".join(TYPE_WORDS[name] for name in names)
        whole = "integer" in names

        def refusal(value: Any, at: str) -> Failure:
            # A number where a whole one was expected is shown as it is.
            return at, f"must be {expected}, not {compact(value) if whole and is_number(value) else kind(value)}"

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
                return None if isinstance(value, str) and value == constant else (at, f"must be {compact(constant)}")

            return text

        def check(value: Any, at: str, refs: int) -> Optional[Failure]:
            return None if json_equal(value, constant) else (at, f"must be {compact(constant)}")

        return check

    @staticmethod
    def _enum(options: List[Any]) -> Check:
        def check(value: Any, at: str, refs: int) -> Optional[Failure]:
            if any(json_equal(value, option) for option in options):
                return None
            return at, "must be one of " + ", ".join(compact(option) for option in options)

        return check

    @staticmethod
    def _range(low: Any, high: Any, measure: Callable[[Any], Any], unit: str) -> Optional[Check]:
        """minLength/maxLength (measure: the length of a string, in code
        points as the runtime counts) or minimum/maximum (of a number); other
        values pass."""
        low = low if is_number(low) else None
        high = high if is_number(high) else None
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
        needed = [(name, "/" + escape(name)) for name in required]
        described = [(name, "/" + escape(name), self.compile(member)) for name, member in properties.items()]

        def check(value: Any, at: str, refs: int) -> Optional[Failure]:
            if not isinstance(value, dict):
                return None
            members = value
            for key in value:
                if type(key) is not str:
                    members = {member_name(k): v for k, v in value.items()}
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
                            return f"{at}/{escape(name)}", "is not allowed" + hint(name, properties)
                        failure = extra_check(member, f"{at}/{escape(name)}", refs)
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
        return compact(value)
    return f"{compact(value)} {noun}{'' if value == 1 else 's'} long"


def _reject(value: Any, at: str, refs: int) -> Optional[Failure]:
    return at, "is not allowed"


def _no_member(value: Any, at: str, refs: int) -> Optional[Failure]:
    return at, "is not allowed"


def _type_fits(value: Any, schema: Mapping[str, Any]) -> bool:
    names = type_names(schema)
    if names:
        return any(_TYPES.get(name, lambda v: True)(value) for name in names)
    return "const" not in schema and "enum" not in schema
