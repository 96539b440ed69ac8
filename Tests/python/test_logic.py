"""The "logic" request and Runtime.logic: JSON Logic rules evaluated by the runtime (docs/logic.md)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, Iterator, List

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


# ---------------------------------------------------------------- compiled once


def _general(rt: yaia.Runtime, rule: Any, data: Any) -> Any:
    """The ordinary path: a member beyond op, rule and data (a tag) takes it."""
    answer = rt.execute_text(json.dumps({"op": "logic", "rule": rule, "data": data, "tag": 0}))
    return answer["result"]


def _conformance() -> List[Any]:
    path = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "jsonlogic" / "tests.json"
    if not path.is_file():
        pytest.skip(f"{path} is absent: the JSON Logic conformance suite is not beside the repository")
    return [case for case in json.loads(path.read_text()) if isinstance(case, list)]


def test_compiled_rules_answer_as_the_ordinary_path_does(bare: yaia.Runtime) -> None:
    for rule, data, expected in _conformance():
        first = bare.logic(rule, data)
        again = bare.logic(rule, data)  # the compiled program, reused
        assert first == again == _general(bare, rule, data) == expected, (rule, data)


def _kept(rt: yaia.Runtime) -> int:
    return int(rt.execute({"op": "limits"})["usage"]["logic_rules"])


def test_a_rule_is_compiled_once_by_its_text(bare: yaia.Runtime) -> None:
    assert _kept(bare) == 0
    assert bare.logic({"+": [{"var": "a"}, 1]}, {"a": 1}) == 2
    assert _kept(bare) == 1
    assert bare.logic({"+": [{"var": "a"}, 1]}, {"a": 41}) == 42
    assert _kept(bare) == 1
    assert bare.logic({"+": [{"var": "a"}, 2]}, {"a": 1}) == 3
    assert _kept(bare) == 2
    # The members in any order: the same request.
    assert bare.execute_text('{"data":{"a":5},"rule":{"+":[{"var":"a"},2]},"op":"logic"}')["result"] == 7
    assert _kept(bare) == 2
    # Another shape of request takes the ordinary path and keeps nothing.
    assert _general(bare, {"*": [{"var": "a"}, 2]}, {"a": 2}) == 4
    assert bare.execute_text('{"op":"logic","r\\u0075le":{"-":[5,1]}}')["result"] == 4
    assert _kept(bare) == 2


def test_failing_rules_are_not_kept_and_fail_alike(bare: yaia.Runtime) -> None:
    for _ in range(2):
        with pytest.raises(yaia.YaiaError) as info:
            bare.logic({"and": [True, {"mpa": [[1], {"var": ""}]}]})
        assert (info.value.code, info.value.at) == ("bad_rule", "/rule/and/1/mpa")
        with pytest.raises(yaia.YaiaError) as info:
            bare.logic({"if": [True, {"append": [{"var": "x"}, 1]}]}, {"x": 5})
        assert (info.value.code, info.value.at) == ("logic_error", "/rule/if/1/append")
    assert _kept(bare) == 1  # the rule that compiled and then failed on its data


def test_kept_rules_are_bounded(bare: yaia.Runtime) -> None:
    for n in range(1100):
        assert bare.logic({"+": [{"var": "a"}, n]}, {"a": 1}) == n + 1
        assert _kept(bare) <= 1024
    assert bare.logic({"+": [{"var": "a"}, 7]}, {"a": 1}) == 8
    big = {"cat": ["x" * 5000]}
    assert bare.logic(big) == "x" * 5000
    assert bare.logic(big) == "x" * 5000


def _outcome(rt: yaia.Runtime, text: str) -> Any:
    try:
        return rt.execute_text(text)["result"]
    except yaia.YaiaError as error:
        return (error.code, error.at, error.message)


@pytest.mark.parametrize("depth", [99, 100, 101, 510, 511, 512, 518, 519, 520])
@pytest.mark.parametrize("where", ["rule", "data"])
def test_nesting_limits_are_those_of_the_ordinary_path(bare: yaia.Runtime, depth: int, where: str) -> None:
    nested = "[" * depth + "1" + "]" * depth
    rule, data = (nested, "null") if where == "rule" else ('{"var":"0"}', nested)
    plain = f'{{"op":"logic","rule":{rule},"data":{data}}}'
    other = f'{{"op":"logic","rule":{rule},"data":{data},"tag":0}}'
    assert _outcome(bare, plain) == _outcome(bare, other) == _outcome(bare, plain)


def test_borrowed_answers_belong_to_each_thread(bare: yaia.Runtime) -> None:
    borrowed = bare._lib.yaia_execute_borrowed
    failures: List[str] = []

    def work(n: int) -> None:
        for i in range(300):
            text = json.dumps({"op": "logic", "rule": {"+": [{"var": "a"}, n]}, "data": {"a": i}}).encode()
            answer = borrowed(bare._handle, text)
            if json.loads(answer) != {"ok": True, "result": n + i}:
                failures.append(f"thread {n}, call {i}: {answer!r}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
