"""The journal, replay, rewind and inspection through the binding
(docs/journal.md): a recorded session of the example app replays
identically; a tampered journal reports its first divergent input; rewind
restores the state after an input; inspection events."""

from __future__ import annotations

import json
import os
import resource
import signal
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Tuple

import pytest

import yaia
from conftest import HOST, wait_event
from example_app import USER, MemoryStore, canonical, drain, names, start_home, view_models

LOGIN = "example/login"
HOME = "example/home"
DETAIL = "example/detail"
ABOUT = "example/about"


def lines(path: Path) -> List[Dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_lines(path: Path, records: List[Dict[str, Any]]) -> None:
    path.write_text("".join(canonical(r) + "\n" for r in records), encoding="utf-8")


def code_of(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Tuple[str, Any]:
    with pytest.raises(yaia.YaiaError) as info:
        fn(*args, **kwargs)
    return info.value.code, info.value.at


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return tmp_path / "session.jsonl"


def session(rt: yaia.Runtime) -> Dict[int, Dict[int, Tuple[str, str]]]:
    """The example app, deterministic (store served in Python, login by
    loginSucceeded), touching every kind of input. Returns the view models
    after some inputs, by the journal seq they follow."""
    seen: Dict[int, Dict[int, Tuple[str, str]]] = {}
    login = rt.open(LOGIN)  # 1 open
    login.send("emailChanged", "h\u00e9l\u00e8ne@example.com")  # 2 send
    seen[2] = view_models(rt)
    login.close()  # 3 close
    flow = rt.start(LOGIN, name="main")  # 4 start
    flow.send("emailChanged", "a@b.c")  # 5
    flow.send("passwordChanged", "hunter2")  # 6
    (auth,) = flow.send("submit").effects  # 7
    rt.resolve(auth.id, error={"message": "Wrong email or password"})  # 8 outcome
    flow.send("submit")  # 9
    rt.resolve(auth.id + 1, result={"user": USER})  # 10 outcome: push home
    seen[10] = view_models(rt)
    flow.send("load")  # 11 send, 12 outcome (the store answers on this thread)
    flow.send("select", "item/2")  # 13
    flow.send("titleChanged", "Deux")  # 14
    seen[14] = view_models(rt)
    flow.send("save")  # 15 send, 16 outcome: pop with result
    flow.send("showAbout")  # 17
    flow.send("close")  # 18: dismiss
    flow.send("select", "item/1")  # 19
    flow.popped(2)  # 20 popped
    flow.link([HOME, {"scene": DETAIL, "args": {"key": "item/3", "title": "Three"}, "presentation": "present"}])  # 21
    seen[21] = view_models(rt)
    flow.send("cancel")  # 22
    flow.send("logout")  # 23
    flow.close()  # 24 close (flow)
    drain(rt)
    return seen


SESSION_KINDS = ["open", "send", "close", "start"] + ["send"] * 3 + ["outcome", "send", "outcome", "send", "outcome"]
SESSION_KINDS += ["send"] * 3 + ["outcome"] + ["send"] * 3 + ["popped", "link", "send", "send", "close"]


@pytest.fixture
def recorded(journal: Path, examples_pack: str) -> Iterator[Tuple[Path, Dict[int, Dict[int, Tuple[str, str]]]]]:
    with yaia.Runtime(scenes=[examples_pack], journal=journal, **HOST) as rt:
        rt.add_service("store", MemoryStore())
        seen = session(rt)
        assert rt.journal(stop=True) == {"journal": str(journal), "inputs": 24}
    yield journal, seen


# ---------------------------------------------------------------- the file


def test_journal_file(recorded: Tuple[Path, Any]) -> None:
    path, _ = recorded
    begin, *inputs = lines(path)
    assert (begin["format"], begin["kind"]) == ("yaia.journal/1", "begin")
    assert begin["snapshot"]["format"] == "yaia.snapshot/1" and begin["snapshot"]["scenes"] == []
    assert [i["seq"] for i in inputs] == list(range(1, 25))
    assert [i["kind"] for i in inputs] == SESSION_KINDS
    assert all(isinstance(i["t"], int) and i["t"] >= begin["t"] for i in inputs)
    for i in inputs:
        # A digest for every input that produced a view model or a stack.
        assert ("digest" in i) == (i["kind"] != "close"), i
    assert inputs[0] == dict(inputs[0], args={}, id=1, scene=LOGIN)
    assert inputs[1]["action"] == {"payload": "h\u00e9l\u00e8ne@example.com", "type": "emailChanged"}
    assert inputs[3]["name"] == "main"
    assert inputs[7]["error"] == {"message": "Wrong email or password"}
    assert inputs[19] == dict(inputs[19], depth=2, flow=1)
    assert inputs[20]["path"][0] == HOME
    # The text is canonical JSON, one object a line.
    assert path.read_text(encoding="utf-8") == "".join(canonical(r) + "\n" for r in lines(path))


def test_journal_requests(rt: yaia.Runtime, tmp_path: Path, examples_pack: str) -> None:
    assert rt.journal(stop=True) == {"journal": None}
    assert rt.journal(flush=True) == {"journal": None}
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert rt.journal(start=first) == {"journal": str(first)}
    scene = rt.open(LOGIN)
    scene.send("emailChanged", "a@b.c")
    assert rt.journal(flush=True) == {"journal": str(first), "inputs": 2}
    assert [r["kind"] for r in lines(first)] == ["begin", "open", "send"]
    rt.journal(start=second)  # switches: the first is closed, the second begins with a snapshot
    scene.send("emailChanged", "x@y.z")
    assert rt.journal(stop=True) == {"journal": str(second), "inputs": 1}
    assert len(lines(first)) == 3
    begin, send = lines(second)
    assert begin["snapshot"]["scenes"][0]["state"]["email"] == "a@b.c"
    assert send["seq"] == 1
    assert yaia.replay(first, scenes=[examples_pack]).identical
    assert yaia.replay(second, scenes=[examples_pack]).identical


def test_journal_request_errors(rt: yaia.Runtime, tmp_path: Path) -> None:
    with pytest.raises(TypeError):
        rt.journal()
    with pytest.raises(TypeError):
        rt.journal(start=tmp_path / "x", stop=True)
    assert code_of(rt.execute, {"op": "journal"}) == ("bad_request", None)
    assert code_of(rt.execute, {"op": "journal", "start": 5}) == ("bad_request", "/start")
    assert code_of(rt.journal, start=tmp_path / "no" / "such" / "dir.jsonl")[0] == "bad_journal"
    with pytest.raises(yaia.YaiaError) as info:
        yaia.Runtime(journal=tmp_path / "no" / "dir.jsonl")
    assert info.value.code == "bad_journal"


def test_journal_is_written_when_the_runtime_is_freed(journal: Path, examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack], journal=journal, **HOST) as rt:
        rt.open(LOGIN).send("emailChanged", "a@b.c")
    assert [r["kind"] for r in lines(journal)] == ["begin", "open", "send"]


def test_a_journal_that_cannot_be_written_says_so(tmp_path: Path, examples_pack: str) -> None:
    # A file size limit of one byte: the journal's writes fail as on a full disk.
    path = tmp_path / "full.jsonl"
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1, hard))
    try:
        with yaia.Runtime(scenes=[examples_pack], journal=path, **HOST) as rt:
            scene = rt.open(LOGIN)
            assert scene.send("emailChanged", "a@b.c").view_model["email"] == "a@b.c"  # sends go on
            with pytest.raises(yaia.YaiaError) as info:
                rt.journal(flush=True)
            assert info.value.code == "bad_journal" and str(path) in str(info.value)
            assert scene.send("emailChanged", "x@y.z").view_model["email"] == "x@y.z"
            stopped = rt.journal(stop=True)
            assert stopped["journal"] == str(path) and str(path) in stopped["warning"]
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)


