"""python -m yaia.inspector --journal FILE SCENES... : the inspector on a
journal file (docs/inspector.md)."""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sys
from typing import Optional, Sequence

from ..web.config import is_loopback
from .offline import serve_journal


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m yaia.inspector", description="Inspect a Yaia journal in a browser.")
    p.add_argument("scenes", nargs="+", help="the scene packs, documents and folders that define the journal's scene types")
    p.add_argument("--journal", required=True, metavar="FILE", help="the journal to open")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8090)
    p.add_argument("--token", help="required of every socket (made up when listening beyond loopback)")
    args = p.parse_args(argv)
    token = args.token or (None if is_loopback(args.host) else secrets.token_urlsafe(24))
    try:
        asyncio.run(serve_journal(args.journal, args.scenes, args.host, args.port, token))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
