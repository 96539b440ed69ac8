"""Value-only scene tests over the C ABI: :class:`SceneTest`.

An exhaustive test of one scene in the manner of The Composable
Architecture's TestStore, and the Python twin of ``SceneTest`` in the Swift
module YaiaTesting. It drives any scene of any scene pack through
libyaia.so, in a runtime without services: every effect the scene emits
stays pending, as data, until the test resolves it. No mocks, no threads,
no sleeps: each call is one synchronous request, and each answer is
checked against what the test expects::

    from yaia.testing import SceneTest

    with SceneTest("example/login", scenes=[pack]) as t:
        t.send("emailChanged", "a@b.c", state={"email": "a@b.c"})
        t.send("passwordChanged", "pw", state={"password": "pw"})
        t.send("submit", state={"isSubmitting": True})
        login = t.receive_effect("auth", "login", args={"email": "a@b.c", "password": "pw"})
        t.resolve(login, result={"user": {"id": 1}}, state={"isSubmitting": False, "user": {"id": 1}})
        t.expect_route({"push": "example/home", "args": {"user": {"id": 1}}})
        t.expect_view_model({"canSubmit": True}, partial=True)
    # leaving the block calls t.finish(), then closes the scene

The rules (``exhaustive=True``, the default):

- After each :meth:`~SceneTest.send` and :meth:`~SceneTest.resolve`, the new
  state must equal the previous state with the expected changes applied
  (``state=``); any other change fails. No ``state=``: it must not change.
- What a step emits must be asserted before the next input: every effect
  with :meth:`~SceneTest.receive_effect`, in the order emitted, and every
  route with :meth:`~SceneTest.expect_route`.
- :meth:`~SceneTest.finish` fails for effects and routes never asserted and
  for effects still in flight (neither resolved nor cancelled by the scene).

``exhaustive=False`` checks only what the test states: the given fields of
the state, effects and routes in any order or not at all, effects left in
flight. The attribute can be changed part way through a test.

A failed expectation raises AssertionError. Its message names the step,
then lists each difference on a line of its own, by JSON Pointer::

    send emailChanged "a@b.c": the state is not the expected one:
      /email: expected "x@y.z", got "a@b.c"

An action or outcome the scene refuses raises :class:`yaia.YaiaError`, as
the binding does everywhere; :meth:`~SceneTest.send_fails` and
:meth:`~SceneTest.resolve_fails` assert such refusals.
"""

from __future__ import annotations

import copy
import enum
import json
import math
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Type, Union

from .errors import YaiaError
from .runtime import MISSING, PathLike, Runtime, Scene, Update

__all__ = ["SceneTest", "EmittedEffect", "ABSENT", "Changes", "json_diff", "render"]


class _Absent(enum.Enum):
    ABSENT = 0

    def __repr__(self) -> str:
        return "ABSENT"


#: As an expected value: the member must not exist (in an exhaustive change,
#: the step removed it): ``state={"error": ABSENT}``, ``state={"/items/2": ABSENT}``.
ABSENT = _Absent.ABSENT

#: Expected changes to a state: a mapping whose keys are top-level member
#: names, or JSON Pointers when they start with "/" ("/items/0/done"), to the
#: values expected there (``ABSENT``: no such member); or a function that
#: takes a copy of the previous state and changes it in place, or returns the
#: whole expected state.
Changes = Union[Mapping[str, Any], Callable[[Any], Any]]

#: Differences beyond this many are summarized in one line.
MAX_DIFF_LINES = 40
#: Rendered values are shortened to this many characters.
MAX_VALUE_LENGTH = 240


# ---------------------------------------------------------------- JSON values


def render(value: Any, limit: int = MAX_VALUE_LENGTH) -> str:
    """``value`` as compact JSON text, members sorted, shortened to ``limit`` characters."""
    if value is ABSENT:
        return "no member"
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def _canonical(value: Any, at: str = "", absent: bool = False) -> Any:
    """A JSON value from Python's: tuples become lists; anything JSON cannot
    hold raises TypeError or ValueError (naming where). ``absent``: ABSENT
    may stand for a whole value."""
    if value is ABSENT:
        if absent:
            return value
        raise TypeError(f"ABSENT is not a JSON value (at {at or '(root)'})")
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ValueError(f"{value} is not a JSON number (at {at or '(root)'})")
        return value
    if isinstance(value, Mapping):
        out: Dict[str, Any] = {}
        for key, member in value.items():
            if not isinstance(key, str):
                raise TypeError(f"a JSON object's keys are strings, not {type(key).__name__} (at {at or '(root)'})")
            out[key] = _canonical(member, _append(at, key))
        return out
    if isinstance(value, (list, tuple)):
        return [_canonical(v, _append(at, i)) for i, v in enumerate(value)]
    raise TypeError(f"{type(value).__name__} is not a JSON value (at {at or '(root)'})")