# ---------------------------------------------------------------- files a journal may use

HUGE = 2**63 - 1


def test_only_regular_files_are_journaled_or_replayed(rt: yaia.Runtime, tmp_path: Path, examples_pack: str) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    # A FIFO without a writer: a blocking open would never return.
    code, _ = code_of(rt.journal, start=fifo)
    assert code == "bad_journal"
    with pytest.raises(yaia.YaiaError) as info:
        yaia.replay(fifo, scenes=[examples_pack])
    assert info.value.code == "bad_journal" and "a FIFO, not a regular file" in info.value.message
    with pytest.raises(yaia.YaiaError) as info:
        yaia.replay("/dev/zero", scenes=[examples_pack])
    assert info.value.code == "bad_journal" and "a device" in info.value.message
    assert code_of(rt.journal, start="/dev/null")[0] == "bad_journal"
    assert code_of(rt.journal, start=tmp_path)[0] == "bad_journal"
    with pytest.raises(yaia.YaiaError) as info:
        yaia.Runtime(journal=fifo)
    assert info.value.code == "bad_journal"


def test_a_journal_replaces_only_a_journal(rt: yaia.Runtime, tmp_path: Path) -> None:
    precious = tmp_path / "notes.txt"
    precious.write_text("keep me\n")
    with pytest.raises(yaia.YaiaError) as info:
        rt.journal(start=precious)
    assert info.value.code == "bad_journal" and "is not a journal" in info.value.message
    assert precious.read_text() == "keep me\n"
    path = tmp_path / "j.jsonl"
    rt.journal(start=path)
    rt.open(LOGIN)
    rt.journal(stop=True)
    assert len(lines(path)) == 2
    rt.journal(start=path)  # an earlier journal is replaced
    rt.journal(stop=True)
    assert [r["kind"] for r in lines(path)] == ["begin"]
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    rt.journal(start=empty)
    rt.journal(stop=True)
    assert [r["kind"] for r in lines(empty)] == ["begin"]


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_stopped_journals_close_their_files(rt: yaia.Runtime, tmp_path: Path) -> None:
    path = tmp_path / "cycles.jsonl"
    rt.journal(start=path)
    rt.journal(stop=True)
    before = open_descriptors()
    for _ in range(1_000):
        rt.journal(start=path)
        rt.journal(stop=True)
    assert open_descriptors() == before
    rt.journal(start=path)
    assert open_descriptors() == before + 1
    rt.journal(stop=True)
    assert open_descriptors() == before


