"""The Runtime's time: snapshots, restores, the journal, rewinds,
replays, scenarios and simulation."""

from __future__ import annotations

import os
from typing import Any, Dict, Iterable, Mapping, Optional, Union

from .catalog import _Catalog
from .values import PathLike, ReplayResult
from .views import _Views


class _History(_Catalog, _Views):
    """Requests about a runtime's whole state and its inputs over time."""

    def snapshot(self) -> Dict[str, Any]:
        """The whole runtime as one JSON-able document (format "yaia.snapshot/1"):
        scenes with their states, flows, effects in flight, id counters."""
        snapshot: Dict[str, Any] = self.execute({"op": "snapshot"})["snapshot"]
        return snapshot

    def restore(self, snapshot: Mapping[str, Any]) -> Dict[str, Any]:
        """Replaces everything open with the snapshot's scenes, flows and effects.

        Returns {"scenes": [{"id", "name", "viewModel", "seq"?}, ...] (as restored,
        before cancelled effects are delivered), "flows": [ID, ...],
        "effects": {"reissued", "cancelled", "awaiting"}}. Each effect in
        flight follows its own restore policy: reissue (performed again),
        cancel (its catch action gets {"code": "interrupted"}) or await (left
        pending for :meth:`resolve`). Scenes in patch mode (with "seq") go
        on from the view models given. A snapshot the library cannot use raises
        YaiaError "bad_snapshot", and nothing changes.
        """
        response = self.execute({"op": "restore", "snapshot": snapshot})
        self._forget_schemas()
        self._restarted(response)
        response.pop("ok", None)
        return response

    def journal(
        self,
        start: Optional[PathLike] = None,
        *,
        stop: bool = False,
        flush: bool = False,
    ) -> Dict[str, Any]:
        """Controls the journal: exactly one of ``start=PATH`` (truncates the
        file; its first line is a snapshot), ``stop=True`` (flushes, stops) or
        ``flush=True`` (writes what is queued).

        Returns {"journal": PATH or None, "inputs": N (stop, flush)}.
        """
        if (start is not None) + bool(stop) + bool(flush) != 1:
            raise TypeError("journal() takes exactly one of start=PATH, stop=True and flush=True")
        request: Dict[str, Any] = {"op": "journal"}
        if start is not None:
            request["start"] = os.fspath(start)
        elif stop:
            request["stop"] = True
        else:
            request["flush"] = True
        response = self.execute(request)
        response.pop("ok", None)
        return response

    def rewind(self, seq: int) -> Dict[str, Any]:
        """Restores the state right after input ``seq`` of the active journal.

        Needs an active journal (else YaiaError "bad_journal"); the rewind is
        journaled as a restore. Returns what :meth:`restore` returns, plus "to".
        """
        response = self.execute({"op": "rewind", "to": seq})
        self._forget_schemas()
        self._restarted(response)
        response.pop("ok", None)
        return response

    def replay(self, journal: PathLike, to: Optional[int] = None) -> ReplayResult:
        """Re-runs a journal in a scratch runtime (no services: outcomes come
        from the journal) and compares every view model with its digest.

        With ``to``, stops after that input; :attr:`ReplayResult.snapshot` is
        then the state reached. This runtime is only used for its catalog.
        """
        request: Dict[str, Any] = {"op": "replay", "journal": os.fspath(journal)}
        if to is not None:
            request["to"] = to
        return ReplayResult.from_raw(self.execute(request))

    def scenario(self, scenario: Union[PathLike, Mapping[str, Any]], base: Optional[PathLike] = None) -> Dict[str, Any]:
        """Runs a scenario (a ``*.scenario.json`` file, docs/testing.md) and
        returns the answer: {"name", "passed", "steps", "failure"?}.

        ``scenario`` is the scenario itself (a mapping) or the path of its
        file, which the runtime reads (subject to the ``files`` grant).
        ``base`` is the folder its ``scenes`` paths start from (default: the
        file's folder; for a mapping, the working directory). The scenario
        runs in a runtime of its own, on a manual clock and without
        services, with this runtime's scene types plus its own ``scenes``;
        only its ``perform`` steps use this runtime's services (and need
        the grant ``allow=["perform"]``).

        A scenario that ran and failed is an answer, not an exception: its
        ``passed`` is False and its ``failure`` says where, with ``text``, a
        readable diff naming the step and each JSON Pointer. A malformed
        scenario raises YaiaError "bad_scenario", whose ``problems`` lists
        every fault.
        """
        request: Dict[str, Any] = {"op": "scenario"}
        if isinstance(scenario, Mapping):
            request["scenario"] = dict(scenario)
        else:
            request["path"] = os.fspath(scenario)
        if base is not None:
            request["base"] = os.fspath(base)
        response = self.execute(request)
        response.pop("ok", None)
        return response

    def simulate(
        self,
        scene: str,
        *,
        runs: Optional[int] = None,
        seed: Optional[int] = None,
        steps: Optional[int] = None,
        args: Optional[Mapping[str, Any]] = None,
        env: Optional[Mapping[str, Any]] = None,
        scenes: Optional[Iterable[PathLike]] = None,
        base: Optional[PathLike] = None,
    ) -> Dict[str, Any]:
        """Drives scene type ``scene`` (a scene document) with random valid
        actions and effect outcomes, checking its invariants after every
        step (docs/simulation.md).

        ``runs`` sequences of at most ``steps`` steps each, drawn from
        ``seed`` (the same seed, the same answer); each run opens the scene
        with ``args`` and ``env``; None leaves the request's default.
        ``scenes`` adds packs, documents or folders (relative to ``base``,
        inside the ``files`` grant) to this runtime's scene types. Returns
        {"passed": True, "runs", "invariants"}, or on a broken invariant
        {"passed": False, "run", "seed", "invariant", "message", "steps",
        "found", "invariants", "scenario"}, where ``scenario`` is the failing
        run shrunk to a short scenario that :meth:`scenario` runs again.
        """
        request: Dict[str, Any] = {"op": "simulate", "scene": scene}
        for key, value in (("runs", runs), ("seed", seed), ("steps", steps), ("args", args), ("env", env)):
            if value is not None:
                request[key] = dict(value) if isinstance(value, Mapping) else value
        if scenes is not None:
            if isinstance(scenes, (str, bytes, os.PathLike)):
                raise TypeError("simulate() takes scenes= as a list of paths, not one path")
            request["scenes"] = [os.fspath(p) for p in scenes]
        if base is not None:
            request["base"] = os.fspath(base)
        response = self.execute(request)
        response.pop("ok", None)
        return response
