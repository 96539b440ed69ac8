"""The notes app in a browser, measured in the page: typing in the search
field over 10,000 notes until the page shows the result, and an action's
round trip over the socket, beside the floor under it.

    bench_web.py NOTES_PACK PLUGIN_DIR

Run by `make bench` (PYTHONPATH=Bindings/python). The notes are put in the
SQLite store (store.so) before the server starts, as a user's would be; the
server (`python -m yaia.web`, a process of its own) serves the Swift pack,
NOTES_PACK, with the auth and store plugins and Examples/notes-web, whose
page asks for view models as patches. The scene documents
(Examples/notes-documents) load the same 10,000 notes (a document's step
budget follows the size of its data) and are measured after the pack.

Headless Chromium (Debian's) runs the page, driven over its DevTools pipe
with nothing but Runtime.evaluate (bare_chromium.py: Playwright would have
the browser report every socket frame to it, which had doubled the floor);
the server serves the page cross-origin isolated (--isolated), so that
`performance.now` counts microseconds, not tenths of a millisecond. The
times are the page's own: from the input event to the end of the render
that shows the query's rows, layout included, each character typed once
the page has painted the last one's result (and once back to back, for
comparison); from `send` to its answer,
and the same action sent on a bare socket of the page (the client and the
page's render left out). The floor: a frame the server answers itself (no
runtime, no thread), through yaia.js and on a bare socket, and a bare
aiohttp echo server (a process of its own) answering the same page, and a
Python client. Without Chromium the
benchmark says so and measures nothing.
"""

from __future__ import annotations

import asyncio
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import yaia
from bare_chromium import BareChromium  # Benchmarks/ is the script's folder

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "Examples" / "notes-web"
DOCUMENTS = REPO / "Examples" / "notes-documents"
CHROMIUM = "/usr/bin/chromium"
NOTES = 10_000
SEARCH_TARGET_MS = 16.0
ROUND_TRIP_TARGET_MS = 1.0
ROUND_TRIPS = 1000
# The round trips and their floors are taken in turns, this many of each,
# so that each sees the same load of a machine others share.
ROUND_TRIP_TURNS = 10
WORDS = ["lyon", "bank", "milk", "train", "garden", "tax", "piano", "paint", "dentist", "books"]
# Typed one character at a time, then deleted one at a time, this many times.
QUERIES = ["lyon", "garden", "piano 9"]
ROUNDS = 5
# The documents search each keystroke in JSON Logic: slower, measured less.
DOCUMENT_ROUNDS = 2


def note(i: int) -> Dict[str, Any]:
    word, other = WORDS[i % len(WORDS)], WORDS[(i * 7) % len(WORDS)]
    return {"id": i, "title": f"{word.capitalize()} {i}",
            "body": f"About {word} and {other}, number {i}.\nSecond line of note {i}, to be cut from the preview."}


def seed(store_so: Path, db: Path) -> float:
    """Puts NOTES notes in the store; the seconds it took."""
    start = time.perf_counter()
    with yaia.Runtime(plugins=[{"path": str(store_so), "config": {"path": str(db)}}], allow=["perform"]) as rt:
        for i in range(1, NOTES + 1):
            rt.perform("store", "put", {"key": f"note/{i}", "value": note(i)})
    return time.perf_counter() - start


