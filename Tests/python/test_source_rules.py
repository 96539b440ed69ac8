"""The structural rules of the sources, checked: files short enough to read,
functions with few parameters, no underscored standard-library API, and each
request op named once, in the op table.

Reads the repository's files only; needs no build.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SOURCES = REPO / "Sources"
MAX_LINES = 500
MAX_PARAMETERS = 6

def relative(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def swift_files() -> list[Path]:
    return sorted(SOURCES.rglob("*.swift"))


def source_files() -> list[Path]:
    suffixes = {".swift", ".c", ".h", ".py", ".pyi"}
    roots = [SOURCES, REPO / "Bindings"]
    return sorted(
        p for root in roots for p in root.rglob("*")
        if p.is_file() and p.suffix in suffixes and "__pycache__" not in p.parts
    )


TOKEN = re.compile(r'//|/\*|(#*)("""|")')


def without_comments_and_strings(text: str) -> str:
    """Swift text with comments and string literals blanked (newlines kept),
    so that what is left is code. Handles //, nested /* */, "..." with
    escapes, multi-line and raw (#"..."#) strings."""
    out: list[str] = []
    i, n = 0, len(text)
    while True:
        m = TOKEN.search(text, i)
        if not m:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:m.start()])
        if m.group(0) == "//":
            j = text.find("\n", m.end())
            i = n if j < 0 else j
            continue
        if m.group(0) == "/*":
            depth, j = 1, m.end()
            while j < n and depth:
                k = re.compile(r"/\*|\*/").search(text, j)
                if not k:
                    j = n
                    break
                depth += 1 if k.group(0) == "/*" else -1
                j = k.end()
        else:
            hashes, quote = m.group(1), m.group(2)
            close = quote + hashes
            j = m.end()
            while j < n and not text.startswith(close, j):
                j += 2 if (text[j] == "\\" and not hashes) else 1
            j += len(close)
            out.append('""')
        out.append("\n" * text.count("\n", m.start(), j))
        i = j


# ---------------------------------------------------------------- file length

def test_no_source_file_is_over_500_lines():
    long = []
    for path in source_files():
        lines = path.read_text(encoding="utf-8", errors="replace").count("\n")
        if lines > MAX_LINES:
            long.append(f"{relative(path)}: {lines} lines")
    assert not long, "over 500 lines (put new concepts in new files):\n" + "\n".join(long)


# ---------------------------------------------------------------- parameters

DECLARATION = re.compile(r"\b(func\s+(?:[A-Za-z_][A-Za-z0-9_]*|[^\s(<]+)|init[?!]?|subscript)\s*(<)?")


def balanced(code: str, start: int, open_: str, close: str) -> int:
    """The index just past the bracket that closes the one at `start`."""
    depth = 0
    for i in range(start, len(code)):
        if code[i] == open_:
            depth += 1
        elif code[i] == close:
            depth -= 1
            if depth == 0:
                return i + 1
    return len(code)


def top_level_commas(text: str) -> int:
    """Commas outside (), [], {} and generic <>: the parameter separators."""
    depth = 0
    commas = 0
    prev = ""
    for c in text:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "<":
            depth += 1
        elif c == ">" and prev != "-":  # "->" in a closure type is no bracket
            depth -= 1
        elif c == "," and depth == 0:
            commas += 1
        prev = c
    return commas


def signatures(code: str):
    """(name, parameter count, offset) for each func, init and subscript."""
    for m in DECLARATION.finditer(code):
        i = m.end()
        if m.group(2):  # generic parameters
            i = balanced(code, i - 1, "<", ">")
        while i < len(code) and code[i].isspace():
            i += 1
        if i >= len(code) or code[i] != "(":
            continue
        end = balanced(code, i, "(", ")")
        inner = code[i + 1:end - 1]
        count = 0 if not inner.strip() else top_level_commas(inner) + 1
        yield m.group(1).split()[-1], count, m.start()


def test_parameter_counter_reads_swift_signatures():
    code = without_comments_and_strings(
        "func a(_ x: Int, y: [String: Int] = [:], z: (Int, Int) -> Void = { _, _ in }) {}\n"
        "init<T: Sequence>(values: T, pick: (T.Element, Int) throws -> Bool) where T: Sendable {}\n"
        'func b(s: String = "a, b", d: Dictionary<String, Int>) {}\n'
        "func c() {}\n"
        "subscript(i: Int, j: Int) -> Int { 0 }\n"
    )
    assert [(name, count) for name, count, _ in signatures(code)] == [
        ("a", 3), ("init", 2), ("b", 2), ("c", 0), ("subscript", 2),
    ]


def over_six_parameters() -> list[tuple[str, str]]:
    found = []
    for path in swift_files():
        code = without_comments_and_strings(path.read_text(encoding="utf-8"))
        for name, count, offset in signatures(code):
            if count > MAX_PARAMETERS:
                line = code.count("\n", 0, offset) + 1
                found.append((relative(path), f"{relative(path)}:{line}: {name} takes {count} parameters"))
    return found


