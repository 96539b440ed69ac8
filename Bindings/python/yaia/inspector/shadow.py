"""A runtime that follows a journal input by input, to tell what each input
changed: the same scenes, no services and a manual clock, so nothing it does
reaches the world; each input's line applied as its request, then the
states of the scenes whose seq moved diffed against their states before.

Which scenes moved, the shadow's inspection events tell (one per reduction,
with the scene and its seq): an input that reduces the login scene beneath a
list of 10,000 row scenes asks for one state, not for the list of every
scene. The whole list is asked for only when the set of scenes may have
changed: an input that is not an action or an outcome, one that moved a
flow or routed, or one that reduced a scene of a type with child slots.

A restore (each rewind is one) is put off: the states it gives are in its
line, which tells what changed, and the runtime restores the snapshot only
before the next input it applies (a series of rewinds, the last of them)."""

from __future__ import annotations

import copy
import json
from typing import Any, Callable, Dict, List, Mapping, Optional

from ..web.engine import RuntimeEngine
from .diff import diff
from .lines import request_of, snapshot_text

__all__ = ["Shadow", "held", "held_text"]


def held(snapshot: Any) -> Any:
    """The snapshot with every effect in flight kept waiting for its outcome
    (restore policy ``await``): restored, it starts no service call and
    cancels nothing, so no effect runs twice and no scene hears of an
    interruption that never happened."""
    if not isinstance(snapshot, dict) or not isinstance(snapshot.get("effects"), list):
        return snapshot
    out = dict(snapshot)
    effects = []
    for item in snapshot["effects"]:
        if isinstance(item, dict) and isinstance(item.get("effect"), dict):
            item = dict(item)
            item["effect"] = dict(item["effect"], restore="await")
        effects.append(item)
    out["effects"] = effects
    return out


def held_text(snapshot: bytes) -> bytes:
    """``held`` of a snapshot's JSON text. The runtime writes a snapshot's
    members by name, so its effects come first (after any documents): only
    they are read and written again, not the states of every scene."""
    head = b'{"effects":'
    if snapshot.startswith(head + b"[],"):
        return snapshot
    if snapshot.startswith(head):
        text = snapshot.decode("utf-8")
        try:
            effects, end = json.JSONDecoder().raw_decode(text, len(head))
        except ValueError:
            effects, end = None, 0
        if isinstance(effects, list):
            kept = held({"effects": effects})["effects"]
            return (text[:len(head)] + json.dumps(kept, separators=(",", ":")) + text[end:]).encode()
    return json.dumps(held(json.loads(snapshot)), separators=(",", ":")).encode()


