"""The Runtime's catalog of scene types: what it lists, the schema of
each type, scene documents registered, and the Scene class of each type."""

from __future__ import annotations

import copy
from typing import Any, Dict, Mapping, Optional, Type

from .errors import YaiaError
from .handle import _Requests
from .scenes import Scene
from .schema import SceneSchema


class _Catalog(_Requests):
    """Scene types: asked of the runtime once per name, and remembered
    until a restore or a rewind."""

    _schemas: Dict[str, SceneSchema]
    _schema_op: bool
    _scene_types: Dict[str, Type[Scene]]

    def scenes(self) -> Dict[str, Any]:
        """{"scenes": [{"id", "name", "seq"}, ...], "types": [NAME, ...],
        "packs": [{"name", "version", "path", "scenes"}, ...],
        "flows": [{"id", "name"?, "version", "depth"}, ...]}."""
        response = self.execute({"op": "scenes"})
        response.pop("ok", None)
        return response

    def schema(self, scene: str) -> Dict[str, Any]:
        """The interface of scene type ``scene``: {"scene": NAME, "declared":
        BOOL, "schema": SCHEMA}.

        SCHEMA is a JSON Schema (draft 2020-12) whose ``$defs`` describe the
        scene's ``args``, ``state``, ``action`` (one alternative per action
        type, with its payload), ``effect``, ``route`` and ``viewModel``.
        "declared" is True for a scene document; Swift and pack scenes
        declare nothing, and their schema takes any action. Asked of the
        runtime once per name (a name keeps its type until a restore or a
        rewind); each call returns a copy. Raises YaiaError "unknown_scene"
        for a name the catalog does not have.
        """
        schema = self._scene_schema(scene)
        return {"scene": schema.scene, "declared": schema.declared, "schema": copy.deepcopy(schema.schema)}

    def register(self, document: Mapping[str, Any]) -> str:
        """Adds the scene document ``document`` (docs/scene-documents.md) to
        the catalog; returns its scene type's name.

        A privileged request: it needs the grant ``allow=["register"]``
        (else YaiaError "not_permitted"). A document with problems raises
        YaiaError "bad_document", whose ``problems`` lists every one
        ({"code", "message", "at"}, ``at`` pointing into the document); a
        name the catalog has already raises "duplicate_scene".
        """
        name: str = self.execute({"op": "register", "document": dict(document)})["scene"]
        return name

    def _scene_schema(self, scene: str) -> SceneSchema:
        schema = self._schemas.get(scene)
        if schema is None:
            schema = SceneSchema(self.execute({"op": "schema", "scene": scene}))
            self._schemas[scene] = schema
        return schema

    def _forget_schemas(self) -> None:
        # A snapshot carries the documents registered when it was taken.
        self._schemas.clear()
        self._scene_types.clear()

    def _declared(self, scene: str) -> Optional[SceneSchema]:
        """The schema of ``scene`` when it declares its interface, else None
        (also when the library cannot say: then the runtime checks alone)."""
        schema = self._schemas.get(scene)
        if schema is None:
            if not self._schema_op:
                return None
            try:
                schema = self._scene_schema(scene)
            except YaiaError as exc:
                if exc.code == "unknown_op":
                    self._schema_op = False
                return None
        return schema if schema.declared else None

    def _scene_type(self, scene: str) -> Type["Scene"]:
        """The class of scenes of type ``scene``: for a declared type, a
        subclass of Scene made once, whose docstring lists its actions, so
        that help(scene) shows them."""
        cls = self._scene_types.get(scene)
        if cls is not None:
            return cls
        schema = self._declared(scene)
        if schema is None:
            return Scene
        label = f"Scene[{scene!r}]"
        cls = type(label, (Scene,), {"__doc__": schema.doc(), "__module__": Scene.__module__, "__qualname__": label})
        self._scene_types[scene] = cls
        return cls