def runtime_search(scenes: str, rounds: int) -> Optional[List[float]]:
    """ms of one searchChanged send on a list of NOTES notes, in the runtime
    alone, in patch mode as the page asks, its answer's text as the server
    forwards it: a part of what the page's figure includes. None when the
    list cannot load NOTES notes."""
    from yaia.web.engine import RuntimeEngine

    items = [{"key": f"note/{i}", "value": note(i)} for i in range(1, NOTES + 1)]
    engine = RuntimeEngine({"scenes": [scenes], "view": "patch"})
    try:
        opened = engine.execute_value({"op": "open", "scene": "notes/list", "args": {"user": {"email": "ada@example.com"}}})
        scene = opened["scene"]
        engine.execute_value({"op": "send", "scene": scene, "action": {"type": "loaded", "payload": {"items": items}}})
        shown = engine.execute_value({"op": "view", "scene": scene}).get("viewModel") or {}
        if len(shown.get("shown", [])) != NOTES:
            return None
        times: List[float] = []
        for _ in range(rounds):
            for query in QUERIES:
                for n in range(1, len(query) + 1):
                    text = json.dumps({"op": "send", "scene": scene, "action": {"type": "searchChanged", "payload": query[:n]}})
                    start = time.perf_counter()
                    engine.execute(text.encode())
                    times.append((time.perf_counter() - start) * 1e3)
                engine.execute_value({"op": "send", "scene": scene, "action": {"type": "searchChanged", "payload": ""}})
    finally:
        engine.close()
    return times


# In the page: the action's round trip (emailChanged on the login screen).
ROUND_TRIP_JS = """async (n) => {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await window.app.send("emailChanged", "ada" + (i % 10) + "@example.com");
    times.push(performance.now() - t0);
  }
  return times;
}"""

# In the page: each character typed (then deleted) in the search field, from
# the input event to the end of the render showing that query's rows. With
# `settle`, each once the page has painted the last one's result (two
# animation frames), as a person's next keystroke comes 50 ms or more later;
# without, at once: the last result's paint then runs during the next
# request, and on two cores the server's thread had waited for a core
# (2.7 ms of its send's 7.8, against 5.1 ms of CPU).
SEARCH_JS = """async ({queries, rounds, settle}) => {
  const main = document.getElementById("app");
  const input = document.querySelector("input[name=search]");
  const client = window.app;
  // Where the time goes: when the answer's frame arrived, and when it was read.
  let sent = 0, arrived = 0, read = 0;
  const receive = client.receive.bind(client);
  client.receive = (text) => { arrived = performance.now(); receive(text); read = performance.now(); };
  const transmit = client.transmit.bind(client);
  client.transmit = (item) => { sent = performance.now(); transmit(item); };
  input.focus();
  const painted = () => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(ok, 0))));
  const type = async (value) => {
    if (settle) await painted();
    return typeNow(value);
  };
  const typeNow = (value) => new Promise((resolve) => {
    const done = (event) => {
      if (event.detail.viewModel.query !== value) return;
      main.removeEventListener("rendered", done);
      void document.body.offsetHeight; // the layout of what was drawn
      const end = performance.now();
      resolve({ms: end - t0, page: sent - t0, socket: arrived - sent, parse: read - arrived, render: end - read,
               rows: event.detail.viewModel.shown.length, dom: document.querySelectorAll(".notes li").length});
    };
    main.addEventListener("rendered", done);
    const t0 = performance.now();
    input.value = value;
    input.dispatchEvent(new Event("input", {bubbles: true}));
  });
  const typed = [], deleted = [];
  for (let r = 0; r < rounds; r++) {
    for (const q of queries) {
      for (let n = 1; n <= q.length; n++) typed.push(await type(q.slice(0, n)));
      for (let n = q.length - 1; n >= 0; n--) deleted.push(await type(q.slice(0, n)));
    }
  }
  client.receive = receive;
  client.transmit = transmit;
  return {typed, deleted};
}"""

# In the page: a bare aiohttp echo server (ECHO_SERVER), over a socket of
# its own: the floor under any round trip of this browser on this machine.
ECHO_JS = """async ({url, n}) => {
  const ws = new WebSocket(url);
  await new Promise((ok, fail) => { ws.onopen = ok; ws.onerror = fail; });
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await new Promise((ok) => { ws.onmessage = ok; ws.send(JSON.stringify({op: "nothing", tag: i})); });
    times.push(performance.now() - t0);
  }
  ws.close();
  return times;
}"""

