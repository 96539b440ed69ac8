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

from typing import Any, Dict, Mapping, Optional

from .errors import YaiaError
from .jsonvalues import compact, json_equal
from .validator import Check, Validator, type_names
from .wording import TYPE_WORDS, describe, hint, nearest

__all__ = ["SceneSchema", "Validator", "describe", "json_equal", "nearest"]


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
            return _refusal("unknown_action", f'unknown action type "{kind}"' + hint(kind, self.actions), "/action/type")
        failure = self._checks[kind](action, "/action", 0)
        if failure is None:
            return None
        # In the runtime's words: "rename's payload at /title must be a string, not a number".
        at, problem = failure
        if at == "/action/payload" and "payload" not in action:
            payload = self.payloads().get(kind) or {}
            names = type_names(payload)
            expected = " or ".join(TYPE_WORDS.get(name, name) for name in names) or "any value"
            if isinstance(payload.get("enum"), list):
                expected = "one of " + ", ".join(compact(option) for option in payload["enum"])
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
