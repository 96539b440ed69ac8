"""Scenario files of example/login the binding's and the pytest plugin's tests share."""

from __future__ import annotations

import copy
from typing import Any, Dict

#: Passes: every change, effect and route the login emits, asserted.
LOGIN: Dict[str, Any] = {
    "yaia": 1,
    "name": "login succeeds",
    "scene": "example/login",
    "steps": [
        {"send": "emailChanged", "payload": "a@b.c", "expect": {"state": {"email": "a@b.c"}, "view": {"canSubmit": False}}},
        {"send": "passwordChanged", "payload": "pw", "expect": {"state": {"password": "pw"}, "view": {"canSubmit": True}}},
        {"send": "submit", "expect": {
            "state": {"isSubmitting": True},
            "effects": [{"service": "auth", "op": "login", "args": {"email": "a@b.c", "password": "pw"}}]}},
        {"resolve": "auth.login", "result": {"user": {"id": 1}}, "expect": {
            "state": {"isSubmitting": False, "user": {"id": 1}},
            "routes": [{"push": "example/home", "args": {"user": {"id": 1}}}]}},
    ],
}


def broken_login() -> Dict[str, Any]:
    """LOGIN, but its third step expects the wrong state."""
    scenario = copy.deepcopy(LOGIN)
    scenario["name"] = "login expects too much"
    scenario["steps"][2]["expect"]["state"] = {"isSubmitting": False}
    return scenario


#: No scenario: a step with two inputs, and an unknown member.
MALFORMED: Dict[str, Any] = {
    "yaia": 1,
    "scene": "example/login",
    "stpes": [],
    "steps": [{"send": "submit", "advance": 1}],
}
