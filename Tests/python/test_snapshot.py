"""Snapshots and restore through the binding (docs/journal.md): a runtime
mid-flow with effects in flight, restored into fresh runtimes under each
restore policy, view models compared byte for byte; bad_snapshot."""

from __future__ import annotations

import copy
from typing import Any, Dict, Iterator, List, Tuple

import pytest

import yaia
from example_app import ITEMS, USER, MemoryStore, canonical, drain, loaded_payload, names, start_home, view_models

from conftest import HOST

LOGIN = "example/login"
HOME = "example/home"
DETAIL = "example/detail"
INTERRUPTED_TITLE = "Deux (unsaved)"


class Source:
    """A runtime with no services, mid-session:

    - flow `loading`: [login, home], home's store.list in flight (restore: reissue)
    - flow `editing`: [login, home, detail], detail's store.put in flight (cancel, the default)
    - scene `jobs` (no flow): an effect in flight with restore "await"
    - scene `login` (no flow): a half-typed form
    """

    def __init__(self, rt: yaia.Runtime) -> None:
        self.rt = rt
        self.loading = rt.start(LOGIN, name="loading")
        self.loading.send("loginSucceeded", {"user": USER})
        (self.load,) = self.loading.send("load").effects
        self.editing = start_home(rt, name="editing")
        self.editing.send("select", "item/2")
        self.editing.send("titleChanged", INTERRUPTED_TITLE)
        (self.put,) = self.editing.send("save").effects
        self.jobs = rt.open("example/jobs")
        (self.job,) = self.jobs.send(
            "run", {"service": "clock", "op": "now", "args": {"tz": "UTC"}, "restore": "await"}
        ).effects
        self.login = rt.open(LOGIN)
        self.login.send("emailChanged", "h\u00e9l\u00e8ne@example.com")
        self.login.send("passwordChanged", "\u2603")
        for effect in (self.load, self.put, self.job):
            assert effect.status == "pending"


@pytest.fixture
def source(examples_pack: str) -> Iterator[Source]:
    with yaia.Runtime(scenes=[examples_pack], **HOST) as rt:
        yield Source(rt)


def code_of(fn: Any, *args: Any, **kwargs: Any) -> Tuple[str, Any]:
    with pytest.raises(yaia.YaiaError) as info:
        fn(*args, **kwargs)
    return info.value.code, info.value.at


# ---------------------------------------------------------------- the document


def test_snapshot_document(source: Source) -> None:
    snap = source.rt.snapshot()
    assert snap["format"] == "yaia.snapshot/1"
    assert [(s["id"], s["name"], s.get("flow")) for s in snap["scenes"]] == [
        (1, LOGIN, source.loading.id),
        (2, HOME, source.loading.id),
        (3, LOGIN, source.editing.id),
        (4, HOME, source.editing.id),
        (5, DETAIL, source.editing.id),
        (6, "example/jobs", None),
        (7, LOGIN, None),
    ]
    assert [f["name"] for f in snap["flows"]] == ["loading", "editing"]
    assert snap["flows"][1]["entries"] == [
        {"id": 3, "presentation": "root", "scene": LOGIN},
        {"id": 4, "presentation": "push", "scene": HOME},
        {"id": 5, "onResult": "itemSaved", "presentation": "push", "scene": DETAIL},
    ]
    effects = {e["id"]: e for e in snap["effects"]}
    assert set(effects) == {source.load.id, source.put.id, source.job.id}
    assert effects[source.load.id]["effect"]["restore"] == "reissue"
    assert "restore" not in effects[source.put.id]["effect"]  # cancel is the default
    assert effects[source.job.id]["effect"]["restore"] == "await"
    assert all(e["status"] == "pending" for e in effects.values())
    assert snap["next"] == {"effect": 4, "flow": 3, "scene": 8}
    # The state, not only the view model: the password is in it.
    assert snap["scenes"][6]["state"]["password"] == "\u2603"


def test_snapshot_is_stable(source: Source) -> None:
    assert canonical(source.rt.snapshot()) == canonical(source.rt.snapshot())