def _same(a: Any, b: Any) -> bool:
    """JSON equality: true is not 1, 1 is 1.0, member order does not count."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and bool(a == b)


def _append(pointer: str, token: Union[str, int]) -> str:
    return pointer + "/" + str(token).replace("~", "~0").replace("/", "~1")


def _tokens(pointer: str) -> List[str]:
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]


def json_diff(expected: Any, actual: Any, *, max_lines: int = MAX_DIFF_LINES) -> List[str]:
    """Where two JSON values differ: one line per differing leaf, named by its
    JSON Pointer, ``/email: expected "a@b.c", got ""``. Objects are compared
    member by member and arrays element by element; a missing member reads
    "no member", a missing element "no element". Empty when they are equal."""
    out: List[str] = []
    omitted = [0]

    def add(pointer: str, want: str, got: str) -> None:
        if len(out) < max_lines:
            out.append(f"{pointer or '(root)'}: expected {want}, got {got}")
        else:
            omitted[0] += 1

    def walk(e: Any, a: Any, at: str) -> None:
        if isinstance(e, dict) and isinstance(a, dict):
            for key in sorted(set(e) | set(a)):
                if key not in a:
                    add(_append(at, key), render(e[key]), "no member")
                elif key not in e:
                    add(_append(at, key), "no member", render(a[key]))
                else:
                    walk(e[key], a[key], _append(at, key))
        elif isinstance(e, list) and isinstance(a, list):
            for i in range(max(len(e), len(a))):
                if i >= len(a):
                    add(_append(at, i), render(e[i]), "no element")
                elif i >= len(e):
                    add(_append(at, i), "no element", render(a[i]))
                else:
                    walk(e[i], a[i], _append(at, i))
        elif not _same(e, a):
            add(at, render(e), render(a))

    walk(expected, actual, "")
    if omitted[0]:
        out.append(f"… and {omitted[0]} more difference{'' if omitted[0] == 1 else 's'}")
    return out


def _index(token: str) -> Optional[int]:
    """An array index as RFC 6901 spells it ("0", "12"; not "01" or "-1")."""
    if token.isdigit() and token.isascii() and (token == "0" or not token.startswith("0")):
        return int(token)
    return None


def _set(document: Any, pointer: str, value: Any) -> Any:
    """``document`` with ``value`` at ``pointer`` (changed in place where it
    can be; the root is replaced). ABSENT removes the member or element; "-"
    or the length of an array appends. Raises LookupError naming what is
    missing."""
    tokens = _tokens(pointer)
    if not tokens:
        return None if value is ABSENT else value
    parent = document
    at = ""
    for token in tokens[:-1]:
        index = _index(token)
        if isinstance(parent, dict) and token in parent:
            parent = parent[token]
        elif isinstance(parent, list) and index is not None and index < len(parent):
            parent = parent[index]
        else:
            raise LookupError(f"there is no {_append(at, token)}")
        at = _append(at, token)
    last = tokens[-1]
    if isinstance(parent, dict):
        if value is ABSENT:
            parent.pop(last, None)
        else:
            parent[last] = value
    elif isinstance(parent, list):
        index = len(parent) if last == "-" else _index(last)
        if index is not None and index == len(parent):
            if value is not ABSENT:
                parent.append(value)
        elif index is not None and index < len(parent):
            if value is ABSENT:
                del parent[index]
            else:
                parent[index] = value
        else:
            raise LookupError(f"{at or '(root)'} has no element {last} (it has {len(parent)})")
    else:
        raise LookupError(f"{at or '(root)'} is {render(parent, 60)}, neither an object nor an array")
    return document


def _expected(base: Any, changes: Changes) -> Any:
    """``base`` (not changed) with ``changes`` applied."""
    document = copy.deepcopy(base)
    if callable(changes):
        returned = changes(document)
        return _canonical(document if returned is None else returned)
    if not isinstance(changes, Mapping):
        raise TypeError(f"expected changes are a mapping or a function, not {type(changes).__name__}")
    for key, value in changes.items():
        if not isinstance(key, str):
            raise TypeError(f"the keys of expected changes are member names or JSON Pointers, not {type(key).__name__}")
        pointer = key if key.startswith("/") else _append("", key)
        value = _canonical(value, pointer, absent=True)
        try:
            document = _set(document, pointer, value)
        except LookupError as exc:
            raise AssertionError(f"the expected change at {pointer} has nowhere to go: {exc}") from None
    return document


def _relative(at: Optional[str], prefixes: Sequence[str]) -> Optional[str]:
    """A request pointer made relative to the first of ``prefixes`` it lies in."""
    if at is None:
        return None
    for prefix in prefixes:
        if at == prefix or at.startswith(prefix + "/"):
            return at[len(prefix):]
    return at


def _plural(n: int, noun: str) -> str:
    return f"1 {noun}" if n == 1 else f"{n} {noun}s"


def _fail(label: str, message: str) -> AssertionError:
    return AssertionError(f"{label}: {message}")


def _note(exc: BaseException, label: str) -> None:
    add_note = getattr(exc, "add_note", None)  # Python 3.11 and later
    if add_note is not None:
        add_note(f"(in the SceneTest step: {label})")


# ---------------------------------------------------------------- effects


@dataclass(frozen=True)
class EmittedEffect:
    """An effect the scene emitted, as the test saw it: what
    :meth:`SceneTest.resolve` takes.

    ``index`` is its place among the effects of the test, from 0 (``#0`` in
    messages); ``id`` its runtime id; ``service``, ``op``, ``args`` and
    ``key`` (the reducer's cancellation key, or None) as in
    :class:`yaia.Effect`. ``request`` is the effect as the reducer asked for
    it: ``service``, ``op``, ``args``, and ``then``, ``catch``, ``id``,
    ``policy``, ``timeout``, ``restore`` when given. ``step`` names the step
    that emitted it.
    """

    index: int
    id: int
    service: str
    op: str
    args: Any
    key: Optional[str] = None
    request: Dict[str, Any] = field(default_factory=dict, compare=False)
    step: str = field(default="", compare=False)

    @property
    def name(self) -> str:
        """``#0 auth.login``."""
        return f"#{self.index} {self.service}.{self.op}"

    def describe(self) -> str:
        """``#0 auth.login`` and its request as JSON."""
        return f"{self.name} {render(self.request)}"


class _Record:
    __slots__ = ("effect", "received", "resolved", "ended", "status", "excused")

    def __init__(self, effect: EmittedEffect, status: str) -> None:
        self.effect = effect
        self.received = False  # asserted by receive_effect (or resolved, or skipped)
        self.resolved = False  # the test gave it its outcome
        self.ended = False  # no longer in flight in the runtime, though the test did not resolve it
        self.status = status  # "pending" or "queued", while in flight
        self.excused = False  # reported once already (or skipped): not reported again

    @property
    def in_flight(self) -> bool:
        return not self.resolved and not self.ended


# ---------------------------------------------------------------- the test


class SceneTest:
    """An exhaustive, value-only test of one scene, driven over the C ABI.

    ``scene`` is the scene type ("example/login"). The test opens it in
    ``runtime``, or in a runtime of its own made with the scene packs
    ``scenes`` (no services, so that every effect stays pending for the
    test to resolve, and a manual clock, so that no time-out fires by
    itself; closed with the test). A ``runtime`` given must allow
    the ``snapshot`` op (``Runtime(allow=["snapshot"])``): the test reads the
    effects in flight from it. ``args`` are its open arguments;
    ``state`` opens it in that state instead, so that any starting point is
    one call. ``exhaustive``: see the module's documentation.

    Use it as a context manager: leaving the block without an exception
    calls :meth:`finish`; either way the scene (and an own runtime) is
    closed. Without ``with``, call :meth:`finish` and :meth:`close`.

    Raises YaiaError when the scene cannot be opened (``unknown_scene``,
    ``bad_args``, ``bad_state`` at "/state/...") or a pack cannot be loaded.
    """

    def __init__(
        self,
        scene: str,
        *,
        args: Optional[Mapping[str, Any]] = None,
        state: Optional[Mapping[str, Any]] = None,
        scenes: Optional[Sequence[PathLike]] = None,
        runtime: Optional[Runtime] = None,
        exhaustive: bool = True,
    ) -> None:
        if runtime is not None and scenes is not None:
            raise TypeError("SceneTest() takes scenes= (for a runtime of its own) or runtime=, not both")
        if args is not None and state is not None:
            raise TypeError("SceneTest() takes args= or state=, not both")
        #: With False, only what the test states is checked (see the module).
        self.exhaustive = exhaustive
        self._owns_runtime = runtime is None
        self._runtime = Runtime(scenes=scenes, allow=["snapshot"], clock="manual") if runtime is None else runtime
        self._records: List[_Record] = []
        self._routes: List[Any] = []
        self._closed = False
        try:
            self._scene: Scene = self._runtime.open(scene, args=args, state=state)
        except BaseException:
            if self._owns_runtime:
                self._runtime.close()
            raise
        self.name = scene
        opened = self._scene.opened
        self._seq = opened.seq
        self._view_model: Any = opened.view_model
        self._state: Any = None
        label = f"open {scene}"
        try:
            failures = self._record_step(label, opened)
            self._seq = self._fetch()
            self._raise(label, failures)
        except BaseException:
            self.close()
            raise

    # -- what the test can read

    @property
    def runtime(self) -> Runtime:
        """The runtime the scene lives in."""
        return self._runtime

    @property
    def scene(self) -> Scene:
        """The scene under test (its ``id``, ``name``; ``send`` bypasses the test's checks)."""
        return self._scene

    @property
    def state(self) -> Any:
        """The scene's state after the last step (a copy)."""
        return copy.deepcopy(self._state)

    @property
    def view_model(self) -> Any:
        """The scene's view model after the last step (a copy)."""
        return copy.deepcopy(self._view_model)

    @property
    def seq(self) -> int:
        """The number of reductions so far (0 after open)."""
        return self._seq

    @property
    def effects(self) -> List[EmittedEffect]:
        """Every effect the scene emitted during the test, in order."""
        return [r.effect for r in self._records]

    @property
    def pending_effects(self) -> List[EmittedEffect]:
        """The effects still in flight: neither resolved by the test nor
        cancelled by the scene, in the order emitted."""
        return [r.effect for r in self._records if r.in_flight]

    @property
    def unasserted_routes(self) -> List[Any]:
        """The routes the last step emitted that no expect_route matched yet."""
        return copy.deepcopy(self._routes)

    # -- inputs

    def send(
        self,
        action: Union[str, Mapping[str, Any]],
        payload: Any = MISSING,
        *,
        error: bool = False,
        meta: Any = MISSING,
        state: Optional[Changes] = None,
    ) -> Update:
        """Sends an action (``send("emailChanged", "a@b.c")`` or
        ``send({"type": ..., "payload": ...})``) and asserts the new state.

        ``state`` holds the expected changes (see :data:`Changes`):
        exhaustive, the new state must be the previous one with exactly these
        changes (none given: unchanged); not exhaustive, the given fields
        must hold. Exhaustive, effects and routes of the previous step that
        were never asserted fail first. Returns the scene update.

        An action the scene refuses raises :class:`yaia.YaiaError`
        (``unknown_action`` at "/action/type", ``bad_payload`` at
        "/action/payload/...") and changes nothing; see :meth:`send_fails`.
        """
        __tracebackhide__ = True
        label = self._send_label(action, payload, error)
        self._check_asserted(label)
        try:
            update = self._scene.send(action, payload, error=error, meta=meta)
        except YaiaError as exc:
            _note(exc, label)
            raise
        self._raise(label, self._advance(label, update, state, reduced=True))
        return update

    def send_fails(
        self,
        action: Union[str, Mapping[str, Any]],
        payload: Any = MISSING,
        *,
        code: str,
        at: Any = MISSING,
        message: Optional[str] = None,
        error: bool = False,
        meta: Any = MISSING,
    ) -> YaiaError:
        """Sends an action the scene must refuse with the error ``code``, and
        returns that error.

        ``at`` (when given) is the error's JSON Pointer into the action:
        "/type", "/payload/user" (the runtime says "/action/type"; a pointer
        outside the action is compared as the runtime gives it); ``message``,
        a text the error's message must contain. The scene must be unchanged.
        An action the scene accepts fails (and counts as a step: its effects
        and routes are recorded).
        """
        __tracebackhide__ = True
        label = self._send_label(action, payload, error)
        self._check_asserted(label)
        try:
            update = self._scene.send(action, payload, error=error, meta=meta)
        except YaiaError as exc:
            self._check_refusal(label, exc, code, at, message, ("/action",))
            return exc
        failures = [f"expected the scene to refuse it with {code}, but it accepted it (seq {update.seq})"]
        failures += self._advance(label, update, None, reduced=True, check_state=False)
        raise _fail(label, "\n".join(failures))

    def resolve(
        self,
        effect: Union[EmittedEffect, int],
        result: Any = MISSING,
        error: Any = MISSING,
        *,
        state: Optional[Changes] = None,
    ) -> Update:
        """Ends an effect in flight with its outcome, ``result=`` or
        ``error=`` (exactly one), and asserts the new state as :meth:`send`
        does. The outcome goes through the scene as the effect's ``then`` (or
        ``catch``) action, as a service's would. ``effect`` is a handle from
        :meth:`receive_effect` (or :attr:`effects`), or a runtime effect id;
        resolving it counts as receiving it.

        Fails for an effect the test did not see emitted, one resolved
        already, one the scene cancelled (a cancel, a ``latest`` successor),
        and one queued behind another with its key. An outcome the scene
        refuses raises :class:`yaia.YaiaError` (``bad_payload`` at
        "/result/..."; the effect stays in flight); see :meth:`resolve_fails`.
        """
        __tracebackhide__ = True
        record, label = self._begin_resolve("resolve", effect, result, error)
        try:
            update = self._runtime.resolve(record.effect.id, result=result, error=error)
        except YaiaError as exc:
            _note(exc, label)
            raise
        record.resolved = True
        self._raise(label, self._advance(label, update, state, reduced=False))
        return update

    def _begin_resolve(self, name: str, effect: Union[EmittedEffect, int], result: Any, error: Any) -> Tuple[_Record, str]:
        """What resolve() and resolve_fails() check before the outcome goes in."""
        __tracebackhide__ = True
        if (result is MISSING) == (error is MISSING):
            raise TypeError(f"{name}() takes exactly one of result= and error=")
        record = self._record_for(effect)
        label = self._resolve_label(record.effect, result, error)
        self._check_resolvable(label, record)
        record.received = True
        self._check_asserted(label)
        return record, label

    def resolve_fails(
        self,
        effect: Union[EmittedEffect, int],
        result: Any = MISSING,
        error: Any = MISSING,
        *,
        code: str,
        at: Any = MISSING,
        message: Optional[str] = None,
    ) -> YaiaError:
        """Gives an effect an outcome the scene must refuse with ``code``, and
        returns that error; the effect stays in flight and the scene
        unchanged. ``at`` is the error's JSON Pointer into the outcome value
        ("/user" for the runtime's "/result/user"); ``message`` as in
        :meth:`send_fails`.
        """
        __tracebackhide__ = True
        record, label = self._begin_resolve("resolve_fails", effect, result, error)
        try:
            update = self._runtime.resolve(record.effect.id, result=result, error=error)
        except YaiaError as exc:
            self._check_refusal(label, exc, code, at, message, ("/result", "/error"))
            return exc
        record.resolved = True
        failures = [f"expected the scene to refuse the outcome with {code}, but it accepted it (seq {update.seq})"]
        failures += self._advance(label, update, None, reduced=False, check_state=False)
        raise _fail(label, "\n".join(failures))

    # -- assertions on what the scene emitted, and on where it is

    def receive_effect(
        self,
        service: Union[str, Mapping[str, Any]],
        op: Optional[str] = None,
        *,
        args: Any = MISSING,
        key: Any = MISSING,
        then: Any = MISSING,
        catch: Any = MISSING,
        policy: Any = MISSING,
        timeout: Any = MISSING,
    ) -> EmittedEffect:
        """Asserts the next effect not yet received (not exhaustive: any one
        not yet received) and returns its handle, for :meth:`resolve`.

        ``receive_effect("auth", "login", args={...})`` checks the service,
        the operation and the fields given (``key`` is the cancellation key,
        the request's "id"); ``receive_effect({"service": ..., "op": ...,
        "args": ..., "then": ..., "catch": ...})`` checks the whole request,
        as the reducer made it (see :attr:`EmittedEffect.request`).
        """
        __tracebackhide__ = True
        if isinstance(service, Mapping):
            if op is not None or any(v is not MISSING for v in (args, key, then, catch, policy, timeout)):
                raise TypeError("receive_effect(request) takes no other arguments: put them in the request")
            whole: Optional[Dict[str, Any]] = _canonical(service)
            fields: Dict[str, Any] = {}
            wanted = render(whole)
        else:
            if op is None:
                raise TypeError("receive_effect() takes a service and an op, or a whole request")
            whole = None
            fields = {"service": service, "op": op}
            for name, value in (("args", args), ("id", key), ("then", then), ("catch", catch), ("policy", policy), ("timeout", timeout)):
                if value is not MISSING:
                    fields[name] = _canonical(value, "/" + name, absent=True)
            wanted = f"{service}.{op}" + (f" with args {render(fields['args'], 80)}" if "args" in fields else "")
        label = f"receive_effect {wanted}"

        def expected_for(actual: Dict[str, Any]) -> Any:
            if whole is not None:
                return whole
            expected = copy.deepcopy(actual)
            for name, value in fields.items():
                _set(expected, _append("", name), value)
            return expected

        open_records = [r for r in self._records if not r.received]
        if not open_records:
            raise _fail(label, "no effect was emitted that was not received already")
        if self.exhaustive:
            record = open_records[0]
            actual = record.effect.request
            lines = json_diff(expected_for(actual), actual)
            if lines:
                record.received = True
                raise _fail(label, f"the next effect is {record.effect.describe()}:" + "".join("\n  " + line for line in lines))
        else:
            found = [r for r in open_records if not json_diff(expected_for(r.effect.request), r.effect.request)]
            if not found:
                listed = []
                for r in open_records:
                    listed.append("\n  " + r.effect.describe())
                    listed += ["\n    " + line for line in json_diff(expected_for(r.effect.request), r.effect.request)]
                raise _fail(label, "none of the effects not yet received matches:" + "".join(listed))
            record = found[0]
        record.received = True
        return record.effect

    def expect_route(self, route: Mapping[str, Any]) -> None:
        """Asserts the next route not yet asserted (not exhaustive: any one),
        e.g. ``{"push": "example/home", "args": {...}}``, ``{"pop": True}``."""
        __tracebackhide__ = True
        expected = _canonical(route)
        label = f"expect_route {render(expected, 120)}"
        if not self._routes:
            raise _fail(label, "no route was emitted that was not asserted already")
        if self.exhaustive:
            actual = self._routes.pop(0)
            lines = json_diff(expected, actual)
            if lines:
                raise _fail(label, f"the next route is {render(actual)}:" + "".join("\n  " + line for line in lines))
            return
        for i, actual in enumerate(self._routes):
            if _same(expected, actual):
                del self._routes[i]
                return
        raise _fail(label, "none of the routes not yet asserted matches:" + "".join("\n  " + render(r) for r in self._routes))

    def expect_view_model(
        self, expected: Union[Mapping[str, Any], Callable[[Any], Any]], *, partial: bool = False
    ) -> None:
        """Asserts the current view model: equal to ``expected``; with
        ``partial=True`` only its given fields (member names, or JSON
        Pointers when they start with "/"); or, for a function, that it
        returns something true for the view model."""
        __tracebackhide__ = True
        self._expect("expect_view_model", "view model", self._view_model, expected, partial)

    def expect_state(self, expected: Union[Mapping[str, Any], Callable[[Any], Any]], *, partial: bool = False) -> None:
        """Asserts the current state, as :meth:`expect_view_model` does the view model."""
        __tracebackhide__ = True
        self._expect("expect_state", "state", self._state, expected, partial)

    def skip_effects(self) -> List[EmittedEffect]:
        """Marks the effects not yet received as received, and returns them
        (they stay in flight: resolve them, or switch exhaustive off)."""
        skipped = [r for r in self._records if not r.received]
        for r in skipped:
            r.received = True
        return [r.effect for r in skipped]

    def skip_routes(self) -> List[Any]:
        """Marks the routes not yet asserted as asserted, and returns them."""
        routes, self._routes = self._routes, []
        return routes

    def finish(self) -> None:
        """Ends the test: exhaustive, fails for effects never received, routes
        never asserted and effects still in flight, all listed in one
        AssertionError (each is reported once). Either way, fails when the
        scene reduced inputs the test did not give it (an effect's
        ``timeout`` runs on the runtime's clock even for a pending effect)."""
        __tracebackhide__ = True
        label = "finish"
        failures: List[str] = []
        seq = self._fetch()
        if seq != self._seq:
            failures.append(self._unexpected_inputs(seq - self._seq))
            self._seq = seq
        self._refresh_effects()
        if self.exhaustive:
            message = self._unasserted()
            if message:
                failures.append(message)
            stuck = [r for r in self._records if r.received and r.in_flight and not r.excused]
            if stuck:
                them = "it" if len(stuck) == 1 else "them"
                failures.append(
                    f"{_plural(len(stuck), 'effect')} {'is' if len(stuck) == 1 else 'are'} still in flight "
                    f"(resolve {them}, or have the scene cancel {them}):" + "".join("\n  " + r.effect.describe() for r in stuck)
                )
        for r in self._records:
            if not r.received or r.in_flight:
                r.received = True
                r.excused = True
        self._routes = []
        self._raise(label, failures)

    def close(self) -> None:
        """Closes the scene (its effects in flight are cancelled) and the
        runtime, when the test made it. Idempotent."""
        if self._closed:
            return
        self._closed = True
        try:
            if not self._runtime.closed:
                self._scene.close()
        finally:
            if self._owns_runtime:
                self._runtime.close()

    def __enter__(self) -> "SceneTest":
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        __tracebackhide__ = True
        try:
            if exc_type is None:
                self.finish()
        finally:
            self.close()

    def __repr__(self) -> str:
        return f"<yaia.testing.SceneTest {self.name} seq {self._seq}{' closed' if self._closed else ''}>"

    # -- steps

    def _advance(self, label: str, update: Update, changes: Optional[Changes], *, reduced: bool, check_state: bool = True) -> List[str]:
        """Records what a step emitted and checks the new state; returns the
        failures. ``reduced``: the step is one reduction; else (an outcome)
        it may be none, when the effect has no continuation for it."""
        failures = self._record_step(label, update)
        previous = self._state
        seq = self._fetch()
        steps = update.seq - self._seq
        extra = steps - (1 if reduced else min(max(steps, 0), 1)) + (seq - update.seq)
        self._seq = seq
        if extra > 0:
            failures.append(self._unexpected_inputs(extra))
        elif check_state:
            failure = self._check_state(previous, changes)
            if failure:
                failures.append(failure)
        return failures

    def _record_step(self, label: str, update: Update) -> List[str]:
        """Keeps the update's effects and routes; fails for effects a service performs."""
        failures: List[str] = []
        self._view_model = update.view_model
        self._routes.extend(update.routes)
        if not update.effects and not any(r.in_flight for r in self._records):
            return failures
        requests = self._in_flight_requests()
        for e in update.effects:
            request = requests.get(e.id, (None, {}))[1] or {"service": e.service, "op": e.op, "args": e.args}
            emitted = EmittedEffect(len(self._records), e.id, e.service, e.op, e.args, e.key, request, label)
            record = _Record(emitted, e.status)
            self._records.append(record)
            if e.status not in ("pending", "queued"):
                record.received = record.excused = True
                failures.append(
                    f"effect {emitted.name} is {e.status}: the runtime has a service named {e.service!r}, which performs it; "
                    "a SceneTest resolves effects itself and needs a runtime without that service"
                )
        self._update_statuses(requests)
        return failures

    def _in_flight_requests(self) -> Dict[int, Tuple[str, Dict[str, Any]]]:
        """This scene's effects in flight in the runtime: id -> (status, request)."""
        snapshot = self._runtime.snapshot()
        out: Dict[int, Tuple[str, Dict[str, Any]]] = {}
        for entry in snapshot.get("effects", []):
            if isinstance(entry, dict) and entry.get("scene") == self._scene.id:
                request = entry.get("effect")
                out[int(entry["id"])] = (str(entry.get("status")), request if isinstance(request, dict) else {})
        return out

    def _update_statuses(self, requests: Mapping[int, Tuple[str, Dict[str, Any]]]) -> None:
        for r in self._records:
            if not r.in_flight:
                continue
            found = requests.get(r.effect.id)
            if found is None:
                r.ended = True
            else:
                r.status = found[0]

    def _refresh_effects(self) -> None:
        if any(r.in_flight for r in self._records):
            self._update_statuses(self._in_flight_requests())

    def _fetch(self) -> int:
        """Reads the scene's state and view model; returns its seq."""
        answer = self._runtime.execute({"op": "state", "scene": self._scene.id})
        self._state = answer.get("state")
        self._view_model = answer.get("viewModel")
        return int(answer.get("seq", self._seq))

    def _check_state(self, previous: Any, changes: Optional[Changes]) -> Optional[str]:
        actual = self._state
        if self.exhaustive:
            expected = previous if changes is None else _expected(previous, changes)
        elif changes is None:
            return None
        else:
            expected = _expected(actual, changes)
        lines = json_diff(expected, actual)
        if not lines:
            return None
        hint = " (no state= was given: it must not change)" if changes is None else ""
        return f"the state is not the expected one{hint}:" + "".join("\n  " + line for line in lines)

    def _expect(self, label: str, what: str, actual: Any, expected: Union[Mapping[str, Any], Callable[[Any], Any]], partial: bool) -> None:
        __tracebackhide__ = True
        if callable(expected):
            if partial:
                raise TypeError(f"{label}() takes partial= with a mapping, not with a function")
            if not expected(copy.deepcopy(actual)):
                raise _fail(label, f"the {what} does not satisfy the predicate: {render(actual)}")
            return
        want = _expected(actual, expected) if partial else _canonical(expected)
        lines = json_diff(want, actual)
        if lines:
            raise _fail(label, f"the {what} is not the expected one:" + "".join("\n  " + line for line in lines))

    def _check_asserted(self, label: str) -> None:
        """Exhaustive: what the previous steps emitted must be asserted before
        the next input. Either way, what was not asserted is then let go."""
        __tracebackhide__ = True
        message = self._unasserted() if self.exhaustive else None
        for r in self._records:
            if not r.received:
                r.received = True
                r.excused = r.excused or self.exhaustive
        self._routes = []
        if message:
            raise _fail(label, message + "\n(assert what a step emits before the next input)")

    def _unasserted(self) -> Optional[str]:
        parts = []
        unreceived = [r for r in self._records if not r.received]
        if unreceived:
            parts.append(
                f"{_plural(len(unreceived), 'effect')} emitted but never received:"
                + "".join("\n  " + r.effect.describe() for r in unreceived)
            )
        if self._routes:
            parts.append(
                f"{_plural(len(self._routes), 'route')} emitted but never asserted:" + "".join("\n  " + render(r) for r in self._routes)
            )
        return "\n".join(parts) if parts else None

    def _record_for(self, effect: Union[EmittedEffect, int]) -> _Record:
        wanted = effect.id if isinstance(effect, EmittedEffect) else effect
        for r in self._records:
            if r.effect.id == wanted:
                return r
        raise AssertionError(f"resolve: this test saw no effect with id {wanted} emitted")

    def _check_resolvable(self, label: str, record: _Record) -> None:
        __tracebackhide__ = True
        if record.resolved:
            raise _fail(label, "the effect was resolved already")
        self._refresh_effects()
        if record.ended:
            raise _fail(label, "the scene cancelled the effect (a cancel, a successor with policy latest, or its timeout); its outcome is never delivered")
        if record.status == "queued":
            ahead = next(
                (r for r in self._records if r.in_flight and r is not record and r.effect.key == record.effect.key and r.effect.index < record.effect.index),
                None,
            )
            behind = f" behind {ahead.effect.name}" if ahead is not None else ""
            raise _fail(
                label,
                f"the effect is queued{behind} with key {render(record.effect.key)}, and starts only once the earlier ones with its key have ended",
            )

    def _check_refusal(
        self, label: str, exc: YaiaError, code: str, at: Any, message: Optional[str], prefixes: Sequence[str]
    ) -> None:
        __tracebackhide__ = True
        relative = _relative(exc.at, prefixes)
        problems = []
        if exc.code != code:
            problems.append(f"code: expected {code}, got {exc.code}")
        if at is not MISSING and at != relative:
            problems.append(f"at: expected {render(at)}, got {render(relative) if relative is not None else 'none'}")
        if message is not None and message not in exc.message:
            problems.append(f"message: expected it to contain {render(message)}, got {render(exc.message)}")
        before = self._state
        seq = self._fetch()
        if seq != self._seq or not _same(before, self._state):
            problems.append(f"the scene changed (seq {self._seq} -> {seq}):" + "".join("\n  " + line for line in json_diff(before, self._state)))
            self._seq = seq
        if problems:
            raise _fail(label, f"the scene refused it ({exc}), but not as expected:" + "".join("\n  " + p for p in problems))

    def _unexpected_inputs(self, count: int) -> str:
        """Why the scene's seq moved on by itself. In a runtime of the test's
        own, with no services, only a deadline can do that: the events it
        queued name the effects."""
        said = f"the scene reduced {_plural(count, 'input')} the test did not give it"
        if self._owns_runtime:
            names = []
            while True:
                event = self._runtime.receive(0)
                if event is None:
                    break
                if event.scene == self._scene.id and event.effect is not None:
                    record = next((r for r in self._records if r.effect.id == event.effect), None)
                    names.append(record.effect.name if record is not None else f"effect {event.effect}")
            if names:
                return f"{said}: {', '.join(names)} timed out (an effect's timeout runs on the runtime's clock, even while it is pending)"
        return f"{said} (an outcome from a service, or an effect's timeout, which runs on the runtime's clock even while the effect is pending)"

    def _raise(self, label: str, failures: List[str]) -> None:
        __tracebackhide__ = True
        if failures:
            raise _fail(label, "\n".join(failures))

    @staticmethod
    def _send_label(action: Union[str, Mapping[str, Any]], payload: Any, error: bool) -> str:
        if isinstance(action, Mapping):
            text = f"send {action.get('type')}"
            if "payload" in action:
                text += " " + render(action["payload"], 80)
            return text + (" (error)" if action.get("error") is True else "")
        text = f"send {action}"
        if payload is not MISSING:
            text += " " + render(payload, 80)
        return text + (" (error)" if error else "")

    @staticmethod
    def _resolve_label(effect: EmittedEffect, result: Any, error: Any) -> str:
        if result is not MISSING:
            return f"resolve {effect.name} with result {render(result, 80)}"
        return f"resolve {effect.name} with error {render(error, 80)}"
