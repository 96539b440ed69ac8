"""The values the runtime answers with, as Python sees them: updates,
effects, flow stacks, inspection events and replay results."""

from __future__ import annotations

import enum
import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Tuple, Union

__all__ = [
    "MISSING",
    "Update",
    "Effect",
    "StackEntry",
    "FlowStack",
    "NavigationError",
    "Inspection",
    "Event",
    "ReplayResult",
    "LinkItem",
]


class _Missing(enum.Enum):
    MISSING = 0

    def __repr__(self) -> str:
        return "MISSING"


# The C scanner json.loads ends in, without the checks around it.
_scan: Callable[[str, int], Tuple[Any, int]] = getattr(json.JSONDecoder(), "scan_once")
# How Update._unread makes an update without the frozen dataclass's __init__.
_new = object.__new__

#: Marks an argument that was not given (None is a JSON value: null).
MISSING = _Missing.MISSING

PathLike = Union[str, "os.PathLike[str]"]
#: A deep-link item for Flow.link: a scene name (pushed, no args), or
#: {"scene": NAME, "args": {...}, "presentation": "push" | "present"}.
LinkItem = Union[str, Mapping[str, Any]]


@dataclass(frozen=True)
class Effect:
    """An effect a reduction emitted.

    ``status`` is ``"running"`` when a registered service performs it,
    ``"queued"`` when it waits its turn behind an effect with the same key
    (policy "queue"), and ``"pending"`` when it waits for
    :meth:`Runtime.resolve`. ``key`` is the reducer's cancellation key (its
    effect "id"), or None.
    """

    id: int
    service: str
    op: str
    args: Any
    status: str
    key: Optional[str] = None

    @property
    def pending(self) -> bool:
        return self.status == "pending"

    @staticmethod
    def from_raw(raw: Mapping[str, Any]) -> "Effect":
        return Effect(
            id=raw["id"],
            service=raw["service"],
            op=raw["op"],
            args=raw.get("args"),
            status=raw["status"],
            key=raw.get("key"),
        )


@dataclass(frozen=True)
class StackEntry:
    """One scene of a flow's stack, bottom to top.

    ``id`` is the scene's runtime id, ``scene`` its type name,
    ``presentation`` is ``"root"``, ``"push"`` or ``"present"`` (a modal layer
    starts there), ``on_result`` the action of the scene below that receives
    this scene's result (None when none was asked for), ``view_model`` what a
    UI renders for it.
    """

    id: int
    scene: str
    presentation: str
    view_model: Any = None
    on_result: Optional[str] = None

    @staticmethod
    def from_raw(raw: Mapping[str, Any]) -> "StackEntry":
        return StackEntry(
            id=raw["id"],
            scene=raw["scene"],
            presentation=raw["presentation"],
            view_model=raw.get("viewModel"),
            on_result=raw.get("onResult"),
        )


def _stack(raw: Any) -> List[StackEntry]:
    return [StackEntry.from_raw(e) for e in raw] if isinstance(raw, list) else []


@dataclass(frozen=True)
class NavigationError:
    """A route the flow refused (``code`` is usually ``"stale_navigation"``)."""

    route: Any
    code: str
    message: str
    error: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @staticmethod
    def from_raw(raw: Mapping[str, Any]) -> "NavigationError":
        error = raw.get("error")
        error = error if isinstance(error, dict) else {}
        return NavigationError(
            route=raw.get("route"),
            code=str(error.get("code", "internal")),
            message=str(error.get("message", "")),
            error=error,
        )


