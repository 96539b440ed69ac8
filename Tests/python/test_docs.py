"""README.md and docs/*.md, checked: their marked code blocks run, and their links resolve.

A fenced block runs when its info string says so, after the language (GitHub
shows the first word and ignores the rest):

    ```c run            compiled with -std=c11 -Wall -Wextra -Werror against
                        libyaia.so, then run; must exit 0
    ```c shared         compiled as a plugin (-shared -fPIC) under -Werror
    ```sh run           run with bash -e -o pipefail; must exit 0
    ```python run       run with python3, the binding on PYTHONPATH; must exit 0
    ```json run         one request, performed by `yaia exec` (YAIA_CLI, else
                        .build/release/yaia), which prints the response
    ```LANG output      what the block before it printed: its standard output
                        ends with this text, "..." standing for any text
    save=PATH           (with any of the above) the block is also saved as
                        PATH, for the blocks after it; a c block is compiled
                        under -Werror there
    cwd=DIR             where the block runs; the repository by default
    needs=PATH          a build artifact the block needs; missing, the rest of
                        the page is skipped, saying so

PATH and DIR are relative to the repository; "~" is a home folder of the
page's own, fresh for each run, so blocks may write there (`mkdir ~/hello`).
YAIA is the repository. Unmarked blocks are fragments and are not run.
docs/scenes.md and docs/testing.md have runners of their own
(test_scenes_doc.py, test_testing.py) and are only link-checked here.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional
from urllib.parse import unquote

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
OWN_RUNNER = {REPO / "docs" / "scenes.md", REPO / "docs" / "testing.md"}
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)
WORDS = {"run", "shared", "output"}
KEYS = {"save", "cwd", "needs"}
CWARN = ["-std=c11", "-Wall", "-Wextra", "-Werror"]
TIMEOUT = 900  # seconds per block: `make` in a block may build


@dataclass
class Block:
    page: Path
    line: int
    language: str
    words: List[str]
    keys: Dict[str, str]
    text: str
    unknown: List[str] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"


def blocks(page: Path) -> List[Block]:
    text = page.read_text()
    found = []
    for m in FENCE.finditer(text):
        info = m.group(1).split()
        words, keys, unknown = [], {}, []
        for part in info[1:]:
            key, eq, value = part.partition("=")
            if eq and key in KEYS:
                keys[key] = value
            elif part in WORDS:
                words.append(part)
            else:
                unknown.append(part)
        found.append(Block(page, text.count("\n", 0, m.start()) + 1, info[0] if info else "", words, keys,
                           m.group(2), unknown))
    return found


def marked(block: Block) -> bool:
    return bool(block.words or block.keys)


def library_dir() -> Path:
    library = os.environ.get("YAIA_LIBRARY")
    return Path(library).parent if library else REPO / ".build" / "release"


def expected_output(text: str) -> "re.Pattern[str]":
    """The block's text as a pattern for the end of an output; "..." is any text."""
    pattern = ".*?".join(re.escape(part) for part in text.rstrip("\n").split("..."))
    return re.compile(r"(?:.*\n)?" + pattern, re.S)


# ---------------------------------------------------------------- the blocks run


@pytest.mark.walkthrough
@pytest.mark.parametrize("page", [p for p in PAGES if p not in OWN_RUNNER], ids=lambda p: p.name)
def test_the_marked_blocks_run(page: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    scratch = tmp_path / "blocks"
    scratch.mkdir()
    env = dict(os.environ)
    env["HOME"] = str(home)
    env["YAIA"] = str(REPO)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(REPO / "Bindings" / "python"), env.get("PYTHONPATH", "")] if p)
    cc = shlex.split(env.get("CC", "cc"))

    def place(path: str) -> Path:
        return home / path[2:] if path.startswith("~/") else home if path == "~" else REPO / path

    def run(command: List[str], block: Block, cwd: Path) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT)
        assert done.returncode == 0, (
            f"{block.where} ({block.language} {' '.join(block.words)}) failed ({done.returncode}) in {cwd}:\n"
            f"{block.text}\n--- stdout\n{done.stdout[-4000:]}\n--- stderr\n{done.stderr[-4000:]}"
        )
        return done

    last: Optional[str] = None
    ran = 0
    for n, block in enumerate(blocks(page)):
        if not marked(block):
            continue
        if "needs" in block.keys and not place(block.keys["needs"]).exists():
            pytest.skip(f"{block.where} needs {block.keys['needs']}, which is not built (make test builds it)")
        cwd = place(block.keys.get("cwd", "."))
        cwd.mkdir(parents=True, exist_ok=True)
        source = place(block.keys["save"]) if "save" in block.keys else scratch / f"{n}.{block.language}"
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text(block.text)
        if "output" in block.words:
            assert last is not None, f"{block.where}: an output block follows no block that ran"
            assert expected_output(block.text).fullmatch(last.rstrip("\n")), (
                f"{block.where}: the output is not the one the page shows:\n{block.text}\n--- printed\n{last}")
            last = None
            continue
        if block.language == "c":
            include = ["-I", str(REPO / "Include")]
            if "shared" in block.words:
                run([*cc, *CWARN, *include, "-fPIC", "-shared", "-fvisibility=hidden", "-o", str(scratch / f"{n}.so"),
                     str(source)], block, cwd)
            elif "run" in block.words:
                program = scratch / str(n)
                run([*cc, *CWARN, *include, "-o", str(program), str(source), "-L", str(library_dir()), "-lyaia",
                     f"-Wl,-rpath,{library_dir()}"], block, cwd)
                last = run([str(program)], block, cwd).stdout
            else:
                run([*cc, *CWARN, *include, "-c", "-o", os.devnull, str(source)], block, cwd)
        elif "run" in block.words and block.language == "sh":
            last = run(["bash", "-e", "-o", "pipefail", str(source)], block, cwd).stdout
        elif "run" in block.words and block.language == "python":
            last = run([sys.executable, str(source)], block, cwd).stdout
        elif "run" in block.words and block.language == "json":
            cli = os.environ.get("YAIA_CLI", str(REPO / ".build" / "release" / "yaia"))
            last = run([cli, "exec", json.dumps(json.loads(block.text))], block, cwd).stdout
        elif "run" in block.words:
            pytest.fail(f"{block.where}: no way to run a {block.language!r} block")
        ran += 1
    assert ran or page.name != "README.md", "the README runs nothing"


