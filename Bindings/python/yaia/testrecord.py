"""What a :class:`yaia.testing.SceneTest` saw, and how it has each step
checked: the effects the scene emitted and the state and view model after
the last step are read from the runtime, and the exhaustive rules (what is
still to be asserted, and the failures a step makes) are the runtime's own,
asked with ``{"op": "expect"}`` (docs/testing.md), the rules Swift's
SceneTest and scenario files follow."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .errors import YaiaError
from .jsonvalues import ABSENT, append, canonical, json_diff, json_equal, render, set_at
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


def _pairs(changes: Mapping[str, Any]) -> List[List[Any]]:
    """Expected changes as the runtime's rules take them: [KEY, VALUE], or
    [KEY] for a member that must be absent."""
    if not isinstance(changes, Mapping):
        raise TypeError(f"expected changes are a mapping or a function, not {type(changes).__name__}")
    pairs: List[List[Any]] = []
    for key, value in changes.items():
        if not isinstance(key, str):
            raise TypeError(f"the keys of expected changes are member names or JSON Pointers, not {type(key).__name__}")
        value = canonical(value, key if key.startswith("/") else append("", key), absent=True)
        pairs.append([key] if value is ABSENT else [key, value])
    return pairs


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


class _TestRecord:
    """The record SceneTest keeps of its scene, and the checks of each step."""

    exhaustive: bool
    name: str
    _owns_runtime: bool
    _runtime: Runtime
    _scene: Scene
    _effects: List[EmittedEffect]
    _test: Any  # the runtime's record of what is still to be asserted
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
        return list(self._effects)

    @property
    def pending_effects(self) -> List[EmittedEffect]:
        """The effects still in flight: neither resolved by the test nor
        cancelled by the scene, in the order emitted."""
        return [self._effects[i] for i in self._in_flight()]

    @property
    def unasserted_routes(self) -> List[Any]:
        """The routes the last step emitted that no expect_route matched yet."""
        return copy.deepcopy(self._test["routes"]) if self._test is not None else []

    def _rules(self, step: str, **members: Any) -> Dict[str, Any]:
        """One step checked by the runtime's exhaustive rules; the answer,
        whose record of the test is kept for the next step."""
        request = {"op": "expect", "test": self._test, "exhaustive": bool(self.exhaustive), "step": step, **members}
        if self._test is None:
            del request["test"]
        answer = self._runtime.execute(request)
        self._test = answer["test"]
        return answer

    def _check(self, label: str, step: str, **members: Any) -> Dict[str, Any]:
        """A step of the rules whose failure fails the test."""
        __tracebackhide__ = True
        answer = self._rules(step, **members)
        if "failure" in answer:
            raise _fail(label, answer["failure"])
        return answer

    def _in_flight(self) -> List[int]:
        effects = self._test["effects"] if self._test is not None else []
        return [i for i, e in enumerate(effects) if e["status"] in ("inFlight", "queued")]

    def _begin_resolve(self, name: str, effect: Union[EmittedEffect, int], result: Any, error: Any) -> Tuple[EmittedEffect, str]:
        """What resolve() and resolve_fails() check before the outcome goes in."""
        __tracebackhide__ = True
        if (result is MISSING) == (error is MISSING):
            raise TypeError(f"{name}() takes exactly one of result= and error=")
        emitted = self._effect_for(effect)
        label = self._resolve_label(emitted, result, error)
        self._refresh_effects()
        self._check(label, "resolve", effect=emitted.index)
        return emitted, label

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
        requests = self._in_flight_requests() if update.effects else {}
        records: List[Dict[str, Any]] = []
        for e in update.effects:
            request = requests.get(e.id, (None, {}))[1] or {"service": e.service, "op": e.op, "args": e.args}
            emitted = EmittedEffect(len(self._effects), e.id, e.service, e.op, e.args, e.key, request, label)
            self._effects.append(emitted)
            if e.status in ("pending", "queued"):
                records.append({"request": request, "status": "queued" if e.status == "queued" else "inFlight"})
            else:
                records.append({"request": request, "status": "cancelled", "received": True, "excused": True})
                failures.append(
                    f"effect {emitted.name} is {e.status}: the runtime has a service named {e.service!r}, which performs it; "
                    "a SceneTest resolves effects itself and needs a runtime without that service"
                )
        self._rules("emitted", effects=records, routes=list(update.routes))
        self._refresh_effects(requests if update.effects else None)
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

    def _refresh_effects(self, requests: Optional[Mapping[int, Tuple[str, Dict[str, Any]]]] = None) -> None:
        """Tells the rules which effects the runtime still has in flight."""
        flying = self._in_flight()
        if not flying:
            return
        if requests is None:
            requests = self._in_flight_requests()
        pending = [i for i in flying if self._effects[i].id in requests]
        queued = [i for i in pending if requests[self._effects[i].id][0] == "queued"]
        self._rules("effects", pending=pending, queued=queued)

    def _fetch(self) -> int:
        """Reads the scene's state and view model; returns its seq."""
        answer = self._runtime.execute({"op": "state", "scene": self._scene.id})
        self._state = answer.get("state")
        self._view_model = answer.get("viewModel")
        return int(answer.get("seq", self._seq))

    def _check_state(self, previous: Any, changes: Optional[Changes]) -> Optional[str]:
        actual = self._state
        if callable(changes):
            base = self._rules("base", stated=True)["base"]
            expected = _expected(previous if base == "previous" else actual, changes)
            answer = self._rules("state", previous=previous, actual=actual, stated=True, expected=expected)
        else:
            answer = self._rules("state", previous=previous, actual=actual, stated=changes is not None,
                                 changes=_pairs(changes or {}), unstated="state=")
        return answer.get("failure")

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
        self._check(label, "input")

    def _effect_for(self, effect: Union[EmittedEffect, int]) -> EmittedEffect:
        wanted = effect.id if isinstance(effect, EmittedEffect) else effect
        for e in self._effects:
            if e.id == wanted:
                return e
        raise AssertionError(f"resolve: this test saw no effect with id {wanted} emitted")

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
                    found = next((e for e in self._effects if e.id == event.effect), None)
                    names.append(found.name if found is not None else f"effect {event.effect}")
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
