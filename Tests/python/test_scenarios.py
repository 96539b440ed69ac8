"""Scenario files (docs/scenarios.md) run by the `scenario` request.

Every shipped scenario passes and fits docs/scenario.schema.json; broken
ones fail with the step, the JSON Pointer and the readable text; malformed
ones are `bad_scenario` with every problem; the request's grants; a journal
recorded by driving the notes app converts to scenarios that pass.
"""

from __future__ import annotations

import copy
import json
import os
import re
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import jsonschema
import pytest

import yaia
from conftest import HOST, PLUGIN_DIR, wait_event

REPO = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / "docs" / "scenario.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
PAGE = (REPO / "docs" / "scenarios.md").read_text()
NOTES_PACK = Path(os.environ.get("YAIA_NOTES_PACK") or REPO / "Examples" / "notes" / ".build" / "release" / "libnotes.so")
NOTES_DOCS = REPO / "Examples" / "notes-documents"

SHIPPED = sorted(REPO.glob("Examples/**/*.scenario.json"))
# The notes app's scenario files name no scenes: each runs against both implementations.
NOTES_SCENARIOS = REPO / "Examples" / "notes" / "scenarios"
LOGIN = json.loads((REPO / "Examples" / "scenarios" / "login.scenario.json").read_text())


def name(path: Path) -> str:
    return str(path.relative_to(REPO))


@pytest.fixture
def rt(examples_pack: str) -> Iterator[yaia.Runtime]:
    with yaia.Runtime(scenes=[examples_pack], **HOST) as runtime:
        yield runtime


def run(rt: yaia.Runtime, scenario: Dict[str, Any]) -> Dict[str, Any]:
    return rt.execute({"op": "scenario", "scenario": scenario})


def login(change: Any = None) -> Dict[str, Any]:
    """The shipped login scenario, without its scenes (the runtime has them), changed by `change`."""
    scenario = copy.deepcopy(LOGIN)
    del scenario["scenes"]
    if change is not None:
        change(scenario)
    return scenario


# ---------------------------------------------------------------- the shipped files


def test_the_examples_have_scenarios_for_every_example_scene_and_both_notes_apps(rt: yaia.Runtime) -> None:
    covered = set()
    for path in SHIPPED:
        scenario = json.loads(path.read_text())
        covered.add(scenario.get("scene") or scenario["flow"]["scene"])
        for step in scenario["steps"]:
            covered.update(step.get("expect", {}).get("stack", []))
    assert set(rt.execute({"op": "scenes"})["types"]) <= covered
    assert {"notes/login", "notes/list", "notes/row", "notes/editor"} <= covered
    folders = {path.parent for path in SHIPPED}
    assert {REPO / "Examples" / "scenarios", NOTES_SCENARIOS} <= folders


def runs() -> List[Any]:
    """Each shipped file, and each notes file once per implementation."""
    found: List[Any] = []
    for path in SHIPPED:
        if path.parent == NOTES_SCENARIOS:
            found += [pytest.param(path, scenes, id=f"{name(path)}-{kind}") for kind, scenes in (("documents", NOTES_DOCS), ("pack", NOTES_PACK))]
        else:
            found.append(pytest.param(path, None, id=name(path)))
    return found


@pytest.mark.parametrize("path,scenes", runs())
def test_every_shipped_scenario_passes(path: Path, scenes: Optional[Path], examples_pack: str) -> None:
    if scenes == NOTES_PACK and not NOTES_PACK.is_file():
        pytest.skip(f"{NOTES_PACK} is not built; `make notes` builds it")
    with yaia.Runtime(**HOST, **({"scenes": [str(scenes)]} if scenes else {})) as runtime:
        answer = runtime.execute({"op": "scenario", "path": str(path)})
    assert answer["passed"], answer["failure"]["text"]
    scenario = json.loads(path.read_text())
    assert answer["name"] == scenario["name"]
    assert answer["steps"] == len(scenario["steps"])


@pytest.mark.parametrize("path", SHIPPED, ids=name)
def test_every_shipped_scenario_fits_the_schema(path: Path) -> None:
    assert [e.message for e in VALIDATOR.iter_errors(json.loads(path.read_text()))] == []


