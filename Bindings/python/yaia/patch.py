"""RFC 6902 JSON Patch, applied to JSON values (how view models travel).

    from yaia.patch import apply_patch

    view = apply_patch(view, [{"op": "replace", "path": "/items/3/done", "value": True}])

:func:`apply_patch` takes every operation of RFC 6902 (add, remove,
replace, move, copy, test) with RFC 6901 pointers (``~1`` is ``/``, ``~0``
is ``~``) and returns a new document, leaving the one given unchanged. Only
the containers on the paths the operations name are copied: the result shares
everything else with the document and with the patch's values, so treat all
three as read-only (the way a view model is used).

A patch that cannot be applied raises :class:`yaia.YaiaError` with the code
``bad_patch`` (malformed, or naming what is not there), ``patch_test_failed``
(a ``test`` operation's value differs) or ``limit_exceeded`` (see the
limits below), and ``at``, a JSON Pointer into the patch (``/2/path``); the
document given stays as it was.

:func:`patch_held` is the same applier for a document one holder keeps
version after version (a scene's view model): a container on a path that
nothing else references is changed in place, so that a patch costs what it
changes however long the lists it passes through, while anything a caller
still holds (an earlier update's view model, a patch's value) is copied as
apply_patch copies it.
"""

from __future__ import annotations

import math
import re
import sys
from typing import Any, Callable, Dict, List, Optional, Tuple

from .errors import YaiaError

__all__ = ["apply_patch", "patch_held", "pointer_tokens", "MAX_OPERATIONS", "MAX_DEPTH", "MAX_NODES"]

#: Operations in one patch.
MAX_OPERATIONS = 1_000_000
#: Nesting of the patched document, as the library's parser allows.
MAX_DEPTH = 512
#: Nodes of the values a patch adds, replaces, copies, moves or tests, summed
#: over its operations: ``copy`` could otherwise double a document each time.
MAX_NODES = 10_000_000

_BAD_ESCAPE = re.compile(r"~(?![01])")
_NEEDS_VALUE = ("add", "replace", "test")
_NEEDS_FROM = ("move", "copy")
_OPS = ("add", "remove", "replace", "move", "copy", "test")
# Scalars that are JSON whatever their value (a float may not be).
_PLAIN = (str, int, bool, type(None))

Container = Any  # a dict or a list of the document being patched