def test_no_function_takes_more_than_6_parameters():
    found = [text for _, text in over_six_parameters()]
    assert not found, "more than 6 parameters (group them in a value):\n" + "\n".join(found)


# ---------------------------------------------------------------- underscored API

# `_modify` is a Swift accessor (the in-place mutation of a subscript), not
# a library call; @_cdecl is how the C ABI is exported.
UNDERSCORED = re.compile(r"@_(?!cdecl\b)[A-Za-z]+|\._[A-Za-z][A-Za-z0-9_]*|(?<![A-Za-z0-9_.@])_[A-Za-z][A-Za-z0-9_]*\s*\(")


def underscored_uses() -> list[tuple[str, str]]:
    found = []
    for path in swift_files():
        code = without_comments_and_strings(path.read_text(encoding="utf-8"))
        for m in UNDERSCORED.finditer(code):
            line = code.count("\n", 0, m.start()) + 1
            found.append((relative(path), f"{relative(path)}:{line}: {m.group(0).rstrip('( ')}"))
    return found


def test_the_underscore_rule_sees_what_it_forbids():
    code = without_comments_and_strings(
        "@_exported import A\n@_cdecl(\"yaia_x\") func f() {}\n"
        "x._withUnsafeGuaranteedRef { }\nfunc _rawHashValue(seed: Int) -> Int\n"
        "let _ = y; f(_ z: 1) // ._hidden\n"
    )
    assert [m.group(0).rstrip("( ") for m in UNDERSCORED.finditer(code)] == [
        "@_exported", "._withUnsafeGuaranteedRef", "_rawHashValue",
    ]


def test_no_underscored_standard_library_api():
    found = [text for _, text in underscored_uses()]
    assert not found, "underscored API (use the public one):\n" + "\n".join(found)


# ---------------------------------------------------------------- op names

OP_TABLE = SOURCES / "YaiaRuntime" / "OpTable.swift"
RUNTIME = [SOURCES / "YaiaRuntime", SOURCES / "YaiaABI", SOURCES / "YaiaCore"]


def op_names() -> list[str]:
    names = re.findall(r'\bOp\(\s*"([a-z_]+)"', OP_TABLE.read_text(encoding="utf-8"))
    assert names, f"no Op(\"name\", ...) in {relative(OP_TABLE)}"
    return names


def op_spellings(path: Path, names: list[str]) -> list[tuple[int, str]]:
    """Where the file spells an op's name as an op: an Op declaration, a
    request's or a journal line's "op"/"kind", a comparison with an op or
    kind, or a case of a switch over one."""
    text = path.read_text(encoding="utf-8")
    # Comments say what they like; strings are code here.
    code = re.sub(r"//[^\n]*", "", text)
    alternatives = "|".join(map(re.escape, names))
    spelled = re.compile(
        rf'\bOp\(\s*"(?P<a>{alternatives})"'
        rf'|"(?:op|kind)"\s*[:,]\s*"(?P<b>{alternatives})"'
        rf'|\b(?:op|kind|name)\s*[!=]=\s*"(?P<c>{alternatives})"'
        rf'|\b(?:op|kind):\s*"(?P<d>{alternatives})"'
    )
    found = []
    for m in spelled.finditer(code):
        name = next(g for g in m.groups() if g)
        found.append((code.count("\n", 0, m.start()) + 1, name))
    # case "name": in a switch over an op or a kind
    switch_over = None
    for number, line in enumerate(code.split("\n"), 1):
        s = re.search(r"\bswitch\s+(.*?)\s*\{", line)
        if s:
            switch_over = s.group(1)
        for c in re.finditer(rf'\bcase\s+"({alternatives})"', line):
            if switch_over and re.search(r"\b(op|kind)\b", switch_over, re.IGNORECASE):
                found.append((number, c.group(1)))
    return found


def op_name_places() -> dict[str, list[str]]:
    names = op_names()
    places: dict[str, list[str]] = {name: [] for name in names}
    for root in RUNTIME:
        for path in sorted(root.rglob("*.swift")):
            for line, name in op_spellings(path, names):
                places[name].append(f"{relative(path)}:{line}")
    return places


def test_the_op_table_names_each_op_once():
    names = op_names()
    assert len(names) == len(set(names)), "an op declared twice in OpTable.swift"
    for name, places in op_name_places().items():
        assert sum(p.startswith(relative(OP_TABLE) + ":") for p in places) == 1, (name, places)


def stray_op_names() -> list[str]:
    stray = []
    for name, places in op_name_places().items():
        for place in places:
            path = place.split(":")[0]
            if path != relative(OP_TABLE):
                stray.append(f'{place}: "{name}"')
    return stray


def test_an_op_name_is_spelled_only_in_the_op_table():
    stray = stray_op_names()
    assert not stray, "an op's name spelled outside OpTable.swift (use Op.NAME.name):\n" + "\n".join(stray)


