"""Headless Chromium driven over its DevTools pipe with Runtime.evaluate
alone: the page runs as in a person's browser, with no DevTools domain
enabled that would record what it does.

Why not Playwright, which the browser tests use: it enables the Network
domain of every page it drives, and Chromium then reports each WebSocket
frame, its payload included, to Playwright's driver, which passes it on to
its Python client. On a machine of two cores that work, in three
processes a frame, had doubled an echo's round trip measured in the page
(0.5-1.0 ms, against 0.45-0.5 ms here) and most of an action's.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import subprocess
import tempfile
import time
from typing import Any, Dict, List, Optional

__all__ = ["BareChromium", "PageError"]

# Those of Playwright's flags that keep a headless browser from doing work
# of its own while it is measured.
FLAGS = ["--headless", "--no-sandbox", "--no-first-run", "--hide-scrollbars", "--mute-audio",
         "--disable-background-networking", "--disable-component-update", "--disable-default-apps",
         "--disable-extensions", "--disable-sync", "--disable-background-timer-throttling",
         "--disable-renderer-backgrounding", "--disable-backgrounding-occluded-windows"]


class PageError(RuntimeError):
    """The page threw, or the browser did not answer in time."""


def _pipe_above_9() -> "tuple[int, int]":
    # Both ends moved to 10 or above, where the redirections to 3 and 4
    # below cannot overwrite one before it is read.
    ends = os.pipe()
    moved = tuple(fcntl.fcntl(end, fcntl.F_DUPFD_CLOEXEC, 10) for end in ends)
    for end in ends:
        os.close(end)
    return moved[0], moved[1]


class BareChromium:
    """One browser; pages opened with :meth:`open`, then evaluated in."""

    def __init__(self, executable: str, width: int = 1000, height: int = 800) -> None:
        self.profile = tempfile.TemporaryDirectory(prefix="yaia-bench-chromium-", ignore_cleanup_errors=True)
        commands_in, self._commands = _pipe_above_9()
        self._answers, answers_out = _pipe_above_9()
        args = [executable, *FLAGS, f"--window-size={width},{height}", f"--user-data-dir={self.profile.name}",
                "--remote-debugging-pipe", "about:blank"]
        # With --remote-debugging-pipe the browser reads commands on fd 3 and
        # writes answers on fd 4: bash puts the pipes there and execs it
        # (bash, as dash's redirections take no fd above 9).
        wired = f'exec "$@" 3<&{commands_in} 4>&{answers_out} {commands_in}<&- {answers_out}>&-'
        self.process = subprocess.Popen(["/bin/bash", "-c", wired, "bash", *args], pass_fds=(commands_in, answers_out),
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(commands_in)
        os.close(answers_out)
        self._buffer = b""
        self._next = 0
        self.session: Optional[str] = None
        self.target: Optional[str] = None
        self._sessions: Dict[str, str] = {}

    def call(self, method: str, params: Optional[Dict[str, Any]] = None, timeout: float = 600.0) -> Dict[str, Any]:
        """A DevTools command's result (in the open page's session, once
        there is one); events that come meanwhile are dropped."""
        self._next += 1
        message: Dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if self.session is not None and not method.startswith("Target."):
            message["sessionId"] = self.session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            for answer in self._messages(deadline):
                if answer.get("id") == self._next:
                    if "error" in answer:
                        raise PageError(f"{method}: {answer['error']}")
                    result: Dict[str, Any] = answer.get("result", {})
                    return result

    def _messages(self, deadline: float) -> List[Dict[str, Any]]:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([self._answers], [], [], left)[0]:
            raise PageError("the browser did not answer in time")
        chunk = os.read(self._answers, 1 << 20)
        if not chunk:
            raise PageError("the browser went away")
        *whole, self._buffer = (self._buffer + chunk).split(b"\0")
        return [json.loads(m) for m in whole]

    def open(self, url: str, keep: bool = False, script: Optional[str] = None) -> str:
        """Opens url in a new page, which later calls act on, and returns
        its target id; the page opened before is closed unless ``keep``
        (then :meth:`switch` goes back to it). ``script`` runs in the page
        before any of its own (Page.addScriptToEvaluateOnNewDocument): to
        wrap what the page uses, for instance. It needs the Page domain,
        whose events come a few a navigation, none a socket frame."""
        if self.target is not None and not keep:
            self.close_page()
        self.target = self.call("Target.createTarget", {"url": "about:blank" if script else url})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": self.target, "flatten": True})["sessionId"]
        self._sessions[self.target] = self.session
        if script:
            self.call("Page.enable")
            self.call("Page.addScriptToEvaluateOnNewDocument", {"source": script})
            self.call("Page.navigate", {"url": url})
        return self.target

    def switch(self, target: str) -> None:
        """Later calls act on the page ``target``, one opened and kept."""
        self.target, self.session = target, self._sessions[target]

    def close_page(self) -> None:
        """Closes the page calls act on; none is then until the next open."""
        if self.target is not None:
            self.call("Target.closeTarget", {"targetId": self.target})
            self._sessions.pop(self.target, None)
        self.target = self.session = None

    def evaluate(self, function: str, arg: Any = None, timeout: float = 600.0) -> Any:
        """What the page's JavaScript function returns for arg (awaited)."""
        answer = self.call("Runtime.evaluate", {"expression": f"({function})({json.dumps(arg)})",
                                                "awaitPromise": True, "returnByValue": True}, timeout)
        if "exceptionDetails" in answer:
            details = answer["exceptionDetails"]
            raise PageError(str(details.get("exception", {}).get("description") or details.get("text")))
        return answer.get("result", {}).get("value")

    def wait_for(self, condition: str, timeout: float = 30.0, poll: float = 0.05) -> None:
        """Until the page's expression is true. Until then it may throw, and
        the page may have no context yet to evaluate in (it is loading)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self.evaluate(f"() => Boolean({condition})"):
                    return
                why = "it is false"
            except PageError as error:
                why = str(error)
            if time.monotonic() > deadline:
                raise PageError(f"not true in {timeout:.0f} s: {condition} ({why})")
            time.sleep(poll)

    def close(self) -> None:
        """Closes the browser as its window's close would: its processes end
        and leave its profile alone (then removed)."""
        try:
            self.session = None
            self.call("Browser.close", timeout=10)
        except (PageError, OSError):
            pass  # it went away before answering, or never came up
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(30)
        os.close(self._commands)
        os.close(self._answers)
        self.profile.cleanup()
