"""How the runtime config's plugin and scene pack paths are found: as given when
absolute or ./-relative, else in the working directory, then in the directories
of YAIA_PLUGIN_PATH.

Each test copies the built files under names of its own into fresh folders, so
a file the dynamic linker loaded for another test is never the one found.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import yaia


def copy(source: str, folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    shutil.copy(source, target)
    return target


def loaded(path: str) -> str:
    """The name of the plugin a runtime config naming `path` loads."""
    with yaia.Runtime(plugins=[path]) as rt:
        (name,) = {s["plugin"] for s in rt.services()}
        return name


def refusal(path: str) -> yaia.YaiaError:
    with pytest.raises(yaia.YaiaError) as failure:
        yaia.Runtime(plugins=[path])
    return failure.value


def test_a_bare_name_is_the_file_in_the_working_directory(auth_so: str, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    copy(auth_so, tmp_path, "auth-bare.so")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("YAIA_PLUGIN_PATH", raising=False)
    assert loaded("auth-bare.so") == "auth"


def test_dot_slash_and_folders_are_relative_to_the_working_directory(auth_so: str, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    copy(auth_so, tmp_path / "sub", "auth-sub.so")
    monkeypatch.chdir(tmp_path)
    assert loaded("./sub/auth-sub.so") == "auth"
    assert loaded("sub/auth-sub.so") == "auth"


def test_a_bare_name_is_then_looked_for_in_yaia_plugin_path(auth_so: str, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    copy(auth_so, second, "auth-dir.so")
    first.mkdir()
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    monkeypatch.setenv("YAIA_PLUGIN_PATH", f"{first}::{second}")
    assert loaded("auth-dir.so") == "auth"


def test_the_working_directory_comes_before_yaia_plugin_path(auth_so: str, test_plugin, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    copy(test_plugin("echo"), tmp_path / "cwd", "either.so")
    copy(auth_so, tmp_path / "dir", "either.so")
    monkeypatch.chdir(tmp_path / "cwd")
    monkeypatch.setenv("YAIA_PLUGIN_PATH", str(tmp_path / "dir"))
    assert loaded("either.so") == "echo"


def test_dot_slash_is_never_searched(auth_so: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy(auth_so, tmp_path / "dir", "auth-anchored.so")
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    monkeypatch.setenv("YAIA_PLUGIN_PATH", str(tmp_path / "dir"))
    assert refusal("./auth-anchored.so").code == "plugin_not_found"


def test_not_found_says_where_it_looked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("YAIA_PLUGIN_PATH", "/nonexistent/a:/nonexistent/b")
    error = refusal("nowhere.so")
    assert error.code == "plugin_not_found"
    cwd = Path.cwd()
    assert (f"nowhere.so: looked at {cwd}/nowhere.so (in the working directory), then "
            "/nonexistent/a/nowhere.so, /nonexistent/b/nowhere.so (YAIA_PLUGIN_PATH=/nonexistent/a:/nonexistent/b)") in error.message
    monkeypatch.delenv("YAIA_PLUGIN_PATH")
    error = refusal("nowhere.so")
    assert error.code == "plugin_not_found"
    assert f"looked at {cwd}/nowhere.so (in the working directory); YAIA_PLUGIN_PATH" in error.message
    error = refusal("./sub/nowhere.so")
    assert f"./sub/nowhere.so (looked at {cwd}/sub/nowhere.so: a relative path starts in the working directory, {cwd})" in error.message


def test_the_readme_snippet_from_an_empty_folder_says_where_it_looked_and_how_to_get_the_pack(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("YAIA_PLUGIN_PATH", raising=False)
    with pytest.raises(yaia.YaiaError) as failure:
        yaia.Runtime(scenes=["libyaia-examples.so"], plugins=["auth.so"])
    error = failure.value
    assert (error.code, error.at) == ("scene_pack_not_found", "/scenes/0")
    assert f"no scene pack at libyaia-examples.so: looked at {tmp_path}/libyaia-examples.so (in the working directory)" in error.message
    assert "yaia.examples_pack()" in error.message and "make examples-pack" in error.message
    plugin = refusal("auth.so")
    assert f"looked at {tmp_path}/auth.so" in plugin.message and 'yaia.plugin("auth")' in plugin.message


def test_a_missing_document_names_the_file_it_looked_at(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for given, looked in (("todo.json", tmp_path / "todo.json"), ("../todo.json", tmp_path.parent / "todo.json"),
                          (str(tmp_path / "x" / "todo.json"), tmp_path / "x" / "todo.json")):
        with pytest.raises(yaia.YaiaError) as failure:
            yaia.Runtime(scenes=[given])
        assert failure.value.code == "document_not_found"
        assert f"no scene document at {given}" in failure.value.message
        assert str(looked) in failure.value.message


def test_scene_packs_follow_the_same_rule(examples_pack: str, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    copy(examples_pack, tmp_path / "dir", "examples-dir.so")
    copy(examples_pack, tmp_path / "cwd", "examples-cwd.so")
    monkeypatch.chdir(tmp_path / "cwd")
    monkeypatch.setenv("YAIA_PLUGIN_PATH", str(tmp_path / "dir"))
    for name in ("examples-cwd.so", "examples-dir.so"):
        with yaia.Runtime(scenes=[name]) as rt:
            assert rt.open("example/login").view_model["email"] == ""
    with pytest.raises(yaia.YaiaError) as failure:
        yaia.Runtime(scenes=["./examples-dir.so"])
    assert failure.value.code == "scene_pack_not_found"


def test_load_plugin_requests_find_a_file_the_same_way_then_confine_it(auth_so: str, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    granted, other = tmp_path / "granted", tmp_path / "other"
    copy(auth_so, granted, "auth-granted.so")
    copy(auth_so, other, "auth-other.so")
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    monkeypatch.setenv("YAIA_PLUGIN_PATH", f"{other}:{granted}")
    with yaia.Runtime(allow=["load_plugin"], files=[granted]) as rt:
        assert rt.load_plugin("auth-granted.so")["path"] == str(granted.resolve() / "auth-granted.so")
        with pytest.raises(yaia.YaiaError) as failure:
            rt.load_plugin("auth-other.so")   # found, but outside the granted directories
        assert failure.value.code == "not_permitted"
        with pytest.raises(yaia.YaiaError) as failure:
            rt.load_plugin("auth-nowhere.so")
        assert failure.value.code == "not_permitted"   # nowhere: as a file of the working directory, not granted
