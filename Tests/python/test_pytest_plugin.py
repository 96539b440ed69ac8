"""yaia.pytest_plugin: pytest collects *.scenario.json files and runs each through the scenario request."""

from __future__ import annotations

import copy
import json
from importlib import metadata
from pathlib import Path
from typing import Any, List

import pytest

import yaia

from conftest import HOST, REPO
from scenarios import LOGIN, MALFORMED, broken_login


def plugin_args() -> List[str]:
    """Loads the plugin, unless an installed yaia already does (its entry point)."""
    installed = any(ep.name == "yaia" for ep in metadata.entry_points().select(group="pytest11"))
    return [] if installed else ["-p", "yaia.pytest_plugin"]


def write(folder: Path, name: str, scenario: Any) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(scenario if isinstance(scenario, str) else json.dumps(scenario, indent=2))
    return path


def test_one_test_per_scenario_file(pytester: pytest.Pytester, examples_pack: str) -> None:
    write(pytester.path, "login.scenario.json", LOGIN)
    write(pytester.path, "flows/again.scenario.json", LOGIN)
    write(pytester.path, "other.json", LOGIN)  # not a scenario file
    result = pytester.runpytest(*plugin_args(), "--collect-only", "-q")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["flows/again.scenario.json::again", "login.scenario.json::login", "2 tests collected*"])


def test_the_shipped_scenarios_pass_under_pytest(pytester: pytest.Pytester, examples_pack: str) -> None:
    notes = REPO / "Examples" / "notes"
    shipped = [p for p in sorted(REPO.glob("Examples/**/*.scenario.json")) if notes not in p.parents]
    assert len(shipped) >= 10
    # Each names the scenes it needs, relative to itself: no ini option.
    result = pytester.runpytest(*plugin_args(), *map(str, shipped))
    result.assert_outcomes(passed=len(shipped))
    # The notes app's files name none: one set runs against both implementations.
    both = sorted(notes.glob("scenarios/*.scenario.json"))
    assert len(both) >= 8
    pack = notes / ".build" / "release" / "libnotes.so"
    for scenes in [REPO / "Examples" / "notes-documents"] + ([pack] if pack.is_file() else []):
        result = pytester.runpytest(*plugin_args(), "-o", f"yaia_scenes={scenes}", *map(str, both))
        result.assert_outcomes(passed=len(both))


def test_passing_and_failing_scenarios(pytester: pytest.Pytester, examples_pack: str) -> None:
    write(pytester.path, "test_login.scenario.json", LOGIN)
    write(pytester.path, "broken.scenario.json", broken_login())
    pytester.makepyfile(test_plain="def test_beside():\n    pass\n")
    result = pytester.runpytest(*plugin_args(), "-o", f"yaia_scenes={examples_pack}")
    result.assert_outcomes(passed=2, failed=1)
    # The failure is the request's text, verbatim.
    with yaia.Runtime(scenes=[examples_pack]) as rt:
        text = rt.scenario(broken_login())["failure"]["text"]
    assert "/state/isSubmitting" in text
    result.stdout.fnmatch_lines(["*_ scenario broken _*", *text.splitlines(), "*FAILED broken.scenario.json::broken*"])
    assert "Traceback" not in result.stdout.str()


def test_a_malformed_file_shows_its_problems(pytester: pytest.Pytester, examples_pack: str) -> None:
    write(pytester.path, "malformed.scenario.json", MALFORMED)
    write(pytester.path, "truncated.scenario.json", '{"yaia": 1, "scene": ')
    result = pytester.runpytest(*plugin_args(), "-o", f"yaia_scenes={examples_pack}")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines_random([
        "the file is not a valid scenario: *",
        "  /stpes: *",
        "  /steps/0/advance: *",
        "the file is not JSON: *line 1 column*",
        "FAILED malformed.scenario.json::malformed - the file is not a valid scenario*",
    ])


def test_ini_paths_start_at_the_ini_file(pytester: pytest.Pytester, examples_pack: str) -> None:
    packs = pytester.path / "packs"
    packs.mkdir()
    (packs / "examples.so").symlink_to(examples_pack)
    pytester.makeini("[pytest]\nyaia_scenes = packs/examples.so\n")
    write(pytester.path, "deep/down/login.scenario.json", LOGIN)
    result = pytester.runpytest(*plugin_args(), "deep/down")
    result.assert_outcomes(passed=1)


def test_a_runtime_the_ini_cannot_make_fails_each_scenario(pytester: pytest.Pytester) -> None:
    write(pytester.path, "login.scenario.json", LOGIN)
    result = pytester.runpytest(*plugin_args(), "-o", "yaia_scenes=no/such/pack.so")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*the runtime of the ini options yaia_scenes and yaia_plugins cannot be made: *"])


def test_a_conftest_hook_supplies_the_runtime(pytester: pytest.Pytester, examples_pack: str) -> None:
    # No ini option names the pack, and only the hook's runtime has an auth
    # service: the scenario passes only there, and its perform step runs on it.
    pytester.makeconftest(f"""
import yaia

made = []

def pytest_yaia_runtime(config, path):
    if not made:
        rt = yaia.Runtime(scenes=[{examples_pack!r}], **{HOST!r})
        rt.add_service("auth", lambda op, args: {{"user": {{"id": 7, "email": args["email"]}}}})
        made.append(rt)
    return made[0]
""")
    scenario = copy.deepcopy(LOGIN)
    user = {"id": 7, "email": "a@b.c"}
    scenario["steps"][3] = {"perform": "auth.login", "expect": {
        "state": {"isSubmitting": False, "user": user}, "routes": [{"push": "example/home", "args": {"user": user}}]}}
    write(pytester.path, "login.scenario.json", scenario)
    result = pytester.runpytest(*plugin_args())
    result.assert_outcomes(passed=1)


def test_ini_plugins_serve_the_perform_steps(pytester: pytest.Pytester, examples_pack: str, auth_so: str) -> None:
    user = {"email": "a@b.c"}
    write(pytester.path, "login.scenario.json", {
        "yaia": 1,
        "scene": "example/login",
        "exhaustive": False,
        "steps": [
            {"send": "emailChanged", "payload": "a@b.c"},
            {"send": "passwordChanged", "payload": "hunter2"},
            {"send": "submit"},
            {"perform": "auth.login", "expect": {"state": {"user": user}, "routes": [{"push": "example/home", "args": {"user": user}}]}},
        ],
    })
    result = pytester.runpytest(*plugin_args(), "-o", f"yaia_scenes={examples_pack}", "-o", f"yaia_plugins={auth_so}")
    result.assert_outcomes(passed=1)
    # Without the plugin, the effect has no service to perform it.
    result = pytester.runpytest(*plugin_args(), "-o", f"yaia_scenes={examples_pack}")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*could not perform *auth.login: no_such_service*"])
