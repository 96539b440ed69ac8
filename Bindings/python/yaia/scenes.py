"""Open scenes and flows: Scene, a scene the host sends actions to, and
Flow, a navigation stack of scenes whose routes the runtime applies."""

from __future__ import annotations

import copy
import ctypes
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

from .errors import YaiaError
from . import ffi
from .handle import _Closeable
from .sends import answered, general_send, keep_type, plain_head, quote, type_texts
from .views import _BROKEN, held_view
from .values import MISSING, FlowStack, LinkItem, StackEntry, Update

_new = object.__new__

if TYPE_CHECKING:
    from .runtime import Runtime

__all__ = ["Scene", "Flow", "ChildScene"]


class _RuntimeObject(_Closeable):
    """Scene and Flow: an ``id`` in ``runtime``, closed at most once."""

    runtime: Runtime
    id: int
    _closed: bool
    _send_prefix: bytes
    #: The scene id as yaia_send's argument, made once; None for a flow.
    _id_arg: Optional[ctypes.c_int64] = None

    def send(
        self,
        action: Union[str, Mapping[str, Any]],
        payload: Any = MISSING,
        *,
        error: bool = False,
        meta: Any = MISSING,
        tag: Any = MISSING,
        validate: Optional[bool] = None,
    ) -> Update:
        """Reduces an action on the scene (on a flow: on the scene on top):
        ``send("emailChanged", "a@b.c")`` or ``send({"type": ...})``.

        An action the scene refuses raises the runtime's YaiaError
        ("unknown_action" at "/action/type", with the nearest action type,
        or "bad_payload" at "/action/payload/..."). ``validate`` is kept for
        older callers and changes nothing: the runtime checks every action.
        When a flow's routes changed it, the update's ``flow``, ``version``
        and ``stack`` describe it; refused routes are in ``navigation_errors``.
        """
        return general_send(self, action, payload, error, meta, tag)

    def _close(self, kind: str) -> None:
        """Sends {"op": "close", kind: id} the first time; once the runtime is
        freed there is nothing to send (freeing it closed everything)."""
        if self._closed:
            return
        self._closed = True
        if self.runtime.closed:
            return  # freeing the runtime closed it
        self.runtime.execute({"op": "close", kind: self.id})


class Scene(_RuntimeObject):
    """An open scene. ``id`` is its runtime id, ``name`` its type, ``opened`` the open update.

    A scene of a type that declares its interface (a scene document) is an
    instance of a subclass made for its type, whose docstring lists its
    actions and their payloads: ``help(scene)`` shows them, and
    :attr:`actions` maps them.
    """

    def __init__(self, runtime: Runtime, scene_id: int, name: str, opened: Update) -> None:
        self.runtime = runtime
        self.id = scene_id
        self.name = name
        self.opened = opened
        self._closed = False
        self._send_prefix = b'{"op":"send","scene":%d,"action":' % scene_id
        self._id_arg = ctypes.c_int64(scene_id)
        self._plain_head = plain_head(scene_id)

    def send(
        self,
        action: Union[str, Mapping[str, Any]],
        payload: Any = MISSING,
        *,
        error: bool = False,
        meta: Any = MISSING,
        tag: Any = MISSING,
        validate: Optional[bool] = None,
    ) -> Update:
        """Reduces an action on the scene: ``send("emailChanged", "a@b.c")``
        or ``send({"type": ...})``.

        An action the scene refuses raises the runtime's YaiaError
        ("unknown_action" at "/action/type", with the nearest action type,
        or "bad_payload" at "/action/payload/..."). ``validate`` is kept for
        older callers and changes nothing: the runtime checks every action.
        """
        # The binding's hottest path, the string lane (yaia/sends.py): a type
        # name and a string payload, written from the type's text kept once.
        if type(payload) is str and tag is MISSING and meta is MISSING and not error:
            try:
                data = b'{"payload":' + quote(payload).encode() + type_texts[action]  # type: ignore[index]
            except KeyError:
                if type(action) is not str or not keep_type(action):
                    return general_send(self, action, payload, error, meta, tag)
                data = b'{"payload":' + quote(payload).encode() + type_texts[action]
            except (TypeError, UnicodeEncodeError):  # an action dict; a lone surrogate
                return general_send(self, action, payload, error, meta, tag)
            runtime = self.runtime
            text = runtime._send_scene(runtime._handle_arg, self._id_arg, data)
            if text is not None and text.startswith(self._plain_head) and self.id not in runtime._held:
                # Update._unread, written out: a call less.
                update = _new(Update)
                fields = update.__dict__
                fields["scene"] = self.id
                fields["_text"] = text
                return update
            return answered(runtime, text)
        return general_send(self, action, payload, error, meta, tag)

    @property
    def actions(self) -> Dict[str, Any]:
        """Action type -> the JSON Schema of its payload (``{}``: any
        payload, or none), for a scene that declares its interface; empty
        for Swift and pack scenes, which take any action."""
        schema = self.runtime._declared(self.name)
        return copy.deepcopy(schema.payloads()) if schema is not None else {}

    def _snapshot(self) -> Dict[str, Any]:
        return self.runtime.execute({"op": "state", "scene": self.id})

    @property
    def view_model(self) -> Any:
        """The current view model: in patch mode the one the binding holds,
        as of the last update of this scene it made (a response, or an event
        :meth:`Runtime.receive` took); otherwise asked of the runtime each time."""
        held = self.runtime._held.get(self.id)
        if held is not None:
            view_model = held_view(held)
            if view_model is not _BROKEN:
                return view_model
        return self._snapshot()["viewModel"]

    @property
    def state(self) -> Any:
        """The current state (asked of the runtime each time)."""
        return self._snapshot()["state"]

    @property
    def seq(self) -> int:
        """The number of reductions so far."""
        seq: int = self._snapshot()["seq"]
        return seq

    def child(self, slot: str, key: Any = MISSING) -> ChildScene:
        """The child scene in ``slot`` (at ``key`` in a keyed slot), to send
        to by its path: ``scene.child("rows", 7).send("open")``
        (docs/composition.md)."""
        return ChildScene(self.runtime, self.id, [])._below(slot, key)

    def close(self) -> None:
        """Closes the scene; calls its services perform are cancelled. Idempotent."""
        self._close("scene")
        self.runtime._held.pop(self.id, None)

    def __repr__(self) -> str:
        return f"<yaia.Scene {self.name} #{self.id}{' closed' if self._closed else ''}>"