def test_the_markers_are_known_words() -> None:
    problems = []
    for page in PAGES:
        if page in OWN_RUNNER:
            continue
        for block in blocks(page):
            if block.unknown:
                problems.append(f"{block.where}: unknown words {block.unknown} (known: {sorted(WORDS)}, "
                                f"{sorted(k + '=' for k in KEYS)})")
            if "output" in block.words and len(block.words) + len(block.keys) > 1:
                problems.append(f"{block.where}: an output block takes no other word")
    assert not problems, "\n".join(problems)


def test_the_first_hour_is_checked() -> None:
    """The README's C and Python programs, and the plugin template, are among the blocks that run."""
    def kinds(page: str) -> List[str]:
        return [f"{b.language} {' '.join(b.words)}".strip() for b in blocks(REPO / page) if marked(b)]

    readme = kinds("README.md")
    assert "python run" in readme and "sh run" in readme and "c" in readme
    assert "c shared" in kinds("docs/services.md")


def test_output_patterns() -> None:
    assert expected_output('{"a":1,...}\n').fullmatch('make: nothing\n{"a":1,"b":2}')
    assert not expected_output('{"a":1,...}\n').fullmatch('{"a":2}')
    assert not expected_output("pong\n").fullmatch("ping pong")


# ---------------------------------------------------------------- links

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|^\[[^\]]+\]:\s*(\S+)", re.M)


def without_code(text: str) -> str:
    """The page without fenced blocks and code spans, where brackets are not links."""
    text = FENCE.sub("", text)
    return re.sub(r"`[^`\n]*`", "", text)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for m in LINK.finditer(without_code(page.read_text())):
        target = m.group(1) or m.group(2)
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue
        path = (page.parent / unquote(target.split("#", 1)[0])).resolve()
        if not path.exists() or REPO not in (path, *path.parents):
            broken.append(target)
    assert not broken, f"{page.relative_to(REPO)} links to what the repository does not have: {broken}"


MENTION = re.compile(r"(?<![\w./$-])((?:docs|Include|Sources|Examples|Tests|Bindings|Benchmarks)/[\w.+-]+(?:/[\w.+-]+)*)")


@pytest.mark.parametrize("page", [p for p in PAGES if p.name != "scenes.md"], ids=lambda p: p.name)
def test_the_files_a_page_names_are_in_the_repository(page: Path) -> None:
    """Paths of the repository a page names in its prose, not only in links, build outputs aside.
    Code blocks may name files a reader makes; docs/scenes.md names those of the package it generates."""
    named = {m.group(1).rstrip(".") for m in MENTION.finditer(FENCE.sub("", page.read_text()))}
    missing = sorted(path for path in named if "/.build/" not in path and not (REPO / path).exists())
    assert not missing, f"{page.relative_to(REPO)} names what the repository does not have: {missing}"


def test_the_link_check_sees_links() -> None:
    found = [m.group(1) or m.group(2) for m in LINK.finditer(without_code(
        "[a](docs/abi.md) ![img](x.png) `[no](code.md)`\n[ref]: LICENSE\n```\n[no](block.md)\n```\n"))]
    assert found == ["docs/abi.md", "LICENSE"]
