"""Seeds for the fuzzer, one file each (docs/fuzzing.md).

    python3 Tests/fuzz/seeds.py OUT_DIR [JSON_SUITE [LOGIC_TESTS [EXAMPLES]]]

Every surface of the fuzz target gets seeds (Tests/fuzz/fuzz_execute.c):

- requests, from the JSON parsing suite (JSONTestSuite, JSON_SUITE): each of
  its files as a request of its own, and the documents a parser accepts
  carried where the runtime reads values of any shape: a request's tag, an
  action's payload, a scene's open arguments, an effect's args;
- @document, from the scene documents of EXAMPLES (Examples/notes-documents)
  and Tests/documents: each registered and sent every action it defines,
  and the actions of the scenarios that test it;
- @logic, from the JSON Logic suite (LOGIC_TESTS, tests.json): each rule with
  its data;
- @scenario, from the scenario files of EXAMPLES: the examples pack they name
  is the fuzzer's own already, and the scene documents they load come along
  as "#FILE" lines that write them beside the scenario.

The suites are read at build time (they are not copied into the
repository); one that is missing gives no seeds, and the committed corpus
still seeds the fuzzer.
"""

import json
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


def compact(value) -> bytes:
    """One line of JSON: a line of the fuzz input is one document."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def json_suite_seeds(suite: Path) -> dict[str, bytes]:
    seeds = {}
    for path in sorted(suite.glob("*.json")):
        text = path.read_bytes()
        if len(text) > MAX_BYTES:
            continue
        seeds[f"json-{path.stem}"] = text
        # Raw line breaks are white space between tokens in the documents a
        # parser may accept; a request is one line.
        if path.name.startswith(("y_", "i_")):
            doc = text.replace(b"\r", b" ").replace(b"\n", b" ")
            for i, request in enumerate(carriers(doc)):
                seeds[f"json-{path.stem}-{i}"] = request
    return seeds


def logic_seeds(tests: Path) -> dict[str, bytes]:
    """@logic, the rule, its data: one seed per case of the suite."""
    cases = [c for c in json.loads(tests.read_text()) if isinstance(c, list) and len(c) >= 2]
    return {f"logic-{i}": b"@logic\n" + compact(rule) + b"\n" + compact(data) for i, (rule, data, *_) in enumerate(cases)}


def undescribed(value):
    """value without its "description" members: text for people, which would
    take most of a seed's bytes."""
    if isinstance(value, dict):
        return {k: undescribed(v) for k, v in value.items() if k != "description" or not isinstance(v, str)}
    if isinstance(value, list):
        return [undescribed(v) for v in value]
    return value


def documents(examples: Path) -> dict[str, dict]:
    """The scene documents of the examples and the test suites, by file."""
    found = {}
    for folder in (examples / "notes-documents", examples.parent / "Tests" / "documents" / "simulate"):
        for path in sorted(folder.glob("*.json")):
            doc = undescribed(json.loads(path.read_text()))
            if isinstance(doc, dict) and "actions" in doc:
                found[str(path.resolve())] = doc
    return found


def scenarios(examples: Path) -> list[Path]:
    return sorted(examples.glob("**/*.scenario.json"))


def scenario_sends(scenario: dict) -> list[bytes]:
    return [compact({"type": step["send"], **({"payload": step["payload"]} if "payload" in step else {})})
            for step in scenario.get("steps", []) if "send" in step]


def document_seeds(examples: Path) -> dict[str, bytes]:
    """@document ARGS?, the document, then actions: every action it defines,
    and the sends of each scenario that opens it."""
    docs = documents(examples)
    by_scene = {doc.get("scene"): doc for doc in docs.values()}
    seeds = {}
    for i, doc in enumerate(docs.values()):
        actions = [compact({"type": t}) for t in doc["actions"]]
        seeds[f"document-{i}"] = b"\n".join([b"@document", compact(doc), *actions])
    for path in scenarios(examples):
        scenario = json.loads(path.read_text())
        doc = by_scene.get(scenario.get("scene"))
        if doc is None:
            continue
        header = b"@document" + (b" " + compact(scenario["args"]) if "args" in scenario else b"")
        seeds[f"document-{path.stem}"] = b"\n".join([header, compact(doc), *scenario_sends(scenario)])
    return seeds


def scenario_seed(path: Path, docs: dict[str, dict]) -> bytes:
    """@scenario with the documents it loads written beside it; the packs it
    names are the fuzzer's already (the examples pack)."""
    scenario = json.loads(path.read_text())
    files, scenes = [], []
    for source in scenario.get("scenes", []):
        target = (path.parent / source).resolve()
        if source.endswith(".so"):
            continue
        for name, doc in docs.items():
            if name == str(target) or Path(name).parent == target:
                files.append(b"#" + Path(name).name.encode() + b" " + compact(doc))
                scenes.append(Path(name).name)
    if scenes:
        scenario["scenes"] = scenes
    else:
        scenario.pop("scenes", None)
    return b"\n".join([b"@scenario", *files, compact(scenario)])


def main() -> int:
    out = Path(sys.argv[1])
    suite = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    logic = Path(sys.argv[3]) if len(sys.argv) > 3 else None
    examples = Path(sys.argv[4]) if len(sys.argv) > 4 else Path(__file__).resolve().parents[2] / "Examples"
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*"):
        if old.name != ".done":
            old.unlink()
    seeds: dict[str, bytes] = {}
    if suite is not None and suite.is_dir():
        seeds.update(json_suite_seeds(suite))
    else:
        print(f"seeds.py: no JSON suite at {suite}")
    if logic is not None and logic.is_file():
        seeds.update(logic_seeds(logic))
    else:
        print(f"seeds.py: no JSON Logic suite at {logic}")
    seeds.update(document_seeds(examples))
    docs = documents(examples)
    for path in scenarios(examples):
        seeds[f"scenario-{path.parent.parent.name}-{path.stem}"] = scenario_seed(path, docs)
    seeds = {name: seed for name, seed in seeds.items() if len(seed) <= MAX_BYTES}
    for name, seed in seeds.items():
        (out / name).write_bytes(seed)
    print(f"seeds.py: {len(seeds)} seeds in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
