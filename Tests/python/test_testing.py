"""yaia.testing.SceneTest: value-only scene tests over the C ABI.

The example scenes come from the examples pack (YAIA_EXAMPLES_PACK, else
.build/release/libyaia-examples.so; the tests skip when it is not built).
Each failure mode is proven by the AssertionError it raises and the diff
text in it. The last tests run every ```python block of docs/testing.md.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import pytest

import yaia
from yaia.testing import ABSENT, EmittedEffect, SceneTest, json_diff

from conftest import HOST, EXAMPLES_PACK, REPO

NOTES_PACK = Path(os.environ.get("YAIA_NOTES_PACK") or REPO / "Examples" / "notes" / ".build" / "release" / "libnotes.so")
DOC = REPO / "docs" / "testing.md"

LOGIN_READY = {"email": "a@b.c", "password": "pw", "isSubmitting": False, "error": None, "user": None}
SUBMITTING = dict(LOGIN_READY, isSubmitting=True)
ITEMS = [{"key": "item/1", "title": "One"}, {"key": "item/2", "title": "Two"}]
HOME = {"user": {"id": 1}, "items": ITEMS, "isLoading": False, "error": None}


@pytest.fixture
def pack(examples_pack: str) -> str:
    return examples_pack


def fails(match: str) -> Any:
    """pytest.raises(AssertionError) whose message contains ``match`` literally."""
    return pytest.raises(AssertionError, match=re.escape(match))


# ---------------------------------------------------------------- scenes that pass


def test_login_logs_in(pack: str) -> None:
    with SceneTest("example/login", scenes=[pack]) as t:
        assert t.state == {"email": "", "password": "", "isSubmitting": False, "error": None, "user": None}
        t.send("emailChanged", "a@b.c", state={"email": "a@b.c"})
        t.send("passwordChanged", "pw", state={"password": "pw"})
        t.expect_view_model({"canSubmit": True, "email": "a@b.c", "error": None, "isSubmitting": False})
        update = t.send("submit", state={"isSubmitting": True})
        assert update.seq == 3 and [e.status for e in update.effects] == ["pending"]
        login = t.receive_effect("auth", "login", args={"email": "a@b.c", "password": "pw"})
        assert isinstance(login, EmittedEffect) and login.name == "#0 auth.login"
        assert login.request["then"] == "loginSucceeded" and login.request["catch"] == "loginFailed"
        assert t.pending_effects == [login]
        t.expect_view_model({"canSubmit": False, "isSubmitting": True}, partial=True)
        t.resolve(login, result={"user": {"id": 1}}, state={"isSubmitting": False, "user": {"id": 1}})
        t.expect_route({"push": "example/home", "args": {"user": {"id": 1}}})
        t.expect_view_model({"canSubmit": True}, partial=True)
        t.expect_state({"user": {"id": 1}, "/user/id": 1}, partial=True)
        assert t.pending_effects == [] and t.seq == 4


def test_login_failure_and_validation(pack: str) -> None:
    with SceneTest("example/login", scenes=[pack]) as t:
        t.send("submit", state={"error": "Enter a valid email address"})
        t.send("emailChanged", "a@b.c", state={"email": "a@b.c"})
        t.send("submit", state={"error": "Enter your password"})
        t.send("passwordChanged", "pw", state={"password": "pw"})
        t.send("submit", state={"isSubmitting": True, "error": None})
        login = t.receive_effect({
            "service": "auth", "op": "login", "args": {"email": "a@b.c", "password": "pw"},
            "then": "loginSucceeded", "catch": "loginFailed",
        })
        t.send("submit", state={"error": "A login is already in progress"})
        t.resolve(login, error={"message": "Wrong password"}, state={"isSubmitting": False, "error": "Wrong password"})
        t.send("submit", state={"isSubmitting": True, "error": None})
        login = t.receive_effect("auth", "login")
        # A service may fail with any value: without a message the scene says so.
        t.resolve(login, error={"code": "timeout"}, state={"isSubmitting": False, "error": "Login failed"})


def test_open_with_args_or_in_a_state(pack: str) -> None:
    with SceneTest("example/login", args={"email": "a@b.c"}, scenes=[pack]) as t:
        t.expect_state({"email": "a@b.c", "password": ""}, partial=True)
    # Any starting point is one call: here, a login in flight.
    with SceneTest("example/login", state=SUBMITTING, scenes=[pack]) as t:
        assert t.seq == 0 and t.state == SUBMITTING
        t.send("loginSucceeded", {"user": "ada"}, state={"isSubmitting": False, "user": "ada"})
        t.expect_route({"push": "example/home", "args": {"user": "ada"}})
    with pytest.raises(yaia.YaiaError) as bad:
        SceneTest("example/login", state={"email": 3}, scenes=[pack])
    assert bad.value.code == "bad_state"
    with pytest.raises(yaia.YaiaError) as unknown:
        SceneTest("example/nope", scenes=[pack])
    assert unknown.value.code == "unknown_scene"


def test_feed(pack: str) -> None:
    items = [{"id": 1, "title": "Hello"}]
    with SceneTest("example/feed", scenes=[pack]) as t:
        t.send("load", state={"isLoading": True})
        fetch = t.receive_effect("feed", "fetch", args={}, then="loaded", catch="failed")
        assert fetch.request["restore"] == "reissue"
        t.send("load")  # already loading: nothing changes, nothing is emitted
        t.resolve(fetch, result={"items": items}, state={"isLoading": False, "items": items})
        t.expect_view_model({"error": None, "isLoading": False, "items": items})
        t.send("load", state={"isLoading": True})
        fetch = t.receive_effect("feed", "fetch")
        t.resolve(fetch, error={"message": "offline"}, state={"isLoading": False, "error": "offline"})
        t.send("load", state={"isLoading": True, "error": None})
        t.resolve(t.receive_effect("feed", "fetch"), result={"items": []}, state={"isLoading": False, "items": []})


def test_home_and_detail(pack: str) -> None:
    stored = [{"key": "item/1", "value": {"title": "One"}}, {"key": "item/2", "value": {"title": "Two"}}]
    with SceneTest("example/home", args={"user": {"id": 1}}, scenes=[pack]) as home:
        home.send("load", state={"isLoading": True})
        load = home.receive_effect("store", "list", args={"prefix": "item/"}, key="load", policy="latest")
        home.resolve(load, result={"items": stored}, state={"isLoading": False, "items": ITEMS})
        home.send("select", "item/2")
        home.expect_route({"push": "example/detail", "args": {"key": "item/2", "title": "Two"}, "onResult": "itemSaved"})
        # The detail's result comes back as itemSaved: one nested field changes.
        home.send("itemSaved", {"key": "item/2", "title": "Deux"}, state={"/items/1/title": "Deux"})
        home.send("itemSaved", {"key": "item/3", "title": "Three"}, state={"/items/-": {"key": "item/3", "title": "Three"}})
        home.send("select", "item/9", state={"error": "No item item/9"})
        home.send("showAbout")
        home.expect_route({"present": "example/about"})
        home.send("logout")
        home.expect_route({"popToRoot": True})

    with SceneTest("example/detail", args={"key": "item/2", "title": "Two"}, scenes=[pack]) as detail:
        detail.expect_view_model({"title": "Two", "canSave": True, "isSaving": False, "error": None})
        detail.send("titleChanged", "", state={"title": ""})
        detail.send("save")  # an empty title is not saved
        detail.send("titleChanged", "Deux", state={"title": "Deux"})
        detail.send("save", state={"isSaving": True})
        put = detail.receive_effect("store", "put", args={"key": "item/2", "value": {"title": "Deux"}}, key="save", policy="queue")
        detail.resolve(put, error={"message": "disk full"}, state={"isSaving": False, "error": "disk full"})
        detail.send("save", state={"isSaving": True, "error": None})
        put = detail.receive_effect("store", "put")
        detail.resolve(put, result={"key": "item/2"}, state={"isSaving": False})
        detail.expect_route({"pop": True, "result": {"key": "item/2", "title": "Deux"}})
        detail.send("cancel")
        detail.expect_route({"pop": True})


def test_changes_as_a_function_and_absent(pack: str) -> None:
    with SceneTest("example/home", state=HOME, scenes=[pack]) as t:
        def renamed(state: Dict[str, Any]) -> None:
            state["items"][0]["title"] = "Uno"

        t.send("itemSaved", {"key": "item/1", "title": "Uno"}, state=renamed)
        t.send("itemSaved", {"key": "item/1", "title": "One"}, state=lambda s: dict(s, items=ITEMS))
        t.expect_state({"missing": ABSENT, "/items/2": ABSENT}, partial=True)
        with fails("expect_state: the state is not the expected one:\n  /error: expected no member, got null"):
            t.expect_state({"error": ABSENT}, partial=True)


def test_cancelled_effects_owe_nothing(pack: str) -> None:
    """A latest successor and an empty query cancel the search in flight."""
    with SceneTest("example/search", scenes=[pack]) as t:
        t.send("queryChanged", "a", state={"query": "a", "isSearching": True})
        first = t.receive_effect("search", "query", args={"query": "a"}, key="search", policy="latest", timeout=5)
        t.send("queryChanged", "ab", state={"query": "ab"})
        second = t.receive_effect("search", "query", args={"query": "ab"})
        assert t.pending_effects == [second]
        with fails(f"resolve #0 search.query with result {{}}: the scene cancelled the effect"):
            t.resolve(first, result={})
        t.send("queryChanged", "", state={"query": "", "isSearching": False})
        assert t.pending_effects == []


def test_queued_effects_start_in_order(pack: str) -> None:
    job = {"service": "disk", "op": "write", "id": "k", "policy": "queue"}
    with SceneTest("example/jobs", scenes=[pack]) as t:
        t.send("run", dict(job, args=1))
        one = t.receive_effect("disk", "write", args=1, key="k", policy="queue", then="done", catch="failed")
        t.send("run", dict(job, args=2))
        two = t.receive_effect("disk", "write", args=2)
        with fails("resolve #1 disk.write with result 2: the effect is queued behind #0 disk.write with key \"k\""):
            t.resolve(two, result=2)
        t.resolve(one, result=1, state={"log": [{"ok": True, "result": 1}]})
        t.resolve(two.id, result=2, state={"/log/-": {"ok": True, "result": 2}})
        with fails("resolve #1 disk.write with result 2: the effect was resolved already"):
            t.resolve(two, result=2)


def test_reusing_a_runtime(pack: str) -> None:
    with yaia.Runtime(scenes=[pack], **HOST) as rt:
        with SceneTest("example/login", runtime=rt) as t:
            t.send("emailChanged", "a@b.c", state={"email": "a@b.c"})
            scene = t.scene.id
        assert not rt.closed
        assert scene not in [s["id"] for s in rt.scenes()["scenes"]]  # the test closed its scene
        with SceneTest("example/feed", runtime=rt) as t:
            t.send("load", state={"isLoading": True})
            t.skip_effects()
            t.exhaustive = False  # the fetch may stay in flight


def test_misuse_is_a_type_error(pack: str) -> None:
    with yaia.Runtime(scenes=[pack], **HOST) as rt:
        with pytest.raises(TypeError):
            SceneTest("example/login", runtime=rt, scenes=[pack])
    with pytest.raises(TypeError):
        SceneTest("example/login", args={}, state=LOGIN_READY, scenes=[pack])
    with SceneTest("example/login", state=SUBMITTING, scenes=[pack], exhaustive=False) as t:
        with pytest.raises(TypeError):
            t.resolve(1)
        with pytest.raises(TypeError):
            t.receive_effect("auth")
        with pytest.raises(ValueError):
            t.send("emailChanged", "a@b.c", state={"email": float("nan")})


# ---------------------------------------------------------------- each failure mode


def test_wrong_state_names_the_pointer_and_both_values(pack: str) -> None:
    with SceneTest("example/login", scenes=[pack]) as t:
        with fails('send emailChanged "a@b.c": the state is not the expected one:\n  /email: expected "x@y.z", got "a@b.c"'):
            t.send("emailChanged", "a@b.c", state={"email": "x@y.z"})
        # The test goes on from the actual state.
        t.send("emailChanged", "b@c.d", state={"email": "b@c.d"})


def test_an_unexpected_change_fails(pack: str) -> None:
    with SceneTest("example/login", state=LOGIN_READY, scenes=[pack]) as t:
        with fails("send submit: the state is not the expected one:\n  /isSubmitting: expected false, got true"):
            t.send("submit", state={"error": None})
        t.skip_effects()
        t.exhaustive = False
    with SceneTest("example/login", scenes=[pack]) as t:
        message = "send passwordChanged \"pw\": the state is not the expected one (no state= was given: it must not change):\n  /password: expected \"\", got \"pw\""
        with fails(message):
            t.send("passwordChanged", "pw")


def test_nested_differences_are_listed_by_pointer(pack: str) -> None:
    with SceneTest("example/home", state=HOME, scenes=[pack]) as t:
        with pytest.raises(AssertionError) as failure:
            t.send("itemSaved", {"key": "item/2", "title": "Deux"}, state={"/items/1/title": "Dos", "isLoading": True})
        assert str(failure.value).splitlines() == [
            'send itemSaved {"key":"item/2","title":"Deux"}: the state is not the expected one:',
            "  /isLoading: expected true, got false",
            '  /items/1/title: expected "Dos", got "Deux"',
        ]
        with fails('the expected change at /items/7/title has nowhere to go'):
            t.send("itemSaved", {"key": "item/2", "title": "Zwei"}, state={"/items/7/title": "Zwei"})
        # JSON's rules: true is not 1; 1 is 1.0.
        with fails("  /user/id: expected true, got 1"):
            t.expect_state({"/user/id": True}, partial=True)
        t.expect_state({"/user/id": 1.0}, partial=True)


def test_unasserted_effect_at_finish(pack: str) -> None:
    t = SceneTest("example/login", state=LOGIN_READY, scenes=[pack])
    t.send("submit", state={"isSubmitting": True})
    with fails(
        'finish: 1 effect emitted but never received:\n  #0 auth.login {"args":{"email":"a@b.c","password":"pw"},'
        '"catch":"loginFailed","op":"login","service":"auth","then":"loginSucceeded"}'
    ):
        t.finish()
    t.finish()  # each is reported once
    t.close()


def test_unresolved_effect_at_finish(pack: str) -> None:
    with fails("finish: 1 effect is still in flight (resolve it, or have the scene cancel it):\n  #0 auth.login {"):
        with SceneTest("example/login", state=LOGIN_READY, scenes=[pack]) as t:
            t.send("submit", state={"isSubmitting": True})
            t.receive_effect("auth", "login")


def test_unasserted_route_at_finish(pack: str) -> None:
    with fails('finish: 1 route emitted but never asserted:\n  {"args":{"user":{"id":1}},"push":"example/home"}'):
        with SceneTest("example/login", state=SUBMITTING, scenes=[pack]) as t:
            t.send("loginSucceeded", {"user": {"id": 1}}, state={"isSubmitting": False, "user": {"id": 1}})


def test_unasserted_effect_before_the_next_input(pack: str) -> None:
    with SceneTest("example/login", state=LOGIN_READY, scenes=[pack]) as t:
        t.send("submit", state={"isSubmitting": True})
        with fails("send emailChanged \"x@y.z\": 1 effect emitted but never received:\n  #0 auth.login"):
            t.send("emailChanged", "x@y.z", state={"email": "x@y.z"})
        # Reported once: the effect is still in flight, and is resolved as usual.
        t.resolve(t.effects[0].id, result={"user": 1}, state={"isSubmitting": False, "user": 1})
        t.skip_routes()


def test_wrong_effect_args(pack: str) -> None:
    with SceneTest("example/login", state=LOGIN_READY, scenes=[pack]) as t:
        t.send("submit", state={"isSubmitting": True})
        with pytest.raises(AssertionError) as failure:
            t.receive_effect("auth", "login", args={"email": "a@b.c", "password": "PW"})
        lines = str(failure.value).splitlines()
        assert lines[0].startswith('receive_effect auth.login with args {"email":"a@b.c","password":"PW"}: the next effect is #0 auth.login {')
        assert lines[1:] == ['  /args/password: expected "PW", got "pw"']
        t.exhaustive = False


def test_wrong_effect_fields(pack: str) -> None:
    with SceneTest("example/login", state=LOGIN_READY, scenes=[pack], exhaustive=False) as t:
        t.send("submit")
        with fails('  /then: expected "loggedIn", got "loginSucceeded"'):
            t.receive_effect("auth", "login", then="loggedIn")
    with SceneTest("example/login", state=LOGIN_READY, scenes=[pack]) as t:
        t.send("submit", state={"isSubmitting": True})
        with fails('  /timeout: expected 5, got no member'):
            t.receive_effect({"service": "auth", "op": "login", "args": {"email": "a@b.c", "password": "pw"},
                              "then": "loginSucceeded", "catch": "loginFailed", "timeout": 5})
        t.exhaustive = False


def test_no_effect_to_receive_and_no_route_to_expect(pack: str) -> None:
    with SceneTest("example/login", scenes=[pack]) as t:
        with fails("receive_effect auth.login: no effect was emitted that was not received already"):
            t.receive_effect("auth", "login")
        with fails('expect_route {"pop":true}: no route was emitted that was not asserted already'):
            t.expect_route({"pop": True})


def test_wrong_route(pack: str) -> None:
    with SceneTest("example/login", state=SUBMITTING, scenes=[pack]) as t:
        t.send("loginSucceeded", {"user": {"id": 1}}, state={"isSubmitting": False, "user": {"id": 1}})
        with fails('the next route is {"args":{"user":{"id":1}},"push":"example/home"}:\n  /args/user/id: expected 2, got 1\n  /push: expected "example/list", got "example/home"'):
            t.expect_route({"push": "example/list", "args": {"user": {"id": 2}}})


def test_wrong_view_model(pack: str) -> None:
    with SceneTest("example/login", scenes=[pack]) as t:
        with fails("expect_view_model: the view model is not the expected one:\n  /canSubmit: expected true, got false"):
            t.expect_view_model({"canSubmit": True}, partial=True)
        with fails("  /isSubmitting: expected no member, got false"):
            t.expect_view_model({"canSubmit": False, "email": "", "error": None})
        with fails('expect_view_model: the view model does not satisfy the predicate: {"canSubmit":false,'):
            t.expect_view_model(lambda vm: vm["canSubmit"])
        t.expect_view_model(lambda vm: not vm["canSubmit"])


def test_a_service_in_the_runtime_is_refused(pack: str) -> None:
    with yaia.Runtime(scenes=[pack], **HOST) as rt:
        rt.add_service("auth", lambda op, args: {"user": "ada"})
        with SceneTest("example/login", state=LOGIN_READY, runtime=rt, exhaustive=False) as t:
            with fails("send submit: effect #0 auth.login is running: the runtime has a service named 'auth'"):
                t.send("submit")


# ---------------------------------------------------------------- refusals


def test_refused_inputs_raise_yaia_error(pack: str) -> None:
    with SceneTest("example/login", state=SUBMITTING, scenes=[pack]) as t:
        with pytest.raises(yaia.YaiaError) as unknown:
            t.send("nope")
        assert (unknown.value.code, unknown.value.at) == ("unknown_action", "/action/type")
        with pytest.raises(yaia.YaiaError) as bad:
            t.send("emailChanged", 3)
        assert (bad.value.code, bad.value.at) == ("bad_payload", "/action/payload")
        assert t.seq == 0 and t.state == SUBMITTING


def test_send_fails(pack: str) -> None:
    with SceneTest("example/login", scenes=[pack]) as t:
        error = t.send_fails("nope", code="unknown_action", at="/type")
        assert isinstance(error, yaia.YaiaError) and error.at == "/action/type"
        t.send_fails("emailChanged", 3, code="bad_payload", at="/payload", message="string payload")
        t.send_fails({"type": "loginSucceeded", "payload": {}}, code="bad_payload", at="/payload/user")
        with fails('send nope: the scene refused it (unknown_action: unknown action type "nope" at /action/type), but not as expected:\n  code: expected bad_payload, got unknown_action'):
            t.send_fails("nope", code="bad_payload")
        with fails('  at: expected "/payload", got "/type"'):
            t.send_fails("nope", code="unknown_action", at="/payload")
        with fails("send emailChanged \"a@b.c\": expected the scene to refuse it with bad_payload, but it accepted it (seq 1)"):
            t.send_fails("emailChanged", "a@b.c", code="bad_payload")
        assert t.state["email"] == "a@b.c"  # the accepted action counted as a step


def test_resolve_fails(pack: str) -> None:
    with SceneTest("example/login", state=LOGIN_READY, scenes=[pack]) as t:
        t.send("submit", state={"isSubmitting": True})
        login = t.receive_effect("auth", "login")
        with pytest.raises(yaia.YaiaError) as refused:
            t.resolve(login, result={"nouser": 1})
        assert (refused.value.code, refused.value.at) == ("bad_payload", "/result/user")
        t.resolve_fails(login, result={"nouser": 1}, code="bad_payload", at="/user")
        assert t.pending_effects == [login]  # a refused outcome leaves the effect in flight
        t.resolve(login, result={"user": 1}, state={"isSubmitting": False, "user": 1})
        t.expect_route({"push": "example/home", "args": {"user": 1}})


# ---------------------------------------------------------------- exhaustive=False


def test_non_exhaustive_checks_only_what_is_stated(pack: str) -> None:
    with SceneTest("example/login", scenes=[pack], exhaustive=False) as t:
        t.send("emailChanged", "a@b.c")  # no expectation: nothing checked
        t.send("passwordChanged", "pw", state={"password": "pw"})  # email changed too: not checked
        t.send("submit", state={"isSubmitting": True})  # the effect is never received
        t.send("submit", state={"error": "A login is already in progress"})
        login = t.pending_effects[0]
        t.resolve(login, result={"user": 1}, state={"user": 1})  # isSubmitting changed too
        # the route is never asserted
    with SceneTest("example/jobs", scenes=[pack], exhaustive=False) as t:
        t.send({"type": "run", "payload": {"service": "a", "op": "x"}})
        t.send({"type": "run", "payload": {"service": "b", "op": "y"}})
        # effects of earlier steps are let go at the next input; any order within one step
        assert [e.service for e in t.pending_effects] == ["a", "b"]
    # ... and effects may stay in flight at finish.


def test_non_exhaustive_still_checks_what_is_stated(pack: str) -> None:
    with SceneTest("example/login", state=LOGIN_READY, scenes=[pack], exhaustive=False) as t:
        with fails('send submit: the state is not the expected one:\n  /error: expected "x", got null'):
            t.send("submit", state={"isSubmitting": True, "error": "x"})
        with fails('receive_effect auth.logout: none of the effects not yet received matches:\n  #0 auth.login {'):
            t.receive_effect("auth", "logout")
        t.receive_effect("auth", "login")
        t.resolve(t.effects[0], result={"user": 1})
        with fails('expect_route {"pop":true}: none of the routes not yet asserted matches:\n  {"args":{"user":1},"push":"example/home"}'):
            t.expect_route({"pop": True})
        t.expect_route({"push": "example/home", "args": {"user": 1}})


def test_exhaustivity_can_change_part_way(pack: str) -> None:
    with SceneTest("example/login", state=LOGIN_READY, scenes=[pack]) as t:
        t.exhaustive = False
        t.send("submit")
        t.send("emailChanged", "x@y.z")
        t.exhaustive = True
        with fails("finish: 1 effect is still in flight"):
            t.finish()


def test_an_exception_in_the_block_skips_finish(pack: str) -> None:
    with pytest.raises(KeyError):
        with SceneTest("example/login", state=LOGIN_READY, scenes=[pack]) as t:
            t.send("submit", state={"isSubmitting": True})
            raise KeyError("the test's own failure, not finish's")
    assert t.runtime.closed  # the test's own runtime is closed either way


def test_json_diff() -> None:
    assert json_diff({"a": [1, 2]}, {"a": [1, 2]}) == []
    assert json_diff({"a": [1, 2], "b/c": 1}, {"a": [1], "b/c": 2}) == ["/a/1: expected 2, got no element", "/b~1c: expected 1, got 2"]
    assert json_diff(1, "1") == ['(root): expected 1, got "1"']
    assert len(json_diff(list(range(100)), [-1] * 100)) == 41
    assert json_diff(list(range(100)), [-1] * 100)[-1] == "… and 60 more differences"


# ---------------------------------------------------------------- docs/testing.md


def doc_blocks() -> List[Tuple[int, str, str]]:
    """(line, code, expected output) for each ```python block of docs/testing.md;
    the output is a ```text block right after it, or ""."""
    text = DOC.read_text(encoding="utf-8")
    fences = list(re.finditer(r"^```(\w*)\n(.*?)^```\n", text, re.S | re.M))
    blocks = []
    for i, fence in enumerate(fences):
        if fence.group(1) != "python":
            continue
        output = ""
        if i + 1 < len(fences) and fences[i + 1].group(1) == "text" and text[fence.end():fences[i + 1].start()].strip() == "":
            output = fences[i + 1].group(2)
        blocks.append((text.count("\n", 0, fence.start()) + 1, fence.group(2), output))
    return blocks


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.chdir(REPO)
    yield


def test_doc_has_python_blocks() -> None:
    assert len(doc_blocks()) >= 3


@pytest.mark.parametrize("index", range(len(doc_blocks())) if DOC.is_file() else [])
def test_doc_python_blocks_run(index: int, in_repo: None) -> None:
    line, code, output = doc_blocks()[index]
    if "libnotes.so" in code:
        if not NOTES_PACK.is_file():
            pytest.skip(f"docs/testing.md:{line} tests notes/login: {NOTES_PACK} is not built (`make notes` builds it)")
        code = code.replace("Examples/notes/.build/release/libnotes.so", str(NOTES_PACK))
    if "libyaia-examples.so" in code:
        if not EXAMPLES_PACK.is_file():
            pytest.skip(f"docs/testing.md:{line}: {EXAMPLES_PACK} is not built (`make examples-pack` builds it)")
        code = code.replace(".build/release/libyaia-examples.so", str(EXAMPLES_PACK))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, f"docs/testing.md:{line}", "exec"), {"__name__": "docs_testing"})
    if output:
        assert printed.getvalue() == output
