"""Flows through the binding (docs/flows.md): every route kind the example
scenes can ask for, results delivered down the stack, UI reconciliation
(popped), deep links, effects of closed scenes, the flow's life.

No example scene asks for `replace` or `popTo`, so those two routes cannot be
driven through the C ABI; the flow reducer's Swift tests cover them."""

from __future__ import annotations

import threading
from typing import Any, Iterator, List

import pytest

import yaia
from conftest import HOST, WAIT, wait_event
from example_app import ITEMS, USER, MemoryStore, drain, loaded_payload, names, shape, start_home

LOGIN = "example/login"
HOME = "example/home"
DETAIL = "example/detail"
ABOUT = "example/about"


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def app(store: MemoryStore, examples_pack: str) -> Iterator[yaia.Runtime]:
    """A runtime whose "store" is a Python function (synchronous)."""
    with yaia.Runtime(scenes=[examples_pack], **HOST) as runtime:
        runtime.add_service("store", store)
        yield runtime


def code_of(fn: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(yaia.YaiaError) as info:
        fn(*args, **kwargs)
    return info.value.code


# ---------------------------------------------------------------- start, send, describe


def test_start(rt: yaia.Runtime) -> None:
    flow = rt.start(LOGIN, {"email": "x@y.z"}, name="main")
    assert isinstance(flow, yaia.Flow)
    assert flow.name == "main"
    started = flow.started
    assert started is not None
    assert started.flow == flow.id and started.version == 1 and started.seq == 0
    assert started.view_model["email"] == "x@y.z"
    assert started.stack == [yaia.StackEntry(started.scene, LOGIN, "root", started.view_model)]
    assert flow.version == 1
    assert flow.top.id == started.scene
    described = flow.describe()
    assert (described.flow, described.version, described.names, described.depth) == (flow.id, 1, [LOGIN], 1)
    assert rt.scenes()["flows"] == [{"depth": 1, "id": flow.id, "name": "main", "version": 1}]


def test_start_refusals(rt: yaia.Runtime) -> None:
    assert code_of(rt.start, "example/nope") == "unknown_scene"
    assert code_of(rt.start, DETAIL, {}) == "bad_args"
    assert code_of(rt.start, LOGIN, {"email": 5}) == "bad_args"
    assert rt.scenes()["flows"] == [] and rt.scenes()["scenes"] == []


def test_flow_ids_and_tag(rt: yaia.Runtime) -> None:
    a = rt.start(LOGIN, tag="t1")
    b = rt.start(LOGIN)
    assert a.started is not None and a.started.tag == "t1"
    assert a.id != b.id
    a.send("emailChanged", "only@a")
    assert a.top.view_model["email"] == "only@a"
    assert b.top.view_model["email"] == ""


def test_send_goes_to_the_top(app: yaia.Runtime) -> None:
    flow = start_home(app)
    home = flow.top
    update = flow.send("select", "item/2")
    assert update.scene == home.id  # the scene that was on top reduced it
    assert update.routes == [{"args": {"key": "item/2", "title": "Two"}, "onResult": "itemSaved", "push": DETAIL}]
    edited = flow.send("titleChanged", "Deux")
    assert edited.scene == flow.top.id != home.id
    assert edited.view_model == {"canSave": True, "error": None, "isSaving": False, "title": "Deux"}
    assert edited.stack is None and edited.flow is None and edited.version is None  # the flow did not change
    assert code_of(flow.send, "select", "item/1") == "unknown_action"  # detail has no select
    assert flow.send({"type": "titleChanged", "payload": "Due"}).view_model["title"] == "Due"


def test_send_refusals_change_nothing(app: yaia.Runtime) -> None:
    flow = start_home(app)
    before = flow.describe()
    with pytest.raises(yaia.YaiaError) as info:
        flow.send("select", 5)
    assert info.value.code == "bad_payload" and info.value.at == "/action/payload"
    assert flow.describe() == before


# ---------------------------------------------------------------- routes


def test_push(app: yaia.Runtime) -> None:
    flow = app.start(LOGIN)
    update = flow.send("loginSucceeded", {"user": USER})
    assert update.routes == [{"args": {"user": USER}, "push": HOME}]
    assert (update.flow, update.version) == (flow.id, 2)
    assert shape(update.stack) == [(LOGIN, "root"), (HOME, "push")]
    assert update.stack is not None
    assert update.stack[1].view_model == {"error": None, "isLoading": False, "items": [], "user": USER}
    assert update.stack[1].on_result is None
    assert update.navigation_errors == ()


def test_push_with_on_result(app: yaia.Runtime) -> None:
    flow = start_home(app)
    update = flow.send("select", "item/3")
    assert update.stack is not None
    assert shape(update.stack) == [(LOGIN, "root"), (HOME, "push"), (DETAIL, "push")]
    detail = update.stack[2]
    assert detail.on_result == "itemSaved"
    assert detail.view_model == {"canSave": True, "error": None, "isSaving": False, "title": "Three"}
    assert flow.stack == update.stack


def test_pop_with_result_delivers_to_the_scene_below(app: yaia.Runtime, store: MemoryStore) -> None:
    flow = start_home(app)
    home = flow.top.id
    detail = flow.send("select", "item/2").stack[-1].id  # type: ignore[index]
    flow.send("titleChanged", "Deux")
    saving = flow.send("save")
    (put,) = saving.effects
    assert (put.service, put.op, put.args) == ("store", "put", {"key": "item/2", "value": {"title": "Deux"}})
    assert store.items["item/2"] == {"title": "Deux"}
    # The store answered on this thread: two events, the result delivered to
    # home (from the popped detail) and detail's own update (its pop).
    events = drain(app)
    assert len(events) == 2
    (result,) = [e for e in events if e.from_scene is not None]
    (saved,) = [e for e in events if e.effect == put.id]
    assert (result.event, result.scene, result.from_scene, result.effect) == ("update", home, detail, None)
    assert result.view_model["items"] == [
        {"key": "item/1", "title": "One"},
        {"key": "item/2", "title": "Deux"},
        {"key": "item/3", "title": "Three"},
    ]
    assert saved.scene == detail
    assert saved.routes == [{"pop": True, "result": {"key": "item/2", "title": "Deux"}}]
    assert shape(saved.stack) == [(LOGIN, "root"), (HOME, "push")]
    assert saved.stack is not None and saved.stack[1].view_model == result.view_model
    assert flow.top.id == home
    # The popped scene is closed.
    assert code_of(app.execute, {"op": "state", "scene": detail}) == "no_such_scene"


def test_pop_with_result_from_a_resolved_effect(rt: yaia.Runtime) -> None:
    """No store service: the put waits for the host; resolving it pops."""
    flow = start_home(rt)
    home = flow.top.id
    flow.send("select", "item/1")
    detail = flow.top.id
    flow.send("titleChanged", "Uno")
    (put,) = flow.send("save").effects
    assert put.status == "pending"
    resolved = rt.resolve(put.id, result={"key": "item/1"})
    assert resolved.scene == detail and resolved.event is None
    assert shape(resolved.stack) == [(LOGIN, "root"), (HOME, "push")]
    delivered = wait_event(rt, timeout=0)
    assert (delivered.scene, delivered.from_scene) == (home, detail)
    assert delivered.view_model["items"][0] == {"key": "item/1", "title": "Uno"}
    assert rt.receive() is None


def test_pop_without_result(app: yaia.Runtime) -> None:
    flow = start_home(app)
    home_vm = flow.top.view_model
    flow.send("select", "item/1")
    flow.send("titleChanged", "changed, then cancelled")
    update = flow.send("cancel")
    assert update.routes == [{"pop": True}]
    assert shape(update.stack) == [(LOGIN, "root"), (HOME, "push")]
    assert drain(app) == []  # nothing delivered
    assert flow.top.view_model == home_vm


def test_present_and_dismiss(app: yaia.Runtime) -> None:
    flow = start_home(app)
    presented = flow.send("showAbout")
    assert presented.routes == [{"present": ABOUT}]
    assert shape(presented.stack) == [(LOGIN, "root"), (HOME, "push"), (ABOUT, "present")]
    assert presented.stack is not None
    assert presented.stack[2].view_model == {"text": "Application logic written as values.", "title": "Yaia"}
    dismissed = flow.send("close")
    assert dismissed.routes == [{"dismiss": True}]
    assert shape(dismissed.stack) == [(LOGIN, "root"), (HOME, "push")]
    assert dismissed.version == presented.version + 1  # type: ignore[operator]


def test_dismiss_closes_the_whole_modal_layer(rt: yaia.Runtime) -> None:
    flow = rt.start(LOGIN)
    linked = flow.link([{"scene": ABOUT, "presentation": "present"}, {"scene": ABOUT, "presentation": "push"}])
    assert shape(linked.stack) == [(LOGIN, "root"), (ABOUT, "present"), (ABOUT, "push")]
    layer = [e.id for e in linked.stack[1:]]
    update = flow.send("close")  # from the about pushed inside the layer
    assert shape(update.stack) == [(LOGIN, "root")]
    for scene in layer:
        assert code_of(rt.execute, {"op": "state", "scene": scene}) == "no_such_scene"


def test_pop_to_root(app: yaia.Runtime) -> None:
    flow = start_home(app)
    update = flow.send("logout")
    assert update.routes == [{"popToRoot": True}]
    assert shape(update.stack) == [(LOGIN, "root")]
    assert flow.describe().depth == 1


def test_pop_to_root_stays_in_the_modal_layer(rt: yaia.Runtime) -> None:
    flow = rt.start(LOGIN)
    flow.link([HOME, {"scene": HOME, "presentation": "present"}, HOME])
    update = flow.send("logout")
    assert shape(update.stack) == [(LOGIN, "root"), (HOME, "push"), (HOME, "present")]


def test_pop_to_root_at_the_root_changes_nothing(rt: yaia.Runtime) -> None:
    flow = rt.start(HOME)
    update = flow.send("logout")
    assert update.routes == [{"popToRoot": True}]
    assert update.navigation_errors == () and update.stack is None
    assert flow.version == 1


def test_popping_the_root_is_refused(rt: yaia.Runtime) -> None:
    flow = rt.start(DETAIL, {"key": "k", "title": "t"})
    update = flow.send("cancel")
    assert update.routes == [{"pop": True}]
    (error,) = update.navigation_errors
    assert error.code == "stale_navigation" and error.route == {"pop": True}
    assert update.stack is None and flow.version == 1


def test_dismiss_with_nothing_presented_is_refused(rt: yaia.Runtime) -> None:
    flow = rt.start(LOGIN)
    flow.link([ABOUT])  # pushed, not presented
    update = flow.send("close")
    (error,) = update.navigation_errors
    assert error.code == "stale_navigation" and error.route == {"dismiss": True}
    assert names(flow.stack) == [LOGIN, ABOUT]


def test_route_from_a_covered_scene_is_stale(app: yaia.Runtime) -> None:
    flow = start_home(app)
    home = flow.top.id
    flow.send("select", "item/1")
    before = flow.describe()
    # Sending to a scene directly reaches covered ones; their routes are refused.
    raw = app.execute({"op": "send", "scene": home, "action": {"type": "showAbout"}})
    update = yaia.Update.from_raw(raw)
    assert update.scene == home
    (error,) = update.navigation_errors
    assert (error.code, error.route) == ("stale_navigation", {"present": ABOUT})
    assert "not on top" in error.message
    assert "stack" not in raw
    assert flow.describe() == before


def test_late_outcome_of_a_covered_scene_is_stale(rt: yaia.Runtime) -> None:
    """No auth service: the login waits; meanwhile a deep link covers login."""
    flow = rt.start(LOGIN)
    flow.send("emailChanged", "a@b.c")
    flow.send("passwordChanged", "pw")
    (login,) = flow.send("submit").effects
    flow.link([HOME])
    late = rt.resolve(login.id, result={"user": USER})
    assert late.routes == [{"args": {"user": USER}, "push": HOME}]
    (error,) = late.navigation_errors
    assert error.code == "stale_navigation"
    assert names(flow.stack) == [LOGIN, HOME]


# ---------------------------------------------------------------- effects of closed scenes


def test_pending_effect_of_a_popped_scene_is_cancelled(rt: yaia.Runtime) -> None:
    flow = start_home(rt)
    flow.send("select", "item/1")
    depth = flow.describe()
    (put,) = flow.send("save").effects
    assert put.status == "pending"
    popped = flow.popped(2, version=depth.version)
    assert popped.names == [LOGIN, HOME]
    assert code_of(rt.resolve, put.id, result={"key": "item/1"}) == "effect_already_resolved"
    assert drain(rt) == []


def test_running_call_of_a_popped_scene_is_cancelled(rt: yaia.Runtime) -> None:
    calls: List[yaia.Call] = []
    rt.add_service("store", calls.append, deferred=True)
    flow = start_home(rt)
    flow.send("select", "item/2")
    (put,) = flow.send("save").effects
    assert put.status == "running"
    (call,) = calls
    assert not call.cancelled
    flow.send("cancel")  # detail pops while its put runs
    assert call.cancelled
    assert call.complete({"key": "item/2"}) is False  # too late: dropped
    assert drain(rt) == []
    assert flow.top.view_model["items"][1] == {"key": "item/2", "title": "Two"}


def test_effects_of_closed_flow_are_cancelled(rt: yaia.Runtime) -> None:
    flow = start_home(rt)
    (load,) = flow.send("load").effects
    flow.close()
    assert code_of(rt.resolve, load.id, result=loaded_payload(ITEMS)) == "effect_already_resolved"


# ---------------------------------------------------------------- reconciliation (popped)


def test_popped(app: yaia.Runtime) -> None:
    flow = start_home(app)
    detail = flow.send("select", "item/1").stack[-1].id  # type: ignore[index]
    version = flow.version
    reconciled = flow.popped(2, version=version)
    assert isinstance(reconciled, yaia.FlowStack)
    assert reconciled.names == [LOGIN, HOME]
    assert reconciled.version == version + 1
    assert code_of(app.execute, {"op": "state", "scene": detail}) == "no_such_scene"
    assert drain(app) == []  # a back swipe delivers no result


def test_popped_without_version(app: yaia.Runtime) -> None:
    flow = start_home(app)
    flow.send("select", "item/1")
    assert flow.popped(1).names == [LOGIN]


def test_popped_twice_applies_once(app: yaia.Runtime) -> None:
    flow = start_home(app)
    flow.send("select", "item/1")
    version = flow.version
    first = flow.popped(2, version=version)
    with pytest.raises(yaia.YaiaError) as info:
        flow.popped(2, version=version)
    assert info.value.code == "stale_navigation"
    assert flow.describe() == first
    # Without a version, the depth alone tells: 2 scenes, so depth 2 is gone.
    assert code_of(flow.popped, 2) == "stale_navigation"
    assert flow.describe() == first


def test_popped_stale_depth(app: yaia.Runtime) -> None:
    flow = start_home(app)
    before = flow.describe()
    for depth in (0, -1, 2, 3, 99):
        assert code_of(flow.popped, depth) == "stale_navigation", depth
    assert flow.describe() == before


def test_popped_stale_version(app: yaia.Runtime) -> None:
    flow = start_home(app)
    shown = flow.version
    flow.send("select", "item/1")  # the flow moved on after the UI's report was made
    before = flow.describe()
    with pytest.raises(yaia.YaiaError) as info:
        flow.popped(1, version=shown)
    assert info.value.code == "stale_navigation"
    assert f"version {shown}" in info.value.message
    assert code_of(flow.popped, 1, version=before.version + 1) == "stale_navigation"
    assert flow.describe() == before
    assert flow.popped(2, version=before.version).names == [LOGIN, HOME]


def test_popped_bad_requests(app: yaia.Runtime) -> None:
    flow = start_home(app)
    with pytest.raises(yaia.YaiaError) as info:
        app.execute({"op": "popped", "flow": flow.id, "depth": "1"})
    assert (info.value.code, info.value.at) == ("bad_request", "/depth")
    with pytest.raises(yaia.YaiaError) as info:
        app.execute({"op": "popped", "flow": flow.id, "depth": 1, "version": 1.5})
    assert (info.value.code, info.value.at) == ("bad_request", "/version")
    assert code_of(app.execute, {"op": "popped", "flow": 999, "depth": 1}) == "no_such_flow"


# ---------------------------------------------------------------- deep links


def test_link_push_items(app: yaia.Runtime) -> None:
    flow = start_home(app)
    old_home = flow.top.id
    version = flow.version
    linked = flow.link([HOME, {"scene": DETAIL, "args": {"key": "item/3", "title": "Three"}}])
    assert shape(linked.stack) == [(LOGIN, "root"), (HOME, "push"), (DETAIL, "push")]
    assert linked.version == version + 1  # one step
    assert linked.stack[1].id != old_home  # everything above the root is new
    assert linked.stack[1].view_model == {"error": None, "isLoading": False, "items": [], "user": None}
    assert linked.stack[2].view_model["title"] == "Three"
    assert code_of(app.execute, {"op": "state", "scene": old_home}) == "no_such_scene"
    assert flow.describe() == linked


def test_link_present_items(app: yaia.Runtime) -> None:
    flow = app.start(LOGIN)
    linked = flow.link(
        [
            {"scene": HOME, "presentation": "push"},
            {"scene": DETAIL, "args": {"key": "item/3", "title": "Three"}, "presentation": "present"},
        ]
    )
    assert shape(linked.stack) == [(LOGIN, "root"), (HOME, "push"), (DETAIL, "present")]
    assert flow.send("cancel").navigation_errors == ()  # pop inside the layer: the presented entry goes
    assert names(flow.stack) == [LOGIN, HOME]


def test_link_empty_path_pops_to_the_root(app: yaia.Runtime) -> None:
    flow = start_home(app)
    assert flow.link([]).names == [LOGIN]


def test_link_unknown_scene_changes_nothing(app: yaia.Runtime) -> None:
    flow = start_home(app)
    flow.send("select", "item/1")
    before = flow.describe()
    scenes = app.scenes()["scenes"]
    with pytest.raises(yaia.YaiaError) as info:
        flow.link([HOME, {"scene": "example/nope"}])
    assert info.value.code == "unknown_scene"
    assert flow.describe() == before
    assert app.scenes()["scenes"] == scenes
    assert code_of(flow.link, ["example/nope"]) == "unknown_scene"
    assert code_of(flow.link, [HOME, {"scene": DETAIL, "args": {"title": "no key"}}]) == "bad_args"
    assert flow.describe() == before


def test_link_bad_requests(app: yaia.Runtime) -> None:
    flow = app.start(LOGIN)
    cases = [
        ([5], "bad_request", "/path/0"),
        ([{"args": {}}], "bad_request", "/path/0/scene"),
        ([{"scene": HOME, "args": []}], "not_an_object", "/path/0/args"),
        ([HOME, {"scene": HOME, "presentation": "root"}], "bad_request", "/path/1/presentation"),
        ([{"scene": HOME, "presentation": "sideways"}], "bad_request", "/path/0/presentation"),
    ]
    for path, code, at in cases:
        with pytest.raises(yaia.YaiaError) as info:
            app.execute({"op": "link", "flow": flow.id, "path": path})
        assert (info.value.code, info.value.at) == (code, at), path
    with pytest.raises(yaia.YaiaError) as info:
        app.execute({"op": "link", "flow": flow.id, "path": HOME})
    assert (info.value.code, info.value.at) == ("bad_request", "/path")
    assert flow.version == 1


def test_link_cancels_effects_of_replaced_scenes(rt: yaia.Runtime) -> None:
    flow = start_home(rt)
    (load,) = flow.send("load").effects
    flow.link([HOME])
    assert code_of(rt.resolve, load.id, result=loaded_payload(ITEMS)) == "effect_already_resolved"


# ---------------------------------------------------------------- life of a flow


def test_close(app: yaia.Runtime) -> None:
    flow = start_home(app)
    ids = [e.id for e in flow.stack]
    flow.close()
    assert flow.closed
    flow.close()  # idempotent
    for scene in ids:
        assert code_of(app.execute, {"op": "state", "scene": scene}) == "no_such_scene"
    assert code_of(flow.describe) == "no_such_flow"
    assert code_of(flow.send, "logout") == "no_such_flow"
    assert code_of(flow.popped, 1) == "no_such_flow"
    assert code_of(flow.link, [HOME]) == "no_such_flow"
    assert code_of(app.execute, {"op": "close", "flow": flow.id}) == "no_such_flow"
    assert app.scenes()["flows"] == []


def test_context_manager(rt: yaia.Runtime) -> None:
    with rt.start(LOGIN) as flow:
        flow.send("emailChanged", "a@b.c")
    assert flow.closed
    assert rt.scenes()["flows"] == [] and rt.scenes()["scenes"] == []


def test_scene_of_a_flow_cannot_be_closed_directly(app: yaia.Runtime) -> None:
    flow = start_home(app)
    assert code_of(app.execute, {"op": "close", "scene": flow.top.id}) == "scene_in_flow"
    assert flow.describe().depth == 2


def test_flow_by_id(app: yaia.Runtime) -> None:
    flow = start_home(app, name="named")
    again = app.flow(flow.id)
    assert (again.id, again.name, again.started) == (flow.id, "named", None)
    assert again.describe() == flow.describe()
    assert code_of(app.flow, 999) == "no_such_flow"


def test_flows_are_independent(app: yaia.Runtime) -> None:
    a = start_home(app)
    b = start_home(app)
    a.send("select", "item/1")
    assert names(b.stack) == [LOGIN, HOME]
    b.send("logout")
    assert names(a.stack) == [LOGIN, HOME, DETAIL]


def test_runtime_close_closes_flows(examples_pack: str) -> None:
    runtime = yaia.Runtime(scenes=[examples_pack])
    flow = runtime.start(LOGIN)
    runtime.close()
    flow.close()  # no error: freeing the runtime closed it
    assert code_of(flow.describe) == "bad_handle"


# ---------------------------------------------------------------- the example app, with its plugins


def test_example_app_with_plugins(examples_pack: str, auth_so: str, tmp_path: Any) -> None:
    from conftest import PLUGIN_DIR

    store_so = PLUGIN_DIR / "store.so"
    if not store_so.is_file():
        pytest.skip(f"{store_so} is not built; `make plugins` builds it")
    plugins: List[Any] = [auth_so, {"path": str(store_so), "config": {"path": str(tmp_path / "app.db")}}]
    with yaia.Runtime(scenes=[examples_pack], plugins=plugins, **HOST) as runtime:
        for key, value in ITEMS.items():
            runtime.perform("store", "put", {"key": key, "value": value})
        flow = runtime.start(LOGIN, name="main")
        flow.send("emailChanged", "a@b.c")
        flow.send("passwordChanged", "hunter2")
        flow.send("submit")
        logged_in = wait_event(runtime)
        assert names(logged_in.stack) == [LOGIN, HOME]
        flow.send("load")
        loaded = wait_event(runtime)
        assert [i["title"] for i in loaded.view_model["items"]] == ["One", "Two", "Three"]
        flow.send("select", "item/2")
        flow.send("titleChanged", "Deux")
        flow.send("save")
        events = [wait_event(runtime), wait_event(runtime)]
        (result,) = [e for e in events if e.from_scene is not None]
        assert result.view_model["items"][1] == {"key": "item/2", "title": "Deux"}
        assert names(flow.stack) == [LOGIN, HOME]
        assert runtime.perform("store", "get", {"key": "item/2"})["value"] == {"title": "Deux"}


def test_concurrent_sends_to_one_flow(app: yaia.Runtime) -> None:
    """Sends from several threads to a flow's top are all reduced, one at a time."""
    flow = app.start(LOGIN)
    errors: List[BaseException] = []

    def typist(n: int) -> None:
        try:
            for i in range(200):
                flow.send("emailChanged", f"{n}-{i}@x")
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=typist, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT)
    assert errors == []
    assert app.execute({"op": "state", "scene": flow.top.id})["seq"] == 800
