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
from types import TracebackType
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Type, Union

from .errors import YaiaError
from .jsonvalues import ABSENT, canonical, json_diff, render
from .runtime import Runtime
from .testrecord import Changes, EmittedEffect, _fail, _note, _TestRecord
from .values import MISSING, PathLike, Update

__all__ = ["SceneTest", "EmittedEffect", "ABSENT", "Changes", "json_diff", "render"]


class SceneTest(_TestRecord):
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
        self._effects = []
        self._test = None
        self._closed = False
        try:
            self._scene = self._runtime.open(scene, args=args, state=state)
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
        emitted, label = self._begin_resolve("resolve", effect, result, error)
        try:
            update = self._runtime.resolve(emitted.id, result=result, error=error)
        except YaiaError as exc:
            _note(exc, label)
            raise
        self._rules("resolved", effect=emitted.index)
        self._raise(label, self._advance(label, update, state, reduced=False))
        return update

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
        emitted, label = self._begin_resolve("resolve_fails", effect, result, error)
        try:
            update = self._runtime.resolve(emitted.id, result=result, error=error)
        except YaiaError as exc:
            self._check_refusal(label, exc, code, at, message, ("/result", "/error"))
            return exc
        self._rules("resolved", effect=emitted.index)
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
            wanted = render(canonical(service))
            expectation: Dict[str, Any] = {"whole": canonical(service)}
        else:
            if op is None:
                raise TypeError("receive_effect() takes a service and an op, or a whole request")
            fields: Dict[str, Any] = {"service": service, "op": op}
            for name, value in (("args", args), ("id", key), ("then", then), ("catch", catch), ("policy", policy), ("timeout", timeout)):
                if value is not MISSING:
                    fields[name] = canonical(value, "/" + name, absent=True)
            wanted = f"{service}.{op}" + (f" with args {render(fields['args'], 80)}" if "args" in fields else "")
            expectation = {"members": [[k] if v is ABSENT else [k, v] for k, v in fields.items()]}
        index: int = self._check(f"receive_effect {wanted}", "receive", **expectation)["effect"]
        return self._effects[index]

    def expect_route(self, route: Mapping[str, Any]) -> None:
        """Asserts the next route not yet asserted (not exhaustive: any one),
        e.g. ``{"push": "example/home", "args": {...}}``, ``{"pop": True}``."""
        __tracebackhide__ = True
        expected = canonical(route)
        self._check(f"expect_route {render(expected, 120)}", "route", route=expected)

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
        return [self._effects[i] for i in self._rules("skip_effects")["effects"]]

    def skip_routes(self) -> List[Any]:
        """Marks the routes not yet asserted as asserted, and returns them."""
        routes: List[Any] = self._rules("skip_routes")["routes"]
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
        failure = self._rules("finish").get("failure")
        if failure:
            failures.append(failure)
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