def test_journal_numbers_beyond_2_53_are_refused_at_their_line(
    recorded: Tuple[Path, Any], tmp_path: Path, examples_pack: str
) -> None:
    path, _ = recorded
    records = lines(path)
    sends = [i for i, r in enumerate(records) if r["kind"] == "send"]
    outcomes = [i for i, r in enumerate(records) if r["kind"] == "outcome"]
    opens = [i for i, r in enumerate(records) if r["kind"] == "open"]
    cases: List[Tuple[int, str, Any]] = [
        (sends[0], "seq", HUGE),
        (sends[0], "scene", HUGE),
        (outcomes[0], "effect", HUGE),
        (opens[0], "id", HUGE),
        (sends[0], "seq", 2**53 + 1),
        (sends[0], "seq", -1),
        (sends[0], "seq", 1.5),
    ]
    for index, key, value in cases:
        changed = [dict(r) for r in records]
        changed[index][key] = value
        bad = tmp_path / f"bad-{key}.jsonl"
        write_lines(bad, changed)
        with pytest.raises(yaia.YaiaError) as info:
            yaia.replay(bad, scenes=[examples_pack])
        assert (info.value.code, info.value.at) == ("bad_journal", f"/{key}"), (key, value)
        assert f"line {index + 1} of " in info.value.message
    # The begin line's snapshot (Tests/python/test_snapshot.py checks every field of one).
    fields = [("next", "scene"), ("next", "effect"), ("next", "flow")]
    for field in fields:
        changed = json.loads(json.dumps(records))
        target = changed[0]["snapshot"]
        for step in field[:-1]:
            target = target[step]
        target[field[-1]] = HUGE
        bad = tmp_path / "bad-begin.jsonl"
        write_lines(bad, changed)
        with pytest.raises(yaia.YaiaError) as info:
            yaia.replay(bad, scenes=[examples_pack])
        at = "/snapshot/" + "/".join(str(step) for step in field)
        assert (info.value.code, info.value.at) == ("bad_journal", at), field
        assert "line 1 of " in info.value.message
    # The original still replays.
    assert yaia.replay(path, scenes=[examples_pack]).identical