# ---------------------------------------------------------------- restore: view models byte for byte


def test_restore_response_view_models_match(source: Source, examples_pack: str) -> None:
    expected = view_models(source.rt)
    snap = source.rt.snapshot()
    with yaia.Runtime(scenes=[examples_pack], **HOST) as target:
        restored = target.restore(snap)
        got = {s["id"]: (s["name"], canonical(s["viewModel"])) for s in restored["scenes"]}
        assert got == expected
        assert restored["flows"] == [source.loading.id, source.editing.id]
        assert restored["effects"] == {
            "reissued": [source.load.id],
            "cancelled": [source.put.id],
            "awaiting": [source.job.id],
        }
        # Flows come back with their stacks, view models and versions (but
        # detail, on top of `editing`, has had its interrupted save delivered).
        loading = source.loading.describe()
        assert canonical(target.flow(loading.flow).describe().raw) == canonical(loading.raw)
        editing, again = source.editing.describe(), target.flow(source.editing.id).describe()
        assert (again.version, again.names) == (editing.version, editing.names)
        assert canonical(again.raw["stack"][:2]) == canonical(editing.raw["stack"][:2])


def test_restore_in_config_view_models_match(source: Source, examples_pack: str) -> None:
    expected = view_models(source.rt)
    del expected[5]  # detail: its interrupted save is delivered during restore
    with yaia.Runtime(scenes=[examples_pack], restore=source.rt.snapshot(), **HOST) as target:
        got = view_models(target)
        assert got.pop(5)[0] == DETAIL
        assert got == expected


def test_states_and_seqs_match(source: Source, examples_pack: str) -> None:
    snap = source.rt.snapshot()
    with yaia.Runtime(scenes=[examples_pack], **HOST) as target:
        target.restore(snap)
        for s in snap["scenes"]:
            if s["name"] == DETAIL:
                continue  # changed by its cancelled effect
            state = target.execute({"op": "state", "scene": s["id"]})
            assert (state["seq"], canonical(state["state"])) == (s["seq"], canonical(s["state"]))


def test_round_trip_without_effects_is_exact(rt: yaia.Runtime, examples_pack: str) -> None:
    start_home(rt, name="main").send("select", "item/3")
    rt.open(LOGIN, {"email": "x@y.z"})
    snap = rt.snapshot()
    with yaia.Runtime(scenes=[examples_pack], restore=snap, **HOST) as target:
        assert canonical(target.snapshot()) == canonical(snap)


def test_restored_runtime_goes_on(source: Source, examples_pack: str) -> None:
    snap = source.rt.snapshot()
    with yaia.Runtime(scenes=[examples_pack], **HOST) as target:
        target.restore(snap)
        flow = target.flow(source.editing.id)
        assert names(flow.stack) == [LOGIN, HOME, DETAIL]
        drain(target)
        flow.send("cancel")
        assert names(flow.stack) == [LOGIN, HOME]
        # New ids do not collide with restored ones.
        assert target.open(LOGIN).id == snap["next"]["scene"]
        assert target.start(LOGIN).id == snap["next"]["flow"]


# ---------------------------------------------------------------- each restore policy


def test_reissue(source: Source, examples_pack: str) -> None:
    store = MemoryStore()
    snap = source.rt.snapshot()
    with yaia.Runtime(scenes=[examples_pack], **HOST) as target:
        target.add_service("store", store)
        restored = target.restore(snap)
        assert restored["effects"]["reissued"] == [source.load.id]
        # Performed again, with the same arguments and the same id. (The put
        # of the cancelled save is not performed: no IO is repeated for it.)
        assert store.calls == [("list", {"prefix": "item/"})]
        events = drain(target)
        (loaded,) = [e for e in events if e.effect == source.load.id]
        assert loaded.scene == 2
        assert loaded.view_model == {
            "error": None,
            "isLoading": False,
            "items": [{"key": k, "title": v["title"]} for k, v in sorted(ITEMS.items())],
            "user": USER,
        }


