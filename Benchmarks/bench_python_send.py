"""The Python binding's own cost of a send, against the same login written
with `transitions` (PyPI), the state machine many Python apps start from.

Run by `make bench` (PYTHONPATH=Bindings/python). Every case types one
character into example/login's email (emailChanged, "a" and "b" in turn, so
that every send changes the view model). The baseline is a hand-written
Python model of that login on a transitions Machine (states idle,
submitting, failed, signedIn): the trigger, then the same view-model dict.
Cases run in turns, one batch each per round (a load that comes and goes
weighs on all alike); the table shows the median batch per call.

Target: Scene.send at most 0.5x the transitions baseline (whole view
models, the default; patch mode is shown beside it). The row "general
lane" sends the same action through yaia.sends.general_send, the lane Scene.send
takes for other payloads: what the string lane gains.
"""

from __future__ import annotations

import ctypes
import itertools
import json
import statistics
import sys
from typing import Any, Callable, Dict, List, Tuple

import yaia
from yaia.sends import general_send
from benchlib import BATCHES, batch_ns, calibrate, examples_pack, no_gc

from transitions import Machine

TARGET = 0.5


class LoginModel:
    """example/login by hand: the same state, the same view model."""

    state: str

    def __init__(self) -> None:
        self.email = ""
        self.password = ""
        self.error: Any = None

    def set_email(self, value: Any) -> None:
        if not isinstance(value, str):
            raise TypeError("emailChanged takes a string payload")
        self.email = value

    def view_model(self) -> Dict[str, Any]:
        submitting = self.state == "submitting"
        return {"canSubmit": "@" in self.email and bool(self.password) and not submitting,
                "email": self.email, "error": self.error, "isSubmitting": submitting}


def transitions_login() -> Callable[[str], Dict[str, Any]]:
    model = LoginModel()
    Machine(model=model, states=["idle", "submitting", "failed", "signedIn"], initial="idle",
            auto_transitions=False,
            transitions=[{"trigger": "emailChanged", "source": "*", "dest": None, "after": "set_email"},
                         {"trigger": "submit", "source": "idle", "dest": "submitting"},
                         {"trigger": "loginFailed", "source": "submitting", "dest": "failed"},
                         {"trigger": "loginSucceeded", "source": "submitting", "dest": "signedIn"}])

    def type_character(text: str) -> Dict[str, Any]:
        getattr(model, "emailChanged")(text)
        return model.view_model()

    return type_character


def typing() -> Callable[[], str]:
    return itertools.cycle(("a", "b")).__next__


def interleaved(cases: List[Tuple[str, Callable[[], object]]]) -> List[Tuple[str, float]]:
    """Each case's median ns per call, batches run in turns."""
    sizes = [calibrate(fn) for _, fn in cases]
    samples: List[List[float]] = [[] for _ in cases]
    with no_gc():
        for _ in range(BATCHES):
            for (_, fn), n, sample in zip(cases, sizes, samples):
                sample.append(batch_ns(fn, n))
    return [(name, statistics.median(sample)) for (name, _), sample in zip(cases, samples)]


def raw_sender(lib: ctypes.CDLL, rt: yaia.Runtime, scene: yaia.Scene) -> Callable[[], Any]:
    """ctypes yaia_send + string_at + yaia_free + json.loads, nothing else."""
    handle, scene_id, nxt = rt.handle, scene.id, typing()
    actions = {c: b'{"type":"emailChanged","payload":"%s"}' % c.encode() for c in "ab"}
    string_at, free, send, loads = ctypes.string_at, lib.yaia_free, lib.yaia_send, json.loads

    def raw_send() -> Any:
        ptr = send(handle, scene_id, actions[nxt()])
        try:
            return loads(string_at(ptr))
        finally:
            free(ptr)

    return raw_send


def main() -> int:
    lib = yaia.ffi.load_library()
    login = transitions_login()
    with yaia.Runtime(scenes=[examples_pack()]) as rt, yaia.Runtime(scenes=[examples_pack()], view="patch") as prt:
        whole, patch = rt.open("example/login"), prt.open("example/login")
        for scene in (whole, patch):
            if scene.send("emailChanged", "a@b.c").view_model != login("a@b.c"):
                print("bench_python_send.py: the two logins disagree", file=sys.stderr)
                return 1
        t1, t2, t3, t4, t5, t6 = typing(), typing(), typing(), typing(), typing(), typing()
        cases: List[Tuple[str, Callable[[], object]]] = [
            ("transitions trigger + view model (baseline)", lambda: login(t1())),
            ("ctypes yaia_send + string_at + yaia_free + json.loads", raw_sender(lib, rt, whole)),
            ("Scene.send (whole view, the default)", lambda: whole.send("emailChanged", t2())),
            ("the same send, general lane (yaia.sends.general_send)",
             lambda: general_send(whole, "emailChanged", t6(), False, yaia.MISSING, yaia.MISSING)),
            ("Scene.send, then .view_model read (whole)", lambda: whole.send("emailChanged", t3()).view_model),
            ('Scene.send (Runtime(view="patch"))', lambda: patch.send("emailChanged", t4())),
            ("Scene.send, then .view_model read (patch)", lambda: patch.send("emailChanged", t5()).view_model),
        ]
        results = interleaved(cases)

    baseline = results[0][1]
    width = max(len(name) for name, _ in results)
    print(f"Python binding vs transitions {version('transitions')}: example/login, emailChanged of one character, "
          f"median of {BATCHES} batches (libyaia {yaia.library_version()}, Python {sys.version.split()[0]})")
    print(f"{'case':<{width}}  {'us/send':>8}  {'x transitions':>13}")
    for name, ns in results:
        print(f"{name:<{width}}  {ns / 1000:>8.2f}  {ns / baseline:>13.2f}")
    for name, ns in (results[2], results[5]):
        ratio = ns / baseline
        print(f"target: {name} at most {TARGET}x transitions: {'met' if ratio <= TARGET else 'NOT met'} ({ratio:.2f}x)")
    return 0


def version(package: str) -> str:
    from importlib.metadata import version as installed
    return installed(package)


if __name__ == "__main__":
    sys.exit(main())
