"""The ``yaia`` console script: runs the command the package was installed with."""

from __future__ import annotations

import os
import sys
from typing import List, Optional

from . import bundle


def main(argv: Optional[List[str]] = None) -> None:
    """Replaces this process with the ``yaia`` executable, arguments unchanged."""
    try:
        executable = bundle.command()
    except FileNotFoundError as exc:
        sys.exit(f"yaia: {exc}")
    env = dict(os.environ)
    # The executable finds a libyaia.so beside it by its run path; this also
    # covers a build whose run path names the folder it was built in.
    folder = os.path.dirname(executable)
    env["LD_LIBRARY_PATH"] = os.pathsep.join(p for p in (folder, env.get("LD_LIBRARY_PATH")) if p)
    args = sys.argv[1:] if argv is None else argv
    os.execve(executable, ["yaia", *args], env)