def page_scenarios() -> List[Dict[str, Any]]:
    found = []
    for block in re.findall(r"```json\n(.*?)```", PAGE, re.S):
        try:
            value = json.loads(block)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and "yaia" in value:
            found.append(value)
    return found


def test_the_schema_is_a_draft_2020_12_schema_and_takes_the_page_examples() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    scenarios = page_scenarios()
    assert len(scenarios) >= 2
    for scenario in scenarios:
        assert [e.message for e in VALIDATOR.iter_errors(scenario)] == []


def test_the_page_examples_pass(rt: yaia.Runtime) -> None:
    for scenario in page_scenarios():
        scenario = dict(scenario)
        scenario.pop("scenes", None)
        answer = run(rt, scenario)
        assert answer["passed"], answer["failure"]["text"]


@pytest.mark.parametrize(
    "bad",
    [
        {"yaia": 1, "steps": []},
        {"yaia": 2, "scene": "a", "steps": []},
        {"yaia": 1, "scene": "a", "flow": {"scene": "b"}, "steps": []},
        {"yaia": 1, "scene": "a", "steps": [{"send": "x", "resolve": 1, "result": 1}]},
        {"yaia": 1, "scene": "a", "steps": [{"advance": -1}]},
        {"yaia": 1, "scene": "a", "steps": [{"sned": "x"}]},
        {"yaia": 1, "scene": "a", "steps": [{"resolve": "auth"}]},
        {"yaia": 1, "scene": "a", "steps": [{"perform": 1, "result": 2}]},
        {"yaia": 1, "scene": "a", "steps": [{}]},
        {"yaia": 1, "scene": "a", "steps": [{"expect": {"effects": [{"service": "a"}]}}]},
    ],
)
def test_the_schema_and_the_runtime_both_refuse_malformed_scenarios(rt: yaia.Runtime, bad: Dict[str, Any]) -> None:
    assert list(VALIDATOR.iter_errors(bad)) != []
    with pytest.raises(yaia.YaiaError) as info:
        run(rt, bad)
    assert info.value.code == "bad_scenario"


# ---------------------------------------------------------------- failures


def failure(rt: yaia.Runtime, scenario: Dict[str, Any]) -> Dict[str, Any]:
    answer = run(rt, scenario)
    assert answer["ok"] is True and answer["passed"] is False
    assert answer["steps"] == len(scenario["steps"])
    return answer["failure"]


def test_a_wrong_state_fails_naming_the_step_and_the_pointer(rt: yaia.Runtime) -> None:
    f = failure(rt, login(lambda s: s["steps"][0]["expect"]["state"].update(email="x@y.z")))
    assert (f["step"], f["label"], f["message"]) == (1, 'send emailChanged "a@b.c"', "the state is not the expected one")
    assert f["differences"] == [{"pointer": "/state/email", "expected": "x@y.z", "actual": "a@b.c"}]
    assert f["text"] == ('step 1 (send emailChanged "a@b.c"): the state is not the expected one:\n'
                         '  /state/email: expected "x@y.z", got "a@b.c"')


def test_a_change_not_stated_fails(rt: yaia.Runtime) -> None:
    f = failure(rt, login(lambda s: s["steps"][2]["expect"].pop("state")))
    assert f["text"] == ('step 3 (send submit): the state is not the expected one (no "state" was given: it must not change):\n'
                         "  /state/isSubmitting: expected false, got true")


def test_a_missing_effect_fails(rt: yaia.Runtime) -> None:
    f = failure(rt, login(lambda s: s["steps"][2]["expect"].pop("effects")))
    assert f["step"] == 3
    assert f["differences"] == [{"pointer": "/effects/0", "actual": {
        "service": "auth", "op": "login", "args": {"email": "a@b.c", "password": "pw"}, "then": "loginSucceeded", "catch": "loginFailed"}}]
    assert f["text"] == ('step 3 (send submit): the effects are not the expected ones (emitted: #1 auth.login):\n'
                         '  /effects/0: expected no element, got {"args":{"email":"a@b.c","password":"pw"},"catch":"loginFailed",'
                         '"op":"login","service":"auth","then":"loginSucceeded"}')


