"""Python binding of Yaia, the runtime for application logic written as values.

    import yaia

    with yaia.Runtime(plugins=["auth.so"]) as rt:
        login = rt.open("example/login")
        login.send("emailChanged", "a@b.c")
        print(login.view_model)

Everything goes through libyaia.so's C ABI with ctypes; see ``yaia.ffi``
for how the library is found and for direct access to its functions.
"""

from __future__ import annotations

from . import ffi
from .errors import AbiMismatch, LibraryNotFound, PluginError, ServiceError, YaiaError
from .runtime import (
    MISSING,
    Call,
    DeferredServiceFunction,
    Effect,
    Runtime,
    Scene,
    ServiceFunction,
    Update,
)

__version__ = "0.1.0"

#: The C ABI version this binding speaks.
ABI_VERSION = ffi.ABI_VERSION

__all__ = [
    "ABI_VERSION",
    "AbiMismatch",
    "Call",
    "DeferredServiceFunction",
    "Effect",
    "LibraryNotFound",
    "MISSING",
    "PluginError",
    "Runtime",
    "Scene",
    "ServiceError",
    "ServiceFunction",
    "Update",
    "YaiaError",
    "abi_version",
    "ffi",
    "library_version",
]


def library_version() -> str:
    """The version of the loaded libyaia.so ("MAJOR.MINOR.PATCH")."""
    version: bytes = ffi.load_library().yaia_version()
    return version.decode("ascii")


def abi_version() -> int:
    """The C ABI version the loaded libyaia.so implements."""
    version: int = ffi.load_library().yaia_abi_version()
    return version