def test_restore_response_is_as_restored_with_a_synchronous_service(source: Source, examples_pack: str) -> None:
    expected = view_models(source.rt)
    with yaia.Runtime(scenes=[examples_pack], **HOST) as target:
        target.add_service("store", MemoryStore())  # answers on the restoring thread
        restored = target.restore(source.rt.snapshot())
        got = {s["id"]: (s["name"], canonical(s["viewModel"])) for s in restored["scenes"]}
        assert got[2] == expected[2]  # home as restored: still loading


def test_reissue_without_a_service_waits_for_the_host(source: Source, examples_pack: str) -> None:
    snap = source.rt.snapshot()
    with yaia.Runtime(scenes=[examples_pack], **HOST) as target:
        target.restore(snap)
        resolved = target.resolve(source.load.id, result=loaded_payload({"item/9": {"title": "Nine"}}))
        assert resolved.view_model["items"] == [{"key": "item/9", "title": "Nine"}]


def test_cancel_delivers_interrupted(source: Source, examples_pack: str) -> None:
    snap = source.rt.snapshot()
    with yaia.Runtime(scenes=[examples_pack], **HOST) as target:
        restored = target.restore(snap)
        (detail,) = [s for s in restored["scenes"] if s["name"] == DETAIL]
        # As restored: still saving.
        assert detail["viewModel"] == {"canSave": False, "error": None, "isSaving": True, "title": INTERRUPTED_TITLE}
        events = drain(target)
        (interrupted,) = [e for e in events if e.effect == source.put.id]
        assert interrupted.scene == detail["id"]
        assert interrupted.view_model["isSaving"] is False
        assert "in flight when the snapshot was taken" in interrupted.view_model["error"]
        assert code_of(target.resolve, source.put.id, result={})[0] == "effect_already_resolved"
        # The edit survived; saving again works.
        assert target.flow(source.editing.id).send("save").effects[0].args == {
            "key": "item/2",
            "value": {"title": INTERRUPTED_TITLE},
        }


def test_cancel_payload_is_interrupted(rt: yaia.Runtime, examples_pack: str) -> None:
    jobs = rt.open("example/jobs")
    (effect,) = jobs.send("run", {"service": "clock", "op": "now"}).effects
    with yaia.Runtime(scenes=[examples_pack], **HOST) as target:
        target.restore(rt.snapshot())
        assert drain(target)[0].effect == effect.id
        (entry,) = target.execute({"op": "state", "scene": jobs.id})["state"]["log"]
        assert entry["ok"] is False and entry["error"]["code"] == "interrupted"


def test_await_is_resolvable(source: Source, examples_pack: str) -> None:
    snap = source.rt.snapshot()
    with yaia.Runtime(scenes=[examples_pack], **HOST) as target:
        target.restore(snap)
        drain(target)
        update = target.resolve(source.job.id, result={"now": "12:00"})
        assert update.scene == source.jobs.id
        assert update.view_model == {"log": [{"ok": True, "result": {"now": "12:00"}}]}
        assert source.job.id not in [e["id"] for e in target.snapshot()["effects"]]
        assert code_of(target.resolve, source.job.id, result={})[0] == "effect_already_resolved"


def test_await_stays_pending_even_with_a_service(source: Source, examples_pack: str) -> None:
    calls: List[Any] = []
    with yaia.Runtime(scenes=[examples_pack], **HOST) as target:
        target.add_service("clock", lambda op, args: calls.append((op, args)))
        target.restore(source.rt.snapshot())
        assert calls == []
        (job,) = [e for e in target.snapshot()["effects"] if e["id"] == source.job.id]
        assert job["status"] == "pending"


def test_restore_replaces_what_is_open(source: Source, examples_pack: str) -> None:
    snap = source.rt.snapshot()
    with yaia.Runtime(scenes=[examples_pack], **HOST) as target:
        other = target.start(LOGIN)
        other.send("loginSucceeded", {"user": {"email": "other@x"}})
        (load,) = other.send("load").effects
        target.open("example/feed")
        target.restore(snap)
        assert [(s["id"], s["name"]) for s in target.scenes()["scenes"]] == [(s["id"], s["name"]) for s in snap["scenes"]]
        assert [f["name"] for f in target.scenes()["flows"]] == ["loading", "editing"]
        drain(target)
        # The replaced home's load had the same id as the snapshot's: that id
        # now means the restored effect, and its outcome goes to the restored home.
        assert load.id == source.load.id
        resolved = target.resolve(load.id, result=loaded_payload({}))
        assert (resolved.scene, resolved.view_model["user"]) == (2, USER)