def test_wrong_effect_arguments_fail_at_the_argument(rt: yaia.Runtime) -> None:
    f = failure(rt, login(lambda s: s["steps"][2]["expect"]["effects"][0]["args"].update(password="PW")))
    assert f["text"] == ("step 3 (send submit): the effects are not the expected ones (emitted: #1 auth.login):\n"
                         '  /effects/0/args/password: expected "PW", got "pw"')


def test_an_unexpected_route_fails(rt: yaia.Runtime) -> None:
    f = failure(rt, login(lambda s: s["steps"][4]["expect"].pop("routes")))
    assert f["step"] == 5
    assert f["text"] == ('step 5 (resolve auth.login with result {"user":{"id":1}}): the routes are not the expected ones:\n'
                         '  /routes/0: expected no element, got {"args":{"user":{"id":1}},"push":"example/home"}')


def test_an_effect_left_in_flight_fails_at_the_end(rt: yaia.Runtime) -> None:
    f = failure(rt, login(lambda s: s.update(steps=s["steps"][:3])))
    assert (f["step"], f["label"]) == (4, "end")
    assert f["differences"][0]["pointer"] == "/inFlight/0"
    assert f["text"].startswith("step 4 (end): 1 effect is still in flight (#1 auth.login): resolve it, or have the scene cancel it:\n"
                                '  /inFlight/0: expected no element, got {"args":{"email":"a@b.c"')
    # Relaxed, the same scenario passes.
    assert run(rt, login(lambda s: s.update(steps=s["steps"][:3], exhaustive=False)))["passed"]


def test_a_wrong_view_model_fails(rt: yaia.Runtime) -> None:
    f = failure(rt, login(lambda s: s["steps"][0]["expect"]["view"].update(canSubmit=True)))
    assert f["text"] == ('step 1 (send emailChanged "a@b.c"): the view model is not the expected one:\n'
                         "  /view/canSubmit: expected true, got false")
    exact = login(lambda s: s["steps"][0]["expect"].update(viewExact=True))
    f = failure(rt, exact)
    assert [d["pointer"] for d in f["differences"]] == ["/view/email", "/view/error", "/view/isSubmitting"]


def test_a_refusal_expected_and_not_given_fails(rt: yaia.Runtime) -> None:
    f = failure(rt, login(lambda s: s["steps"].insert(0, {"send": "emailChanged", "payload": "x", "expectError": {"code": "bad_payload"}})))
    assert f["text"] == 'step 1 (send emailChanged "x"): the input was accepted; a refusal with code bad_payload was expected'
    f = failure(rt, login(lambda s: s["steps"].insert(0, {"send": "emailChanged", "payload": 1, "expectError": {"code": "unknown_action"}})))
    assert f["differences"] == [{"pointer": "/error/code", "expected": "unknown_action", "actual": "bad_payload"}]
    f = failure(rt, login(lambda s: s["steps"].insert(0, {"send": "emailChanged", "payload": 1})))
    assert f["text"].startswith("step 1 (send emailChanged 1): the scene refused the input: bad_payload:")


def test_a_resolve_of_no_effect_in_flight_fails(rt: yaia.Runtime) -> None:
    f = failure(rt, login(lambda s: s["steps"].insert(0, {"resolve": "auth.login", "result": {}})))
    assert f["text"] == 'step 1 (resolve auth.login with result {}): no auth.login effect is in flight (none is)'
    f = failure(rt, login(lambda s: s["steps"].insert(5, {"resolve": 1, "result": {}})))
    assert f["message"] == "#1 auth.login was resolved already"


def test_relaxed_steps_check_only_what_they_state(rt: yaia.Runtime) -> None:
    scenario = login(lambda s: s.update(exhaustive=False))
    for step in scenario["steps"]:
        step.get("expect", {}).pop("effects", None)
        step.get("expect", {}).pop("routes", None)
        step.get("expect", {}).get("state", {}).pop("user", None)
    assert run(rt, scenario)["passed"]
    scenario["steps"][2]["expect"]["state"] = {"isSubmitting": False}
    assert failure(rt, scenario)["differences"] == [{"pointer": "/state/isSubmitting", "expected": False, "actual": True}]


def test_a_scene_that_cannot_open_fails_at_step_0(rt: yaia.Runtime) -> None:
    answer = run(rt, {"yaia": 1, "scene": "example/nope", "steps": []})
    assert answer["failure"]["step"] == 0
    assert answer["failure"]["text"].startswith("step 0 (open example/nope): the scene could not be opened: unknown_scene")


