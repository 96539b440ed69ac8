"""Scene.send's lanes: the string lane (a type name and a string payload)
writes the text the general lane writes and gives the update it gives, and
an unread update reads each field from the answer as a parsed one has it."""

from __future__ import annotations

from typing import Any, Iterator, List

import pytest

import yaia
from yaia import sends
from yaia.values import MISSING

TEXTS = ["", "a@b.c", "ünï@cödé \u2603 \U0001F600", '"quoted" \\ /', "\n\t\u0000\u001f\u007f end", "x" * 300]


@pytest.fixture
def rt(examples_pack: str) -> Iterator[yaia.Runtime]:
    with yaia.Runtime(scenes=[examples_pack]) as runtime:
        yield runtime


def recorded(runtime: yaia.Runtime) -> List[bytes]:
    """The actions' texts the runtime's scenes send through yaia_send."""
    sent: List[bytes] = []
    send_scene = runtime._send_scene

    def recording(handle: Any, scene: Any, data: bytes) -> Any:
        sent.append(data)
        return send_scene(handle, scene, data)

    runtime._send_scene = recording
    return sent


def test_the_string_lane_writes_what_the_general_lane_writes(rt: yaia.Runtime) -> None:
    login = rt.open("example/login")
    sent = recorded(rt)
    for text in TEXTS:
        login.send("emailChanged", text)
        sends.general_send(login, "emailChanged", text, False, MISSING, MISSING)  # the general lane
    assert len(sent) == 2 * len(TEXTS)
    for text, (fast, general) in zip(TEXTS, zip(sent[::2], sent[1::2])):
        assert fast == general == sends.canonical_action("emailChanged", text, False, MISSING)


def test_the_string_lane_gives_the_update_the_general_lanes_give(examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack]) as a, yaia.Runtime(scenes=[examples_pack]) as b, \
            yaia.Runtime(scenes=[examples_pack]) as c:
        fast, general, request = a.open("example/login"), b.open("example/login"), c.open("example/login")
        for text in TEXTS:
            mine = fast.send("emailChanged", text)
            theirs = sends.general_send(general, "emailChanged", text, False, MISSING, MISSING)
            asked = request.send({"type": "emailChanged", "payload": text})  # a request
            assert mine.__dict__ == theirs.__dict__, "both unread, made alike"
            assert mine == theirs == asked
            assert mine.raw == theirs.raw == asked.raw


def test_an_unread_update_reads_each_field_as_a_parsed_one_has_it(rt: yaia.Runtime) -> None:
    login = rt.open("example/login")
    login.send("emailChanged", "a")
    update = login.send("emailChanged", "b")
    assert "_text" in update.__dict__, "a plain answer, left unread"
    assert update.seq == 2 and update.effects == [] and update.routes == []
    assert "_text" in update.__dict__, "seq, effects and routes read without parsing the answer"
    assert update.view_model["email"] == "b" and update.raw["seq"] == 2 and "_text" not in update.__dict__
    assert update == yaia.Update.from_raw(update.raw)


def test_what_the_string_lane_cannot_write_goes_the_general_way(rt: yaia.Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    login = rt.open("example/login")
    with pytest.raises(ValueError):
        login.send("emailChanged", "\ud800")  # a lone surrogate is no UTF-8
    with pytest.raises(ValueError):
        login.send("emailChanged\ud800", "x")
    with pytest.raises(TypeError):
        login.send({"type": "emailChanged"}, "payload twice")
    with pytest.raises(yaia.YaiaError) as refused:
        login.send("noSuchAction", "x")
    assert refused.value.code == "unknown_action" and refused.value.at == "/action/type"
    # Beyond the types it keeps, the lane writes the type's text each time.
    kept = dict(sends.type_texts)
    sends.type_texts.clear()
    monkeypatch.setattr(sends, "_TYPES_KEPT", 1)
    try:
        assert login.send("emailChanged", "k@e.pt").view_model["email"] == "k@e.pt"
        assert login.send("passwordChanged", "pw").view_model["canSubmit"] is True
        assert list(sends.type_texts) == ["emailChanged"]
    finally:
        sends.type_texts.clear()
        sends.type_texts.update(kept)


class _Older:
    """A library as one built before yaia_send_borrowed: only its older functions."""

    def __init__(self, lib: Any) -> None:
        self._lib = lib

    def __getitem__(self, name: str) -> Any:
        if name == "yaia_send_borrowed":
            raise AttributeError(name)
        return self._lib[name]


def test_a_library_without_the_borrowed_send_answers_the_same(rt: yaia.Runtime) -> None:
    one, two = rt.open("example/login"), rt.open("example/login")
    older = sends.send_function(_Older(rt._lib))  # type: ignore[arg-type]
    data = b'{"payload":"a@b.c","type":"emailChanged"}'
    borrowed = rt._send_scene(rt._handle_arg, one._id_arg, data)
    freed = older(rt._handle_arg, two._id_arg, data)
    assert borrowed is not None and freed is not None
    assert freed == borrowed.replace(b'"scene":%d' % one.id, b'"scene":%d' % two.id)