# ---------------------------------------------------------------- bad snapshots


def test_bad_snapshots(source: Source) -> None:
    good = source.rt.snapshot()

    def changed(fn: Any) -> Dict[str, Any]:
        s = copy.deepcopy(good)
        fn(s)
        return s

    cases: List[Tuple[str, Any, Any]] = [
        ("wrong format", changed(lambda s: s.update(format="yaia.snapshot/2")), "/snapshot/format"),
        ("format not a string", changed(lambda s: s.update(format=1)), "/snapshot/format"),
        ("no format", changed(lambda s: s.pop("format")), "/snapshot/format"),
        ("no scenes", changed(lambda s: s.pop("scenes")), "/snapshot/scenes"),
        ("no flows", changed(lambda s: s.pop("flows")), "/snapshot/flows"),
        ("no effects", changed(lambda s: s.pop("effects")), "/snapshot/effects"),
        ("scenes not an array", changed(lambda s: s.update(scenes={})), "/snapshot/scenes"),
        ("scene without state", changed(lambda s: s["scenes"][0].pop("state")), "/snapshot/scenes/0"),
        ("unknown scene type", changed(lambda s: s["scenes"][6].update(name="example/nope")), "/snapshot/scenes/6/name"),
        ("refused state", changed(lambda s: s["scenes"][0]["state"].update(email=5)), None),
        ("flow stacks a missing scene", changed(lambda s: s["scenes"].pop(4)), None),
        ("flow without entries", changed(lambda s: s["flows"][0].update(entries=[])), "/snapshot/flows/0"),
        ("effect of a missing scene", changed(lambda s: s["effects"][0].update(scene=99)), None),
        ("effect with a bad status", changed(lambda s: s["effects"][0].update(status="lost")), "/snapshot/effects/0"),
        ("not an object", [], None),
    ]
    before = source.rt.snapshot()
    for what, snap, at in cases:
        with pytest.raises(yaia.YaiaError) as info:
            source.rt.restore(snap)
        assert info.value.code == "bad_snapshot", what
        if at is not None:
            assert info.value.at == at, what
        else:
            assert info.value.at is None or info.value.at.startswith("/snapshot"), what
    # Nothing changed.
    assert canonical(source.rt.snapshot()) == canonical(before)


HUGE = 2**63 - 1
MAX_ID = 2**53


def test_numbers_beyond_2_53_are_refused_where_they_stand(source: Source) -> None:
    good = source.rt.snapshot()
    assert good["flows"] and good["effects"] and good["scenes"]
    fields: List[Tuple[Any, ...]] = [
        ("scenes", 0, "id"), ("scenes", 0, "seq"), ("scenes", 1, "flow"),
        ("flows", 0, "id"), ("flows", 0, "version"), ("flows", 0, "entries", 0, "id"),
        ("effects", 0, "id"), ("effects", 0, "scene"),
        ("next", "scene"), ("next", "effect"), ("next", "flow"),
    ]
    assert "flow" in good["scenes"][1]
    before = canonical(source.rt.snapshot())
    for field in fields:
        for value in (HUGE, MAX_ID + 2, -1, 1.5, 2**64 - 1):
            s = copy.deepcopy(good)
            target = s
            for step in field[:-1]:
                target = target[step]
            target[field[-1]] = value
            with pytest.raises(yaia.YaiaError) as info:
                source.rt.restore(s)
            at = "/snapshot/" + "/".join(str(step) for step in field)
            assert (info.value.code, info.value.at) == ("bad_snapshot", at), (field, value)
    assert canonical(source.rt.snapshot()) == before
    # The runtime goes on: a scene opens and reduces.
    scene = source.rt.open("example/login")
    assert scene.send("emailChanged", "a@b.c").view_model["email"] == "a@b.c"