ECHO_SERVER = """
import asyncio
from aiohttp import web

async def echo(request):
    ws = web.WebSocketResponse(compress=False)
    await ws.prepare(request)
    async for message in ws:
        await ws.send_str(message.data)
    return ws

async def main():
    app = web.Application()
    app.router.add_get("/", echo)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    print(runner.addresses[0][1], flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""


def python_echo(url: str, n: int) -> List[float]:
    """ms of a round trip to the echo server from an aiohttp client: the
    socket and the server without the browser."""
    import aiohttp

    async def run() -> List[float]:
        times: List[float] = []
        async with aiohttp.ClientSession() as client:
            async with client.ws_connect(url) as ws:
                for i in range(n):
                    start = time.perf_counter()
                    await ws.send_str(json.dumps({"op": "nothing", "tag": i}))
                    await ws.receive()
                    times.append((time.perf_counter() - start) * 1e3)
        return times
    return asyncio.run(run())


# In the page: the same action on a bare socket of the page's own, to a
# session of its own (hello, then a flow started at the login): the socket
# and the server without yaia.js and the page's render. With `floor`, a
# frame the server answers itself instead: the server's own frame path.
BARE_SEND_JS = """async ({url, n, floor}) => {
  const ws = new WebSocket(url);
  await new Promise((ok, fail) => { ws.onopen = ok; ws.onerror = fail; });
  const answers = new Map();
  ws.onmessage = (event) => { const frame = JSON.parse(event.data); const ok = answers.get(frame.tag); if (ok) { answers.delete(frame.tag); ok(frame); } };
  const ask = (request) => new Promise((ok) => { answers.set(request.tag, ok); ws.send(JSON.stringify(request)); });
  await ask({op: "hello", tag: 0});
  const started = await ask({op: "start", scene: "notes/login", view: "patch", tag: 1});
  const times = [];
  for (let i = 0; i < n; i++) {
    const request = floor ? {op: "nothing", tag: i + 2}
      : {op: "send", flow: started.flow, action: {type: "emailChanged", payload: "ada" + (i % 10) + "@example.com"}, tag: i + 2};
    const t0 = performance.now();
    await ask(request);
    times.push(performance.now() - t0);
  }
  ws.close();
  return times;
}"""

# In the page: a frame the server answers itself (an unknown op), with no
# runtime and no thread: the floor under an action's round trip.
FLOOR_JS = """async (n) => {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await window.app.request({op: "nothing"}).catch(() => {});
    times.push(performance.now() - t0);
  }
  return times;
}"""


def median(values: List[float]) -> float:
    return statistics.median(values)


def p90(values: List[float]) -> float:
    return sorted(values)[int(len(values) * 0.9)]


def verdict(value: float, target: float) -> str:
    return "met" if value <= target else "NOT met"


def launch(command: List[str]) -> "tuple[subprocess.Popen[str], str]":
    """A server process and the first line it printed."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline() if process.stdout else ""
    return process, line


def stop(process: "subprocess.Popen[str]") -> None:
    process.terminate()
    process.wait(30)


# In the page: what a person does, as its events (the page's handlers see
# what they would see of a person's typing and clicking).
FILL_JS = """([selector, value]) => {
  const input = document.querySelector(selector);
  input.focus();
  input.value = value;
  input.dispatchEvent(new Event("input", {bubbles: true}));
}"""
CLICK_JS = "(selector) => document.querySelector(selector).click()"


def log_in(browser: BareChromium, timeout: float) -> None:
    """Signs in on the notes app's login screen, as a person would, and
    waits for the list with every one of the NOTES notes."""
    browser.evaluate(FILL_JS, ["input[name=email]", "ada@example.com"])
    browser.evaluate(FILL_JS, ["input[name=password]", "hunter2"])
    browser.wait_for("!document.querySelector('button[name=submit]').disabled")
    browser.evaluate(CLICK_JS, "button[name=submit]")
    browser.wait_for("document.querySelector(\".screen[data-scene='notes/list']\")")
    browser.wait_for(f"window.app.top().viewModel.shown.length === {NOTES}", timeout=timeout)