class ChildScene:
    """A child scene by its path from the scene above it (``top``): what
    :meth:`Scene.child` gives. Sends go by that path, so they reach
    whichever child holds it when they are sent."""

    def __init__(self, runtime: Runtime, top: int, path: List[Any]) -> None:
        self.runtime = runtime
        self.top = top
        self.path = path
        self._send_prefix = b'{"op":"send","scene":%d,"path":%s,"action":' % (top, ffi.encode(path))
        #: Sent as a request (by path), never through yaia_send.
        self._id_arg = None

    def _below(self, slot: str, key: Any) -> ChildScene:
        return ChildScene(self.runtime, self.top, self.path + ([slot] if key is MISSING else [slot, key]))

    def child(self, slot: str, key: Any = MISSING) -> ChildScene:
        """A child of this child, in ``slot`` (at ``key`` in a keyed slot)."""
        return self._below(slot, key)

    def send(self, action: Union[str, Mapping[str, Any]], payload: Any = MISSING, *, tag: Any = MISSING) -> Update:
        """Reduces an action on the child, as :meth:`Scene.send` does; the
        update is the child's, or its parent's when its slot intercepts."""
        return general_send(self, action, payload, False, MISSING, tag)

    def __repr__(self) -> str:
        return f"<yaia.ChildScene #{self.top} {self.path}>"



class Flow(_RuntimeObject):
    """A flow: a navigation stack of scenes whose routes the runtime applies.

    ``id`` is its runtime id, ``name`` the name it was started with (or
    None), ``started`` the root scene's open update (None for a flow taken
    with :meth:`Runtime.flow`). Actions go to the scene on top; the stack is
    asked of the runtime on each read of :attr:`stack`, :attr:`version` and
    :attr:`top`. Use it as a context manager or call :meth:`close`.
    """

    def __init__(self, runtime: Runtime, flow_id: int, name: Optional[str], started: Optional[Update]) -> None:
        self.runtime = runtime
        self.id = flow_id
        self.name = name
        self.started = started
        self._closed = False
        self._send_prefix = b'{"op":"send","flow":%d,"action":' % flow_id

    def describe(self) -> FlowStack:
        """The flow's stack and version now."""
        return FlowStack.from_raw(self.runtime.execute({"op": "flow", "flow": self.id}))

    @property
    def stack(self) -> List[StackEntry]:
        """The scenes, bottom to top (asked of the runtime each time)."""
        return self.describe().stack

    @property
    def version(self) -> int:
        """Counts the changes of the stack (asked of the runtime each time)."""
        return self.describe().version

    @property
    def top(self) -> StackEntry:
        """The scene on top, which receives :meth:`send`."""
        return self.describe().top

    def popped(self, depth: int, version: Optional[int] = None) -> FlowStack:
        """Reports that the UI removed scenes by itself (a back swipe): the
        flow keeps its first ``depth`` scenes and closes the others.

        ``version`` is the flow version the UI showed; a report against
        another version, or a depth that no longer exists (a report delivered
        twice), raises YaiaError "stale_navigation" and changes nothing.
        """
        request: Dict[str, Any] = {"op": "popped", "flow": self.id, "depth": depth}
        if version is not None:
            request["version"] = version
        return FlowStack.from_raw(self.runtime.execute(request))

    def link(self, path: Sequence[LinkItem]) -> FlowStack:
        """Follows a deep link: keeps the root, replaces everything above it
        with ``path`` in one step.

        Items are scene names (pushed, no arguments) or {"scene": NAME,
        "args": {...}, "presentation": "push" | "present"}. If any scene is
        unknown ("unknown_scene") or refuses its arguments, nothing changes.
        """
        items: List[Any] = [item if isinstance(item, str) else dict(item) for item in path]
        return FlowStack.from_raw(self.runtime.execute({"op": "link", "flow": self.id, "path": items}))

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Closes the flow and all its scenes (their effects are cancelled). Idempotent."""
        held = self.runtime._held
        scenes: List[int] = []
        if held and not self._closed and not self.runtime.closed:
            try:
                scenes = [e.id for e in self.stack]
            except YaiaError:
                pass  # closed already: _close says so
        self._close("flow")
        for scene in scenes:
            held.pop(scene, None)

    def __repr__(self) -> str:
        label = f" {self.name!r}" if self.name is not None else ""
        return f"<yaia.Flow{label} #{self.id}{' closed' if self._closed else ''}>"