def test_a_line_longer_than_16_mib_is_refused_without_reading_on(tmp_path: Path, examples_pack: str) -> None:
    # 4 GiB without a line break, sparse: read whole, it would take 4 GiB.
    path = tmp_path / "huge-line.jsonl"
    with open(path, "wb") as f:
        f.truncate(4 << 30)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(yaia.YaiaError) as info:
        yaia.replay(path, scenes=[examples_pack])
    assert info.value.code == "bad_journal" and "line 1 of" in info.value.message and "longer than request_bytes, 16777216 bytes" in info.value.message
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak < 256 * 1024  # KiB


def test_replay_lines_are_bounded_by_request_bytes(recorded: Tuple[Path, Any], examples_pack: str) -> None:
    path, _ = recorded
    longest = max(len(line) for line in path.read_bytes().split(b"\n"))
    with yaia.Runtime(scenes=[examples_pack], limits={"request_bytes": longest}, **HOST) as rt:
        assert rt.replay(path).identical
    with yaia.Runtime(scenes=[examples_pack], limits={"request_bytes": longest - 1}, **HOST) as rt:
        with pytest.raises(yaia.YaiaError) as info:
            rt.replay(path)
        assert info.value.code == "bad_journal" and f"longer than request_bytes, {longest - 1} bytes" in info.value.message


# ---------------------------------------------------------------- digests

MASK64 = (1 << 64) - 1
K0, K1, K2, K3 = 0x6A09E667F3BCC908, 0xBB67AE8584CAA73B, 0x3C6EF372FE94F82B, 0xA54FF53A5F1D36F1


def yaia_digest(data: bytes) -> str:
    """yaia-digest-1 as docs/journal.md specifies it, written independently
    of the library's, in plain Python integers."""

    def fold(x: int, y: int) -> int:
        p = x * y
        return (p >> 64) ^ (p & MASK64)

    lanes = [K0, K1, K2]

    def mix(block: bytes) -> None:
        w = [int.from_bytes(block[k : k + 8], "little") for k in range(0, 48, 8)]
        for lane, key in enumerate((K1, K2, K3)):
            lanes[lane] = fold(w[2 * lane] ^ key, w[2 * lane + 1] ^ lanes[lane])

    n = len(data)
    if n >= 48:
        i = 0
        while n - i > 48:
            mix(data[i : i + 48])
            i += 48
        mix(data[n - 48 :])
    else:
        mix(data.ljust(48, b"\0"))
    h = fold(lanes[0] ^ lanes[1] ^ K0, lanes[2] ^ n)
    return f"{fold(h ^ K2, h ^ K3):016x}"


def digested(response: Dict[str, Any]) -> str:
    """The digest a journal line records for a response: of its "stack"
    and "viewModel", as canonical JSON."""
    return yaia_digest(canonical({k: response[k] for k in ("stack", "viewModel") if k in response}).encode())


def test_digest_reference_vectors() -> None:
    # Fixed points of the specification, so that the reference above cannot
    # drift along with the library.
    assert yaia_digest(b"") == "bc234c778d869117"
    assert yaia_digest(b'{"viewModel":{}}') == "6a1707a0f15563b4"
    assert yaia_digest(bytes(range(100))) == "e7da61f376c5de38"