def measure(browser: BareChromium, url: str, echo_url: Optional[str], rounds: int) -> Dict[str, Any]:
    """The page at url: round trips (when echo_url is given), then a login and
    the search over NOTES notes."""
    browser.open(url)
    browser.wait_for("document.querySelector(\".screen[data-scene='notes/login']\")")
    out: Dict[str, Any] = {"isolated": browser.evaluate("() => crossOriginIsolated")}
    if echo_url:
        socket_url = re.sub(r"^http", "ws", url.split("?")[0].rstrip("/")) + "/ws"
        n = ROUND_TRIPS // ROUND_TRIP_TURNS
        kinds = {"trips": (ROUND_TRIP_JS, n), "bare": (BARE_SEND_JS, {"url": socket_url, "n": n, "floor": False}),
                 "floor": (FLOOR_JS, n), "bare floor": (BARE_SEND_JS, {"url": socket_url, "n": n, "floor": True}),
                 "echo": (ECHO_JS, {"url": echo_url, "n": n})}
        for name in kinds:
            out[name] = []
        for _ in range(ROUND_TRIP_TURNS):
            for name, (script, arg) in kinds.items():
                out[name] += tail(browser.evaluate(script, arg))
    log_in(browser, timeout=300)
    out["frame"] = browser.evaluate("() => JSON.stringify(window.app.top().viewModel).length")
    out["search"] = browser.evaluate(SEARCH_JS, {"queries": QUERIES, "rounds": rounds, "settle": True})
    out["back to back"] = browser.evaluate(SEARCH_JS, {"queries": QUERIES, "rounds": 1, "settle": False})
    return out


def serve_and_measure(browser: BareChromium, scenes: str, plugins: Path, db: Path,
                      echo_url: Optional[str], rounds: int) -> Optional[Dict[str, Any]]:
    command = [sys.executable, "-m", "yaia.web", scenes, "--plugin-dir", str(plugins),
               "--plugin-config", f"store={json.dumps({'path': str(db)})}", "--start", "notes/login",
               "--static", str(PAGE), "--port", "0", "--isolated"]
    server, line = launch(command)
    try:
        found = re.search(r"http://\S+", line)
        if not found:
            print(f"bench_web.py: the server did not start: {line}", file=sys.stderr)
            return None
        return measure(browser, found.group(0), echo_url, rounds)
    finally:
        stop(server)