def pointer_tokens(pointer: str) -> Optional[List[str]]:
    """The unescaped reference tokens of a JSON Pointer; None if it is none."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        return None
    tokens = pointer[1:].split("/")
    if "~" not in pointer:
        return tokens
    if any(_BAD_ESCAPE.search(t) for t in tokens):
        return None
    return [t.replace("~1", "/").replace("~0", "~") for t in tokens]


def apply_patch(
    document: Any,
    patch: Any,
    *,
    max_operations: int = MAX_OPERATIONS,
    max_depth: int = MAX_DEPTH,
    max_nodes: int = MAX_NODES,
) -> Any:
    """``document`` with the operations of ``patch`` (a list) applied in order.

    All or nothing: an operation that fails raises, and ``document`` is left
    as it was.
    """
    if not isinstance(patch, list):
        raise YaiaError("bad_patch", f"a patch is a list of operations, not {_kind(patch)}", "")
    if len(patch) > max_operations:
        raise _limit("patch_operations", max_operations, f"the patch has {len(patch)} operations", "")
    applier = _Applier(document, max_depth, max_nodes)
    for i, op in enumerate(patch):
        applier.apply(op, f"/{i}")
    return applier.document


def patch_held(holder: List[Any], patch: Any) -> None:
    """Applies ``patch`` to ``holder[0]``, in place where nothing but the
    document references a container (the holder must keep no other
    reference to the document meanwhile), with apply_patch's limits.

    A patch that fails raises as apply_patch does, and leaves ``holder``
    empty: the document may be half patched.
    """
    if not isinstance(patch, list):
        raise YaiaError("bad_patch", f"a patch is a list of operations, not {_kind(patch)}", "")
    if len(patch) > MAX_OPERATIONS:
        raise _limit("patch_operations", MAX_OPERATIONS, f"the patch has {len(patch)} operations", "")
    # The applier's reference is then the document's only one of ours.
    applier = _Applier(holder.pop(), MAX_DEPTH, MAX_NODES)
    applier.alone = _ALONE
    for i, op in enumerate(patch):
        applier.apply(op, f"/{i}")
    holder.append(applier.document)


class _Applier:
    #: The references a container has in _alone when the document (or its
    #: parent) is its only holder; 0 changes nothing in place.
    alone = 0

    def __init__(self, document: Any, max_depth: int, max_nodes: int) -> None:
        self.document = document
        self.max_depth = max_depth
        self.max_nodes = max_nodes
        self.nodes = 0
        # The containers this patch made or found unshared (by id): only
        # they are changed in place. Holding them keeps their ids from being
        # reused meanwhile.
        self.owned: Dict[int, Container] = {}

    def apply(self, op: Any, at: str) -> None:
        name, path, source, value = _read(op, at)
        if name == "add":
            self._measure(value, len(path), at + "/value")
            self._add(path, value, at + "/path")
        elif name == "remove":
            self._remove(path, at + "/path")
        elif name == "replace":
            self._measure(value, len(path), at + "/value")
            self._replace(path, value, at + "/path")
        elif name == "move":
            assert source is not None
            if source == path:
                self._get(source, at + "/from")
                return
            if len(path) > len(source) and path[: len(source)] == source:
                raise YaiaError("bad_patch", "a value cannot move into itself", at + "/path")
            moved = self._remove(source, at + "/from")
            self._measure(moved, len(path), at + "/from")
            self._add(path, moved, at + "/path")
        elif name == "copy":
            assert source is not None
            copied = self._get(source, at + "/from")
            self._measure(copied, len(path), at + "/from")
            # A copy of its own, so that no container sits at two places.
            self._add(path, _deep_copy(copied), at + "/path")
        else:
            actual = self._get(path, at + "/path")
            self._measure(value, 0, at + "/value")
            if not _equal(actual, value):
                where = "/" + "/".join(t.replace("~", "~0").replace("/", "~1") for t in path) if path else "the root"
                raise YaiaError("patch_test_failed", f"the value at {where} is not the one the patch expects", at + "/value")

    # -- operations on the target's container

    def _add(self, path: List[str], value: Any, at: str) -> None:
        if not path:
            self.document = value
            return
        parent, last = self._container(path, at)
        if isinstance(parent, dict):
            parent[last] = value
        elif isinstance(parent, list):
            if last == "-":
                parent.append(value)
                return
            if not _is_index(last) or int(last) > len(parent):
                raise YaiaError("bad_patch", f'"{last}" is no index from 0 to {len(parent)}, nor "-"', at)
            parent.insert(int(last), value)
        else:
            raise YaiaError("bad_patch", f"cannot add a member to {_kind(parent)}", at)

    def _remove(self, path: List[str], at: str) -> Any:
        if not path:
            raise YaiaError("bad_patch", "the whole document cannot be removed", at)
        parent, last = self._container(path, at)
        if isinstance(parent, dict) and last in parent:
            return parent.pop(last)
        if isinstance(parent, list) and _is_index(last) and int(last) < len(parent):
            return parent.pop(int(last))
        raise _missing(last, at)

    def _replace(self, path: List[str], value: Any, at: str) -> None:
        if not path:
            self.document = value
            return
        parent, last = self._container(path, at)
        if isinstance(parent, dict) and last in parent:
            parent[last] = value
        elif isinstance(parent, list) and _is_index(last) and int(last) < len(parent):
            parent[int(last)] = value
        else:
            raise _missing(last, at)

    def _get(self, path: List[str], at: str) -> Any:
        node = self.document
        for token in path:
            node = _child(node, token, at)
        return node

    def _container(self, path: List[str], at: str) -> Tuple[Container, str]:
        """The container of the path's target, made this patch's own along the way."""
        self.document = self._own(self.document, path[0], at)
        node = self.document
        for token in path[:-1]:
            child = self._own(_child(node, token, at), token, at)
            node[int(token) if isinstance(node, list) else token] = child
            node = child
        return node, path[-1]

    def _own(self, node: Any, token: str, at: str) -> Container:
        if id(node) in self.owned:
            return node
        if not isinstance(node, (dict, list)):
            raise _missing(token, at)
        if self.alone and self._alone(node) <= self.alone:
            # Referenced by its place in the document only: no one else can see it change.
            self.owned[id(node)] = node
            return node
        mine = node.copy()
        self.owned[id(mine)] = mine
        return mine

    def _alone(self, node: Container) -> int:
        """The references ``node`` has here, its place's among them (how
        many when it is the only one is measured once, at import)."""
        return _refcount(node)

    # -- limits

    def _measure(self, value: Any, below: int, at: str) -> None:
        """Counts the value's nodes against the budget, checks that it fits
        the depth limit under ``below`` containers, and that it is JSON."""
        if type(value) in _PLAIN:  # most values a view patch carries
            self.nodes += 1
            if self.nodes > self.max_nodes:
                raise _limit("patch_nodes", self.max_nodes, "the patch's values have more nodes than allowed", at)
            return
        stack: List[Tuple[Any, int]] = [(value, below)]
        while stack:
            v, depth = stack.pop()
            self.nodes += 1
            if self.nodes > self.max_nodes:
                raise _limit("patch_nodes", self.max_nodes, "the patch's values have more nodes than allowed", at)
            if isinstance(v, (dict, list)):
                if depth + 1 > self.max_depth:
                    raise _limit("depth", self.max_depth, "the patched document would nest deeper than allowed", at)
                if isinstance(v, dict):
                    if not all(isinstance(k, str) for k in v):
                        raise YaiaError("bad_patch", "an object's keys are strings", at)
                    stack.extend((c, depth + 1) for c in v.values())
                else:
                    stack.extend((c, depth + 1) for c in v)
            elif not _is_scalar(v):
                raise YaiaError("bad_patch", f"not a JSON value: {type(v).__name__}", at)


# sys.getrefcount is CPython's; elsewhere nothing is changed in place.
_refcount: Callable[[Any], int] = getattr(sys, "getrefcount", lambda _: 1 << 30)


def _read(op: Any, at: str) -> Tuple[str, List[str], Optional[List[str]], Any]:
    """An operation's name, path, from and value: its JSON form is read here only."""
    if not isinstance(op, dict):
        raise YaiaError("bad_patch", f"an operation must be an object, not {_kind(op)}", at)
    name = op.get("op")
    if not isinstance(name, str):
        raise YaiaError("bad_patch", 'an operation needs "op", a string', at + "/op")
    if name not in _OPS:
        raise YaiaError("bad_patch", f'unknown operation "{name}": add, remove, replace, move, copy or test', at + "/op")
    path = _pointer(op, "path", name, at)
    source = _pointer(op, "from", name, at) if name in _NEEDS_FROM else None
    if name in _NEEDS_VALUE and "value" not in op:
        raise YaiaError("bad_patch", f'"{name}" needs "value"', at + "/value")
    return name, path, source, op.get("value")