@dataclass(frozen=True)
class Update:
    """A scene update: the answer to open, send and resolve, or a received event.

    ``event`` is None for direct responses and ``"update"`` for events from
    :meth:`Runtime.receive`; ``effect`` is the id of the effect whose outcome
    caused the update (None otherwise); ``tag`` echoes the request's tag.
    ``raw`` is the response as the library sent it.

    In a flow: when the reduction changed the flow, ``flow``, ``version`` and
    ``stack`` describe it afterwards (None when it did not change);
    ``from_scene`` is the id of the popped scene whose result caused this
    update (a received event); ``navigation_errors`` lists routes the flow
    refused (a route from a scene that is not on top: ``stale_navigation``).

    In patch mode (``Runtime(view="patch")``, docs/abi.md) ``view_patch`` is
    the update's JSON Patch and ``view_base`` the seq it applies to (None in
    whole mode); ``view_model`` is still the scene's view model after the
    update, the patch applied to the one the binding held.

    An update that :meth:`Scene.send` made from a plain answer (no effects,
    routes or flow change) reads its fields from the answer's text when one
    of them is first read (``view_model`` and ``raw`` parse it whole;
    ``seq``, ``effects`` and ``routes`` do not): a host that reads none
    does not pay for them.
    """

    scene: int
    seq: int
    view_model: Any
    effects: List[Effect]
    routes: List[Any]
    event: Optional[str] = None
    effect: Optional[int] = None
    tag: Any = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    flow: Optional[int] = None
    version: Optional[int] = None
    stack: Optional[List[StackEntry]] = None
    from_scene: Optional[int] = None
    navigation_errors: Tuple[NavigationError, ...] = ()
    view_patch: Optional[List[Any]] = None
    view_base: Optional[int] = None

    @staticmethod
    def from_raw(raw: Dict[str, Any]) -> "Update":
        # The hot path of every send: filling __dict__ directly is what the
        # frozen dataclass's __init__ does, at a third of the cost. Fields
        # left out read their defaults from the class.
        update = _new(Update)
        d = update.__dict__
        d["scene"] = raw["scene"]
        d["seq"] = raw["seq"]
        d["view_model"] = raw.get("viewModel")
        effects = raw.get("effects")
        d["effects"] = [Effect.from_raw(e) for e in effects] if effects else []
        d["routes"] = raw.get("routes", [])
        d["raw"] = raw
        # A plain answer has exactly effects, ok, routes, scene, seq and
        # viewModel; events, tags, flow changes and patches add members.
        if len(raw) > 6:
            for member, name in _MEMBERS:
                if member in raw:
                    d[name] = raw[member]
            stack = raw.get("stack")
            if stack is not None:
                d["stack"] = _stack(stack)
            errors = raw.get("navigationErrors")
            if errors is not None:
                d["navigation_errors"] = tuple(NavigationError.from_raw(e) for e in errors)
        return update

    @staticmethod
    def _unread(scene: int, text: bytes) -> "Update":
        """A plain answer's update: ``text`` is read by the first read of
        another field (see :meth:`__getattr__`): ``seq`` alone, or the rest
        by parsing it. Scene.send's string lane writes this out in its
        body (a call less): the two stay the same."""
        update = _new(Update)
        d = update.__dict__  # filled in place: cheaper than setting a new one
        d["scene"] = scene
        d["_text"] = text
        return update

    if not TYPE_CHECKING:  # typed, every name would pass as an attribute

        def __getattr__(self, name: str) -> Any:
            # Only fields without a class default reach here unset: seq,
            # view_model, effects, routes and raw of an _unread update.
            d = self.__dict__
            text = d.get("_text")
            if text is not None:
                if name == "seq":
                    # {"effects":[],"ok":true,"routes":[],"scene":N,"seq":N,...}: the first "seq" is the answer's.
                    start = text.index(b'"seq":') + 6
                    d.setdefault("seq", int(text[start:text.index(b",", start)]))
                elif name in ("effects", "routes"):
                    d.setdefault(name, [])  # a plain answer's are empty
                elif name in ("view_model", "raw"):
                    raw = _scan(text.decode("utf-8"), 0)[0]  # the library's text: one value, nothing around it
                    d.setdefault("raw", raw)  # another thread may have read it first
                    raw = d["raw"]
                    d.setdefault("view_model", raw.get("viewModel"))
                    d.setdefault("seq", raw["seq"])
                    d.setdefault("effects", [])
                    d.setdefault("routes", [])
                    d.pop("_text", None)
            if name in d:
                return d[name]
            raise AttributeError(f"'Update' object has no attribute {name!r}")


# An answer's members that Update holds as they are, and the fields they fill.
_MEMBERS = (("event", "event"), ("effect", "effect"), ("tag", "tag"), ("flow", "flow"), ("version", "version"),
            ("from", "from_scene"), ("viewPatch", "view_patch"), ("viewBase", "view_base"))


@dataclass(frozen=True)
class FlowStack:
    """A flow's stack at one version: the answer to Flow.describe, popped and link."""

    flow: int
    version: int
    stack: List[StackEntry]
    tag: Any = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def names(self) -> List[str]:
        """The scene type names, bottom to top."""
        return [e.scene for e in self.stack]

    @property
    def top(self) -> StackEntry:
        return self.stack[-1]

    @property
    def depth(self) -> int:
        return len(self.stack)

    @staticmethod
    def from_raw(raw: Dict[str, Any]) -> "FlowStack":
        return FlowStack(flow=raw["flow"], version=raw["version"], stack=_stack(raw.get("stack")), tag=raw.get("tag"), raw=raw)


@dataclass(frozen=True)
class Inspection:
    """An inspection event (inspection on): what happened and why.

    ``kind`` is ``"action"`` (``scene``, ``seq``, ``action``), ``"effect"``
    (``scene``, ``effect``, ``request``: the effect as the reducer asked for
    it), ``"route"`` (``scene``, ``route``) or ``"flow"`` (``flow``,
    ``version``, ``stack``). Fields a kind does not carry are None.
    """

    kind: str
    scene: Optional[int] = None
    seq: Optional[int] = None
    action: Any = None
    effect: Optional[Effect] = None
    request: Any = None
    route: Any = None
    flow: Optional[int] = None
    version: Optional[int] = None
    stack: Optional[List[StackEntry]] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @staticmethod
    def from_raw(raw: Dict[str, Any]) -> "Inspection":
        effect = raw.get("effect")
        stack = raw.get("stack")
        return Inspection(
            kind=str(raw.get("event")),
            scene=raw.get("scene"),
            seq=raw.get("seq"),
            action=raw.get("action"),
            effect=Effect.from_raw(effect) if isinstance(effect, dict) else None,
            request=raw.get("request"),
            route=raw.get("route"),
            flow=raw.get("flow"),
            version=raw.get("version"),
            stack=None if stack is None else _stack(stack),
            raw=raw,
        )


#: What :meth:`Runtime.receive_event` returns.
Event = Union[Update, Inspection]


@dataclass(frozen=True)
class ReplayResult:
    """The answer to a replay of a journal.

    ``identical`` is True when every recomputed view model (and stack)
    matched its recorded digest; ``inputs`` counts the inputs re-run. When
    not identical, ``divergence`` describes the first difference:
    {"seq", "kind", "scene"?, "expected", "got", "viewModel"?} (or "error"
    when an input was refused). ``snapshot`` is the state reached, when the
    replay was asked to stop at a seq (``to=``).
    """

    identical: bool
    inputs: int
    divergence: Optional[Dict[str, Any]] = None
    snapshot: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @staticmethod
    def from_raw(raw: Dict[str, Any]) -> "ReplayResult":
        return ReplayResult(
            identical=raw.get("identical") is True,
            inputs=int(raw.get("inputs", 0)),
            divergence=raw.get("divergence"),
            snapshot=raw.get("snapshot"),
            raw=raw,
        )