def tail(values: List[float]) -> List[float]:
    return values[len(values) // 10:]  # the first tenth of a run or a turn warms up


def table(rows: List["tuple[str, List[float]]"]) -> None:
    print(f"  {'':<52} {'median':>8} {'p90':>8} {'n':>5}")
    for name, values in rows:
        if values:
            print(f"  {name:<52} {median(values):>8.2f} {p90(values):>8.2f} {len(values):>5}")


def search_rows(measured: Dict[str, Any], in_runtime: List[float]) -> List["tuple[str, List[float]]"]:
    search = measured["search"]
    typed = search["typed"]
    return [("search: a character typed, until shown (ms)", [s["ms"] for s in typed]),
            ("  input to the request sent (ms)", [s["page"] for s in typed]),
            ("  request sent to its answer's arrival (ms)", [s["socket"] for s in typed]),
            ("    in the runtime alone: searchChanged (ms)", in_runtime),
            ("  reading the answer: JSON.parse, patches (ms)", [s["parse"] for s in typed]),
            ("  rendering, layout included (ms)", [s["render"] for s in typed]),
            ("search: a character deleted, until shown (ms)", [s["ms"] for s in search["deleted"]]),
            ("  typed back to back, over the last one's paint (ms)", [s["ms"] for s in measured["back to back"]["typed"]])]


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    pack, plugins = sys.argv[1], Path(sys.argv[2])
    if not Path(CHROMIUM).is_file():
        print(f"bench_web.py: no Chromium at {CHROMIUM} (make deps): nothing measured")
        return 0
    pack_runtime = runtime_search(pack, ROUNDS) or []
    documents_runtime = runtime_search(str(DOCUMENTS), DOCUMENT_ROUNDS)
    echo, line = launch([sys.executable, "-c", ECHO_SERVER])
    try:
        echo_url = f"ws://127.0.0.1:{line.strip()}/"
        python_floor = python_echo(echo_url, ROUND_TRIPS)
        # Started before the notes are put in the store: a browser's first
        # second is work of its own, on both cores, which had slowed the
        # round trips measured first by a third.
        browser = BareChromium(CHROMIUM)
        try:
            with tempfile.TemporaryDirectory(prefix="yaia-bench-web-") as folder:
                db = Path(folder) / "notes.db"
                seconds = seed(plugins / "store.so", db)
                on_pack = serve_and_measure(browser, pack, plugins, db, echo_url, ROUNDS)
                on_documents = None
                if documents_runtime is not None:
                    on_documents = serve_and_measure(browser, str(DOCUMENTS), plugins, db, None, DOCUMENT_ROUNDS)
        finally:
            browser.close()
    finally:
        stop(echo)
    if on_pack is None:
        return 1
    search = on_pack["search"]
    typed = [s["ms"] for s in search["typed"]]
    trips = on_pack["trips"]
    most_rows = max(s["dom"] for s in search["typed"] + search["deleted"])
    print(f"The notes app in headless Chromium, measured in the page (performance.now); libyaia {yaia.library_version()}")
    print(f"{NOTES} notes in the SQLite store (put in {seconds:.1f} s); the whole view model with every note is")
    print(f"{on_pack['frame'] / 1e6:.2f} MB of JSON; the page asks for patches and draws at most {most_rows} rows (the ones in view)")
    print("the page is cross-origin isolated: times to a few microseconds\n" if on_pack["isolated"] else
          "the page is NOT cross-origin isolated: the browser rounds times to 0.1 ms\n")
    print("The Swift pack:")
    table(search_rows(on_pack, pack_runtime) + [
        ("action round trip over the socket (ms)", trips),
        ("  the same action on a bare socket of the page (ms)", on_pack["bare"]),
        ("  floor: a frame the server answers itself (ms)", on_pack["floor"]),
        ("    the same on a bare socket of the page (ms)", on_pack["bare floor"]),
        ("  floor: a bare aiohttp echo, from the page (ms)", on_pack["echo"]),
        ("  floor: the same echo, from a Python client (ms)", tail(python_floor))])
    few = [s["ms"] for s in search["typed"] if s["rows"] <= 1000]
    many = [s["ms"] for s in search["typed"] if s["rows"] > 1000]
    if few and many:
        print(f"\n  typed, by the rows the query matches: at most 1000 rows, median {median(few):.2f} ms ({len(few)}); "
              f"more, median {median(many):.2f} ms ({len(many)})")
    if on_documents is not None and documents_runtime is not None:
        print(f"\nThe scene documents (Examples/notes-documents), the same {NOTES} notes:")
        table(search_rows(on_documents, documents_runtime))
    else:
        print(f"\nThe scene documents: the list does not load {NOTES} notes: not measured")
    print(f"\n  target: typing a character in the search of {NOTES} notes, shown, median at most {SEARCH_TARGET_MS:.0f} ms: "
          f"{verdict(median(typed), SEARCH_TARGET_MS)} ({median(typed):.2f} ms)")
    if on_documents is not None:
        documents_typed = [s["ms"] for s in on_documents["search"]["typed"]]
        print(f"  target, the same over the scene documents: "
              f"{verdict(median(documents_typed), SEARCH_TARGET_MS)} ({median(documents_typed):.2f} ms)")
    print(f"  target: an action's round trip on loopback, median at most {ROUND_TRIP_TARGET_MS:.0f} ms: "
          f"{verdict(median(trips), ROUND_TRIP_TARGET_MS)} ({median(trips):.3f} ms; "
          f"the bare echo from the same page: {median(on_pack['echo']):.3f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
