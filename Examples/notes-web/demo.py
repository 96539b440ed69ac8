"""The notes app in a browser, headless: starts the web server on the notes
scenes with the auth and store plugins, then drives Chromium through a
session (a wrong password, the right one, two notes, a rename in a row, a
search, back, a reload) and leaves screenshots.

    python3 demo.py SCENES PLUGIN_DIR SHOTS_DIR

SCENES: Examples/notes-documents or libnotes.so. Exits non-zero on anything
unexpected; without Playwright or Chromium it says so and serves nothing.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHROMIUM = "/usr/bin/chromium"


def main() -> int:
    scenes, plugins, shots = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("notes-web: Playwright is not installed (make deps): no browser pass")
        return 0
    if not Path(CHROMIUM).is_file():
        print(f"notes-web: no Chromium at {CHROMIUM} (make deps): no browser pass")
        return 0
    shots.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="yaia-notes-web-") as folder:
        command = [sys.executable, "-m", "yaia.web", scenes, "--plugin-dir", str(plugins),
                   "--plugin-config", f'store={{"path":"{folder}/notes.db"}}', "--start", "notes/login",
                   "--static", str(HERE), "--port", "0"]
        server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        try:
            line = server.stdout.readline() if server.stdout else ""
            found = re.search(r"http://\S+", line)
            if not found:
                print(f"notes-web: the server did not start: {line}")
                return 1
            url = found.group(0)
            print(f"  serving at {url}; by hand: PYTHONPATH=Bindings/python python3 -m yaia.web {' '.join(command[3:-2])}")
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                walk(browser.new_page(viewport={"width": 1000, "height": 640}), url, shots, Path(scenes).stem)
                browser.close()
        finally:
            server.terminate()
            server.wait(30)
    return 0


def walk(page, url: str, shots: Path, name: str) -> None:  # type: ignore[no-untyped-def]
    def shot(what: str) -> None:
        path = shots / f"{name}-{what}.png"
        page.screenshot(path=str(path))
        print(f"  {what:<10} {path}")

    def screen(scene: str) -> None:
        page.wait_for_selector(f".screen[data-scene='{scene}']")

    page.goto(url)
    screen("notes/login")
    page.fill("input[name=email]", "ada@example.com")
    page.fill("input[name=password]", "letmein")
    page.click("button[name=submit]")
    page.wait_for_selector(".error:text('Wrong email or password')")
    shot("login")
    page.fill("input[name=password]", "hunter2")
    page.click("button[name=submit]")
    screen("notes/list")
    for title, body in (("Groceries", "Milk, eggs, bread"), ("Trip to Lyon", "Train at 9:04, platform 3")):
        page.click("button[name=new]")
        screen("notes/editor")
        page.fill("input[name=title]", title)
        page.fill("textarea[name=body]", body)
        if title == "Groceries":
            shot("editor")
        page.click("button[name=save]")
        page.wait_for_selector(f".notes .title:text-is('{title}')")
    # Rename in place: the row is a child scene of the list, sent to by its path.
    page.click(".notes li:has-text('Groceries') button[name=rename]")
    page.fill(".notes input[name=draft]:visible", "Groceries for Sunday")
    shot("rename")
    page.press(".notes input[name=draft]:visible", "Enter")
    page.wait_for_selector(".notes .title:text-is('Groceries for Sunday')")
    page.click(".notes button:has-text('Groceries')")
    screen("notes/editor")
    page.go_back()  # the browser's back button pops the editor
    screen("notes/list")
    page.reload()  # the session resumes
    page.wait_for_selector(".notes .title:text-is('Trip to Lyon')")
    shot("list")
    page.fill("input[name=search]", "lyon")
    page.wait_for_function("() => document.querySelectorAll('.notes li').length === 1")
    shot("search")


if __name__ == "__main__":
    sys.exit(main())
