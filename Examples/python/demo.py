"""Yaia from Python: example/login and example/feed in brief, then the example
app as a flow -- login, home, detail, about -- with the auth and store plugins,
a back swipe, a deep link, a snapshot restored into a second runtime and the
session's journal replayed.

Run by `make demo` (PYTHONPATH=Bindings/python). The example scenes come from
the examples pack, YAIA_EXAMPLES_PACK (default
.build/release/libyaia-examples.so, `make examples-pack`), which every runtime
here names in `scenes=`: libyaia.so carries no scenes of its own. The plugins
are taken from YAIA_PLUGIN_DIR (default .build/yaia/plugins). Exits non-zero
on anything unexpected.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional

import yaia

REPO = Path(__file__).resolve().parents[2]
WAIT = 10.0  # seconds: an upper bound for a plugin's answer


def show(label: str, value: Any) -> None:
    print(f"  {label:<12} {json.dumps(value, ensure_ascii=False, sort_keys=True)}")


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise SystemExit(f"demo: unexpected: {what}")


def next_event(rt: yaia.Runtime, what: str = "the plugin") -> yaia.Update:
    update = rt.receive(timeout=WAIT)
    expect(update is not None, f"no answer from {what} within {WAIT} s")
    assert update is not None
    return update


# ---------------------------------------------------------------- single scenes


def login(rt: yaia.Runtime) -> None:
    print("example/login, auth served by the plugin")
    scene = rt.open("example/login")
    scene.send("emailChanged", "a@b.c")
    for password, accepted in (("guess", False), ("hunter2", True)):
        scene.send("passwordChanged", password)
        (effect,) = scene.send("submit").effects
        event = next_event(rt, "the auth plugin")
        expect(event.effect == effect.id, f"event {event.raw}")
        expect((event.view_model["error"] is None) == accepted, f"password {password!r}: {event.view_model}")
        print(f"  {password!r:<10} -> {effect.service}.{effect.op} -> error {event.view_model['error']!r}, routes {event.routes}")
    scene.close()


def feed(rt: yaia.Runtime) -> None:
    print("example/feed, feed served by a Python function")
    items: List[Dict[str, Any]] = [{"id": 1, "title": "Values in, values out"}, {"id": 2, "title": "IO is described, never performed"}]

    @rt.service("feed")
    def serve(op: str, args: Any) -> Dict[str, Any]:
        return {"items": items}

    with rt.open("example/feed") as scene:
        scene.send("load")
        loaded = next_event(rt, "the feed service")
        expect(loaded.view_model == {"error": None, "isLoading": False, "items": items}, "feed not loaded")
        print(f"  load -> {len(loaded.view_model['items'])} items: " + "; ".join(i["title"] for i in items))


# ---------------------------------------------------------------- the example app as a flow


def describe(stack: Optional[List[yaia.StackEntry]]) -> str:
    """login > home > [about]: pushed scenes after ">", presented ones in brackets."""
    expect(stack is not None, "an answer without a stack")
    assert stack is not None
    parts = []
    for entry in stack:
        short = entry.scene.split("/")[-1]
        parts.append(f"[{short}]" if entry.presentation == "present" else short)
    return " > ".join(parts)


def step(what: str, stack: Optional[List[yaia.StackEntry]], version: Optional[int], note: str = "") -> None:
    print(f"  {what:<40} v{version:<3} {describe(stack):<26} {note}".rstrip())


def expect_stack(stack: Optional[List[yaia.StackEntry]], *shape: str) -> None:
    got = [f"{e.scene.split('/')[-1]}:{e.presentation}" for e in stack or []]
    expect(got == list(shape), f"stack {got}, expected {list(shape)}")


def titles(view_model: Any) -> str:
    return ", ".join(f"{i['key']}={i['title']!r}" for i in view_model["items"])


def app(rt: yaia.Runtime, journal: Path, scenes: List[str], plugins: List[Any]) -> None:
    print("the example app as a flow (stack after each step; [x] = presented)")
    seed = {"item/1": "Groceries", "item/2": "Call the bank", "item/3": "Read SICP"}
    for key, title in seed.items():
        rt.perform("store", "put", {"key": key, "value": {"title": title}})
    print(f"  store seeded with {len(seed)} items (perform store.put)")
    rt.journal(start=journal)
    print(f"  journal -> {journal.name}")

    flow = rt.start("example/login", name="main")
    step("start example/login", flow.started.stack if flow.started else None, 1)
    flow.send("emailChanged", "ada@example.com")
    for password in ("letmein", "hunter2"):
        flow.send("passwordChanged", password)
        flow.send("submit")
        event = next_event(rt, "the auth plugin")
        if password == "letmein":
            expect(event.view_model["error"] == "Wrong email or password", f"wrong password: {event.raw}")
            step(f"submit {password!r} (auth)", flow.stack, flow.version, f"error: {event.view_model['error']}")
            expect(event.stack is None, "a wrong password navigated")
        else:
            expect_stack(event.stack, "login:root", "home:push")
            step(f"submit {password!r} (auth) -> push", event.stack, event.version)

    flow.send("load")
    loaded = next_event(rt, "the store plugin")
    expect([i["title"] for i in loaded.view_model["items"]] == list(seed.values()), f"loaded {loaded.view_model}")
    step("home: load (store.list)", flow.stack, flow.version, titles(loaded.view_model))

    selected = flow.send("select", "item/2")
    expect_stack(selected.stack, "login:root", "home:push", "detail:push")
    expect(selected.stack is not None and selected.stack[-1].on_result == "itemSaved", "no onResult")
    step("home: select item/2 -> push", selected.stack, selected.version, "onResult itemSaved")
    edited = flow.send("titleChanged", "Call the bank (done)")
    step("detail: titleChanged", flow.stack, flow.version, f"title {edited.view_model['title']!r}")
    detail = flow.top.id
    flow.send("save")
    events = [next_event(rt, "the store plugin"), next_event(rt, "the store plugin")]
    (result,) = [e for e in events if e.from_scene == detail]
    (saved,) = [e for e in events if e.scene == detail]
    expect_stack(saved.stack, "login:root", "home:push")
    expect(result.view_model["items"][1]["title"] == "Call the bank (done)", f"result {result.view_model}")
    step("detail: save (store.put) -> pop", saved.stack, saved.version, f"home got itemSaved from #{detail}")
    print(f"  {'':<40}      home: {titles(result.view_model)}")

    about = flow.send("showAbout")
    expect_stack(about.stack, "login:root", "home:push", "about:present")
    step("home: showAbout -> present", about.stack, about.version)
    closed = flow.send("close")
    expect_stack(closed.stack, "login:root", "home:push")
    step("about: close -> dismiss", closed.stack, closed.version)

    pushed = flow.send("select", "item/1")
    step("home: select item/1 -> push", pushed.stack, pushed.version)
    swiped = flow.popped(2, version=pushed.version)
    expect(swiped.names == ["example/login", "example/home"], f"popped {swiped.names}")
    step(f"UI back swipe: popped depth 2 (v{pushed.version})", swiped.stack, swiped.version)
    try:
        flow.popped(2, version=pushed.version)
        expect(False, "a back swipe reported twice was applied twice")
    except yaia.YaiaError as exc:
        expect(exc.code == "stale_navigation", f"second report: {exc}")
        print(f"  {'same report again':<40} -> {exc.code}")

    link: List[yaia.LinkItem] = ["example/home", {"scene": "example/detail", "args": {"key": "item/3", "title": "Read SICP"}, "presentation": "present"}]
    linked = flow.link(link)
    expect_stack(linked.stack, "login:root", "home:push", "detail:present")
    step("deep link home/[detail item/3]", linked.stack, linked.version)
    try:
        flow.link(["example/home", {"scene": "example/settings"}])
        expect(False, "a link to an unknown scene was followed")
    except yaia.YaiaError as exc:
        expect(exc.code == "unknown_scene" and flow.version == linked.version, f"bad link: {exc}")
        print(f"  {'deep link to example/settings':<40} -> {exc.code}, stack unchanged")

    # Snapshot, restored into a second runtime (same scene pack and plugins).
    snapshot = rt.snapshot()
    ours = {s["id"]: rt.execute({"op": "state", "scene": s["id"]})["viewModel"] for s in rt.scenes()["scenes"]}
    with yaia.Runtime(scenes=scenes, plugins=plugins, allow=["restore"]) as second:
        restored = second.restore(snapshot)
        theirs = {s["id"]: s["viewModel"] for s in restored["scenes"]}
        same = canonical(ours) == canonical(theirs)
        expect(same, f"view models differ after restore:\n{ours}\n{theirs}")
        copy = second.flow(flow.id)
        expect(copy.describe().raw["stack"] == flow.describe().raw["stack"], "the restored stack differs")
        step(f"snapshot -> second runtime ({len(theirs)} scenes)", copy.stack, copy.version, "view models identical")
        copy.send("cancel")
        expect(flow.describe().depth == 3, "the second runtime changed the first")
        step("second runtime: detail cancel -> pop", copy.stack, copy.version, "(the first is unchanged)")

    flow.send("cancel")
    logout = flow.send("logout")
    expect_stack(logout.stack, "login:root")
    step("detail: cancel; home: logout", logout.stack, logout.version, "popToRoot")
    flow.close()
    recorded = rt.journal(stop=True)
    kinds: Dict[str, int] = {}
    for line in journal.read_text(encoding="utf-8").splitlines()[1:]:
        kind = json.loads(line)["kind"]
        kinds[kind] = kinds.get(kind, 0) + 1
    print(f"  journal: {recorded['inputs']} inputs ({', '.join(f'{n} {k}' for k, n in kinds.items())})")
    replayed = yaia.replay(journal, scenes=scenes)
    expect(replayed.identical and replayed.inputs == recorded["inputs"], f"replay: {replayed}")
    print(f"  replay without services: identical={replayed.identical}, {replayed.inputs} inputs re-run")


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def main() -> int:
    pack = Path(os.environ.get("YAIA_EXAMPLES_PACK") or REPO / ".build" / "release" / "libyaia-examples.so")
    if not pack.is_file():
        print(f"demo: {pack} not found: build it with `make examples-pack`", file=sys.stderr)
        return 1
    plugin_dir = Path(os.environ.get("YAIA_PLUGIN_DIR") or REPO / ".build" / "yaia" / "plugins")
    auth, store = plugin_dir / "auth.so", plugin_dir / "store.so"
    for plugin in (auth, store):
        if not plugin.is_file():
            print(f"demo: {plugin} not found: build it with `make plugins`", file=sys.stderr)
            return 1
    print(f"libyaia {yaia.library_version()} (C ABI {yaia.abi_version()}), scenes from {pack}")
    print(f"plugins from {plugin_dir}")
    with tempfile.TemporaryDirectory(prefix="yaia-demo-") as tmp:
        scenes = [str(pack)]
        plugins: List[Any] = [str(auth), {"path": str(store), "config": {"path": os.path.join(tmp, "app.db")}}]
        # This program is the host: it grants its own requests what it uses.
        with yaia.Runtime(scenes=scenes, plugins=plugins, allow=["perform", "journal", "replay", "snapshot"], files=[tmp]) as rt:
            login(rt)
            feed(rt)
            print()
            app(rt, Path(tmp) / "session.jsonl", scenes, plugins)
            expect(rt.receive() is None, "an event nobody expected")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (yaia.YaiaError, OSError) as exc:
        print(f"demo: {type(exc).__name__}: {exc}", file=sys.stderr)
        sys.exit(1)
