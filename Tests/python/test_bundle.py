"""Where the package looks for the library, the examples pack, the plugins and
the command: the environment first, then the files it was installed with,
then the source tree's build folder."""

from __future__ import annotations

from pathlib import Path

import pytest

import yaia
from yaia import bundle, ffi


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A package folder with bundled files, as a wheel installs them, and no variable set."""
    native = tmp_path / "_native"
    (native / "plugins").mkdir(parents=True)
    for name in ("libyaia.so", "libyaia-examples.so", "yaia", "plugins/auth.so"):
        (native / name).write_bytes(b"\x7fELF")
    monkeypatch.setattr(bundle, "NATIVE", native)
    for name in ("YAIA_LIBRARY", "YAIA_EXAMPLES_PACK", "YAIA_PLUGIN_DIR", "YAIA_CLI"):
        monkeypatch.delenv(name, raising=False)
    return native


def test_the_bundled_files_come_before_the_build_folder(installed: Path) -> None:
    assert ffi.candidates()[:2] == [str(installed / "libyaia.so"), str(bundle.SOURCE_BUILD / "release" / "libyaia.so")]
    assert yaia.examples_pack() == str(installed / "libyaia-examples.so")
    assert yaia.plugin("auth") == str(installed / "plugins" / "auth.so")
    assert yaia.command() == str(installed / "yaia")


def test_the_environment_comes_first(installed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    own = tmp_path / "own"
    own.mkdir()
    for name in ("libyaia.so", "pack.so", "auth.so", "yaia"):
        (own / name).write_bytes(b"\x7fELF")
    monkeypatch.setenv("YAIA_LIBRARY", str(own / "libyaia.so"))
    monkeypatch.setenv("YAIA_EXAMPLES_PACK", str(own / "pack.so"))
    monkeypatch.setenv("YAIA_PLUGIN_DIR", str(own))
    monkeypatch.setenv("YAIA_CLI", str(own / "yaia"))
    assert ffi.candidates() == [str(own / "libyaia.so")]
    assert yaia.examples_pack() == str(own / "pack.so")
    assert yaia.plugin("auth") == str(own / "auth.so")
    assert yaia.command() == str(own / "yaia")
    # A variable names the only place: what it lacks is not looked for elsewhere.
    with pytest.raises(FileNotFoundError, match="the plugin store.so not found; looked at .*own/store.so; set YAIA_PLUGIN_DIR"):
        yaia.plugin("store")


def test_without_bundled_files_the_build_folder_is_next(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bundle, "NATIVE", tmp_path / "_native")
    monkeypatch.setattr(bundle, "SOURCE_BUILD", tmp_path / ".build")
    monkeypatch.delenv("YAIA_LIBRARY", raising=False)
    monkeypatch.delenv("YAIA_CLI", raising=False)
    assert bundle.bundled_library() is None
    assert ffi.candidates()[0] == str(tmp_path / ".build" / "release" / "libyaia.so")
    with pytest.raises(FileNotFoundError) as raised:
        yaia.command()
    assert str(tmp_path / "_native" / "yaia") in str(raised.value)
    assert str(tmp_path / ".build" / "release" / "yaia") in str(raised.value)
    (tmp_path / ".build" / "release").mkdir(parents=True)
    (tmp_path / ".build" / "release" / "yaia").write_bytes(b"\x7fELF")
    assert yaia.command() == str(tmp_path / ".build" / "release" / "yaia")
