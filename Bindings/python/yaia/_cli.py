"""The ``yaia`` console script: runs the command the package was installed with."""

from __future__ import annotations

import os
import sys
from typing import List, Optional

from . import bundle


def main(argv: Optional[List[str]] = None) -> None:
    """Replaces this process with the ``yaia`` executable, arguments unchanged.

    The executable needs nothing of the build folder: it finds what it links
    beside itself (its run path is ``$ORIGIN``), and a test checks so.
    """
    try:
        executable = bundle.command()
    except FileNotFoundError as exc:
        sys.exit(f"yaia: {exc}")
    args = sys.argv[1:] if argv is None else argv
    os.execv(executable, ["yaia", *args])
