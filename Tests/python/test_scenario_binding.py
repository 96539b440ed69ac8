"""Runtime.scenario and Runtime.simulate: the scenario and simulate requests from Python."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import yaia

from scenarios import LOGIN, MALFORMED, broken_login


def test_a_passing_scenario(rt: yaia.Runtime) -> None:
    answer = rt.scenario(LOGIN)
    assert answer["passed"] is True, answer
    assert answer["name"] == "login succeeds"
    assert answer["steps"] == 4
    assert "ok" not in answer


def test_a_failing_scenario_names_the_step_and_the_pointer(rt: yaia.Runtime) -> None:
    answer = rt.scenario(broken_login())
    assert answer["passed"] is False
    failure = answer["failure"]
    assert failure["step"] == 3
    assert {"pointer": "/state/isSubmitting", "expected": False, "actual": True} in failure["differences"]
    assert "step 3" in failure["text"] and "/state/isSubmitting" in failure["text"]


def test_a_scenario_file_and_its_folder(rt: yaia.Runtime, tmp_path: Path) -> None:
    path = tmp_path / "login.scenario.json"
    path.write_text(json.dumps({k: v for k, v in LOGIN.items() if k != "name"}))
    answer = rt.scenario(path)
    assert answer["passed"] is True, answer
    assert answer["name"] == "login"  # the file's name without .scenario.json


def test_a_malformed_scenario_raises_with_its_problems(rt: yaia.Runtime) -> None:
    with pytest.raises(yaia.YaiaError) as raised:
        rt.scenario(MALFORMED)
    assert raised.value.code == "bad_scenario"
    problems = raised.value.problems
    assert problems is not None
    assert {p["at"] for p in problems} >= {"/stpes", "/steps/0/advance"}


def test_simulate_finds_a_broken_invariant_and_shrinks_it(tmp_path: Path) -> None:
    document = {
        "yaia": 1,
        "scene": "t/counter",
        "state": {"n": 0},
        "actions": {
            "add": {"set": {"n": {"+": [{"var": "state.n"}, 1]}}},
            "reset": {"set": {"n": 0}},
        },
        "invariants": {"small": {"<": [{"var": "state.n"}, 3]}},
    }
    (tmp_path / "counter.json").write_text(json.dumps(document))
    # Documents the requests load need the register grant, in a granted folder.
    with yaia.Runtime(allow=["register"], files=[tmp_path]) as rt:
        answer = rt.simulate("t/counter", runs=50, seed=7, steps=20, scenes=["counter.json"], base=tmp_path)
        assert answer["passed"] is False, answer
        assert (answer["invariant"], answer["seed"]) == ("small", 7)
        shrunk = answer["scenario"]
        assert [step.get("send") for step in shrunk["steps"]] == ["add", "add", "add"]
        assert rt.simulate("t/counter", runs=50, seed=7, steps=20, scenes=["counter.json"], base=tmp_path) == answer
        # The shrunk scenario fails while the bug is there, and passes once it is fixed.
        assert rt.scenario(shrunk, base=tmp_path)["passed"] is False
        document["invariants"] = {"small": {"<": [{"var": "state.n"}, 1000]}}
        (tmp_path / "counter.json").write_text(json.dumps(document))
        assert rt.scenario(shrunk, base=tmp_path)["passed"] is True
        fixed = rt.simulate("t/counter", runs=5, seed=7, steps=10, scenes=["counter.json"], base=tmp_path)
        assert (fixed["passed"], fixed["runs"], fixed["invariants"]) == (True, 5, ["small"])


def test_simulate_takes_scenes_as_a_list(rt: yaia.Runtime) -> None:
    with pytest.raises(TypeError, match="list of paths"):
        rt.simulate("example/login", scenes="counter.json")  # type: ignore[arg-type]