class Shadow:
    """One scratch runtime at one input of a journal. ``config`` is the
    session runtime's config; only its scenes and limits are kept."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        # Patch mode: an answer carries a view's change, not a whole view
        # model the shadow would only parse and drop.
        shadow: Dict[str, Any] = {"scenes": list(config.get("scenes", [])), "clock": "manual", "view": "patch",
                                  "inspect": True, "allow": {"ops": ["restore", "register", "snapshot"]}}
        if isinstance(config.get("limits"), dict):
            shadow["limits"] = dict(config["limits"])
        self.engine = RuntimeEngine(shadow)
        self.seqs: Dict[int, int] = {}
        self.names: Dict[int, str] = {}
        self.states: Dict[int, Any] = {}
        #: Whether each scene type has child slots (its reductions may open
        #: and close scenes), as its schema says.
        self.parents: Dict[str, bool] = {}
        #: How many times the whole list of scenes was asked for (the tests
        #: count it: an input that moved one scene does not ask).
        self.listings = 0
        #: A restore put off (its snapshot as text, held), and how many were
        #: made (the tests count them).
        self.pending: Optional[bytes] = None
        self.restores = 0
        #: Why the shadow stopped following (a restore put off was refused).
        self.broken: Optional[str] = None

    def close(self) -> None:
        self.engine.close()

    def ask(self, request: Mapping[str, Any]) -> Dict[str, Any]:
        self._settle()
        return self.engine.execute_value(request)

    def _settle(self) -> None:
        """Makes the restore put off, if any; a refusal breaks the shadow
        (the states it showed are not the runtime's)."""
        if self.pending is None:
            return
        snapshot, self.pending = self.pending, None
        answer = self._restore(snapshot)
        if answer.get("ok") is not True and self.broken is None:
            self.broken = f"a restore is refused: {(answer.get('error') or {}).get('message')}"

    def begin(self, line: Dict[str, Any]) -> Optional[str]:
        """Restores the journal's first line; a message when it is not one."""
        if line.get("kind") != "begin" or line.get("format") != "yaia.journal/1":
            return "the file does not start as a journal does (a yaia.journal/1 begin line)"
        answer = self.ask({"op": "restore", "snapshot": held(line.get("snapshot"))})
        if answer.get("ok") is not True:
            return f"its first snapshot is refused: {(answer.get('error') or {}).get('message')}"
        self._changes()
        return None

    def apply(self, line: Dict[str, Any], text: Optional[bytes] = None) -> Dict[str, Any]:
        """Applies one input line (``text``: a restore line as read);
        answers with what it did: the scenes it changed (their patches),
        opened and closed, the effects it started, its routes and stack, or
        the error that refused it."""
        request = request_of(line)
        done: Dict[str, Any] = {}
        if request is None:
            done["error"] = {"code": "bad_journal", "message": f"no input of kind {str(line.get('kind'))[:40]}"}
            return done
        if line.get("kind") == "restore":
            cut = snapshot_text(line, text) if text is not None else None
            snapshot = held_text(cut) if cut is not None else json.dumps(held(request.get("snapshot")), separators=(",", ":")).encode()
            later = self._put_off(request.get("snapshot"), snapshot)
            if later is not None:
                return later
            self._settle()
            answer = self._restore(snapshot)
        else:
            answer = self.ask(request)
        updates: List[Dict[str, Any]] = [answer]
        moved: Dict[int, int] = {}
        whole = line.get("kind") not in ("send", "outcome")
        while True:
            received = self.engine.receive()
            if received is None:
                break
            try:
                event = json.loads(received)
            except ValueError:
                continue
            if not isinstance(event, dict):
                continue
            kind = event.get("event")
            if "dropped" in event:
                whole = True  # events were lost: the seqs tell what moved
            if kind == "action" and isinstance(event.get("scene"), int) and isinstance(event.get("seq"), int):
                moved[event["scene"]] = event["seq"]
            elif kind not in ("update", "effect"):
                whole = True  # a flow moved, a route, or what the shadow does not know
            if kind != "action":
                updates.append(event)
        if answer.get("ok") is not True:
            done["error"] = answer.get("error")
        if isinstance(answer.get("scene"), int):
            done["scene"] = answer["scene"]
        effects: List[Dict[str, Any]] = []
        routes: List[Any] = []
        for update in updates:
            for record in update.get("effects") or []:
                if isinstance(record, dict):
                    effects.append({k: record.get(k) for k in ("id", "service", "op", "status") if k in record})
            routes += [r for r in update.get("routes") or []]
            if isinstance(update.get("stack"), list):
                done["stack"] = [e.get("scene") for e in update["stack"] if isinstance(e, dict)]
        if effects:
            done["effects"] = effects
        if routes:
            done["routes"] = routes
        if whole or routes or "stack" in done or any(self._parent(scene) for scene in moved):
            done.update(self._changes())
        else:
            done.update(self._moved(moved))
        return done

    def _put_off(self, image: Any, snapshot: bytes) -> Optional[Dict[str, Any]]:
        """A restore's changes, read from its snapshot (``image``, parsed;
        ``snapshot``, its text to restore later); None when the snapshot's
        scenes are not as a runtime writes them (it is restored now)."""
        scenes = image.get("scenes") if isinstance(image, dict) else None
        if not isinstance(scenes, list):
            return None
        now: Dict[int, Dict[str, Any]] = {}
        for scene in scenes:
            if not (isinstance(scene, dict) and isinstance(scene.get("id"), int) and isinstance(scene.get("seq"), int)
                    and isinstance(scene.get("name"), str) and "state" in scene) or scene["id"] in now:
                return None
            now[scene["id"]] = scene
        out = self._move_to({i: scene["seq"] for i, scene in now.items()}, {i: scene["name"] for i, scene in now.items()},
                            lambda i: now[i]["state"], every=True)
        self.pending = snapshot
        return out

    def _restore(self, snapshot: bytes) -> Dict[str, Any]:
        """Restores a snapshot given as JSON text. The answer, every scene's
        view model whole (a list of 10,000 rows and each row's own), is not
        read: the runtime writes members by name, so a refusal begins with
        its error."""
        self.restores += 1
        data = self.engine.execute(b'{"op":"restore","snapshot":' + snapshot + b"}")
        data = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        if data.startswith(b'{"error":'):
            answer: Dict[str, Any] = json.loads(data)
            return answer
        return {"ok": True}

    def _parent(self, scene: int) -> bool:
        """Whether a scene's reductions may open or close scenes: its type has
        child slots (or the shadow cannot tell)."""
        name = self.names.get(scene)
        if name is None or scene not in self.seqs:
            return True
        if name not in self.parents:
            answer = self.ask({"op": "schema", "scene": name})
            self.parents[name] = answer.get("ok") is not True or bool(answer.get("children"))
        return self.parents[name]

    def _moved(self, moved: Dict[int, int]) -> Dict[str, Any]:
        """The patches of the scenes whose seq moved, the set of scenes as it
        was."""
        return self._move_to({**self.seqs, **moved}, {}, self._state)

    def _changes(self) -> Dict[str, Any]:
        self.listings += 1
        listing = self.ask({"op": "scenes"})
        now: Dict[int, int] = {}
        names: Dict[int, str] = {}
        for item in listing.get("scenes") or []:
            if isinstance(item, dict) and isinstance(item.get("id"), int):
                now[item["id"]] = int(item.get("seq") or 0)
                names[item["id"]] = str(item.get("name"))
        return self._move_to(now, names, self._state)

    def _state(self, scene: int) -> Any:
        return self.ask({"op": "state", "scene": scene}).get("state")

    def _move_to(self, seqs: Dict[int, int], names: Dict[int, str], state_of: Callable[[int], Any],
                 every: bool = False) -> Dict[str, Any]:
        """Takes ``seqs`` (scene id -> seq) as the open scenes: the states of
        those whose seq moved (of all, when ``every``: a restore may bring
        another state at the same seq) come from ``state_of``. Answers the
        patches, and the scenes opened and closed."""
        closed = [i for i in self.seqs if i not in seqs]
        opened = [i for i in seqs if i not in self.seqs]
        changes: Dict[str, Any] = {}
        for scene, seq in seqs.items():
            if not every and self.seqs.get(scene) == seq and scene in self.states:
                continue
            state = state_of(scene)
            patch = diff(self.states[scene], state) if scene in self.states else [{"op": "add", "path": "", "value": state}]
            if patch:
                changes[str(scene)] = patch
            self.states[scene] = state
        for scene in closed:
            self.states.pop(scene, None)
        self.seqs = dict(seqs)
        self.names.update(names)
        out: Dict[str, Any] = {}
        if changes:
            out["changes"] = changes
        if opened:
            out["opened"] = opened
        if closed:
            out["closed"] = closed
        return out

    def snapshot(self) -> Optional[bytes]:
        """The runtime's snapshot as JSON text, None when it cannot be taken
        (a restore put off: its own snapshot)."""
        if self.pending is not None:
            return self.pending
        text = self.engine.execute(b'{"op":"snapshot"}')
        data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        # The answer is {"ok":true,"snapshot":...}: cut it out rather than
        # parse and write again the states of every scene.
        head = b'{"ok":true,"snapshot":'
        if data.startswith(head) and data.endswith(b"}"):
            return data[len(head):-1]
        try:
            answer = json.loads(data)
        except ValueError:
            return None
        if not isinstance(answer, dict) or not isinstance(answer.get("snapshot"), dict):
            return None
        return json.dumps(answer["snapshot"], separators=(",", ":")).encode()

    def state(self, scene: int) -> Any:
        return copy.deepcopy(self.states.get(scene))
