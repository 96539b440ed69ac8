"""The inspector with 10,000 notes and 10,000 recorded inputs, measured in
its page: opening it, selecting an input and rewinding to one, and the
largest frame the server sent it.

    bench_inspector.py NOTES_PACK PLUGIN_DIR

Run by `make bench` (PYTHONPATH=Bindings/python). The server (`python -m
yaia.web --inspector`, a process of its own) serves the Swift pack with the
auth and store plugins and Examples/notes-web; 10,000 notes are in the
SQLite store (as bench_web.py puts them). In the app's page, a login, the
list loaded with every note, then inputs sent from the page until the
journal holds 10,000: emailChanged to the login scene beneath the list, and
every INPUTS_PER_SEARCH-th a searchChanged to the list (whose state holds
the 10,000 notes). Once the inspector's timeline has followed them all, its
page is opened OPENS times, rows are selected at places spread over the
timeline, and rewound to.

The times are the page's own (`window.inspectorTimes`, performance.now):
open, from navigation to the timeline drawn (and where that time goes: the
page's HTML received, its script running, the attach answered); select, from the click to the
input's patches shown; rewind, from the click to the app rewound and the
timeline drawn again. Frames are every WebSocket message the inspector's
page received, counted by the page itself: a script run before the page's
own wraps WebSocket. Headless Chromium (Debian's) driven over its DevTools
pipe with nothing but Runtime.evaluate (bare_chromium.py, as bench_web.py:
Playwright has the browser report every socket frame to it, work on the
same two cores as what is measured); without Chromium the benchmark says
so and measures nothing.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List

import bench_web  # noqa: E402 (Benchmarks/ is the script's folder)
import yaia
from bare_chromium import BareChromium

CHROMIUM = bench_web.CHROMIUM
PAGE = bench_web.PAGE
NOTES = bench_web.NOTES
INPUTS = 10_000
INPUTS_PER_SEARCH = 100
TARGET_MS = 100.0
FRAME_BYTES = 64 << 10
OPENS = 5
SELECTS = 30
REWINDS = 12

# In the app's page: inputs until the session's journal holds `total`.
RECORD_JS = """async ({total, every, start}) => {
  const app = window.app;
  const login = app.flow.stack[0].id;
  const list = app.top().id;
  const words = ["lyon", "bank", "milk", "train"];
  for (let i = start; i < total; i++) {
    if (i % every === 0) {
      await app.request({op: "send", scene: list, action: {type: "searchChanged", payload: words[(i / every) % 4].slice(0, 1 + (i / every) % 4)}});
    } else {
      await app.request({op: "send", scene: login, action: {type: "emailChanged", payload: "ada" + i + "@example.com"}});
    }
  }
  return true;
}"""

# In the inspector's page: rows clicked at places spread over the timeline.
SELECT_JS = """async ({count, rewind}) => {
  const box = document.getElementById("timeline");
  const once = (name) => new Promise((r) => document.body.addEventListener(name, r, {once: true}));
  const pause = (ms) => new Promise((r) => setTimeout(r, ms));
  for (let i = 0; i < count; i++) {
    box.scrollTop = Math.floor(((i * 7919) % count) / count * (box.scrollHeight - box.clientHeight));
    let rows = [];
    for (let k = 0; k < 100 && rows.length === 0; k++) { await pause(20); rows = document.querySelectorAll("#rows .row"); }
    const row = rows[Math.floor(rows.length / 2)];
    const selected = once("inspector-selected");
    row.click();
    await selected;
    if (rewind) {
      const rewound = once("inspector-rewound");
      document.getElementById("rewind").click();
      await rewound;
    }
  }
  return window.inspectorTimes;
}"""


# In the inspector's page, once open: when each step of opening it ended.
STEPS_JS = """() => {
  const t = window.inspectorTimes, n = performance.getEntriesByType("navigation")[0];
  return {html: n ? n.responseEnd : NaN, script: t.script, answered: t.answered, drawn: t.open};
}"""
STEPS = (("html", "the page's HTML received"), ("script", "its script running"), ("answered", "the attach answered"),
         ("drawn", "the timeline drawn"))


# Before the inspector's own script: the size in bytes of the largest frame
# any socket of the page receives. A string is encoded only when it may be
# larger than the largest yet (its UTF-8 is at most three bytes a unit).
LARGEST_FRAME_JS = """(() => {
  const Native = WebSocket;
  const utf8 = new TextEncoder();
  let largest = 0;
  const size = (data) => typeof data === "string" ? (data.length * 3 > largest ? utf8.encode(data).length : 0) : (data.byteLength ?? data.size ?? 0);
  globalThis.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => { largest = Math.max(largest, size(event.data)); });
    }
  };
  globalThis.largestFrame = () => largest;
})();"""


def median(values: List[float]) -> float:
    return statistics.median(values) if values else float("nan")


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def opened(browser: BareChromium, url: str) -> str:
    """The inspector's page at url, opened beside the app's, once it has
    drawn its timeline; its target id."""
    target = browser.open(url, keep=True, script=LARGEST_FRAME_JS)
    browser.wait_for("window.inspectorTimes && window.inspectorTimes.open !== null", timeout=120)
    return target


def measure(browser: BareChromium, url: str) -> Dict[str, Any]:
    base = url.split("?")[0].rstrip("/")
    app = browser.open(url)
    browser.wait_for("document.querySelector(\".screen[data-scene='notes/login']\")")
    bench_web.log_in(browser, timeout=600)
    key = browser.evaluate("() => window.app.session || sessionStorage.getItem('yaia.session')")
    start = time.perf_counter()
    browser.evaluate(RECORD_JS, {"total": INPUTS, "every": INPUTS_PER_SEARCH, "start": 6}, timeout=3600)
    recorded = time.perf_counter() - start
    largest = 0

    inspector_url = f"{base}/inspector/#session={key}"
    out: Dict[str, Any] = {"recorded": recorded, "opens": [], "steps": []}
    # The timeline follows the journal as it grows: wait until it has all.
    # The server is busy following what was just recorded: the page may be
    # slow to come, on a loaded machine.
    start = time.perf_counter()
    browser.open(inspector_url, keep=True, script=LARGEST_FRAME_JS)
    browser.wait_for(f"parseInt(document.getElementById('count').textContent) >= {INPUTS}", timeout=1800, poll=0.5)
    out["followed"] = time.perf_counter() - start
    largest = max(largest, browser.evaluate("() => largestFrame()"))
    browser.close_page()
    for _ in range(OPENS):
        opened(browser, inspector_url)
        out["opens"].append(browser.evaluate("() => window.inspectorTimes.open"))
        out["steps"].append(browser.evaluate(STEPS_JS))
        largest = max(largest, browser.evaluate("() => largestFrame()"))
        browser.close_page()
    opened(browser, inspector_url)
    out["select"] = browser.evaluate(SELECT_JS, {"count": SELECTS, "rewind": False})["select"]
    times = browser.evaluate(SELECT_JS, {"count": REWINDS, "rewind": True})
    out["rewind"] = times["rewind"]
    out["inputs"] = browser.evaluate("() => document.getElementById('count').textContent")
    out["largest"] = max(largest, browser.evaluate("() => largestFrame()"))
    browser.close_page()
    browser.switch(app)
    browser.close_page()
    return out


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    pack, plugins = sys.argv[1], Path(sys.argv[2])
    if not Path(CHROMIUM).is_file():
        print(f"bench_inspector.py: no Chromium at {CHROMIUM} (make deps): nothing measured")
        return 0
    with tempfile.TemporaryDirectory(prefix="yaia-bench-inspector-") as folder:
        db = Path(folder) / "notes.db"
        bench_web.seed(plugins / "store.so", db)
        command = [sys.executable, "-m", "yaia.web", pack, "--plugin-dir", str(plugins),
                   "--plugin-config", f"store={json.dumps({'path': str(db)})}", "--start", "notes/login",
                   "--static", str(PAGE), "--port", "0", "--inspector"]
        server, line = bench_web.launch(command)
        try:
            found = re.search(r"http://\S+", line)
            if not found:
                print(f"bench_inspector.py: the server did not start: {line}", file=sys.stderr)
                return 1
            browser = BareChromium(CHROMIUM, 1200, 900)
            try:
                out = measure(browser, found.group(0))
            finally:
                browser.close()
        finally:
            bench_web.stop(server)
    opened, selected, rewound = median(out["opens"]), median(out["select"]), median(out["rewind"])
    print(f"The inspector in headless Chromium, measured in the page (performance.now); libyaia {yaia.library_version()}")
    print(f"{NOTES} notes in the list's state; {INPUTS} inputs recorded from the app's page in {out['recorded']:.0f} s "
          f"(every {INPUTS_PER_SEARCH}th a search over the notes), followed by the timeline {out['followed']:.0f} s after; "
          f"timeline: {out['inputs']}\n")
    print(f"  {'':<44} {'median':>8} {'max':>8} {'n':>4}")
    for name, values in (("opening the inspector (ms)", out["opens"]), ("selecting an input (ms)", out["select"]),
                         ("rewinding to an input (ms)", out["rewind"])):
        print(f"  {name:<44} {median(values):>8.1f} {max(values):>8.1f} {len(values):>4}")
    print(f"  {'largest frame to the inspector (bytes)':<44} {out['largest']:>8}")
    print("\n  opening, when each step ended (ms from navigation, medians): "
          + ", ".join(f"{label} {median([s[key] for s in out['steps']]):.1f}" for key, label in STEPS))
    print(f"\n  target: opening, median at most {TARGET_MS:.0f} ms: {verdict(opened <= TARGET_MS)} ({opened:.1f} ms)")
    print(f"  target: selecting an input, median at most {TARGET_MS:.0f} ms: {verdict(selected <= TARGET_MS)} ({selected:.1f} ms)")
    print(f"  target: rewinding, median at most {TARGET_MS:.0f} ms: {verdict(rewound <= TARGET_MS)} ({rewound:.1f} ms)")
    print(f"  target: no frame to the inspector over {FRAME_BYTES} bytes: {verdict(out['largest'] <= FRAME_BYTES)} "
          f"({out['largest']} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
