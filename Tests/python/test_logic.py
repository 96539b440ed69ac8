"""The "logic" request and Runtime.logic: JSON Logic rules evaluated by the runtime (docs/logic.md)."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

import yaia


@pytest.fixture
def bare() -> Iterator[yaia.Runtime]:
    """A runtime with no grants, no scenes: "logic" is an ordinary op."""
    with yaia.Runtime() as runtime:
        yield runtime


@pytest.mark.parametrize(
    "rule, data, expected",
    [
        ({"+": [{"var": "a"}, 1]}, {"a": 1}, 2),
        ({"if": [{"<": [{"var": "t"}, 10]}, "cold", "warm"]}, {"t": 12}, "warm"),
        ({"map": [{"var": "xs"}, {"*": [{"var": ""}, 2]}]}, {"xs": [1, 2.5]}, [2, 5]),
        ({"/": [1, 4]}, None, 0.25),
        ({"missing": ["a", "b"]}, {"a": 1}, ["b"]),
        ({"find": [{"var": "xs"}, {"==": [{"var": "id"}, {"root": "id"}]}]}, {"xs": [{"id": 1}, {"id": 2}], "id": 2}, {"id": 2}),
        ({"cat": ["é", {"upper": "x"}]}, None, "éX"),
        ("plain value", None, "plain value"),
    ],
)
def test_logic_evaluates_rules(bare: yaia.Runtime, rule: Any, data: Any, expected: Any) -> None:
    assert bare.logic(rule, data) == expected


def test_data_defaults_to_null(bare: yaia.Runtime) -> None:
    assert bare.execute({"op": "logic", "rule": {"var": ["x", 5]}}) == {"ok": True, "result": 5}


def test_nan_and_infinity_are_null(bare: yaia.Runtime) -> None:
    assert bare.logic({"/": [1, 0]}) is None
    assert bare.logic({"-": ["abc", 1]}) is None


def test_bad_rule_points_into_the_request(bare: yaia.Runtime) -> None:
    with pytest.raises(yaia.YaiaError) as info:
        bare.logic({"and": [True, {"mpa": [[1], {"var": ""}]}]})
    assert info.value.code == "bad_rule"
    assert info.value.at == "/rule/and/1/mpa"
    assert 'did you mean "map"' in info.value.message


def test_missing_rule_is_a_bad_request(bare: yaia.Runtime) -> None:
    with pytest.raises(yaia.YaiaError) as info:
        bare.execute({"op": "logic", "data": {}})
    assert (info.value.code, info.value.at) == ("bad_request", "/rule")


def test_runaway_rule_stops_at_its_budget(bare: yaia.Runtime) -> None:
    doubling = {"reduce": [{"var": "xs"}, {"cat": [{"var": "accumulator"}, {"var": "accumulator"}]}, "ab"]}
    with pytest.raises(yaia.YaiaError) as info:
        bare.logic(doubling, {"xs": list(range(64))})
    assert info.value.code == "logic_budget_exceeded"
    # The runtime stays usable.
    assert bare.logic({"cat": ["a", "b"]}) == "ab"


def test_logic_error_is_located(bare: yaia.Runtime) -> None:
    with pytest.raises(yaia.YaiaError) as info:
        bare.logic({"if": [True, {"append": [5, 1]}]})
    assert (info.value.code, info.value.at) == ("logic_error", "/rule/if/1/append")


def test_tag_is_echoed(bare: yaia.Runtime) -> None:
    assert bare.execute({"op": "logic", "rule": {"!": 0}, "tag": 7}) == {"ok": True, "result": True, "tag": 7}


def test_values_json_cannot_hold_raise_before_sending(bare: yaia.Runtime) -> None:
    with pytest.raises(ValueError):
        bare.logic({"+": [float("nan"), 1]})
    with pytest.raises(TypeError):
        bare.logic({"var": "a"}, {"a": object()})
    with pytest.raises(ValueError):
        bare.logic({"cat": ["\ud800"]})
    cycle: Any = []
    cycle.append(cycle)
    with pytest.raises(ValueError):
        bare.logic({"var": ""}, cycle)
    assert bare.logic({"cat": ["still", " works"]}) == "still works"