def test_digests_are_yaia_digest_1_of_what_sends_produced(journal: Path, examples_pack: str) -> None:
    """Every digest in a journal is yaia-digest-1 of the view model (and
    stack) the input produced: scenes sent to through yaia_send and through
    requests, view models shorter and longer than the hash's 48-byte blocks,
    non-ASCII text, a flow's stack."""
    expected: List[str] = []
    with yaia.Runtime(scenes=[examples_pack], journal=journal, **HOST) as rt:
        scene = rt.open(LOGIN)
        expected.append(digested({"viewModel": scene.view_model}))
        for text in ["", "a@b.c", "x" * 40, "h\u00e9l\u00e8ne@example.com" * 3, "y" * 300]:
            update = scene.send("emailChanged", text)  # the yaia_send path
            expected.append(digested({"viewModel": update.view_model}))
            response = rt.execute({"op": "send", "scene": scene.id, "action": {"type": "passwordChanged", "payload": text}})
            expected.append(digested(response))
        started = rt.execute({"op": "start", "scene": LOGIN})
        expected.append(digested(started))
        response = rt.execute({"op": "send", "flow": started["flow"], "action": {"type": "emailChanged", "payload": "f@l.ow"}})
        expected.append(digested(response))
        rt.journal(stop=True)
    recorded = [line["digest"] for line in lines(journal)[1:] if "digest" in line]
    assert recorded == expected
    assert len(expected) >= 8


# ---------------------------------------------------------------- replay


def test_recorded_session_replays_identically(recorded: Tuple[Path, Any], examples_pack: str) -> None:
    path, _ = recorded
    result = yaia.replay(path, scenes=[examples_pack])
    assert result == yaia.ReplayResult(identical=True, inputs=24)
    with yaia.Runtime(scenes=[examples_pack], **HOST) as rt:
        assert rt.replay(path) == result


def test_session_with_plugins_replays_identically(auth_so: str, journal: Path, examples_pack: str) -> None:
    """Outcomes from the auth plugin's own thread are journaled too."""
    with yaia.Runtime(scenes=[examples_pack], plugins=[auth_so], journal=journal, **HOST) as rt:
        rt.add_service("store", MemoryStore())
        flow = rt.start(LOGIN)
        flow.send("emailChanged", "a@b.c")
        for password in ("guess", "hunter2"):
            flow.send("passwordChanged", password)
            flow.send("submit")
            wait_event(rt)
        assert names(flow.stack) == [LOGIN, HOME]
        flow.send("load")
        flow.send("select", "item/1")
        flow.send("save")
        drain(rt)
        rt.journal(stop=True)
    kinds = [r["kind"] for r in lines(journal)]
    assert kinds.count("outcome") == 4
    assert yaia.replay(journal, scenes=[examples_pack]) == yaia.ReplayResult(identical=True, inputs=len(kinds) - 1)


def test_replay_to(recorded: Tuple[Path, Dict[int, Dict[int, Tuple[str, str]]]], examples_pack: str) -> None:
    path, seen = recorded
    for seq, expected in seen.items():
        result = yaia.replay(path, to=seq, scenes=[examples_pack])
        assert (result.identical, result.inputs) == (True, seq)
        assert result.snapshot is not None
        with yaia.Runtime(scenes=[examples_pack], restore=result.snapshot, **HOST) as rt:
            assert view_models(rt) == expected, seq
    assert yaia.replay(path, scenes=[examples_pack]).snapshot is None


def tamper(path: Path, seq: int, change: Callable[[Dict[str, Any]], None]) -> Path:
    records = lines(path)
    (record,) = [r for r in records if r.get("seq") == seq]
    change(record)
    out = path.with_name(f"tampered-{seq}.jsonl")
    write_lines(out, records)
    return out


