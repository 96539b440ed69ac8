"""The simulate op through the C ABI: a planted invariant violation found and
shrunk to a scenario of at most 5 steps, a scene without violations passing,
the same seed giving the same answer, and the errors (docs/simulation.md).

The test scenes are the documents of Tests/documents/simulate.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Dict, Iterator

import pytest

import yaia

from conftest import HOST

REPO = Path(__file__).resolve().parents[2]
SCENES = REPO / "Tests" / "documents" / "simulate"


@pytest.fixture
def rt() -> Iterator[yaia.Runtime]:
    with yaia.Runtime(scenes=[str(SCENES) + "/"], **HOST) as runtime:
        yield runtime


def simulate(rt: yaia.Runtime, scene: str, **options: Any) -> Dict[str, Any]:
    return rt.execute({"op": "simulate", "scene": scene, **options})


def test_the_planted_cart_bug_is_found_and_shrunk(rt: yaia.Runtime) -> None:
    answer = simulate(rt, "sim/cart", runs=100, seed=7)
    assert answer["passed"] is False
    assert answer["invariant"] == "totalNonNegative"
    assert answer["seed"] == 7 and answer["run"] >= 1
    assert answer["message"] == 'the invariant "totalNonNegative" of sim/cart does not hold'
    scenario = answer["scenario"]
    assert scenario["steps"] == [{"send": "add", "payload": {"price": 1}}, {"send": "clear"}, {"send": "remove"}]
    assert answer["steps"] == 3 and answer["found"] >= 3
    assert scenario["yaia"] == 1 and scenario["scene"] == "sim/cart" and scenario["exhaustive"] is False


def test_the_shrunk_steps_break_the_invariant_when_replayed(rt: yaia.Runtime) -> None:
    """Sent by hand, the scenario's steps leave the total negative; one step fewer does not."""
    steps = simulate(rt, "sim/cart", seed=3)["scenario"]["steps"]
    assert len(steps) <= 5
    scene = rt.open("sim/cart")
    for i, step in enumerate(steps):
        update = scene.send(step["send"], step.get("payload"))
        total = rt.execute({"op": "state", "scene": scene.id})["state"]["total"]
        assert (total < 0) == (i == len(steps) - 1), update


def test_a_violation_that_needs_effect_outcomes(rt: yaia.Runtime) -> None:
    answer = simulate(rt, "sim/fetcher", seed=7)
    assert answer["invariant"] == "atMostTwelve"
    steps = answer["scenario"]["steps"]
    assert len(steps) <= 5
    assert [s for s in steps if "send" in s] == [{"send": "load"}, {"send": "load"}]
    assert sum(s["result"] for s in steps if "resolve" in s) == 13


def test_a_scene_without_violations_passes(rt: yaia.Runtime) -> None:
    assert simulate(rt, "sim/safe", runs=150, steps=25, seed=5) == {
        "ok": True, "passed": True, "runs": 150, "invariants": ["withinCap"]}
    # Its args reach the invariants: a cap of 3 holds as well.
    assert simulate(rt, "sim/safe", runs=50, seed=5, args={"cap": 3})["passed"] is True


def test_the_same_seed_gives_the_same_answer(rt: yaia.Runtime) -> None:
    for scene in ("sim/cart", "sim/fetcher"):
        first = simulate(rt, scene, seed=12345)
        assert simulate(rt, scene, seed=12345) == first
    with yaia.Runtime(scenes=[str(SCENES) + "/"], **HOST) as other:
        assert simulate(other, "sim/fetcher", seed=12345) == simulate(rt, "sim/fetcher", seed=12345)


def test_scenes_from_the_request(tmp_path: Path) -> None:
    (tmp_path / "cart.json").write_text((SCENES / "cart.json").read_text())
    with yaia.Runtime(allow=["register"], files=[str(tmp_path)]) as runtime:
        answer = runtime.execute({"op": "simulate", "scene": "sim/cart", "scenes": ["cart.json"], "base": str(tmp_path)})
        assert answer["invariant"] == "totalNonNegative"
        assert answer["scenario"]["scenes"] == ["cart.json"]
    # A document adds a scene type, as register does: it needs that grant, and its file a granted folder.
    for grants in ({}, {"files": [str(tmp_path)]}, {"allow": ["register"]}):
        with yaia.Runtime(**grants) as bare:
            with pytest.raises(yaia.YaiaError) as refused:
                bare.execute({"op": "simulate", "scene": "sim/cart", "scenes": ["cart.json"], "base": str(tmp_path)})
            assert refused.value.code == "not_permitted"


@pytest.mark.parametrize(
    "request_, code, at",
    [
        ({"scene": "sim/nope"}, "unknown_scene", "/scene"),
        ({"scene": "sim/cart", "runs": 0}, "bad_request", "/runs"),
        ({"scene": "sim/cart", "steps": 5000}, "bad_request", "/steps"),
        ({"scene": "sim/cart", "seed": 1.5}, "bad_request", "/seed"),
        ({"scene": "sim/safe", "args": {"cap": "x"}}, "bad_args", "/args/cap"),
    ],
)
def test_errors(rt: yaia.Runtime, request_: Dict[str, Any], code: str, at: str) -> None:
    with pytest.raises(yaia.YaiaError) as e:
        simulate(rt, **request_)
    assert e.value.code == code
    assert e.value.envelope["error"].get("at") == at


def test_a_swift_scene_is_not_simulatable(examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack]) as runtime:
        with pytest.raises(yaia.YaiaError) as e:
            runtime.execute({"op": "simulate", "scene": "example/login"})
        assert e.value.code == "not_simulatable"


@pytest.mark.parametrize("scene", ["sim/cart", "sim/fetcher"])
def test_the_shrunk_scenario_fails_when_run(rt: yaia.Runtime, scene: str) -> None:
    found = simulate(rt, scene, seed=21)
    scenario = found["scenario"]
    answer = rt.execute({"op": "scenario", "scenario": scenario})
    assert answer["passed"] is False
    assert answer["failure"]["step"] == len(scenario["steps"]) <= 5
    assert answer["failure"]["message"] == found["message"]
    assert found["invariant"] in answer["failure"]["text"]


TEST_PACK_DIR = Path(os.environ.get("YAIA_TEST_PACK_DIR") or REPO / ".build" / "yaia" / "test-packs")


def test_a_c_pack_scene_with_declared_actions() -> None:
    """The counter pack's scene (C) declares the invariant belowThousand; the request declares its actions."""
    counter = TEST_PACK_DIR / "counter.so"
    if not counter.is_file():
        pytest.skip(f"{counter} is not built; `make test-packs` builds it")
    with yaia.Runtime(scenes=[str(counter)]) as runtime:
        with pytest.raises(yaia.YaiaError) as e:
            runtime.execute({"op": "simulate", "scene": "test/counter"})
        assert e.value.code == "not_simulatable"
        actions = {"add": {"type": "integer", "minimum": 0, "maximum": 600}, "increment": None}
        answer = runtime.execute({"op": "simulate", "scene": "test/counter", "seed": 9, "actions": actions})
        assert answer["invariant"] == "belowThousand"
        steps = answer["scenario"]["steps"]
        assert 2 <= len(steps) <= 5
        assert sum(s.get("payload", 0) for s in steps) >= 1000
        assert runtime.execute({"op": "scenario", "scenario": answer["scenario"]})["passed"] is False
