"""Which of a tab's requests run on the event loop itself rather than on
its session's worker: a thread handoff each way costs a round trip more
than a cheap request costs the runtime, and on a loaded machine each wakeup
of another thread waits for a core (docs/web.md, "The server").

A request runs on the loop only when its kind (its op, and a send's action
type) ran before in this session and took at most ``inline_ms``, its frame
is small, and the loop has budget left: at most ``inline_share`` of the
loop's time goes to runtime calls, whatever the tabs send. A kind that took
longer on the loop three times never runs there again in its session."""

from __future__ import annotations

from typing import Any, Callable, Dict, Mapping

__all__ = ["INLINE_BYTES", "Costs", "LoopBudget", "Inline", "kind_of"]

#: Frames above this size go to the worker: a request's cost grows with its
#: payload, which the cost of its kind's last run does not foretell.
INLINE_BYTES = 4096

# Kinds one session keeps the cost of; a tab making up more gets the worker
# for the rest (a kind is at most 64 + 64 characters).
_KINDS = 64

# The most loop time the budget saves up while tabs are quiet.
_BURST = 0.01

# Overruns on the loop that bar a kind from it. Not one: a cheap call the
# system preempted on a busy machine looks as long as a slow one (the cost is
# the loop's clock: CPU time is a system call, dearer than the call itself).
_STRIKES = 3


def kind_of(request: Mapping[str, Any]) -> str:
    """What a request's cost is keyed by: ``send:TYPE`` or the op."""
    op = str(request.get("op"))[:64]
    action = request.get("action")
    if isinstance(action, dict) and isinstance(action.get("type"), str):
        return f"{op}:{action['type'][:64]}"
    return op


class LoopBudget:
    """The loop's time for runtime calls: refilled at ``share`` of ``clock``,
    saved up to a burst. A call may overdraw it; the loop's calls then wait
    (go to the workers) until the clock has paid it back."""

    def __init__(self, share: float, clock: Callable[[], float]) -> None:
        self.share = share
        self.clock = clock
        self.balance = _BURST
        self.when = clock()

    def allows(self) -> bool:
        now = self.clock()
        self.balance = min(_BURST, self.balance + (now - self.when) * self.share)
        self.when = now
        return self.balance > 0

    def spend(self, seconds: float) -> None:
        self.balance -= seconds


class Costs:
    """One session's kinds of request: the seconds each last took, and the
    overruns of each on the loop. Read and written under the session's lock."""

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.last: Dict[str, float] = {}
        self.overruns: Dict[str, int] = {}

    def cheap(self, kind: str) -> bool:
        cost = self.last.get(kind)
        return cost is not None and cost <= self.limit and self.overruns.get(kind, 0) < _STRIKES

    def ran(self, kind: str, seconds: float, on_loop: bool) -> None:
        if kind not in self.last and len(self.last) >= _KINDS:
            return
        self.last[kind] = seconds
        if on_loop and seconds > self.limit:
            self.overruns[kind] = self.overruns.get(kind, 0) + 1


class Inline:
    """A server's policy for running requests on its loop: the limit, the
    budget they share, and the clock both are measured with (the server's:
    tests give their own)."""

    def __init__(self, limit_ms: float, share: float, clock: Callable[[], float]) -> None:
        self.limit = limit_ms / 1000.0
        self.budget = LoopBudget(share, clock)
        self.clock = clock

    @property
    def enabled(self) -> bool:
        return self.limit > 0 and self.budget.share > 0
