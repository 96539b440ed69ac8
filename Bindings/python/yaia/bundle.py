"""The native files the package is installed with, and where else to find them.

A wheel built by ``pip install Bindings/python`` carries, in ``yaia/_native``,
libyaia.so, the examples pack (``libyaia-examples.so``, the ``example/*``
scenes), the example plugins (``plugins/auth.so``, ``plugins/store.so``) and
the ``yaia`` command. Each function here returns the path of one of them,
looked for in this order:

1. an environment variable, when set (``YAIA_EXAMPLES_PACK``,
   ``YAIA_PLUGIN_DIR``, ``YAIA_CLI``; :func:`yaia.ffi.candidates` reads
   ``YAIA_LIBRARY``), which is then the only place looked at;
2. the files bundled in the installed package;
3. the build folder of the source tree the package sits in (``make``).

Each raises FileNotFoundError, naming the places it looked, when none has it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import List, Optional

__all__ = ["NATIVE", "SOURCE_BUILD", "bundled_library", "examples_pack", "plugin", "command"]

#: The folder of the bundled native files (empty or absent in a source tree).
NATIVE = Path(__file__).resolve().parent / "_native"
#: The build folder of the source tree (``.build``), when the package sits in one.
SOURCE_BUILD = NATIVE.parent.parent.parent.parent / ".build"


def _find(what: str, env: str, bundled: Path, built: Path, name: Optional[str] = None) -> str:
    value = os.environ.get(env)
    places: List[Path]
    if value:
        places = [Path(value) / name if name is not None else Path(value)]
    else:
        places = [bundled, built]
    for place in places:
        if place.is_file():
            return str(place)
    hint = f"set {env}, build it with `make`, or install the package with `pip install Bindings/python`"
    raise FileNotFoundError(f"{what} not found; looked at " + ", ".join(map(str, places)) + f"; {hint}")


def bundled_library() -> Optional[str]:
    """The libyaia.so the package was installed with, or None (a source tree)."""
    path = NATIVE / "libyaia.so"
    return str(path) if path.is_file() else None


def examples_pack() -> str:
    """The examples pack, whose scene types are the ``example/*`` scenes:
    ``Runtime(scenes=[yaia.examples_pack()])``."""
    return _find(
        "the examples pack", "YAIA_EXAMPLES_PACK",
        NATIVE / "libyaia-examples.so", SOURCE_BUILD / "release" / "libyaia-examples.so")


def plugin(name: str) -> str:
    """An example plugin by name, ``"auth"`` or ``"store"``:
    ``Runtime(plugins=[yaia.plugin("auth")])``."""
    file = f"{name}.so"
    return _find(
        f"the plugin {file}", "YAIA_PLUGIN_DIR",
        NATIVE / "plugins" / file, SOURCE_BUILD / "yaia" / "plugins" / file, name=file)


def command() -> str:
    """The ``yaia`` command line (the executable the ``yaia`` console script runs)."""
    return _find("the yaia command", "YAIA_CLI", NATIVE / "yaia", SOURCE_BUILD / "release" / "yaia")
