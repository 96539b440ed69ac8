"""The notes app in a browser, measured in the page: typing in the search
field over 10,000 notes until the page shows the result, and an action's
round trip over the socket.

    bench_web.py NOTES_PACK PLUGIN_DIR

Run by `make bench` (PYTHONPATH=Bindings/python). The notes are put in the
SQLite store (store.so) before the server starts, as a user's would be; the
server (`python -m yaia.web`, a process of its own) serves the Swift pack,
NOTES_PACK, with the auth and store plugins and Examples/notes-web. The
documents are left out: a document loads about 850 notes (its step budget).

Headless Chromium (Debian's) runs the page, driven by Playwright; the times
are the page's own (`performance.now`): from the input event to the end of
the render that shows the query's rows, layout included; from `send` to its
answer. Without Playwright or Chromium the benchmark says so and measures
nothing.
"""

from __future__ import annotations

import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List

import yaia

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "Examples" / "notes-web"
CHROMIUM = "/usr/bin/chromium"
NOTES = 10_000
SEARCH_TARGET_MS = 16.0
ROUND_TRIP_TARGET_MS = 1.0
ROUND_TRIPS = 1000
WORDS = ["lyon", "bank", "milk", "train", "garden", "tax", "piano", "paint", "dentist", "books"]
# Typed one character at a time, then deleted one at a time, this many times.
QUERIES = ["lyon", "garden", "piano 9"]
ROUNDS = 5


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


def runtime_search(pack: str) -> List[float]:
    """ms of one searchChanged send on a list of NOTES notes, in the runtime
    alone, its answer's text as the server forwards it (the view model
    whole): a part of what the page's figure includes."""
    from yaia.web.engine import RuntimeEngine

    items = [{"key": f"note/{i}", "value": note(i)} for i in range(1, NOTES + 1)]
    engine = RuntimeEngine({"scenes": [pack]})
    try:
        opened = engine.execute_value({"op": "open", "scene": "notes/list", "args": {"user": {"email": "ada@example.com"}}})
        scene = opened["scene"]
        engine.execute_value({"op": "send", "scene": scene, "action": {"type": "loaded", "payload": {"items": items}}})
        times: List[float] = []
        for _ in range(ROUNDS):
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
# the input event to the end of the render showing that query's rows.
SEARCH_JS = """async ({queries, rounds}) => {
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
  const type = (value) => new Promise((resolve) => {
    const done = (event) => {
      if (event.detail.viewModel.query !== value) return;
      main.removeEventListener("rendered", done);
      void document.body.offsetHeight; // the layout of what was drawn
      const end = performance.now();
      resolve({ms: end - t0, page: sent - t0, socket: arrived - sent, parse: read - arrived, render: end - read,
               rows: event.detail.viewModel.notes.length, dom: document.querySelectorAll(".notes li").length});
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


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    pack, plugins = sys.argv[1], Path(sys.argv[2])
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("bench_web.py: Playwright is not installed (make deps): nothing measured")
        return 0
    if not Path(CHROMIUM).is_file():
        print(f"bench_web.py: no Chromium at {CHROMIUM} (make deps): nothing measured")
        return 0
    in_runtime = runtime_search(pack)
    with tempfile.TemporaryDirectory(prefix="yaia-bench-web-") as folder:
        db = Path(folder) / "notes.db"
        seconds = seed(plugins / "store.so", db)
        command = [sys.executable, "-m", "yaia.web", pack, "--plugin-dir", str(plugins),
                   "--plugin-config", f"store={json.dumps({'path': str(db)})}", "--start", "notes/login",
                   "--static", str(PAGE), "--port", "0"]
        server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        try:
            line = server.stdout.readline() if server.stdout else ""
            found = re.search(r"http://\S+", line)
            if not found:
                print(f"bench_web.py: the server did not start: {line}", file=sys.stderr)
                return 1
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                page = browser.new_page(viewport={"width": 1000, "height": 800})
                page.goto(found.group(0))
                page.wait_for_selector(".screen[data-scene='notes/login']")
                round_trips = page.evaluate(ROUND_TRIP_JS, ROUND_TRIPS)
                floor = page.evaluate(FLOOR_JS, ROUND_TRIPS)
                page.fill("input[name=email]", "ada@example.com")
                page.fill("input[name=password]", "hunter2")
                page.click("button[name=submit]")
                page.wait_for_selector(".screen[data-scene='notes/list']")
                page.wait_for_function(f"() => window.app.top().viewModel.notes.length === {NOTES}", timeout=120_000)
                frame = page.evaluate("() => JSON.stringify(window.app.top().viewModel).length")
                search = page.evaluate(SEARCH_JS, {"queries": QUERIES, "rounds": ROUNDS})
                browser.close()
        finally:
            server.terminate()
            server.wait(30)
    typed = [s["ms"] for s in search["typed"]]
    deleted = [s["ms"] for s in search["deleted"]]
    most_rows = max(s["dom"] for s in search["typed"] + search["deleted"])
    trips = round_trips[len(round_trips) // 10:]  # the first tenth warms up
    floor = floor[len(floor) // 10:]
    print(f"The notes app in headless Chromium, measured in the page (performance.now); libyaia {yaia.library_version()}")
    print(f"{NOTES} notes in the SQLite store (put in {seconds:.1f} s), the Swift pack; the whole view model with every")
    print(f"note is {frame / 1e6:.2f} MB of JSON; the page draws at most {most_rows} rows (the ones in view)\n")
    print(f"  {'':<52} {'median':>8} {'p90':>8} {'n':>5}")
    rows = [("search: a character typed, until shown (ms)", typed),
            ("  input to the request sent (ms)", [s["page"] for s in search["typed"]]),
            ("  request sent to its answer's arrival (ms)", [s["socket"] for s in search["typed"]]),
            ("    in the runtime alone: searchChanged (ms)", in_runtime),
            ("  reading the answer: JSON.parse, patches (ms)", [s["parse"] for s in search["typed"]]),
            ("  rendering, layout included (ms)", [s["render"] for s in search["typed"]]),
            ("search: a character deleted, until shown (ms)", deleted),
            ("action round trip over the socket (ms)", trips),
            ("  a frame the server answers itself (ms)", floor)]
    for name, values in rows:
        print(f"  {name:<52} {median(values):>8.2f} {p90(values):>8.2f} {len(values):>5}")
    few = [s["ms"] for s in search["typed"] if s["rows"] <= 1000]
    many = [s["ms"] for s in search["typed"] if s["rows"] > 1000]
    if few and many:
        print(f"\n  typed, by the rows the query matches: at most 1000 rows, median {median(few):.2f} ms ({len(few)}); "
              f"more, median {median(many):.2f} ms ({len(many)})")
    print(f"\n  target: typing a character in the search of {NOTES} notes, shown, median at most {SEARCH_TARGET_MS:.0f} ms: "
          f"{verdict(median(typed), SEARCH_TARGET_MS)} ({median(typed):.2f} ms)")
    print(f"  target: an action's round trip on loopback, median at most {ROUND_TRIP_TARGET_MS:.0f} ms: "
          f"{verdict(median(trips), ROUND_TRIP_TARGET_MS)} ({median(trips):.3f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
