"""Loading plugins (config and load_plugin) and every plugin failure code."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

import yaia
from conftest import listed, login_ready, wait_event

AUTH_DESCRIPTION = {"abi": 1, "name": "auth", "services": ["auth"], "version": "1.0.0"}


def service_names(runtime: yaia.Runtime) -> list:
    return [s["name"] for s in listed(runtime)]


def auth_works(runtime: yaia.Runtime) -> None:
    scene = login_ready(runtime)
    effect = scene.send("submit").effects[0]
    assert effect.status == "running"
    event = wait_event(runtime)
    assert event.effect == effect.id
    assert event.routes == [{"args": {"user": {"email": "a@b.c"}}, "push": "example/home"}]


def test_plugin_by_path_in_config(auth_so: str, examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack], config={"plugins": [auth_so]}) as runtime:
        assert listed(runtime) == [{"name": "auth", "origin": "plugin", "plugin": "auth"}]
        auth_works(runtime)


def test_plugin_with_config_object(auth_so: str, examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack], plugins=[{"path": Path(auth_so), "config": {"unused": True}}]) as runtime:
        assert service_names(runtime) == ["auth"]
        auth_works(runtime)


def test_plugins_argument_joins_config(auth_so: str, test_plugin: Callable[[str], str]) -> None:
    with yaia.Runtime(plugins=[test_plugin("echo")], config={"plugins": [auth_so]}) as runtime:
        assert sorted(service_names(runtime)) == ["auth", "echo"]


def test_load_plugin(rt: yaia.Runtime, auth_so: str) -> None:
    assert rt.services() == []
    description = rt.load_plugin(auth_so)
    assert {k: description[k] for k in AUTH_DESCRIPTION} == AUTH_DESCRIPTION
    assert description["path"] == auth_so
    assert listed(rt) == [{"name": "auth", "origin": "plugin", "plugin": "auth"}]
    auth_works(rt)


def test_load_plugin_with_config_and_pathlib(rt: yaia.Runtime, auth_so: str) -> None:
    description = rt.load_plugin(Path(auth_so), config={"anything": [1]})
    assert description["name"] == "auth"
    auth_works(rt)


def test_same_plugin_in_two_runtimes(auth_so: str, examples_pack: str) -> None:
    def runtime() -> yaia.Runtime:
        return yaia.Runtime(scenes=[examples_pack], plugins=[auth_so])

    with runtime() as a, runtime() as b:
        auth_works(a)
        auth_works(b)


def plugin_failure(rt: yaia.Runtime, path: str, code: str) -> yaia.YaiaError:
    with pytest.raises(yaia.YaiaError) as info:
        rt.load_plugin(path)
    assert info.value.code == code
    assert isinstance(info.value, yaia.PluginError) == code.startswith("plugin_")
    # a failed load changes nothing; the runtime stays usable
    assert rt.open("example/feed").send("load").effects[0].status == "pending"
    return info.value


def test_abi_mismatch(rt: yaia.Runtime, test_plugin: Callable[[str], str]) -> None:
    plugin_failure(rt, test_plugin("abi_future"), "plugin_abi_mismatch")
    assert rt.services() == []


def test_no_entry(rt: yaia.Runtime, test_plugin: Callable[[str], str]) -> None:
    plugin_failure(rt, test_plugin("no_entry"), "plugin_no_entry")


def test_init_failed_withdraws_services(rt: yaia.Runtime, test_plugin: Callable[[str], str]) -> None:
    exc = plugin_failure(rt, test_plugin("init_fails"), "plugin_init_failed")
    assert "setup fails on purpose" in exc.message  # the plugin's set_error() text
    assert "halfway" not in service_names(rt)


def test_duplicate_service_from_plugin(rt: yaia.Runtime, auth_so: str, test_plugin: Callable[[str], str]) -> None:
    rt.load_plugin(auth_so)
    plugin_failure(rt, test_plugin("dup_auth"), "duplicate_service")
    assert listed(rt) == [{"name": "auth", "origin": "plugin", "plugin": "auth"}]
    auth_works(rt)  # the first auth is still in charge


def test_duplicate_of_host_service(rt: yaia.Runtime, auth_so: str) -> None:
    rt.add_service("auth", lambda op, args: {"user": "host"})
    plugin_failure(rt, auth_so, "duplicate_service")
    assert listed(rt) == [{"name": "auth", "origin": "host"}]


def test_dup_auth_alone_loads(rt: yaia.Runtime, test_plugin: Callable[[str], str]) -> None:
    assert rt.load_plugin(test_plugin("dup_auth"))["services"] == ["auth"]
    scene = login_ready(rt)
    scene.send("submit")
    assert "refuses everyone" in wait_event(rt).view_model["error"]


def test_not_loadable(rt: yaia.Runtime, tmp_path: Path) -> None:
    text = tmp_path / "x.so"
    text.write_text("this is a text file, not a shared object\n")
    plugin_failure(rt, str(text), "plugin_not_loadable")


def test_not_found(rt: yaia.Runtime, tmp_path: Path) -> None:
    plugin_failure(rt, str(tmp_path / "missing.so"), "plugin_not_found")


def test_failures_in_config(auth_so: str, test_plugin: Callable[[str], str], tmp_path: Path) -> None:
    cases = [
        (test_plugin("abi_future"), "plugin_abi_mismatch"),
        (test_plugin("no_entry"), "plugin_no_entry"),
        (test_plugin("init_fails"), "plugin_init_failed"),
        (str(tmp_path / "missing.so"), "plugin_not_found"),
        (str(tmp_path / "x.so"), "plugin_not_loadable"),
    ]
    (tmp_path / "x.so").write_text("text\n")
    for path, code in cases:
        with pytest.raises(yaia.YaiaError) as info:
            yaia.Runtime(plugins=[auth_so, path])
        assert info.value.code == code, path
    with pytest.raises(yaia.YaiaError) as info:
        yaia.Runtime(plugins=[auth_so, test_plugin("dup_auth")])
    assert info.value.code == "duplicate_service"