def test_ids_run_out_without_a_crash(examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack], **HOST) as rt:
        s = rt.snapshot()
        s["next"]["scene"] = MAX_ID
        rt.restore(s)
        last = rt.open("example/login")
        assert last.id == MAX_ID
        for attempt in (lambda: rt.open("example/login"), lambda: rt.start("example/login")):
            with pytest.raises(yaia.YaiaError) as info:
                attempt()
            assert info.value.code == "ids_exhausted"
        assert last.send("emailChanged", "a@b.c").view_model["email"] == "a@b.c"
        # The exhausted runtime's snapshot restores elsewhere.
        with yaia.Runtime(scenes=[examples_pack], **HOST) as other:
            other.restore(rt.snapshot())
            with pytest.raises(yaia.YaiaError) as info:
                other.open("example/login")
            assert info.value.code == "ids_exhausted"


def test_refused_state_points_into_it(source: Source) -> None:
    snap = source.rt.snapshot()
    snap["scenes"][0]["state"]["email"] = 5
    with pytest.raises(yaia.YaiaError) as info:
        source.rt.restore(snap)
    assert info.value.code == "bad_snapshot"
    assert info.value.at is not None and info.value.at.startswith("/snapshot/scenes/0/state")


def test_bad_snapshot_in_config(source: Source) -> None:
    snap = source.rt.snapshot()
    snap["format"] = "yaia.snapshot/0"
    with pytest.raises(yaia.YaiaError) as info:
        yaia.Runtime(restore=snap, **HOST)
    assert (info.value.code, info.value.at) == ("bad_snapshot", "/restore/format")


def test_restore_request_needs_a_snapshot(rt: yaia.Runtime) -> None:
    assert code_of(rt.execute, {"op": "restore"}) == ("bad_request", "/snapshot")


def test_keyword_and_config_clash() -> None:
    with pytest.raises(TypeError):
        yaia.Runtime(config={"workers": 2}, workers=3, **HOST)


# ---------------------------------------------------------------- scale


def test_snapshot_of_a_thousand_scenes(rt: yaia.Runtime, examples_pack: str) -> None:
    for i in range(100):
        flow = start_home(rt, items={f"item/{i}": {"title": f"T{i}"}})
        flow.send("select", f"item/{i}")
    for i in range(700):
        rt.open(LOGIN, {"email": f"u{i}@x"})
    snap = rt.snapshot()
    assert len(snap["scenes"]) == 1000 and len(snap["flows"]) == 100
    with yaia.Runtime(scenes=[examples_pack], **HOST) as target:
        restored = target.restore(snap)
        assert len(restored["scenes"]) == 1000
        expected = view_models(rt)
        assert {s["id"]: (s["name"], canonical(s["viewModel"])) for s in restored["scenes"]} == expected


# ---------------------------------------------------------------- the other configuration keywords


def test_config_keywords(tmp_path: Any, examples_pack: str) -> None:
    journal = tmp_path / "j.jsonl"
    math = {"service": "math", "library": "libm.so.6", "ops": {"cos": "double(double)"}}
    with yaia.Runtime(scenes=[examples_pack], workers=2, bind=[math], inspect=True, journal=journal, **HOST) as rt:
        assert rt.perform("math", "cos", [0.0]) == 1.0
        rt.open(LOGIN)
        event = rt.receive_event()
        assert event is None  # opening reduces nothing: no inspection event
        rt.journal(flush=True)
    assert journal.read_text().count("\n") == 2
    with pytest.raises(yaia.YaiaError) as info:
        yaia.Runtime(workers=0, **HOST)
    assert (info.value.code, info.value.at) == ("bad_config", "/workers")
    # bind= is appended to config's bindings.
    sine = dict(math, service="sine", ops={"sin": "double(double)"})
    with yaia.Runtime(config={"bind": [math]}, bind=[sine], **HOST) as rt:
        assert [s["name"] for s in rt.services()] == ["math", "sine"]
        assert rt.perform("sine", "sin", [0.0]) == 0.0
