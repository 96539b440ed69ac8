"""Scene packs as the binding names them: Runtime(scenes=...), yaia.replay's
scenes=, and every code a pack in the configuration can fail with. (Packs
themselves, and several of them together, are Tests/python/test_packs.py's.)"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Dict

import pytest

import yaia

from conftest import HOST

LOGIN = "example/login"
EXAMPLE_TYPES = [
    "example/about",
    "example/detail",
    "example/feed",
    "example/home",
    "example/jobs",
    "example/login",
    "example/row",
    "example/rows",
    "example/search",
    "example/todo",
]


def refusal(**kwargs: Any) -> yaia.YaiaError:
    """The error yaia.Runtime(**kwargs) raises."""
    with pytest.raises(yaia.YaiaError) as info:
        yaia.Runtime(**kwargs)
    return info.value


def works(examples_pack: str) -> None:
    """A runtime with the right config, made after a refused one, works."""
    with yaia.Runtime(scenes=[examples_pack], **HOST) as rt:
        assert rt.scenes()["types"] == EXAMPLE_TYPES
        assert [p["name"] for p in rt.scenes()["packs"]] == ["examples"]
        assert rt.open(LOGIN).send("emailChanged", "a@b.c").view_model["email"] == "a@b.c"


# ---------------------------------------------------------------- the keyword


def test_scenes_keyword_loads_the_pack(examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack], **HOST) as rt:
        listing = rt.scenes()
        assert listing["types"] == EXAMPLE_TYPES
        (pack,) = listing["packs"]
        assert (pack["name"], pack["path"]) == ("examples", os.path.realpath(examples_pack))
        assert sorted(pack["scenes"]) == EXAMPLE_TYPES
        assert isinstance(pack["version"], str) and pack["version"]
        assert rt.open(LOGIN).opened.seq == 0


def test_scenes_keyword_takes_path_objects_and_any_iterable(examples_pack: str) -> None:
    with yaia.Runtime(scenes=(Path(examples_pack) for _ in range(1))) as rt:
        assert rt.scenes()["types"] == EXAMPLE_TYPES


def test_scenes_keyword_joins_the_config(examples_pack: str, auth_so: str) -> None:
    # The keyword's packs are appended to config's: the same pack both ways
    # is then a scene type defined twice, found at the keyword's entry.
    error = refusal(config={"scenes": [examples_pack]}, scenes=[examples_pack])
    assert (error.code, error.at) == ("duplicate_scene", "/scenes/1")
    # With the other keys: plugins, and config's keys of their own.
    with yaia.Runtime(config={"workers": 2}, scenes=[examples_pack], plugins=[auth_so], **HOST) as rt:
        scene = rt.open(LOGIN)
        scene.send("emailChanged", "a@b.c")
        scene.send("passwordChanged", "hunter2")
        (effect,) = scene.send("submit").effects
        assert effect.status == "running"  # the plugin serves the pack's scene
        event = rt.receive(timeout=10)
        assert event is not None and event.routes == [{"args": {"user": {"email": "a@b.c"}}, "push": "example/home"}]


def test_scenes_keyword_refuses_a_lone_path(examples_pack: str) -> None:
    # A str is iterable: its letters would be sent as paths.
    with pytest.raises(TypeError):
        yaia.Runtime(scenes=examples_pack)
    with pytest.raises(TypeError):
        yaia.Runtime(scenes=Path(examples_pack))  # type: ignore[arg-type]
    works(examples_pack)


def test_no_scenes_no_example_scenes() -> None:
    with yaia.Runtime(**HOST) as rt:
        listing = rt.scenes()
        assert (listing["types"], listing["packs"]) == ([], [])
        with pytest.raises(yaia.YaiaError) as info:
            rt.open(LOGIN)
        assert info.value.code == "unknown_scene"
    with yaia.Runtime(scenes=[], **HOST) as rt:
        assert rt.scenes()["packs"] == []


def test_replay_with_scenes(examples_pack: str, tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    with yaia.Runtime(scenes=[examples_pack], journal=journal, **HOST) as rt:
        rt.open(LOGIN).send("emailChanged", "a@b.c")
    assert yaia.replay(journal, scenes=[examples_pack]) == yaia.ReplayResult(identical=True, inputs=2)
    # Without the pack, the first input (its open) cannot be replayed.
    result = yaia.replay(journal)
    assert not result.identical and result.divergence is not None
    assert (result.divergence["seq"], result.divergence["error"]["code"]) == (1, "unknown_scene")


# ---------------------------------------------------------------- what a pack in the config fails with


def test_a_missing_pack(examples_pack: str, tmp_path: Path) -> None:
    missing = tmp_path / "libnothing.so"
    error = refusal(scenes=[missing])
    assert (error.code, error.at) == ("scene_pack_not_found", "/scenes/0")
    assert str(missing) in error.message
    error = refusal(scenes=[examples_pack, missing])
    assert (error.code, error.at) == ("scene_pack_not_found", "/scenes/1")
    works(examples_pack)


def test_a_file_that_is_no_shared_object(examples_pack: str) -> None:
    if not os.path.isfile("/etc/passwd"):
        pytest.skip("no /etc/passwd on this system")
    error = refusal(scenes=["/etc/passwd"])
    assert (error.code, error.at) == ("scene_pack_not_loadable", "/scenes/0")
    assert "/etc/passwd" in error.message
    works(examples_pack)


def test_a_directory(examples_pack: str, tmp_path: Path) -> None:
    # A directory is a folder of scene documents: this one holds none.
    error = refusal(scenes=[tmp_path])
    assert (error.code, error.at) == ("document_not_found", "/scenes/0")
    assert str(tmp_path) in error.message
    works(examples_pack)


def test_a_plugin_is_no_pack(examples_pack: str, auth_so: str) -> None:
    error = refusal(scenes=[auth_so])
    assert (error.code, error.at) == ("scene_pack_no_entry", "/scenes/0")
    assert "yaia_scene_pack_init" in error.message
    # The same file is a good plugin.
    with yaia.Runtime(scenes=[examples_pack], plugins=[auth_so], **HOST) as rt:
        assert [s["name"] for s in rt.services()] == ["auth"]
    works(examples_pack)


def test_the_same_pack_twice(examples_pack: str) -> None:
    error = refusal(scenes=[examples_pack, examples_pack])
    assert (error.code, error.at) == ("duplicate_scene", "/scenes/1")
    assert error.message.count('pack "examples"') == 2
    assert error.message.count(os.path.realpath(examples_pack)) == 2
    works(examples_pack)


def test_a_pack_entry_that_is_no_path(examples_pack: str) -> None:
    config: Dict[str, Any] = {"scenes": [examples_pack, 5]}
    error = refusal(config=config)
    assert (error.code, error.at) == ("bad_config", "/scenes/1")
    works(examples_pack)


def test_every_failure_leaves_later_runtimes_whole(examples_pack: str, auth_so: str, tmp_path: Path) -> None:
    # One after the other in one process, each failing at its last entry
    # after the examples loaded: no scene and no pack of a refused runtime
    # shows up in the next one.
    for bad in (tmp_path / "none.so", tmp_path, auth_so, examples_pack):
        with pytest.raises(yaia.YaiaError):
            yaia.Runtime(scenes=[examples_pack, bad])
        works(examples_pack)
