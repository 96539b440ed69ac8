"""Fixtures of the web tests: a server running in a thread of its own (so
that a test, Playwright's sync API included, drives it from outside its
loop), fake engines, and raw socket clients."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional

import pytest

aiohttp = pytest.importorskip("aiohttp", reason="aiohttp is not installed (make deps installs it)")

from yaia.web import Server, WebConfig  # noqa: E402
from yaia.web.engine import Engine  # noqa: E402
from yaia.web.serve import serve  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


class ServerThread:
    """A yaia.web server on a free loopback port, in a thread with its own loop."""

    def __init__(self, config: WebConfig, make_engine: Any = None, clock: Optional[Callable[[], float]] = None) -> None:
        config.port = 0
        self.server = Server(config, make_engine, clock) if clock else Server(config, make_engine)
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.url = ""
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        assert self.ready.wait(30), "the server did not start"

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)

        def started(url: str) -> None:
            self.url = url
            self.ready.set()

        self.task = self.loop.create_task(serve(self.server.config, started, self.server))
        try:
            self.loop.run_until_complete(self.task)
        except asyncio.CancelledError:
            pass

    @property
    def ws_url(self) -> str:
        return self.url.split("?")[0].replace("http://", "ws://") + "ws"

    def call(self, fn: Callable[[], Any]) -> Any:
        """Runs fn on the server's loop and returns what it returns."""
        async def run() -> Any:
            return fn()
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(30)

    def detached(self) -> "threading.Event":
        """Set once the next tab to go away has been detached."""
        done = threading.Event()
        self.server.on_detached = lambda key: done.set()
        return done

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.task.cancel)
        self.thread.join(30)


class FakeEngine(Engine):
    """An engine that answers from a script: `answers` maps an op to a
    function of the request; every request is recorded. A `gate` makes
    execute wait until the test opens it."""

    def __init__(self, answers: Optional[Dict[str, Callable[[Dict[str, Any]], Dict[str, Any]]]] = None,
                 gate: Optional[threading.Event] = None) -> None:
        self.answers = answers or {}
        self.gate = gate
        self.requests: List[Dict[str, Any]] = []
        self.events: List[str] = []
        self.notify: Optional[Callable[[], None]] = None
        self.lock = threading.Lock()
        self.closed = False

    def execute(self, request: bytes) -> str:
        value = json.loads(request)
        with self.lock:
            self.requests.append(value)
        if self.gate is not None:
            self.gate.wait(30)
        op = value.get("op")
        if op in self.answers:
            answer = self.answers[op](value)
        elif op == "scenes":
            answer = {"ok": True, "flows": [], "scenes": []}
        else:
            answer = {"ok": True, "echo": op}
        if "tag" in value:
            answer["tag"] = value["tag"]
        return json.dumps(answer)

    def receive(self) -> Optional[str]:
        with self.lock:
            return self.events.pop(0) if self.events else None

    def push(self, event: Dict[str, Any]) -> None:
        """Queues an event as a service completing a call would."""
        with self.lock:
            self.events.append(json.dumps(event))
        if self.notify:
            self.notify()

    def set_notifier(self, fn: Optional[Callable[[], None]]) -> None:
        self.notify = fn

    def snapshot(self) -> Optional[Dict[str, Any]]:
        return {"fake": True}

    def close(self) -> None:
        self.closed = True


class Tab:
    """A raw WebSocket client: frames in and out, answers by tag."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws

    async def send(self, value: Any) -> None:
        await self.ws.send_str(value if isinstance(value, str) else json.dumps(value))

    async def frame(self) -> Dict[str, Any]:
        message = await asyncio.wait_for(self.ws.receive(), 30)
        assert message.type == aiohttp.WSMsgType.TEXT, f"expected a text frame, got {message.type} {message.extra}"
        value: Dict[str, Any] = json.loads(message.data)
        return value

    async def ask(self, value: Dict[str, Any]) -> Dict[str, Any]:
        """Sends a request and returns the frame answering it (by its tag)."""
        await self.send(value)
        while True:
            frame = await self.frame()
            if frame.get("tag") == value.get("tag"):
                return frame


async def open_tab(url: str, session: Optional[str] = None, headers: Optional[Dict[str, str]] = None,  # type: ignore[no-untyped-def]
                   **hello_extra: Any):
    """A connected Tab and its hello answer (the hello has ``hello_extra``
    too); closes with the returned closer."""
    client = aiohttp.ClientSession()
    ws = await client.ws_connect(url, headers=headers or {}, max_msg_size=0)
    tab = Tab(ws)
    hello: Dict[str, Any] = {"op": "hello", "tag": 0}
    if session:
        hello["session"] = session
    hello.update(hello_extra)
    answer = await tab.ask(hello)

    async def close() -> None:
        await ws.close()
        await client.close()
    return tab, answer, close


def library_built() -> bool:
    try:
        import yaia
        yaia.library_version()
        return True
    except Exception:
        return False


needs_library = pytest.mark.skipif(not library_built(), reason="libyaia.so is not built (make lib)")


@pytest.fixture
def examples_pack() -> str:
    path = os.environ.get("YAIA_EXAMPLES_PACK") or str(REPO / ".build/release/libyaia-examples.so")
    if not Path(path).is_file():
        pytest.skip(f"{path} is not built (make lib)")
    return path


@pytest.fixture
def make_server() -> Iterator[Callable[..., ServerThread]]:
    servers: List[ServerThread] = []

    def make(config: WebConfig, make_engine: Any = None, clock: Any = None) -> ServerThread:
        server = ServerThread(config, make_engine, clock)
        servers.append(server)
        return server
    yield make
    for server in servers:
        server.stop()


CHROMIUM = os.environ.get("YAIA_CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    """Chromium from Debian's package, driven by Playwright; nothing downloads a browser."""
    playwright_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (make deps installs it)")
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian's chromium package; make deps installs it)")
    with playwright_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser):  # type: ignore[no-untyped-def]
    context = browser.new_context()
    tab = context.new_page()
    errors: List[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.errors = errors
    yield tab
    context.close()