def test_tampered_action_reports_the_first_divergence(recorded: Tuple[Path, Any], examples_pack: str) -> None:
    path, _ = recorded
    # seq 14: titleChanged "Deux" becomes "Zwei": the detail's view model differs there.
    bad = tamper(path, 14, lambda r: r["action"].update(payload="Zwei"))
    result = yaia.replay(bad, scenes=[examples_pack])
    assert not result.identical
    assert result.inputs == 14
    d = result.divergence
    assert d is not None
    assert (d["seq"], d["kind"]) == (14, "send")
    assert d["expected"] == lines(path)[14]["digest"]
    assert d["got"] != d["expected"]
    assert d["viewModel"] == {"canSave": True, "error": None, "isSaving": False, "title": "Zwei"}


def test_tampered_early_input_diverges_there_not_later(recorded: Tuple[Path, Any], examples_pack: str) -> None:
    path, _ = recorded
    bad = tamper(path, 5, lambda r: r["action"].update(payload="z@z.z"))
    d = yaia.replay(bad, scenes=[examples_pack]).divergence
    assert d is not None and (d["seq"], d["kind"], d["scene"]) == (5, "send", 2)
    assert d["viewModel"]["email"] == "z@z.z"


def test_tampered_outcome(recorded: Tuple[Path, Any], examples_pack: str) -> None:
    path, _ = recorded
    bad = tamper(path, 8, lambda r: r["error"].update(message="Try again"))
    d = yaia.replay(bad, scenes=[examples_pack]).divergence
    assert d is not None and (d["seq"], d["kind"]) == (8, "outcome")
    assert d["viewModel"]["error"] == "Try again"


def test_tampered_navigation(recorded: Tuple[Path, Any], examples_pack: str) -> None:
    path, _ = recorded
    bad = tamper(path, 21, lambda r: r["path"][1].update(presentation="push"))
    d = yaia.replay(bad, scenes=[examples_pack]).divergence
    assert d is not None and (d["seq"], d["kind"]) == (21, "link")


def test_tampered_action_refused(recorded: Tuple[Path, Any], examples_pack: str) -> None:
    path, _ = recorded
    bad = tamper(path, 13, lambda r: r["action"].update(type="choose"))
    result = yaia.replay(bad, scenes=[examples_pack])
    assert not result.identical and result.inputs == 12
    d = result.divergence
    assert d is not None and (d["seq"], d["kind"]) == (13, "send")
    assert d["error"]["code"] == "unknown_action"


def test_change_without_effect_on_view_models_is_identical(recorded: Tuple[Path, Any], examples_pack: str) -> None:
    """Digests cover view models and stacks: a changed password (not in the
    login view model) replays identically: the journal checks what a UI sees."""
    path, _ = recorded
    ok = tamper(path, 6, lambda r: r["action"].update(payload="another"))
    assert yaia.replay(ok, scenes=[examples_pack]).identical


def test_bad_journals(tmp_path: Path, recorded: Tuple[Path, Any], examples_pack: str) -> None:
    path, _ = recorded
    records = lines(path)
    no_begin = tmp_path / "no-begin.jsonl"
    write_lines(no_begin, records[1:])
    wrong_format = tmp_path / "format.jsonl"
    write_lines(wrong_format, [dict(records[0], format="yaia.journal/9")] + records[1:])
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text(path.read_text() + "{not json\n")
    unknown = tmp_path / "unknown.jsonl"
    write_lines(unknown, records[:3] + [{"kind": "dance", "seq": 3, "t": 0}])
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    for bad in (tmp_path / "missing.jsonl", no_begin, wrong_format, garbage, empty):
        assert code_of(yaia.replay, bad, scenes=[examples_pack])[0] == "bad_journal", bad.name
    d = yaia.replay(unknown, scenes=[examples_pack]).divergence
    assert d is not None and d["error"]["code"] == "bad_journal"


# ---------------------------------------------------------------- rewind


