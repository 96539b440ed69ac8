"""pytest collects scenario files: one test per ``*.scenario.json``.

Installed with the package (entry point ``pytest11``, name ``yaia``; ``-p
no:yaia`` turns it off), the plugin collects every ``*.scenario.json`` file
under the paths pytest searches and runs it through the runtime's
``scenario`` request, beside the project's own tests. A scenario that fails
shows the answer's ``text`` (the step, then each difference by JSON
Pointer); a malformed file shows its problems.

The scenarios run in one runtime per session, made from two ini options
(paths relative to the ini file, or to the root folder without one)::

    [pytest]
    yaia_scenes = scenes/ build/libapp.so     # packs, documents, folders
    yaia_plugins = build/plugins/store.so     # for the scenarios' perform steps

It grants every op on every file: scenario files are the project's own
tests, as trusted as its conftest.py. A conftest.py that needs another
runtime (host services written in Python, other grants) returns it from the
hook ``pytest_yaia_runtime(config, path)``, called for each scenario file
under its folder; the plugin does not close what the hook returns::

    import functools, yaia

    @functools.lru_cache(maxsize=None)
    def runtime() -> yaia.Runtime:
        rt = yaia.Runtime(scenes=[yaia.examples_pack()])
        rt.add_service("auth", lambda op, args: {"user": {"id": 1}})
        return rt

    def pytest_yaia_runtime(config, path):
        return runtime()
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterator, Optional, Union

import pytest

from .errors import YaiaError
from .runtime import Runtime

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

__all__ = ["SUFFIX", "ScenarioFile", "ScenarioItem", "ScenarioFailed", "ScenarioInvalid"]

#: The files the plugin collects end so.
SUFFIX = ".scenario.json"


class _Hooks:
    @pytest.hookspec(firstresult=True)
    def pytest_yaia_runtime(self, config: pytest.Config, path: Path) -> Optional[Runtime]:
        """The runtime to run the scenario file ``path`` in; None for the
        plugin's own (made from the ini options ``yaia_scenes`` and
        ``yaia_plugins``). The plugin does not close it."""


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(_Hooks)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        "yaia_scenes", type="args", default=[],
        help="yaia: scene packs, documents and folders the scenario files' runtime loads")
    parser.addini(
        "yaia_plugins", type="args", default=[],
        help="yaia: plugins (services) of the scenario files' runtime, for their perform steps")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> Optional["ScenarioFile"]:
    if file_path.name.endswith(SUFFIX):
        collected: ScenarioFile = ScenarioFile.from_parent(parent, path=file_path)
        return collected
    return None


class ScenarioFailed(Exception):
    """A scenario that ran and failed; ``answer`` is the scenario request's."""

    def __init__(self, answer: Dict[str, Any]) -> None:
        failure = answer.get("failure")
        failure = failure if isinstance(failure, dict) else {}
        text = failure.get("text")
        if not isinstance(text, str):
            text = str(failure.get("message", "the scenario failed"))
        super().__init__(text)
        self.answer = answer


class ScenarioInvalid(Exception):
    """A scenario file that could not be run: unreadable, not JSON, refused as
    "bad_scenario", or no runtime to run it in."""


class ScenarioFile(pytest.File):
    """A ``*.scenario.json`` file: one :class:`ScenarioItem`."""

    def collect(self) -> Iterator["ScenarioItem"]:
        yield ScenarioItem.from_parent(self, name=self.path.name[: -len(SUFFIX)] or self.path.name)


_RUNTIME = pytest.StashKey[Union[Runtime, Exception]]()


def _own_runtime(config: pytest.Config) -> Runtime:
    """The session's runtime from the ini options, made at the first scenario."""
    made = config.stash.get(_RUNTIME, None)
    if made is None:
        base = config.inipath.parent if config.inipath is not None else config.rootpath
        try:
            made = Runtime(
                scenes=[base / p for p in config.getini("yaia_scenes")],
                plugins=[base / p for p in config.getini("yaia_plugins")],
                allow="all",
                files=["/"],
            )
            config.add_cleanup(made.close)
        except (YaiaError, OSError) as exc:  # OSError: LibraryNotFound, AbiMismatch
            made = exc  # every scenario fails with it, without trying again
        config.stash[_RUNTIME] = made
    if isinstance(made, Exception):
        raise ScenarioInvalid(f"the runtime of the ini options yaia_scenes and yaia_plugins cannot be made: {made}")
    return made


def _problems(exc: YaiaError) -> str:
    problems = exc.problems
    if not problems:
        where = f" at {exc.at}" if exc.at else ""
        return f"{exc.code}: {exc.message}{where}"
    lines = [f"{exc.message}:"]
    lines += [f"  {p.get('at') or '/'}: {p.get('code')}: {p.get('message')}" for p in problems]
    return "\n".join(lines)


class ScenarioItem(pytest.Item):
    """Runs one scenario file through the ``scenario`` request."""

    #: The answer of the scenario request, once run.
    answer: Optional[Dict[str, Any]] = None

    def _read(self) -> Any:
        try:
            return json.loads(self.path.read_bytes())
        except OSError as exc:
            raise ScenarioInvalid(f"the file cannot be read: {exc.strerror}") from None
        except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
            raise ScenarioInvalid(f"the file is not JSON: {exc}") from None

    def runtest(self) -> None:
        scenario = self._read()
        runtime = self.ihook.pytest_yaia_runtime(config=self.config, path=self.path)
        if runtime is None:
            runtime = _own_runtime(self.config)
        try:
            answer = runtime.scenario(scenario, base=self.path.parent)
        except YaiaError as exc:
            what = "is not a valid scenario" if exc.code == "bad_scenario" else "could not be run"
            raise ScenarioInvalid(f"the file {what}: {_problems(exc)}") from None
        self.answer = answer
        if answer.get("passed") is not True:
            raise ScenarioFailed(answer)

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Optional[Any] = None
    ) -> Union[str, "TerminalRepr"]:
        if isinstance(excinfo.value, (ScenarioFailed, ScenarioInvalid)):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> "tuple[Path, Optional[int], str]":
        return self.path, None, f"scenario {self.name}"
