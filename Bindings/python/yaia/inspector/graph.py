"""The scene graph as data for the inspector to draw: scene types, the
routes between them and the effects they emit, read from each type's schema
(the `schema` request), as `yaia graph` reads it."""

from __future__ import annotations

from typing import Any, Dict, List, Set

from ..web.engine import Engine

__all__ = ["scene_graph"]

_ROUTES = ("push", "present", "replace", "popTo")


def _consts(value: Any, found: List[Dict[str, Any]], key: str = "") -> None:
    if isinstance(value, dict):
        if isinstance(value.get("const"), str):
            found.append({"key": key, "value": value["const"]})
        for k, v in value.items():
            _consts(v, found, k if k not in ("properties", "const") else key)
    elif isinstance(value, list):
        for v in value:
            _consts(v, found, key)


def scene_graph(engine: Engine, limit: int = 200) -> Dict[str, Any]:
    """``{"nodes": [{"id", "declared", "effects", "actions"}], "edges": [{"from", "to", "route"}]}``."""
    listing = engine.execute_value({"op": "scenes"})
    types = [t for t in listing.get("types") or [] if isinstance(t, str)][:limit]
    known: Set[str] = set(types)
    nodes: List[Dict[str, Any]] = []
    edges: List[Dict[str, Any]] = []
    for name in types:
        answer = engine.execute_value({"op": "schema", "scene": name})
        defs = ((answer.get("schema") or {}).get("$defs") or {}) if answer.get("ok") else {}
        node: Dict[str, Any] = {"id": name, "declared": bool(answer.get("declared"))}
        found: List[Dict[str, Any]] = []
        _consts(defs.get("action"), found)
        node["actions"] = sorted({f["value"] for f in found if f["key"] == "type"})[:50]
        found = []
        _consts(defs.get("effect"), found)
        services = [f["value"] for f in found if f["key"] == "service"]
        ops = [f["value"] for f in found if f["key"] == "op"]
        node["effects"] = sorted({f"{s}.{o}" for s, o in zip(services, ops)})[:50]
        found = []
        _consts(defs.get("route"), found)
        seen: Set[str] = set()
        for f in found:
            if f["value"] in known and f["value"] not in seen:
                seen.add(f["value"])
                edges.append({"from": name, "to": f["value"], "route": f["key"] if f["key"] in _ROUTES else "route"})
        nodes.append(node)
    return {"nodes": nodes, "edges": edges}
