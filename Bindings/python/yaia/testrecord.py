"""What a :class:`yaia.testing.SceneTest` saw and how it checks each
step: the effects the scene emitted, the routes not yet asserted, the
state and view model after the last step, and the failures a step makes."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .errors import YaiaError
from .jsonvalues import append, canonical, json_diff, json_equal, render, set_at
from .runtime import Runtime
from .scenes import Scene
from .values import MISSING, Update

__all__ = ["EmittedEffect", "Changes"]

#: Expected changes to a state: a mapping whose keys are top-level member
#: names, or JSON Pointers when they start with "/" ("/items/0/done"), to the
#: values expected there (``ABSENT``: no such member); or a function that
#: takes a copy of the previous state and changes it in place, or returns the
#: whole expected state.
Changes = Union[Mapping[str, Any], Callable[[Any], Any]]


def _expected(base: Any, changes: Changes) -> Any:
    """``base`` (not changed) with ``changes`` applied."""
    document = copy.deepcopy(base)
    if callable(changes):
        returned = changes(document)
        return canonical(document if returned is None else returned)
    if not isinstance(changes, Mapping):
        raise TypeError(f"expected changes are a mapping or a function, not {type(changes).__name__}")
    for key, value in changes.items():
        if not isinstance(key, str):
            raise TypeError(f"the keys of expected changes are member names or JSON Pointers, not {type(key).__name__}")
        pointer = key if key.startswith("/") else append("", key)
        value = canonical(value, pointer, absent=True)
        try:
            document = set_at(document, pointer, value)
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



class _TestRecord:
    """The record SceneTest keeps of its scene, and the checks of each step."""

    exhaustive: bool
    name: str
    _owns_runtime: bool
    _runtime: Runtime
    _scene: Scene
    _records: List[_Record]
    _routes: List[Any]
    _closed: bool
    _seq: int
    _view_model: Any
    _state: Any

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
        want = _expected(actual, expected) if partial else canonical(expected)
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
        if seq != self._seq or not json_equal(before, self._state):
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
