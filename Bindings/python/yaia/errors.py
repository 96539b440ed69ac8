"""Exceptions of the yaia package."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

__all__ = [
    "YaiaError",
    "PluginError",
    "LibraryNotFound",
    "AbiMismatch",
    "ServiceError",
]


class YaiaError(Exception):
    """An error envelope from the library: ``{"ok": false, "error": {...}}``.

    ``code`` is the stable code (see yaia.h), ``message`` is for people,
    ``at`` is the JSON Pointer into the request when the fault lies there,
    and ``envelope`` is the whole response (it carries the request's "tag").
    ``detail`` is the service's own error value for "service_failed" (None
    when the envelope has none). ``problems`` lists every problem of a
    refused scene document ("bad_document"): ``[{"code", "message", "at"},
    ...]``, ``at`` pointing into the document (None for other errors).
    """

    def __init__(
        self,
        code: str,
        message: str,
        at: Optional[str] = None,
        envelope: Optional[Dict[str, Any]] = None,
    ) -> None:
        super().__init__(code, message, at)
        self.code = code
        self.message = message
        self.at = at
        self.envelope: Dict[str, Any] = envelope if envelope is not None else {}

    @property
    def detail(self) -> Any:
        error = self.envelope.get("error")
        return error.get("detail") if isinstance(error, dict) else None

    @property
    def problems(self) -> Optional[List[Dict[str, Any]]]:
        error = self.envelope.get("error")
        problems = error.get("problems") if isinstance(error, dict) else None
        return [p for p in problems if isinstance(p, dict)] if isinstance(problems, list) else None

    def __str__(self) -> str:
        where = f" at {self.at}" if self.at is not None else ""
        text = f"{self.code}: {self.message}{where}"
        problems = self.problems
        if problems is None or len(problems) < 2:
            return text
        # The message states the first problem only; a traceback shows them all.
        listed = (f"\n  {p.get('at')}: {p.get('code')}: {p.get('message')}" for p in problems)
        return text + "".join(listed)

    @staticmethod
    def from_envelope(envelope: Dict[str, Any]) -> "YaiaError":
        """The exception for an error envelope (a PluginError for plugin_* codes)."""
        error = envelope.get("error")
        if not isinstance(error, dict):
            error = {}
        code = error.get("code")
        message = error.get("message")
        at = error.get("at")
        code = code if isinstance(code, str) else "internal"
        message = message if isinstance(message, str) else "malformed error envelope"
        at = at if isinstance(at, str) else None
        cls = PluginError if code.startswith("plugin_") else YaiaError
        return cls(code, message, at, envelope)


class PluginError(YaiaError):
    """A plugin failed to load (codes ``plugin_*``)."""


class LibraryNotFound(OSError):
    """libyaia.so could not be loaded; ``tried`` lists where the binding looked."""

    def __init__(self, message: str, tried: List[str]) -> None:
        super().__init__(message)
        self.tried = tried


class AbiMismatch(OSError):
    """The loaded library implements a C ABI version this binding does not speak."""


class ServiceError(Exception):
    """Raise from a host service to fail its call with a chosen error value.

    ``raise ServiceError({"message": "offline", "retry": True})`` delivers that
    value as the payload of the effect's catch action.
    """

    def __init__(self, error: Any) -> None:
        super().__init__(error)
        self.error = error
