"""Scene schemas on the Python side: a scene type's actions described for
people (``help(scene)``, ``scene.actions``).

A scene document declares its interface, and the runtime describes it as a
JSON Schema (draft 2020-12) with ``$defs`` ``args``, ``state``, ``action``,
``effect``, ``route`` and ``viewModel`` (``{"op": "schema"}``,
docs/scene-documents.md). Actions are checked against it by the runtime
alone, which refuses one with ``unknown_action`` (and its "did you mean")
or ``bad_payload``.
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional

from .wording import describe

__all__ = ["SceneSchema", "describe"]


class SceneSchema:
    """A scene type's schema, as ``{"op": "schema"}`` answers it.

    ``scene`` is the type's name, ``declared`` whether it declares its
    interface (a scene document does; Swift and pack scenes do not, and
    their schema takes any action), ``schema`` the JSON Schema.
    """

    def __init__(self, response: Mapping[str, Any]) -> None:
        self.scene: str = str(response.get("scene", ""))
        self.declared: bool = response.get("declared") is True
        schema = response.get("schema")
        self.schema: Dict[str, Any] = schema if isinstance(schema, dict) else {}
        defs = self.schema.get("$defs")
        self.defs: Dict[str, Any] = defs if isinstance(defs, dict) else {}
        self.actions = self._alternatives() if self.declared else None

    def _alternatives(self) -> Optional[Dict[str, Dict[str, Any]]]:
        """Action type -> its alternative in ``$defs/action``; None when the
        definition is not one constant type per alternative)."""
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

