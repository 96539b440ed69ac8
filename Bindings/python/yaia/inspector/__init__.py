"""The inspector: a session's inputs on a timeline, each with its state
change as a JSON Patch, time travel, sessions as files and the scene graph,
in a browser (docs/inspector.md). Needs aiohttp (PyPI), as yaia.web does.

Beside the web shell: ``python -m yaia.web ... --inspector``, then
/inspector/#session=KEY. A journal file on its own (a C host's)::

    python -m yaia.inspector --journal session.jsonl Examples/notes-documents

A Python host's own Runtime, live (it keeps a journal and grants "journal")::

    served = yaia.inspector.serve(runtime, ["Examples/notes-documents"])
"""

from __future__ import annotations

from .host import serve
from .offline import open_journal, serve_journal
from .timeline import Timeline

__all__ = ["Timeline", "open_journal", "serve", "serve_journal"]
