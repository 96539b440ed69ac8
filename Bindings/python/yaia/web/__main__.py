"""python -m yaia.web SCENES... : serves the scenes to browser tabs (docs/web.md)."""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from ..errors import YaiaError
from .config import GRANTABLE_OPS, WebConfig, is_loopback
from .serve import check, run, serve


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m yaia.web", description="Serve Yaia scenes to browser tabs over a WebSocket.")
    p.add_argument("scenes", nargs="+", help="scene packs (.so), scene documents (.json) and folders of them")
    p.add_argument("--plugin", action="append", default=[], metavar="PATH", help="a plugin each session's runtime loads")
    p.add_argument("--plugin-dir", action="append", default=[], metavar="DIR", help="every *.so in DIR is a plugin")
    p.add_argument("--plugin-config", action="append", default=[], metavar="NAME=JSON",
                   help="the config of the plugin whose file is NAME.so, e.g. store='{\"path\":\"notes.db\"}'")
    p.add_argument("--config", metavar="FILE", help="a runtime config (JSON) the rest is added to")
    p.add_argument("--start", metavar="SCENE", help="the scene a new tab's flow starts at")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8080, help="port (default 8080; 0: any free port)")
    p.add_argument("--static", metavar="DIR", help="the page: DIR/index.html and its files (default: the generic shell)")
    p.add_argument("--allow", action="append", default=[], metavar="OP", help=f"grant tabs OP ({', '.join(sorted(GRANTABLE_OPS))})")
    p.add_argument("--token", help="required of every socket (made up when listening beyond loopback)")
    p.add_argument("--origin", action="append", default=[], help="another origin whose pages may connect")
    p.add_argument("--view", choices=["whole", "patch"], help="how the runtime sends view models (patch: when it offers patches)")
    p.add_argument("--resume-seconds", type=float, default=600.0, help="how long a closed tab's session is kept (600)")
    p.add_argument("--inspector", action="store_true",
                   help="serve the inspector at /inspector/ (each session keeps a journal; docs/inspector.md)")
    p.add_argument("--isolated", action="store_true",
                   help="serve pages cross-origin isolated (COOP and COEP; docs/web.md): precise performance.now()")
    p.add_argument("--sessions", type=int, default=64, help="connected sessions at most (64)")
    return p


def config_from(args: argparse.Namespace) -> WebConfig:
    runtime: Dict[str, Any] = {}
    if args.config:
        runtime = json.loads(Path(args.config).read_text())
        if not isinstance(runtime, dict):
            raise SystemExit(f"{args.config}: a runtime config is a JSON object")
    runtime["scenes"] = list(runtime.get("scenes", [])) + [str(Path(s).resolve()) for s in args.scenes]
    paths: List[Path] = [Path(p) for p in args.plugin]
    for folder in args.plugin_dir:
        paths += sorted(Path(folder).glob("*.so"))
    configs: Dict[str, Any] = {}
    for item in args.plugin_config:
        name, _, text = item.partition("=")
        configs[name] = json.loads(text)
    plugins: List[Any] = list(runtime.get("plugins", []))
    for path in paths:
        entry: Dict[str, Any] = {"path": str(path.resolve())}
        if path.stem in configs:
            entry["config"] = configs[path.stem]
        plugins.append(entry)
    runtime["plugins"] = plugins
    if args.view:
        runtime["view"] = args.view
    token: Optional[str] = args.token
    if token is None and not is_loopback(args.host):
        token = secrets.token_urlsafe(24)
    return WebConfig(runtime=runtime, allow=frozenset(args.allow), host=args.host, port=args.port,
                     static=args.static, start=args.start, token=token, origins=tuple(args.origin),
                     resume_seconds=args.resume_seconds, sessions=args.sessions, inspector=args.inspector,
                     isolated=args.isolated)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    try:
        config = config_from(args)
        check(config)
    except (ValueError, YaiaError) as error:
        print(f"yaia web: {error}", file=sys.stderr)
        return 2
    try:
        run(serve(config))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
