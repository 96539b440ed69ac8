"""docs/scenes.md, run: the page's commands, in order, in an empty folder.

A fenced block's info string says what happens to it:

    ```sh, ```python          run (bash -e, python3); must succeed
    ```swift file=PATH        each of its lines must be a line of PATH (the
                              folder the blocks are in at that point), in order
    ... illustrative          not run (a few: the page's setup, for instance)
    anything else             not run

The blocks see the setup that the page's "What you need" block describes:
YAIA is this repository, its yaia ($YAIA_CLI) is on PATH and
PYTHONPATH holds Bindings/python. A sh block's last folder (`cd`) is where the
next block runs. So the test generates a pack, builds it (about 15 s on
2 cores, most of this test's time), runs its Swift tests, and drives its
scene from Python.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import List

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "scenes.md"
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)
TIMEOUT = 900  # seconds per block: a cold swift build on a slow machine


@dataclass
class Block:
    language: str
    attributes: List[str]
    text: str
    line: int

    @property
    def where(self) -> str:
        return f"docs/scenes.md:{self.line} ({' '.join([self.language, *self.attributes])})"


def blocks(page: str) -> List[Block]:
    found = []
    for m in FENCE.finditer(page):
        info = m.group(1).split()
        found.append(Block(info[0] if info else "", info[1:], m.group(2), page.count("\n", 0, m.start()) + 1))
    return found


def runnable(block: Block) -> bool:
    return block.language in ("sh", "python") and "illustrative" not in block.attributes


def test_the_page_is_mostly_runnable() -> None:
    page = blocks(PAGE.read_text())
    run = [b for b in page if runnable(b)]
    illustrative = [b for b in page if "illustrative" in b.attributes]
    checked = [b for b in page if b.language == "swift" and any(a.startswith("file=") for a in b.attributes)]
    assert any("yaia new pack" in b.text for b in run)
    assert sum(b.language == "python" for b in run) >= 2
    assert len(illustrative) <= 2, [b.where for b in illustrative]
    assert len(checked) >= 4
    for b in page:
        unknown = [a for a in b.attributes if a != "illustrative" and not a.startswith("file=")]
        assert not unknown, f"{b.where}: unknown attributes {unknown}"


def excerpt_problem(block: Block, folder: Path) -> str:
    """Why `block` is not an excerpt of its file ("" when it is)."""
    (name,) = [a[len("file="):] for a in block.attributes if a.startswith("file=")]
    path = folder / name
    if not path.is_file():
        return f"{path} does not exist"
    lines = [line.strip() for line in path.read_text().splitlines()]
    at = 0
    for wanted in (line.strip() for line in block.text.splitlines()):
        if not wanted:
            continue
        try:
            at = lines.index(wanted, at) + 1
        except ValueError:
            return f"{name} has no line {wanted!r} (in this order)"
    return ""


@pytest.fixture(scope="module")
def cli() -> str:
    path = Path(os.environ.get("YAIA_CLI", REPO / ".build" / "release" / "yaia"))
    if not path.exists():
        pytest.skip(f"{path} is not built (make cli)")
    if shutil.which("swift") is None:
        pytest.skip("swift is not on PATH")
    return str(path)


@pytest.mark.walkthrough
def test_the_page_runs(cli: str, tmp_path: Path) -> None:
    env = dict(os.environ)
    env["YAIA"] = str(REPO)
    env["PATH"] = os.pathsep.join([str(Path(cli).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(REPO / "Bindings" / "python"), env.get("PYTHONPATH", "")] if p)
    work = tmp_path / "work"
    work.mkdir()
    scripts = tmp_path / "blocks"
    scripts.mkdir()
    folder = work
    ran = 0
    for n, block in enumerate(blocks(PAGE.read_text())):
        if block.language == "swift" and any(a.startswith("file=") for a in block.attributes):
            problem = excerpt_problem(block, folder)
            assert not problem, f"{block.where} is not what yaia new pack wrote: {problem}"
            continue
        if not runnable(block):
            continue
        if block.language == "sh":
            last = scripts / f"{n}.cwd"
            script = scripts / f"{n}.sh"
            script.write_text(f"set -e -o pipefail\n{block.text}\npwd > {str(last)!r}\n")
            command = ["bash", str(script)]
        else:
            script = scripts / f"{n}.py"
            script.write_text(block.text)
            command = [sys.executable, str(script)]
        done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=TIMEOUT)
        assert done.returncode == 0, (
            f"{block.where} failed ({done.returncode}) in {folder}:\n{block.text}\n"
            f"--- stdout\n{done.stdout[-4000:]}\n--- stderr\n{done.stderr[-4000:]}"
        )
        # The generated package compiles without warnings, as this repository does.
        warnings = [line for line in (done.stdout + done.stderr).splitlines() if "warning:" in line]
        assert not warnings, f"{block.where}:\n" + "\n".join(warnings)
        if "swift test" in block.text:
            # Swift Testing's run alone, with no XCTest run of zero tests before it.
            assert "Executed 0 tests" not in done.stdout + done.stderr and "passed" in done.stdout + done.stderr, done.stdout
        if block.language == "sh":
            folder = Path(last.read_text().strip())
        ran += 1
    assert ran >= 6
    # What the page built is what it says it built.
    shop = work / "shop"
    assert (shop / ".build" / "release" / "libshop.so").is_file()
    assert (shop / "libcounter.so").is_file()
    # The generated README's Python snippet runs as it is.
    (snippet,) = [b for b in blocks((shop / "README.md").read_text()) if b.language == "python"]
    (scripts / "readme.py").write_text(snippet.text)
    done = subprocess.run([sys.executable, str(scripts / "readme.py")], cwd=shop, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "{'canSave': True, 'count': 42, 'status': None}\n"
