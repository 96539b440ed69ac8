"""The Runtime's event queue: updates and inspection events received,
waited for in C or awaited in asyncio, and the notifier that wakes a loop."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any, AsyncIterator, Callable, Deque, Optional

from . import ffi
from .errors import YaiaError
from .services import _NOTIFY, _notifiers, _registry_lock
from .values import Event, Inspection, Update
from .views import _Views


class _Events(_Views):
    """Receiving the events the runtime queues."""

    _inspections: Deque[Inspection]
    _inspections_lock: threading.Lock
    _notifier: int

    def receive(self, timeout: Optional[float] = 0) -> Optional[Update]:
        """The next queued update event, or None when none arrived within ``timeout`` seconds.

        0 returns at once; None waits until an event arrives or the runtime is
        closed. The wait happens in C with the GIL released. An event for an
        outcome or a result the scene refused raises YaiaError (its
        ``envelope`` carries "event": "error", "scene", and "effect" or
        "from"). Inspection events met on the way are kept, in order, for
        :meth:`receive_event`.
        """
        seconds = -1.0 if timeout is None else float(timeout)
        deadline = None if seconds < 0 else time.monotonic() + seconds
        while True:
            seconds = -1.0 if deadline is None else max(0.0, deadline - time.monotonic())
            ptr = self._lib.yaia_receive(self._handle, seconds)
            if not ptr:
                return None
            response = self._answer(ptr)
            kind = response.get("event")
            if kind is None or kind == "update":
                return self._update(response)
            with self._inspections_lock:
                self._inspections.append(Inspection.from_raw(response))

    async def next_update(self, timeout: Optional[float] = None) -> Optional[Update]:
        """Awaits the next update event without blocking the event loop.

        Installs a notifier (replacing any set with :meth:`set_notifier`) that
        wakes the running loop with ``call_soon_threadsafe`` whenever an event
        is queued, so nothing polls. Returns None if ``timeout`` seconds pass
        first (None: no limit). Errors as :meth:`receive`.
        """
        loop = asyncio.get_running_loop()
        ready = asyncio.Event()
        self.set_notifier(lambda: loop.call_soon_threadsafe(ready.set))
        try:
            deadline = None if timeout is None else loop.time() + timeout
            while True:
                update = self.receive(0)
                if update is not None:
                    return update
                remaining = None if deadline is None else deadline - loop.time()
                if remaining is not None and remaining <= 0:
                    return None
                try:
                    await asyncio.wait_for(ready.wait(), remaining)
                except asyncio.TimeoutError:
                    return self.receive(0)
                ready.clear()
        finally:
            self.set_notifier(None)

    async def updates(self) -> "AsyncIterator[Update]":
        """Update events as they come: ``async for update in rt.updates(): ...``"""
        while True:
            update = await self.next_update()
            if update is None:
                return
            yield update

    def receive_event(self, timeout: Optional[float] = 0) -> Optional[Event]:
        """The next queued event of any kind: an :class:`Update`, or an
        :class:`Inspection` while inspection is on (see :meth:`inspect`).

        Events come in queue order (inspection events :meth:`receive` passed
        over first). Timeouts and errors as :meth:`receive`.
        """
        with self._inspections_lock:
            if self._inspections:
                return self._inspections.popleft()
        seconds = -1.0 if timeout is None else float(timeout)
        ptr = self._lib.yaia_receive(self._handle, seconds)
        if not ptr:
            return None
        response = self._answer(ptr)
        kind = response.get("event")
        if kind is None or kind == "update":
            return self._update(response)
        return Inspection.from_raw(response)

    def inspect(self, on: bool = True) -> None:
        """Turns inspection events on or off (see :class:`Inspection`)."""
        self.execute({"op": "inspect", "on": bool(on)})

    def set_notifier(self, fn: Optional[Callable[[], Any]]) -> None:
        """Calls ``fn()`` each time an event is queued for :meth:`receive`.

        ``fn`` runs on the thread that queued the event (a plugin's, a worker's,
        or one inside send) and should only wake the host's loop, e.g.
        ``loop.call_soon_threadsafe(...)``. None removes it; a new one replaces
        the old. Needs a library with yaia_set_notifier (NotImplementedError
        otherwise).
        """
        setter = getattr(self._lib, "yaia_set_notifier", None)
        if setter is None or setter.argtypes is None:
            raise NotImplementedError("this libyaia.so has no yaia_set_notifier")
        with _registry_lock:
            if fn is None:
                _notifiers.pop(self._notifier, None)
            else:
                _notifiers[self._notifier] = fn
        rc = setter(self._handle, _NOTIFY if fn is not None else ffi.NOTIFY(), self._notifier)
        if rc != ffi.YAIA_OK:
            with _registry_lock:
                _notifiers.pop(self._notifier, None)
            raise YaiaError("bad_handle", "the runtime is closed")
