"""Yaia from Python: example/login served by the auth plugin, example/feed by a
Python host service.

Run by `make demo` (PYTHONPATH=Bindings/python); the auth plugin is taken from
YAIA_PLUGIN_DIR (default .build/yaia/plugins). Exits non-zero on anything
unexpected.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Dict

import yaia

REPO = Path(__file__).resolve().parents[2]
WAIT = 10.0  # seconds: an upper bound for the plugin's answer


def show(label: str, value: Any) -> None:
    print(f"  {label:<12} {json.dumps(value, ensure_ascii=False, sort_keys=True)}")


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise SystemExit(f"demo: unexpected: {what}")


def next_event(rt: yaia.Runtime) -> yaia.Update:
    update = rt.receive(timeout=WAIT)
    expect(update is not None, f"no answer from the auth plugin within {WAIT} s")
    assert update is not None
    return update


def login(rt: yaia.Runtime) -> None:
    print("example/login, auth served by the plugin")
    scene = rt.open("example/login")
    show("open", scene.opened.view_model)

    scene.send("emailChanged", "a@b.c")
    scene.send("passwordChanged", "guess")
    print('  password     "guess"')
    sent = scene.send("submit")
    expect(len(sent.effects) == 1, f"submit emitted {sent.effects!r}")
    effect = sent.effects[0]
    print(f"  submit       -> effect #{effect.id} {effect.service}.{effect.op} ({effect.status})")
    show("viewModel", sent.view_model)
    wrong = next_event(rt)
    show(f"event #{wrong.effect}", wrong.view_model)
    expect(wrong.view_model.get("error") == "Wrong email or password", "the wrong password was not refused")
    expect(wrong.routes == [], "a route after a refused login")

    scene.send("passwordChanged", "hunter2")
    print('  password     "hunter2"')
    scene.send("submit")
    right = next_event(rt)
    show(f"event #{right.effect}", right.view_model)
    for route in right.routes:
        show("route", route)
    expect(right.view_model.get("error") is None, "the right password was refused")
    expect(
        right.routes == [{"args": {"user": {"email": "a@b.c"}}, "push": "example/home"}],
        f"route {right.routes!r}",
    )
    scene.close()


def feed(rt: yaia.Runtime) -> None:
    print("example/feed, feed served by a Python function")
    items = [
        {"id": 1, "title": "Values in, values out"},
        {"id": 2, "title": "IO is described, never performed, by logic"},
        {"id": 3, "title": "One wire format"},
    ]

    @rt.service("feed")
    def serve(op: str, args: Any) -> Dict[str, Any]:
        print(f"  service      feed.{op}({json.dumps(args)}) -> {len(items)} items")
        return {"items": items}

    with rt.open("example/feed") as scene:
        sent = scene.send("load")
        show("load", sent.view_model)
        loaded = next_event(rt)
        show(f"event #{loaded.effect}", {k: v for k, v in loaded.view_model.items() if k != "items"})
        expect(loaded.view_model == {"error": None, "isLoading": False, "items": items}, "feed not loaded")
        for item in loaded.view_model["items"]:
            print(f"    - {item['id']}. {item['title']}")


def main() -> int:
    plugin_dir = Path(os.environ.get("YAIA_PLUGIN_DIR") or REPO / ".build" / "yaia" / "plugins")
    auth = plugin_dir / "auth.so"
    if not auth.is_file():
        print(f"demo: {auth} not found: build it with `make plugins`", file=sys.stderr)
        return 1
    print(f"libyaia {yaia.library_version()} (C ABI {yaia.abi_version()}), plugin {auth}")
    with yaia.Runtime(plugins=[auth]) as rt:
        login(rt)
        print()
        feed(rt)
        expect(rt.receive() is None, "an event nobody expected")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (yaia.YaiaError, OSError) as exc:
        print(f"demo: {type(exc).__name__}: {exc}", file=sys.stderr)
        sys.exit(1)