# ---------------------------------------------------------------- malformed files


def test_a_malformed_scenario_lists_every_problem(rt: yaia.Runtime) -> None:
    with pytest.raises(yaia.YaiaError) as info:
        run(rt, {"yaia": 1, "scene": "example/login", "exhaustiv": True,
                 "steps": [{"send": "x", "advance": 1}, {"resolve": "login", "result": 1}, {"expect": {"view": 3}}]})
    error = info.value
    assert (error.code, error.at) == ("bad_scenario", "/scenario/exhaustiv")
    assert [(p["code"], p["at"]) for p in error.problems or []] == [
        ("unknown_member", "/exhaustiv"),
        ("bad_value", "/steps/0/advance"),
        ("bad_value", "/steps/1/resolve"),
        ("wrong_type", "/steps/2/expect/view"),
    ]
    assert 'did you mean "exhaustive"' in (error.problems or [])[0]["message"]


def test_a_scenario_file_that_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "broken.scenario.json"
    path.write_text('{"yaia": 1,')
    with yaia.Runtime(files=[str(tmp_path)]) as runtime:
        with pytest.raises(yaia.YaiaError) as info:
            runtime.execute({"op": "scenario", "path": str(path)})
    assert info.value.code == "bad_scenario"
    assert [p["code"] for p in info.value.problems or []] == ["not_json"]


def test_hostile_sizes_are_refused(rt: yaia.Runtime) -> None:
    with pytest.raises(yaia.YaiaError) as info:
        run(rt, {"yaia": 1, "scene": "example/login", "steps": [{"send": "submit"}] * 10001})
    assert info.value.code == "bad_scenario"
    assert (info.value.problems or [])[0]["at"] == "/steps"
    with pytest.raises(yaia.YaiaError) as info:
        run(rt, {"yaia": 1, "scene": "example/login", "steps": [{"sned": i} for i in range(5000)]})
    assert len(info.value.problems or []) == 100
    # The runtime is still usable, and a long valid scenario runs.
    answer = run(rt, {"yaia": 1, "scene": "example/login",
                      "steps": [{"send": "emailChanged", "payload": str(i), "expect": {"state": {"email": str(i)}}} for i in range(2000)]})
    assert answer["passed"]


# ---------------------------------------------------------------- grants


def test_the_op_is_ordinary_but_files_scenes_and_perform_need_grants(examples_pack: str, tmp_path: Path) -> None:
    inline = login()
    path = tmp_path / "login.scenario.json"
    path.write_text(json.dumps(LOGIN | {"scenes": [examples_pack]}))
    with yaia.Runtime(scenes=[examples_pack]) as plain:
        assert run(plain, inline)["passed"]
        with pytest.raises(yaia.YaiaError) as info:
            plain.execute({"op": "scenario", "path": str(path)})
        assert (info.value.code, info.value.at) == ("not_permitted", "/path")
        with pytest.raises(yaia.YaiaError) as info:
            plain.execute({"op": "scenario_from_journal", "path": str(tmp_path / "j.jsonl")})
        assert (info.value.code, info.value.at) == ("not_permitted", "/op")
        with pytest.raises(yaia.YaiaError) as info:
            run(plain, login(lambda s: s["steps"].insert(3, {"perform": "auth.login"})))
        assert info.value.code == "not_permitted"
    # Files granted: the file is read; the pack it names is loaded already, so no grant is asked for it.
    with yaia.Runtime(scenes=[examples_pack], files=[str(tmp_path), str(Path(examples_pack).resolve().parent)]) as files:
        assert files.execute({"op": "scenario", "path": str(path)})["passed"]
    # A pack the runtime does not have is code: load_plugin must be granted.
    with yaia.Runtime(files=[str(tmp_path), str(Path(examples_pack).resolve().parent)]) as bare:
        with pytest.raises(yaia.YaiaError) as info:
            bare.execute({"op": "scenario", "path": str(path)})
        assert (info.value.code, info.value.at) == ("not_permitted", "/scenes/0")
        assert "load_plugin" in info.value.message
    with yaia.Runtime(allow=["load_plugin"], files=[str(tmp_path), str(Path(examples_pack).resolve().parent)]) as granted:
        assert granted.execute({"op": "scenario", "path": str(path)})["passed"]
    # Inline, a source the runtime has loaded needs no grant; documents need register and their folder.
    with yaia.Runtime(scenes=[examples_pack]) as plain:
        assert run(plain, login(lambda s: s.update(scenes=[examples_pack])))["passed"]
        notes = {"yaia": 1, "scenes": [str(NOTES_DOCS)], "scene": "notes/login", "steps": []}
        with pytest.raises(yaia.YaiaError) as info:
            run(plain, notes)
        assert (info.value.code, info.value.at) == ("not_permitted", "/scenario/scenes/0")
    with yaia.Runtime(files=[str(NOTES_DOCS)]) as folder:
        with pytest.raises(yaia.YaiaError) as info:
            run(folder, notes)
        assert (info.value.code, info.value.at) == ("not_permitted", "/scenario/scenes/0")
        assert "register" in info.value.message
    with yaia.Runtime(allow=["register"], files=[str(NOTES_DOCS)]) as granted:
        assert run(granted, notes)["passed"]
        with pytest.raises(yaia.YaiaError) as info:
            run(granted, notes | {"scenes": [str(NOTES_DOCS / "missing.json")]})
        assert (info.value.code, info.value.at) == ("document_not_found", "/scenario/scenes/0")


