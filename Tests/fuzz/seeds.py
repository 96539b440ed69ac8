"""Seeds for the fuzzer derived from the JSON parsing suite (JSONTestSuite).

    python3 Tests/fuzz/seeds.py OUT_DIR [CONFORMANCE_DIR]

Reads the suite at build time (it is not copied into the repository) and
writes, for each of its files, the file as a request of its own, and for the
documents a parser accepts, requests that carry them where the runtime reads
values of any shape: a request's tag, an action's payload, a scene's open
arguments, an effect's args. Without the suite (CONFORMANCE_DIR missing), it
writes nothing: the committed corpus still seeds the fuzzer.
"""

import sys
from pathlib import Path

# Larger files (the suite's 100,000 nested arrays) exceed the fuzzer's -max_len.
MAX_BYTES = 16384


def carriers(doc: bytes) -> list[bytes]:
    """One-line request sequences that carry doc somewhere a value is read."""
    return [
        b'{"op":"scenes","tag":' + doc + b"}",
        b'{"op":"open","scene":"example/login"}\n'
        b'{"op":"send","scene":1,"action":{"type":"loginFailed","payload":' + doc + b"}}",
        b'{"op":"open","scene":"example/jobs","args":' + doc + b"}",
        b'{"op":"perform","effect":{"service":"math","op":"pow","args":' + doc + b"}}",
    ]


def main() -> int:
    out = Path(sys.argv[1])
    suite = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("json-*"):
        old.unlink()
    if suite is None or not suite.is_dir():
        print(f"seeds.py: no JSON suite at {suite}; the committed corpus alone seeds the fuzzer")
        return 0
    count = 0
    for path in sorted(suite.glob("*.json")):
        text = path.read_bytes()
        if len(text) > MAX_BYTES:
            continue
        (out / f"json-{path.stem}").write_bytes(text)
        count += 1
        # Raw line breaks are white space between tokens in the documents a
        # parser may accept; a request is one line.
        if path.name.startswith(("y_", "i_")):
            doc = text.replace(b"\r", b" ").replace(b"\n", b" ")
            for i, request in enumerate(carriers(doc)):
                (out / f"json-{path.stem}-{i}").write_bytes(request)
                count += 1
    print(f"seeds.py: {count} seeds from {suite} in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
