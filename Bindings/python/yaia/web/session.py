"""One browser session: a runtime of its own, driven by a worker thread of
its own, so that a slow or flooding tab blocks only itself and never the
event loop the other tabs share."""

from __future__ import annotations

import collections
import concurrent.futures
import json
import threading
from typing import Any, Callable, Deque, Dict, List, Mapping, Optional, Tuple

from ..errors import YaiaError
from .engine import Engine, Frame, envelope, full_views

__all__ = ["Session", "MakeEngine", "Sink"]

#: Makes a session's engine, from a snapshot to restore or from nothing.
MakeEngine = Callable[[Optional[Mapping[str, Any]]], Engine]
#: Takes frames for the tab, in order: a request's answer with the events
#: drained after it, in one call (one hand-off to the event loop, not one a
#: frame). Called on the worker thread; must not block.
Sink = Callable[[List[Frame]], None]

# Events drained in one go before the worker looks at its requests again.
_DRAIN_BATCH = 256

_Job = Tuple[str, Any]


class Session:
    """Requests of one connection, run in order on one thread.

    The event loop calls :meth:`submit`, :meth:`hello` and :meth:`detach`;
    everything else happens on the worker, which owns the engine. Answers and
    events go to ``sink`` in the order the runtime produced them.
    """

    def __init__(self, key: str, make_engine: MakeEngine, sink: Sink, queue: int,
                 restore: Optional[Mapping[str, Any]] = None) -> None:
        self.key = key
        self._make_engine = make_engine
        self._sink = sink
        self._queue = queue
        self._restore = restore
        self._cond = threading.Condition()
        self._jobs: Deque[_Job] = collections.deque()
        self._wakeup = False
        self._ended = False
        self.engine: Optional[Engine] = None
        self.resumed = False
        #: Called on the worker after each request and burst of events (an
        #: inspector follows the session's journal by it); must not block.
        self.watch: Optional[Callable[[], None]] = None
        self._thread = threading.Thread(target=self._run, name=f"yaia-web-{key[:8]}", daemon=True)

    def start(self, hello: Dict[str, Any]) -> None:
        """Makes the engine on the worker, then answers the hello frame with
        everything the tab needs to draw the session."""
        self._jobs.append(("hello", hello))
        self._thread.start()

    # -- called from the event loop

    def submit(self, request: bytes) -> bool:
        """Queues a request for the runtime; False when the queue is full."""
        with self._cond:
            if self._ended or len(self._jobs) >= self._queue:
                return False
            self._jobs.append(("request", request))
            self._cond.notify()
        return True

    def sync(self, tag: Any) -> bool:
        """Queues a full resync (every view model whole); False when full."""
        with self._cond:
            if self._ended or len(self._jobs) >= self._queue:
                return False
            self._jobs.append(("sync", tag))
            self._cond.notify()
        return True

    def call(self, fn: Callable[[Engine], Any]) -> "concurrent.futures.Future[Any]":
        """Runs ``fn`` with the session's engine on its worker, between the
        tab's requests (an inspector's work on the session); the future holds
        what it returns or raises. Not bounded by the queue: an inspector
        waits for each call before the next."""
        done: "concurrent.futures.Future[Any]" = concurrent.futures.Future()
        with self._cond:
            if self._ended:
                done.set_exception(YaiaError("bad_handle", "the session has ended"))
                return done
            self._jobs.append(("call", (fn, done)))
            self._cond.notify()
        return done

    def detach(self) -> "concurrent.futures.Future[Optional[Dict[str, Any]]]":
        """Drops the requests still queued, takes the runtime's snapshot, frees
        the runtime and ends the worker. The future holds the snapshot (None
        when there is none to keep)."""
        done: "concurrent.futures.Future[Optional[Dict[str, Any]]]" = concurrent.futures.Future()
        with self._cond:
            for kind, value in self._jobs:
                if kind == "call":
                    value[1].set_exception(YaiaError("bad_handle", "the session has ended"))
            self._jobs.clear()
            self._jobs.append(("detach", done))
            self._ended = True
            self._cond.notify()
        if not self._thread.is_alive() and self._thread.ident is None:
            done.set_result(None)
        return done

    # -- the worker

    def _wake(self) -> None:
        # The runtime's notifier: on any thread, possibly inside a send.
        with self._cond:
            self._wakeup = True
            self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._jobs and not self._wakeup:
                    self._cond.wait()
                job = self._jobs.popleft() if self._jobs else None
                self._wakeup = False
            out: List[Frame] = []
            if job is not None:
                kind, value = job
                if kind == "call" and self.engine is None:
                    value[1].set_exception(YaiaError("bad_handle", "the session has no runtime"))
                    continue
                if kind == "detach":
                    self._end(value)
                    return
                try:
                    self._do(kind, value, out)
                except Exception as error:  # a bug here must not end the session's thread silently
                    out.append(envelope("internal", f"the web session failed: {type(error).__name__}"))
            # The answer waits for the events queued by now, and they all go
            # in one hand-off, made last: the loop, woken by it, does not have
            # to take the GIL from a worker still draining.
            self._drain(out)
            if out:
                self._sink(out)

    def _do(self, kind: str, value: Any, out: List[Frame]) -> None:
        if kind == "hello":
            self._hello(value, out)
        elif self.engine is None:
            out.append(envelope("bad_handle", "the session has no runtime"))
        elif kind == "request":
            out.append(self.engine.execute(value))
        elif kind == "sync":
            out.append(self._views("sync", value))
        elif kind == "call":
            fn, done = value
            try:
                done.set_result(fn(self.engine))
            except Exception as error:
                done.set_exception(error)
        if kind == "request" and self.watch is not None:
            self.watch()

    def _drain(self, out: List[Frame]) -> None:
        if self.engine is None:
            return
        for i in range(_DRAIN_BATCH):
            text = self.engine.receive()
            if text is None:
                if i and self.watch is not None:
                    self.watch()
                return
            out.append(text)
        with self._cond:
            self._wakeup = True  # more to come: after the requests waiting

    def _views(self, op: str, tag: Any, extra: Optional[Dict[str, Any]] = None) -> str:
        assert self.engine is not None
        answer: Dict[str, Any] = {"ok": True, "op": op}
        answer.update(full_views(self.engine))
        if extra:
            answer.update(extra)
        if tag is not None:
            answer["tag"] = tag
        return json.dumps(answer, separators=(",", ":"), sort_keys=True)

    def _hello(self, hello: Dict[str, Any], out: List[Frame]) -> None:
        tag = hello.pop("tag", None)
        try:
            if self._restore is not None:
                try:
                    self.engine = self._make_engine(self._restore)
                    self.resumed = True
                except YaiaError:
                    self.engine = None  # a snapshot this runtime refuses: start afresh
            if self.engine is None:
                self.engine = self._make_engine(None)
        except YaiaError as error:
            out.append(envelope(error.code, error.message, tag=tag))
            return
        self._restore = None
        self.engine.set_notifier(self._wake)
        hello.update(session=self.key, resumed=self.resumed)
        out.append(self._views("hello", tag, hello))

    def _end(self, done: "concurrent.futures.Future[Optional[Dict[str, Any]]]") -> None:
        snapshot: Optional[Dict[str, Any]] = None
        try:
            if self.engine is not None:
                self.engine.set_notifier(None)
                snapshot = self.engine.snapshot()
                self.engine.close()
                self.engine = None
        finally:
            done.set_result(snapshot)