def test_the_scenario_runs_apart_from_the_calling_runtime(rt: yaia.Runtime) -> None:
    before = rt.execute({"op": "scenes"})
    assert run(rt, login())["passed"]
    after = rt.execute({"op": "scenes"})
    assert before == after
    assert rt.receive(timeout=0) is None


# ---------------------------------------------------------------- perform and the notes app


def notes_runtime(auth_so: str, tmp_path: Path, scenes: Path = NOTES_DOCS, **keywords: Any) -> yaia.Runtime:
    store = PLUGIN_DIR / "store.so"
    if not store.is_file():
        pytest.skip(f"{store} is not built; `make plugins` builds it")
    return yaia.Runtime(scenes=[str(scenes)], plugins=[auth_so, {"path": str(store), "config": {"path": str(tmp_path / "notes.db")}}],
                        **HOST, **keywords)


def test_perform_runs_an_effect_on_the_calling_runtimes_services(auth_so: str, tmp_path: Path) -> None:
    with notes_runtime(auth_so, tmp_path) as rt:
        rt.perform("store", "put", {"key": "note/4", "value": {"id": 4, "title": "Stored", "body": ""}})
        scenario = {"yaia": 1, "scene": "notes/list", "args": {"user": {"email": "ada@example.com"}}, "steps": [
            {"send": "load", "expect": {"state": {"isLoading": True}, "effects": [{"service": "store", "op": "list"}]}},
            {"perform": "store.list", "expect": {"state": {"isLoading": False, "hasLoaded": True, "nextID": 5,
                                                           "notes": [{"id": 4, "title": "Stored", "body": ""}]}}},
        ]}
        assert run(rt, scenario)["passed"]
        scenario["steps"][1]["expect"]["state"]["nextID"] = 9
        assert failure(rt, scenario)["text"] == "step 2 (perform store.list): the state is not the expected one:\n  /state/nextID: expected 9, got 5"


def drive_notes(rt: yaia.Runtime) -> None:
    """Logs in (a wrong password first), writes a note, opens it, deletes it, logs out."""
    flow = rt.start("notes/login")
    flow.send("emailChanged", "ada@example.com")
    flow.send("passwordChanged", "letmein")
    flow.send("submit")
    wait_event(rt)
    flow.send("passwordChanged", "hunter2")
    flow.send("submit")
    wait_event(rt)
    flow.send("load")
    wait_event(rt)
    flow.send("newNote")
    flow.send("titleChanged", "Groceries")
    flow.send("bodyChanged", "Milk")
    flow.send("save")
    wait_event(rt), wait_event(rt)
    flow.send("open", 1)
    flow.send("delete")
    wait_event(rt), wait_event(rt)
    flow.send("logout")