def test_rewind(journal: Path, examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack], journal=journal, **HOST) as rt:
        rt.add_service("store", MemoryStore())
        seen = session(rt)
        after = view_models(rt)
        rewound = rt.rewind(14)
        assert rewound["to"] == 14
        assert view_models(rt) == seen[14]
        assert {s["id"]: (s["name"], canonical(s["viewModel"])) for s in rewound["scenes"]} == seen[14]
        flow = rt.flow(1)
        assert names(flow.stack) == [LOGIN, HOME, DETAIL]
        # Time travel goes on from there; and back again.
        flow.send("titleChanged", "Dos")
        rt.rewind(10)
        assert view_models(rt) == seen[10]
        rt.rewind(24)
        assert view_models(rt) == after == {}
        rt.journal(stop=True)
    kinds = [r["kind"] for r in lines(journal)]
    assert kinds[25:] == ["restore", "send", "restore", "restore"]
    assert yaia.replay(journal, scenes=[examples_pack]) == yaia.ReplayResult(identical=True, inputs=28)


def test_rewind_to_zero_is_the_beginning(journal: Path, examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack], **HOST) as rt:
        start_home(rt)
        before = view_models(rt)
        rt.journal(start=journal)
        rt.rewind(0)  # nothing recorded yet: the begin snapshot
        assert view_models(rt) == before
        rt.flow(1).send("logout")
        rt.rewind(0)
        assert view_models(rt) == before


def test_rewind_errors(rt: yaia.Runtime, journal: Path) -> None:
    assert code_of(rt.rewind, 1)[0] == "bad_journal"
    rt.journal(start=journal)
    rt.open(LOGIN)
    assert code_of(rt.rewind, 2) == ("bad_request", "/to")
    assert code_of(rt.rewind, -1) == ("bad_request", "/to")
    assert code_of(rt.execute, {"op": "rewind"}) == ("bad_request", "/to")


def test_rewind_follows_restore_policies(journal: Path, examples_pack: str) -> None:
    """Rewinding to a point with an effect in flight: home's load (reissue) is
    performed again; with the store service, it completes."""
    store = MemoryStore()
    with yaia.Runtime(scenes=[examples_pack], journal=journal, **HOST) as rt:
        flow = rt.start(LOGIN)
        flow.send("loginSucceeded", {"user": USER})
        flow.send("load")  # seq 3: no store yet: pending
        rt.add_service("store", store)
        rewound = rt.rewind(3)
        assert len(rewound["effects"]["reissued"]) == 1
        assert store.calls == [("list", {"prefix": "item/"})]
        assert len(flow.top.view_model["items"]) == 3
        rt.journal(stop=True)
    assert yaia.replay(journal, scenes=[examples_pack]).identical


# ---------------------------------------------------------------- known library bugs


def test_refused_link_then_link_replays_identically(journal: Path, examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack], journal=journal, **HOST) as rt:
        flow = rt.start(LOGIN)
        with pytest.raises(yaia.YaiaError):
            flow.link([HOME, {"scene": "example/nope"}])
        flow.link([HOME])
        rt.journal(stop=True)
    assert yaia.replay(journal, scenes=[examples_pack]).identical


def test_perform_while_journaling_replays_identically(journal: Path, examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack], journal=journal, **HOST) as rt:
        store = MemoryStore()
        rt.add_service("store", store)
        rt.perform("store", "put", {"key": "item/4", "value": {"title": "Four"}})
        flow = start_home(rt)
        flow.send("load")
        drain(rt)
        rt.journal(stop=True)
    assert yaia.replay(journal, scenes=[examples_pack]).identical


# ---------------------------------------------------------------- scale


def test_hundred_thousand_inputs(journal: Path, examples_pack: str) -> None:
    """How long recording and replay take is measured by `make bench`
    (Benchmarks/bench_journal.py); this checks that nothing is lost."""
    n = 100_000
    with yaia.Runtime(scenes=[examples_pack], journal=journal, **HOST) as rt:
        scene = rt.open(LOGIN)
        send = scene.send
        for i in range(n):
            send("emailChanged", f"user{i}@example.com")
        assert scene.view_model["email"] == f"user{n - 1}@example.com"
        assert rt.journal(stop=True)["inputs"] == n + 1
    assert yaia.replay(journal, scenes=[examples_pack]) == yaia.ReplayResult(identical=True, inputs=n + 1)
    with journal.open(encoding="utf-8") as f:
        assert sum(1 for _ in f) == n + 2