def _pointer(op: Dict[str, Any], member: str, name: str, at: str) -> List[str]:
    text = op.get(member)
    if not isinstance(text, str):
        raise YaiaError("bad_patch", f'"{name}" needs "{member}", a JSON Pointer string', f"{at}/{member}")
    tokens = pointer_tokens(text)
    if tokens is None:
        raise YaiaError(
            "bad_patch", 'not a JSON Pointer: it is empty or starts with "/", and ~ is followed by 0 or 1', f"{at}/{member}"
        )
    return tokens


def _child(node: Any, token: str, at: str) -> Any:
    if isinstance(node, dict):
        if token in node:
            return node[token]
    elif isinstance(node, list):
        if _is_index(token) and int(token) < len(node):
            return node[int(token)]
    raise _missing(token, at)


def _is_index(token: str) -> bool:
    """An array index as RFC 6901 writes one: 0, or digits without a leading 0."""
    return token.isdigit() and token.isascii() and (token[0] != "0" or token == "0")


def _missing(token: str, at: str) -> YaiaError:
    return YaiaError("bad_patch", f'the path names nothing: no member or element "{token}"', at)


def _limit(name: str, value: int, what: str, at: str) -> YaiaError:
    error = {"code": "limit_exceeded", "message": f'{what}: the "{name}" limit is {value}', "at": at, "limit": name}
    return YaiaError("limit_exceeded", error["message"], at, {"ok": False, "error": error})


def _is_scalar(v: Any) -> bool:
    if isinstance(v, float):
        return math.isfinite(v)
    return v is None or isinstance(v, (bool, int, str))


def _kind(v: Any) -> str:
    if isinstance(v, dict):
        return "an object"
    if isinstance(v, list):
        return "an array"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    return "null" if v is None else type(v).__name__


def _equal(a: Any, b: Any) -> bool:
    """JSON equality: numbers by value, but a boolean is no number (in
    Python True == 1), and objects whatever their key order."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, bool) or isinstance(y, bool):
            if not (isinstance(x, bool) and isinstance(y, bool) and x == y):
                return False
        elif isinstance(x, dict):
            if not isinstance(y, dict) or x.keys() != y.keys():
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif isinstance(x, list):
            if not isinstance(y, list) or len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif isinstance(x, (int, float)):
            if not isinstance(y, (int, float)) or x != y:
                return False
        elif x is None:
            if y is not None:
                return False
        elif type(x) is not type(y) or x != y:
            return False
    return True


def _deep_copy(value: Any) -> Any:
    """A copy of every container of a JSON value, without recursion."""
    if not isinstance(value, (dict, list)):
        return value
    top: Container = value.copy()
    stack: List[Container] = [top]
    while stack:
        node = stack.pop()
        keys = node.keys() if isinstance(node, dict) else range(len(node))
        for k in keys:
            child = node[k]
            if isinstance(child, (dict, list)):
                node[k] = child.copy()
                stack.append(node[k])
    return top


def _references_when_alone() -> int:
    """What _alone counts for a container that only its place references,
    the document itself (the applier's) and a member: the interpreter's own
    references on the way in depend on its version, so they are counted
    here, on the same calls. 0 when the two differ or the count is unknown."""
    counts: List[int] = []

    class Probe(_Applier):
        def _alone(self, node: Container) -> int:
            counts.append(_refcount(node))
            return 0  # nothing copied: each stays where it is

    probe = Probe({"member": {}}, MAX_DEPTH, MAX_NODES)
    probe.alone = 1 << 30
    probe._container(["member", "x"], "")
    return counts[0] if len(counts) == 2 and counts[0] == counts[1] and counts[0] < 100 else 0


_ALONE = _references_when_alone()
