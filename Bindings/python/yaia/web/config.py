"""What a web server lets a browser tab do, and the bounds it keeps: one
place for the ops a frame may carry and for every per-connection limit."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence

__all__ = ["WebConfig", "TAB_OPS", "PRIVILEGED_OPS", "TAB_SCENES", "is_loopback"]

#: A session's "scenes" limit unless the host sets one: a composed screen
#: is a scene per row, and a parent may hold 10,000 children (the runtime's
#: "children" limit), so a tab holds one full list and the screens around
#: it. Below that, the rows past the limit do not open, and every update of
#: their list reports each of them again in its childErrors (for 10,000
#: notes and 1000 scenes, 1.3 MB of errors on every keystroke in a search).
TAB_SCENES = 12_000

#: The ops a tab may send with no grant: those that act on its own session's
#: scenes and flows and read its catalog. The runtime's other ordinary ops
#: (scenario, simulate, logic, advance, inspect, services) serve tools, not
#: pages; a server that wants them for its tabs grants them like privileged ones.
TAB_OPS: FrozenSet[str] = frozenset({
    "open", "send", "resolve", "state", "close", "scenes", "schema", "limits",
    "start", "flow", "popped", "link", "view",
})

#: Ops the runtime itself guards (docs/security.md): named here only so that a
#: refusal says not_permitted rather than unknown_op.
PRIVILEGED_OPS: FrozenSet[str] = frozenset({
    "bind", "load_plugin", "perform", "journal", "replay", "snapshot", "restore",
    "rewind", "register", "scenario_from_journal",
})

#: What the inspector asks of a session's runtime, granted to the runtime
#: (never to its tab) when the server serves an inspector.
INSPECTOR_OPS: FrozenSet[str] = frozenset({"journal", "replay", "restore", "scenario_from_journal"})

#: Ordinary ops of the runtime a server may grant its tabs besides TAB_OPS.
GRANTABLE_OPS: FrozenSet[str] = PRIVILEGED_OPS | {"scenario", "simulate", "logic", "advance", "inspect", "services"}


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass
class WebConfig:
    """A server's settings. ``runtime`` is the runtime config each session's
    runtime is made with (the host's word: scenes, plugins, limits), ``allow``
    the ops granted to tabs beyond :data:`TAB_OPS`.

    Limits: ``frame_bytes`` bounds a frame either way (a bigger one from a tab
    closes its connection with 1009); ``queue`` the requests of one
    connection waiting for its runtime (more are refused with
    ``limit_exceeded``, limit ``queue``); ``outbox`` the frames waiting for a
    tab that does not read (beyond it the connection is closed, and the tab
    resumes); ``sessions`` the connected sessions; ``detached`` the snapshots
    kept for tabs that went away, each for ``resume_seconds``.
    """

    runtime: Dict[str, Any] = field(default_factory=dict)
    allow: FrozenSet[str] = frozenset()
    host: str = "127.0.0.1"
    port: int = 8080
    static: Optional[str] = None
    start: Optional[str] = None
    token: Optional[str] = None
    origins: Sequence[str] = ()
    frame_bytes: int = 1 << 20
    queue: int = 64
    outbox: int = 4096
    sessions: int = 64
    detached: int = 256
    resume_seconds: float = 600.0
    #: Serves the inspector at /inspector/ (docs/inspector.md): each session's
    #: runtime keeps a journal in ``inspector_dir`` (a temporary folder when
    #: None), which the inspector of that tab reads, replays and rewinds.
    inspector: bool = False
    inspector_dir: Optional[str] = None
    #: Serves every response with COOP same-origin and COEP credentialless,
    #: which make the page cross-origin isolated (docs/web.md, "Cross-origin
    #: isolation"): performance.now() in microseconds, not 0.1 ms. Off by
    #: default: it cuts a popup of another origin (an OAuth login) from the
    #: page, and refuses the page iframes of other origins.
    isolated: bool = False

    def __post_init__(self) -> None:
        unknown = sorted(set(self.allow) - GRANTABLE_OPS)
        if unknown:
            raise ValueError(f"cannot grant tabs {', '.join(unknown)}: grantable are {', '.join(sorted(GRANTABLE_OPS))}")
        for name in ("frame_bytes", "queue", "outbox", "sessions", "detached"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be at least 1")
        if not is_loopback(self.host) and not self.token:
            raise ValueError(f"bound to {self.host}, which is not loopback: a token is required")

    @property
    def tab_ops(self) -> FrozenSet[str]:
        return TAB_OPS | frozenset(self.allow)

    def runtime_config(self, restore: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        """The config of a session's runtime: the host's, plus the grants the
        server itself needs (snapshot, to keep a session over a reload) and
        those it gives tabs. The socket bounds a tab's frames; the runtime's
        ``request_bytes`` stays its own (16 MiB), as it also bounds what
        services answer: a store listing 10,000 notes answers more than a
        frame may carry."""
        config = dict(self.runtime)
        grant = dict(config.get("allow") or {})
        ops = grant.get("ops", [])
        if ops != "all":
            listed: List[str] = list(ops) if isinstance(ops, (list, tuple)) else []
            wanted = {"snapshot"} | (set(self.allow) & PRIVILEGED_OPS)
            if self.inspector:
                wanted |= INSPECTOR_OPS
            grant["ops"] = sorted(set(listed) | wanted)
        if self.inspector and self.inspector_dir:
            grant["files"] = list(grant.get("files") or []) + [self.inspector_dir]
        config["allow"] = grant
        limits = dict(config.get("limits") or {})
        limits.setdefault("events", 4096)
        limits.setdefault("scenes", TAB_SCENES)
        config["limits"] = limits
        if restore is not None:
            config["restore"] = dict(restore)
        return config
