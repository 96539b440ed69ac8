"""The store example plugin (SQLite, its calls queued on the host) driven from Python."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

import yaia
from conftest import HOST, PLUGIN_DIR, wait_event


@pytest.fixture(scope="session")
def store_so() -> str:
    path = PLUGIN_DIR / "store.so"
    if not path.is_file():
        pytest.skip(f"{path} is not built; `make plugins` builds it")
    return str(path)


@pytest.fixture
def store(store_so: str, examples_pack: str) -> Iterator[yaia.Runtime]:
    with yaia.Runtime(scenes=[examples_pack], plugins=[store_so], **HOST) as runtime:
        yield runtime


def test_crud(store: yaia.Runtime) -> None:
    value = {"title": "h\u00e9llo", "tags": ["a", "b"], "n": 1.5, "none": None}
    assert store.perform("store", "put", {"key": "doc/1", "value": value}) == {"key": "doc/1"}
    store.perform("store", "put", {"key": "doc/2", "value": [2]})
    store.perform("store", "put", {"key": "other", "value": True})
    assert store.perform("store", "get", {"key": "doc/1"}) == {"key": "doc/1", "value": value}
    listing = store.perform("store", "list", {"prefix": "doc/"})
    assert listing == {"items": [{"key": "doc/1", "value": value}, {"key": "doc/2", "value": [2]}]}
    assert store.perform("store", "delete", {"key": "doc/1"}) == {"key": "doc/1", "deleted": True}
    assert store.perform("store", "delete", {"key": "doc/1"}) == {"key": "doc/1", "deleted": False}
    with pytest.raises(yaia.YaiaError) as info:
        store.perform("store", "get", {"key": "doc/1"})
    assert info.value.code == "service_failed"
    assert info.value.detail["code"] == "not_found"
    with pytest.raises(yaia.YaiaError) as info:
        store.perform("store", "put", {"key": 5})
    assert info.value.detail["code"] == "bad_args"


def test_listed_as_not_blocking(store: yaia.Runtime) -> None:
    assert store.services() == [{"blocking": False, "name": "store", "origin": "plugin", "plugin": "store"}]


def test_from_a_scene(store: yaia.Runtime) -> None:
    jobs = store.open("example/jobs")
    (put,) = jobs.send("run", {"service": "store", "op": "put", "args": {"key": "k", "value": 1}}).effects
    assert put.status == "running"
    assert wait_event(store).effect == put.id
    (get,) = jobs.send("run", {"service": "store", "op": "get", "args": {"key": "k"}}).effects
    assert wait_event(store).effect == get.id
    assert jobs.state["log"] == [
        {"ok": True, "result": {"key": "k"}},
        {"ok": True, "result": {"key": "k", "value": 1}},
    ]


def test_file_database_outlives_runtime(store_so: str, tmp_path: Path) -> None:
    plugin = {"path": store_so, "config": {"path": str(tmp_path / "app.db")}}
    with yaia.Runtime(plugins=[plugin], **HOST) as first:
        first.perform("store", "put", {"key": "kept", "value": {"v": 1}})
    with yaia.Runtime(plugins=[plugin], **HOST) as second:
        assert second.perform("store", "get", {"key": "kept"}) == {"key": "kept", "value": {"v": 1}}
