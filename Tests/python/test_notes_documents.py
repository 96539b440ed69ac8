"""The notes app's scene documents (Examples/notes-documents) against the
format's JSON Schema, docs/scene-document.schema.json: one document a scene,
each valid. Independent of the library: it reads the files only.
test_notes_values.py and test_notes.py run the documents themselves.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

REPO = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / "docs" / "scene-document.schema.json").read_text())
DOCS = REPO / "Examples" / "notes-documents"
FILES = {"login.json": "notes/login", "list.json": "notes/list", "row.json": "notes/row", "editor.json": "notes/editor"}


def test_the_folder_holds_the_four_scenes() -> None:
    assert sorted(p.name for p in DOCS.glob("*.json")) == sorted(FILES)


@pytest.mark.parametrize("name", sorted(FILES))
def test_each_document_is_valid_against_the_format_schema(name: str) -> None:
    document = json.loads((DOCS / name).read_text())
    assert document["scene"] == FILES[name]
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
              for e in jsonschema.Draft202012Validator(SCHEMA).iter_errors(document)]
    assert errors == []
