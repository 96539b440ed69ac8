"""Python binding of Yaia, the runtime for application logic written as values.

    import yaia

    with yaia.Runtime(scenes=["./libyaia-examples.so"], plugins=["./auth.so"]) as rt:
        login = rt.open("example/login")
        login.send("emailChanged", "a@b.c")
        print(login.view_model)

        with rt.start("example/login", name="main") as flow:   # a navigation stack
            flow.send("emailChanged", "a@b.c")
            print([entry.scene for entry in flow.stack])

Everything goes through libyaia.so's C ABI with ctypes; see ``yaia.ffi``
for how the library is found and for direct access to its functions, and
``yaia.bundle`` for the native files an installed package carries: the
examples pack (:func:`examples_pack`), the example plugins (:func:`plugin`)
and the ``yaia`` command (:func:`command`).
"""

from __future__ import annotations

import os
from typing import Iterable, Optional, Union

from . import bundle, ffi
from .bundle import command, examples_pack, plugin
from .errors import AbiMismatch, LibraryNotFound, PluginError, ServiceError, YaiaError
from .runtime import Runtime
from .scenes import Flow, Scene
from .services import Call, DeferredServiceFunction, ServiceFunction
from .values import (
    MISSING,
    Effect,
    Event,
    FlowStack,
    Inspection,
    LinkItem,
    NavigationError,
    ReplayResult,
    StackEntry,
    Update,
)

#: The binding's version: that of the library it is released with
#: (Sources/YaiaRuntime/Version.swift; a test checks they agree).
__version__ = "0.1.0"

#: The C ABI version this binding speaks.
ABI_VERSION = ffi.ABI_VERSION

__all__ = [
    "ABI_VERSION",
    "AbiMismatch",
    "Call",
    "DeferredServiceFunction",
    "Effect",
    "Event",
    "Flow",
    "FlowStack",
    "Inspection",
    "LibraryNotFound",
    "LinkItem",
    "MISSING",
    "NavigationError",
    "PluginError",
    "ReplayResult",
    "Runtime",
    "Scene",
    "ServiceError",
    "ServiceFunction",
    "StackEntry",
    "Update",
    "YaiaError",
    "abi_version",
    "bundle",
    "command",
    "examples_pack",
    "ffi",
    "library_version",
    "plugin",
    "replay",
]


def library_version() -> str:
    """The version of the loaded libyaia.so ("MAJOR.MINOR.PATCH")."""
    version: bytes = ffi.load_library().yaia_version()
    return version.decode("ascii")


def abi_version() -> int:
    """The C ABI version the loaded libyaia.so implements."""
    version: int = ffi.load_library().yaia_abi_version()
    return version


def replay(
    journal: Union[str, "os.PathLike[str]"],
    to: Optional[int] = None,
    *,
    scenes: Optional[Iterable[Union[str, "os.PathLike[str]"]]] = None,
) -> ReplayResult:
    """Re-runs a journal (see :meth:`Runtime.journal`) in a scratch runtime and
    checks every recomputed view model against the journal's digests.

    Creates a temporary runtime for the call, with the scene packs
    ``scenes`` (as :class:`Runtime`): they must define the journal's scene
    types, or the replay diverges at the first input that opens one. ``to``
    stops after that input (the result's ``snapshot`` is then the state
    reached). Raises YaiaError "bad_journal" when the file cannot be read or
    is not a journal.
    """
    # The caller names the file itself: the scratch runtime may read its directory.
    folder = os.path.dirname(os.path.abspath(os.fspath(journal)))
    with Runtime(workers=1, scenes=scenes, allow=["replay"], files=[folder]) as runtime:
        return runtime.replay(journal, to)