@pytest.mark.parametrize("scenes", ["documents", "swift pack"])
def test_a_journal_of_the_notes_app_converts_to_scenarios_that_pass(scenes: str, auth_so: str, tmp_path: Path) -> None:
    source = NOTES_DOCS if scenes == "documents" else NOTES_PACK
    if not source.exists():
        pytest.skip(f"{source} is not built; `make notes` builds it")
    journal = tmp_path / "notes.jsonl"
    with notes_runtime(auth_so, tmp_path, scenes=source, journal=journal) as rt:
        drive_notes(rt)
        rt.execute({"op": "journal", "stop": True})
        answer = rt.execute({"op": "scenario_from_journal", "path": str(journal)})
        assert "skipped" not in answer
        scenarios = answer["scenarios"]
        # One per scene opened: the login, the list, two editors, and the note's row (a child of the list).
        assert [s["scene"] for s in scenarios] == ["notes/login", "notes/list", "notes/editor", "notes/row", "notes/editor"]
        for scenario in scenarios:
            assert [e.message for e in VALIDATOR.iter_errors(scenario)] == []
            result = run(rt, scenario)
            assert result["passed"], result["failure"]["text"]
        login = scenarios[0]
        assert [s.get("send") or s.get("resolve") for s in login["steps"]] == [
            "emailChanged", "passwordChanged", "submit", "auth.login", "passwordChanged", "submit", "auth.login"]
        assert login["steps"][3]["error"]["message"] == "Wrong email or password"
        assert login["steps"][6]["expect"]["routes"] == [{"push": "notes/list", "args": {"user": {"email": "ada@example.com"}}}]
        listing = scenarios[1]
        # Results the editors delivered when they popped are the list's sends.
        assert [(s.get("send") or s.get("resolve"), s.get("payload")) for s in listing["steps"]] == [
            ("load", None), ("store.list", None), ("newNote", None),
            ("editorClosed", {"saved": {"id": 1, "title": "Groceries", "body": "Milk"}}), ("open", 1),
            ("editorClosed", {"deleted": 1}), ("logout", None)]
        # A changed recording fails: the conversion's expectations are checked.
        login["steps"][2]["expect"]["state"]["isSubmitting"] = False
        assert run(rt, login)["failure"]["differences"] == [{"pointer": "/state/isSubmitting", "expected": False, "actual": True}]


def test_a_journal_that_ends_with_effects_in_flight_relaxes_only_the_end(examples_pack: str, tmp_path: Path) -> None:
    journal = tmp_path / "search.jsonl"
    with yaia.Runtime(scenes=[examples_pack], journal=journal, **HOST) as rt:
        scene = rt.open("example/search")
        scene.send("queryChanged", "a")
        rt.execute({"op": "journal", "stop": True})
        (scenario,) = rt.execute({"op": "scenario_from_journal", "path": str(journal)})["scenarios"]
        assert scenario["exhaustive"] is False and scenario["steps"][0]["exhaustive"] is True
        assert run(rt, scenario)["passed"]


def test_a_broken_journal_is_bad_journal(rt: yaia.Runtime, tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text('{"kind": "open"}\n')
    with pytest.raises(yaia.YaiaError) as info:
        rt.execute({"op": "scenario_from_journal", "path": str(path)})
    assert info.value.code == "bad_journal"


def test_a_rewound_journal_gives_the_scene_a_second_scenario(examples_pack: str, tmp_path: Path) -> None:
    journal = tmp_path / "rewound.jsonl"
    with yaia.Runtime(scenes=[examples_pack], **HOST) as rt:
        scene = rt.open("example/login")
        rt.execute({"op": "journal", "start": str(journal)})
        scene.send("emailChanged", "a@b.c")
        scene.send("passwordChanged", "x")
        rt.execute({"op": "rewind", "to": 1})
        scene.send("passwordChanged", "y")
        rt.execute({"op": "journal", "stop": True})
        first, second = rt.execute({"op": "scenario_from_journal", "path": str(journal)})["scenarios"]
        assert (first["name"], second["name"]) == ("example/login (scene 1)", "example/login (scene 1) #2")
        assert second["state"]["email"] == "a@b.c" and second["state"]["password"] == ""
        assert second["steps"] == [{"send": "passwordChanged", "payload": "y", "expect": {"state": {"password": "y"}}}]
        assert run(rt, first)["passed"] and run(rt, second)["passed"]
