"""Scenes in patch mode: the view model each holds, kept by the patches
its updates carry (docs/abi.md, "Patch mode")."""

from __future__ import annotations

import threading
from typing import Any, Dict, Mapping, Optional

from .errors import YaiaError
from .handle import _Requests
from .patch import patch_held, pointer_tokens
from .values import Update

#: The view modes a runtime, a scene or a flow takes.
VIEW_MODES = ("whole", "patch")


def _check_mode(view: Optional[str]) -> None:
    if view is not None and view not in VIEW_MODES:
        raise ValueError(f"view is 'whole' or 'patch', not {view!r}")


class _HeldView:
    """A scene's view model as the host holds it, and the seq of the update it came with."""

    __slots__ = ("view_model", "seq")

    def __init__(self, view_model: Any, seq: int) -> None:
        self.view_model = view_model
        self.seq = seq


class _Views(_Requests):
    """Keeps the view model of each scene in patch mode from its updates.

    Every update the binding makes (a response, a received event) passes
    through :meth:`_update`: one with a patch has it applied to the view
    model held for its scene, and carries the result as ``view_model``.
    """

    #: Scene id -> its held view model, for the scenes in patch mode.
    _held: Dict[int, _HeldView]
    #: The runtime's mode (Runtime(view=...)).
    _view_mode: str

    def _update(self, raw: Dict[str, Any]) -> Update:
        """The Update of ``raw``, its view model kept or brought up to date."""
        update = Update.from_raw(raw)
        if "viewAt" in raw and raw.get("top") in self._held:
            self._place(update, raw)
        elif "viewPatch" in raw:
            self._follow(update, raw)
        return update

    def _place(self, update: Update, raw: Mapping[str, Any]) -> None:
        """A child scene's update: its view model sits in its top scene's
        at ``viewAt``, where the runtime holds it too (the top's next patch
        starts from there); its patch or whole view model goes in there."""
        top, at = raw["top"], raw["viewAt"]
        held = self._held[top]
        if "viewPatch" in raw:
            ops = [_under(at, op) for op in raw["viewPatch"]]
        else:
            ops = [{"op": "replace", "path": at, "value": raw.get("viewModel")}]
        view_model = _patched(held, ops, None, None)
        if view_model is _BROKEN:
            # Not where the runtime says: the top's view whole, afresh.
            fetched = self._fetch_view(top)
            if fetched is None:
                return
            view_model = held_view(fetched)
        update.__dict__.update(view_model=_at(view_model, at), view_patch=raw.get("viewPatch"),
                               view_base=raw.get("viewBase"))

    def _hold(self, update: Update, view: Optional[str]) -> None:
        """An opened or started scene: holds its view model when it is in patch mode."""
        if (view or self._view_mode) == "patch":
            self._held[update.scene] = _HeldView(update.view_model, update.seq)

    def _follow(self, update: Update, raw: Mapping[str, Any]) -> None:
        held = self._held.get(update.scene)
        base = raw.get("viewBase")
        view_model = _BROKEN if held is None else _patched(held, raw["viewPatch"], base, update.seq)
        if view_model is _BROKEN:
            if held is None or held.view_model is _BROKEN or update.seq > held.seq:
                # A gap (an update missed, or a scene a flow opened): the
                # whole view model, from which the next patch starts.
                held = self._fetch_view(update.scene)
            # Otherwise a view answer already covered the update.
            view_model = None if held is None else held_view(held)
        update.__dict__.update(view_model=view_model, view_patch=raw["viewPatch"], view_base=base)

    def _fetch_view(self, scene: int) -> Optional[_HeldView]:
        """Asks {"op": "view"}: the whole view model and its seq, held from
        now on when the scene is in patch mode. None when the scene is closed."""
        try:
            answer = self.execute({"op": "view", "scene": scene})
        except YaiaError as e:
            if e.code != "no_such_scene":
                raise
            self._held.pop(scene, None)
            return None
        held = _HeldView(answer.get("viewModel"), answer["seq"])
        if answer.get("view") == "patch":
            self._held[scene] = held
        else:
            self._held.pop(scene, None)
        return held

    def _restarted(self, response: Mapping[str, Any]) -> None:
        """After a restore or a rewind: patches start again from the view
        models its answer gives, with their seq, for the scenes in patch mode."""
        self._held.clear()
        for entry in response.get("scenes", ()):
            if isinstance(entry, dict) and "seq" in entry:
                self._held[entry["id"]] = _HeldView(entry.get("viewModel"), entry["seq"])

    def view(self, scene: int) -> Any:
        """Scene ``scene``'s whole view model, asked of the runtime
        (``{"op": "view"}``); for a scene in patch mode the next patch starts
        from it. Raises YaiaError "no_such_scene" when it is not open."""
        held = self._fetch_view(scene)
        if held is None:
            raise YaiaError("no_such_scene", f"no open scene with id {scene}")
        return held.view_model


#: What a held view model is after a patch that failed half way: the next
#: update, or reading it, asks for the whole view model.
_BROKEN = object()

#: Held view models change in place: a patch and a read of one (held_view)
#: take turns, so that a reader gets a view model whole, before or after.
_LOCK = threading.Lock()


def _patched(held: _HeldView, patch: Any, base: Optional[int], seq: Optional[int]) -> Any:
    """Applies ``patch`` to the held view model when it is the one of seq
    ``base`` (any when None), and moves it to ``seq``: in place where no
    caller holds what it changes (an earlier update's view model is copied
    on the patch's path, as apply_patch copies). The view model after, or
    _BROKEN when the held one is another, or the patch broke it (it does
    not apply)."""
    with _LOCK:
        if base is not None and held.seq != base:
            return _BROKEN
        if patch != []:  # [] is nothing changed: the same view model
            holder = [held.view_model]
            held.view_model = _BROKEN  # the holder's is then our only reference
            try:
                patch_held(holder, patch)
            except YaiaError:
                return _BROKEN
            held.view_model = holder[0]
        if seq is not None:
            held.seq = seq
        return held.view_model


def held_view(held: _HeldView) -> Any:
    """The view model ``held`` holds, _BROKEN when a patch broke it."""
    with _LOCK:
        return held.view_model


def _under(at: str, op: Any) -> Any:
    """A child's patch operation moved under its place ``at``."""
    if not isinstance(op, dict):
        return op  # apply_patch reports it
    moved = dict(op)
    for key in ("path", "from"):
        if isinstance(op.get(key), str):
            moved[key] = at + op[key]
    return moved


def _at(view: Any, at: str) -> Any:
    """The value at pointer ``at`` in ``view``; None when there is none."""
    for token in pointer_tokens(at) or ():
        if isinstance(view, dict):
            view = view.get(token)
        elif isinstance(view, list) and token.isdigit() and int(token) < len(view):
            view = view[int(token)]
        else:
            return None
    return view