# ---------------------------------------------------------------- inspection


def test_inspection_events(rt: yaia.Runtime) -> None:
    rt.inspect(True)
    flow = rt.start(LOGIN)
    root = flow.top.id
    flow.send("loginSucceeded", {"user": USER})
    events: List[yaia.Event] = []
    while (event := rt.receive_event()) is not None:
        events.append(event)
    assert all(isinstance(e, yaia.Inspection) for e in events)
    inspections = [e for e in events if isinstance(e, yaia.Inspection)]
    assert [e.kind for e in inspections] == ["action", "route", "flow"]
    action, route, moved = inspections
    assert (action.scene, action.seq, action.action) == (root, 1, {"payload": {"user": USER}, "type": "loginSucceeded"})
    assert (route.scene, route.route) == (root, {"args": {"user": USER}, "push": HOME})
    assert (moved.flow, moved.version) == (flow.id, 2)
    assert names(moved.stack) == [LOGIN, HOME]
    (load,) = flow.send("load").effects
    action, effect = rt.receive_event(), rt.receive_event()
    assert isinstance(action, yaia.Inspection) and action.action == {"type": "load"}
    assert isinstance(effect, yaia.Inspection) and effect.kind == "effect"
    assert effect.effect == load
    assert effect.request == {
        "args": {"prefix": "item/"},
        "catch": "loadFailed",
        "id": "load",
        "op": "list",
        "policy": "latest",
        "restore": "reissue",
        "service": "store",
        "then": "loaded",
    }
    rt.inspect(False)
    flow.send("logout")
    assert rt.receive_event() is None


def test_receive_keeps_inspections_for_receive_event(auth_so: str, examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack], plugins=[auth_so], inspect=True, **HOST) as rt:
        flow = rt.start(LOGIN)
        flow.send("emailChanged", "a@b.c")
        flow.send("passwordChanged", "hunter2")
        flow.send("submit")
        update = wait_event(rt)  # passes over the inspection events before it
        assert update.event == "update" and names(update.stack) == [LOGIN, HOME]
        kinds: List[str] = []
        while (event := rt.receive_event()) is not None:
            assert isinstance(event, yaia.Inspection)
            kinds.append(event.kind)
        # In queue order: the three sends, the effect, then the outcome's
        # action, route and flow change (queued before its update).
        assert kinds == ["action", "action", "action", "effect", "action", "route", "flow"]


def test_receive_event_returns_updates(rt: yaia.Runtime) -> None:
    rt.add_service("store", MemoryStore())
    flow = start_home(rt)
    flow.send("load")
    event = rt.receive_event()
    assert isinstance(event, yaia.Update) and event.effect is not None
    assert rt.receive_event() is None


def test_inspection_result_delivery(rt: yaia.Runtime) -> None:
    store = MemoryStore()
    rt.add_service("store", store)
    flow = start_home(rt)
    home = flow.top.id
    flow.send("select", "item/1")
    detail = flow.top.id
    rt.inspect(True)
    flow.send("save")
    events: List[Any] = []
    while (event := rt.receive_event()) is not None:
        events.append(event)
    summary = [
        (e.kind, e.scene) if isinstance(e, yaia.Inspection) else ("update", e.scene, e.from_scene) for e in events
    ]
    assert ("action", home) in summary  # itemSaved, delivered
    assert ("update", home, detail) in summary
    assert ("route", detail) in summary and ("flow", None) in summary


def test_inspect_in_config_must_be_a_boolean() -> None:
    with pytest.raises(yaia.YaiaError) as info:
        yaia.Runtime(config={"inspect": "yes"}, **HOST)
    assert (info.value.code, info.value.at) == ("bad_config", "/inspect")
