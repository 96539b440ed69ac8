"""Foreign functions through libffi (docs/ffi.md), checked against Python.

Services are bound with {"op": "bind"} (or the runtime config's "bind") to
libm, libc, zlib and the test library libyaiatypes.so (Tests/ffi/typelib.c),
called with the binding's Runtime.perform, and every result is compared with
what Python's math and zlib modules and ctypes calls of the same C functions
give on the same inputs.

Environment: YAIA_LIBRARY (libyaia.so, as for every test here) and
YAIA_TEST_LIB_DIR, the folder holding libyaiatypes.so (`make` builds it into
.build/yaia/lib); the tests that need it are skipped when it is absent.
"""

from __future__ import annotations

import base64
import ctypes
import math
import os
import random
import struct
import threading
import zlib
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import pytest

import yaia
from conftest import HOST, WAIT, wait_event

INT64_MIN, INT64_MAX, UINT64_MAX = -(2**63), 2**63 - 1, 2**64 - 1
MIB = 1 << 20


# ---------------------------------------------------------------- helpers


def to_json(x: float) -> Any:
    """A double as docs/ffi.md carries it: NaN and infinities as strings."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def from_json(v: Any) -> float:
    if isinstance(v, str):
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[v]
    assert isinstance(v, (int, float)) and not isinstance(v, bool), v
    return float(v)


def bits(x: float) -> bytes:
    """A double's bits (NaNs all alike): -0.0 and 0.0 differ."""
    return b"nan" if math.isnan(x) else struct.pack("<d", x)


def same(got: Any, want: float) -> bool:
    return bits(from_json(got)) == bits(float(want))


def bad_argument(rt: yaia.Runtime, service: str, op: str, args: Any) -> Dict[str, Any]:
    """Performs a call that must be refused; returns the detail {code, index?, message}."""
    with pytest.raises(yaia.YaiaError) as info:
        rt.perform(service, op, args)
    assert info.value.code == "bad_argument", info.value.envelope
    detail = info.value.detail
    assert isinstance(detail, dict) and detail["code"] == "bad_argument" and detail["message"]
    return detail


def bind(rt: yaia.Runtime, binding: Dict[str, Any]) -> Dict[str, Any]:
    return rt.execute({"op": "bind", **binding})


MATH = {
    "service": "math",
    "library": "libm.so.6",
    "ops": {
        "cos": "double(double)",
        "cosf": "float(float)",
        "pow": "double(double, double)",
        "frexp": "double(double, out int32)",
        "ldexp": "double(double, int32)",
    },
}
LIBC = {
    "service": "libc",
    "library": "libc.so.6",
    "ops": {
        "strlen": "size_t(string)",
        "atoi": "int32(string)",
        "abs": "int32(int32)",
        "labs": "int64(int64)",
        "toupper": "int32(int32)",
    },
}
ZLIB = {
    "service": "z",
    "library": "libz.so.1",
    "ops": {
        "crc32": "uint64(uint64, bytes, len uint32)",
        "adler32": "uint64(uint64, bytes, len uint32)",
        "zlibVersion": "string()",
    },
}

# Integer types: signature name, test-library suffix, ctypes type, limits.
INTEGERS: List[Tuple[str, str, Any, int, int]] = [
    ("int8", "i8", ctypes.c_int8, -(2**7), 2**7 - 1),
    ("int16", "i16", ctypes.c_int16, -(2**15), 2**15 - 1),
    ("int32", "i32", ctypes.c_int32, -(2**31), 2**31 - 1),
    ("int64", "i64", ctypes.c_int64, INT64_MIN, INT64_MAX),
    ("uint8", "u8", ctypes.c_uint8, 0, 2**8 - 1),
    ("uint16", "u16", ctypes.c_uint16, 0, 2**16 - 1),
    ("uint32", "u32", ctypes.c_uint32, 0, 2**32 - 1),
    ("uint64", "u64", ctypes.c_uint64, 0, UINT64_MAX),
    ("size_t", "size", ctypes.c_size_t, 0, UINT64_MAX),
]

CTYPES = {
    "void": None,
    "bool": ctypes.c_bool,
    "float": ctypes.c_float,
    "double": ctypes.c_double,
    "string": ctypes.c_char_p,
    "pointer": ctypes.c_void_p,
    **{name: ct for name, _, ct, _, _ in INTEGERS},
}

TL_OPS: Dict[str, str] = {
    "add_i64": "int64(int64, int64)",
    "tl_touch": "void()",
    "tl_touches": "int64()",
    "tl_low_i8": "int8(int64)",
    "tl_low_u8": "uint8(int64)",
    "tl_low_i16": "int16(int64)",
    "tl_low_u16": "uint16(int64)",
    "tl_low_i32": "int32(int64)",
    "tl_low_u32": "uint32(int64)",
    "tl_id_bool": "bool(bool)",
    "tl_not": "bool(bool)",
    "tl_out_bool": "void(bool, out bool)",
    "tl_id_f32": "float(float)",
    "tl_widen_f32": "double(float)",
    "tl_narrow_f64": "float(double)",
    "tl_add_f32": "float(float, float)",
    "tl_max_f32": "float()",
    "tl_tiny_f32": "float()",
    "tl_out_f32": "void(float, out float)",
    "tl_id_f64": "double(double)",
    "tl_add_f64": "double(double, double)",
    "tl_neg_zero": "double()",
    "tl_signbit": "bool(double)",
    "tl_out_f64": "void(double, out double)",
    "tl_strlen": "size_t(string)",
    "tl_id_str": "string(string)",
    "tl_static_str": "string()",
    "tl_null_str": "string()",
    "tl_byte_at": "uint8(string, size_t)",
    "tl_dup": "string!(string)",
    "tl_dup_or_null": "string!(string)",
    "tl_repeat": "string!(string, int32)",
    "tl_fnv1a": "uint64(bytes, len size_t)",
    "tl_count_nul": "size_t(bytes, len size_t)",
    "tl_len_u8": "int64(bytes, len uint8)",
    "tl_same_bytes": "bool(bytes, len size_t, bytes, len size_t)",
    "tl_static_ptr": "pointer()",
    "tl_is_static": "bool(pointer)",
    "tl_deref": "int64(pointer)",
    "tl_null_ptr": "pointer()",
    "tl_is_null": "bool(pointer)",
    "tl_id_ptr": "pointer(pointer)",
    "tl_out_ptr": "void(pointer, out pointer)",
    "tl_box_new": "pointer(int64)",
    "tl_box_get": "int64(pointer)",
    "tl_box_free": "void(pointer!)",
    "tl_box_drop": "void(pointer!, int64)",
    "tl_find": "int64(bytes, int32, len size_t)",
    "tl_divmod": "int32(int64, int64, out int64, out int64)",
    "tl_out_first": "void(out int32, int32)",
    "tl_describe": "string(int8, uint8, int16, uint16, int32, uint32, int64, uint64, bool, size_t, "
    "float, double, float, double, float, double, float, double, float, double)",
    "tl_thread": "uint64()",
}
for _t, _x, _, _, _ in INTEGERS:
    _w = "int64" if _t.startswith("int") else "uint64"
    TL_OPS.update(
        {
            f"tl_id_{_x}": f"{_t}({_t})",
            f"tl_widen_{_x}": f"{_w}({_t})",
            f"tl_min_{_x}": f"{_t}()",
            f"tl_max_{_x}": f"{_t}()",
            f"tl_add_{_x}": f"{_t}({_t}, {_t})",
            f"tl_out_{_x}": f"void({_t}, out {_t})",
        }
    )


def ctypes_function(lib: ctypes.CDLL, name: str, signature: str) -> Any:
    """The same C function through ctypes, typed from its signature (no bytes, no outs)."""
    ret, params = signature.split("(", 1)
    fn = getattr(lib, name)
    fn.restype = CTYPES[ret.strip().rstrip("!")]
    names = [p.strip().rstrip("!") for p in params.rstrip(")").split(",") if p.strip()]
    fn.argtypes = [CTYPES[p] for p in names]
    return fn


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def tl_path() -> str:
    folder = os.environ.get("YAIA_TEST_LIB_DIR")
    if not folder:
        pytest.skip("YAIA_TEST_LIB_DIR is not set: `make test-python` sets it and builds libyaiatypes.so")
    path = Path(folder) / "libyaiatypes.so"
    if not path.is_file():
        pytest.skip(f"{path} is not built: `make test-python` builds it from Tests/ffi/typelib.c")
    return str(path)


@pytest.fixture(scope="module")
def tl(tl_path: str) -> ctypes.CDLL:
    """The test library through ctypes: the same image the runtime binds."""
    lib = ctypes.CDLL(tl_path)
    for name in ("tl_allocs", "tl_frees", "tl_bad_frees", "tl_live", "tl_touches", "tl_boxes"):
        getattr(lib, name).restype = ctypes.c_int64
        getattr(lib, name).argtypes = []
    return lib


@pytest.fixture(scope="module")
def srt() -> Iterator[yaia.Runtime]:
    """A runtime with libm, libc and zlib bound by the runtime config."""
    with yaia.Runtime(config={"bind": [MATH, LIBC, ZLIB]}, **HOST) as runtime:
        yield runtime


@pytest.fixture(scope="module")
def frt(srt: yaia.Runtime, tl_path: str) -> yaia.Runtime:
    """The same runtime with the test library bound by a request, as service "t"."""
    if "t" not in {s["name"] for s in srt.services()}:
        answer = bind(srt, {"service": "t", "library": tl_path, "free": "tl_free", "ops": TL_OPS})
        assert answer == {"ok": True, "service": "t", "ops": sorted(TL_OPS)}
    return srt


@pytest.fixture(scope="module")
def libm() -> ctypes.CDLL:
    lib = ctypes.CDLL("libm.so.6")
    for name in ("cos", "pow", "ldexp"):
        getattr(lib, name).restype = ctypes.c_double
    lib.cos.argtypes = [ctypes.c_double]
    lib.pow.argtypes = [ctypes.c_double, ctypes.c_double]
    lib.ldexp.argtypes = [ctypes.c_double, ctypes.c_int]
    lib.cosf.restype, lib.cosf.argtypes = ctypes.c_float, [ctypes.c_float]
    lib.frexp.restype = ctypes.c_double
    lib.frexp.argtypes = [ctypes.c_double, ctypes.POINTER(ctypes.c_int)]
    return lib


@pytest.fixture(scope="module")
def libc() -> ctypes.CDLL:
    lib = ctypes.CDLL("libc.so.6")
    lib.strlen.restype, lib.strlen.argtypes = ctypes.c_size_t, [ctypes.c_char_p]
    lib.atoi.restype, lib.atoi.argtypes = ctypes.c_int, [ctypes.c_char_p]
    lib.abs.restype, lib.abs.argtypes = ctypes.c_int, [ctypes.c_int]
    lib.labs.restype, lib.labs.argtypes = ctypes.c_long, [ctypes.c_long]
    lib.toupper.restype, lib.toupper.argtypes = ctypes.c_int, [ctypes.c_int]
    return lib


# ---------------------------------------------------------------- libm vs math and ctypes

DOUBLES = [0.0, -0.0, 1.0, -1.0, 0.5, math.pi, 1e6, 1e22, 1e300, -1e-300, 5e-324, 1.7976931348623157e308,
           -1.7976931348623157e308, math.nan, math.inf, -math.inf]


@pytest.mark.parametrize("x", DOUBLES, ids=repr)
def test_cos(srt: yaia.Runtime, libm: ctypes.CDLL, x: float) -> None:
    got = srt.perform("math", "cos", [to_json(x)])
    assert same(got, math.cos(x) if math.isfinite(x) else math.nan)
    assert same(got, libm.cos(x))


@pytest.mark.parametrize("x", DOUBLES, ids=repr)
def test_cosf(srt: yaia.Runtime, libm: ctypes.CDLL, x: float) -> None:
    if math.isfinite(x) and abs(x) > 3.4028234663852886e38:
        assert bad_argument(srt, "math", "cosf", [x])["index"] == 0
        return
    assert same(srt.perform("math", "cosf", [to_json(x)]), libm.cosf(x))


@pytest.mark.parametrize("x", DOUBLES + [8.0, -3.5, 0.1], ids=repr)
def test_frexp(srt: yaia.Runtime, libm: ctypes.CDLL, x: float) -> None:
    got = srt.perform("math", "frexp", [to_json(x)])
    assert set(got) == {"return", "out"} and len(got["out"]) == 1
    e = ctypes.c_int(12345)
    want = libm.frexp(x, ctypes.byref(e))
    assert same(got["return"], want), (got, want)
    if math.isfinite(x):
        m, pe = math.frexp(x)
        assert same(got["return"], m) and got["out"] == [pe] == [e.value]


POWS = [(2, 10), (2, 0.5), (0, -1), (-0.0, -1), (-8, 1 / 3), (2, 1024), (2, -1074), (2, -1075), (math.nan, 0),
        (1, math.nan), (-1, math.inf), (10, -300), (1.0000001, 1e9), (-2, 3), (0.1, 0.2), (math.inf, -1)]


@pytest.mark.parametrize("x,y", POWS, ids=repr)
def test_pow(srt: yaia.Runtime, libm: ctypes.CDLL, x: float, y: float) -> None:
    got = srt.perform("math", "pow", [to_json(x), to_json(y)])
    assert same(got, libm.pow(x, y))
    try:
        expected = math.pow(x, y)
    except (ValueError, OverflowError):  # math.pow raises where C returns NaN or infinity
        return
    assert same(got, expected)


def test_pow_2_10_is_1024(srt: yaia.Runtime) -> None:
    assert srt.execute({"op": "perform", "effect": {"service": "math", "op": "pow", "args": [2, 10]}}) == {
        "ok": True,
        "result": 1024,
    }


@pytest.mark.parametrize("x,n", [(0.5, 4), (1, -1074), (1, 1024), (1, -(2**31)), (1, 2**31 - 1), (3, 0)], ids=repr)
def test_ldexp(srt: yaia.Runtime, libm: ctypes.CDLL, x: float, n: int) -> None:
    got = srt.perform("math", "ldexp", [x, n])
    assert same(got, libm.ldexp(x, n))
    try:
        assert same(got, math.ldexp(x, n))
    except OverflowError:
        assert from_json(got) == math.inf


# ---------------------------------------------------------------- libc vs Python and ctypes


@pytest.mark.parametrize("s", ["", "hello", "\u00e9\u2603", "\U0001f600", "tab\there\n", "x" * MIB], ids=lambda s: repr(s[:12]))
def test_strlen(srt: yaia.Runtime, libc: ctypes.CDLL, s: str) -> None:
    data = s.encode()
    assert srt.perform("libc", "strlen", [s]) == len(data) == libc.strlen(data)


@pytest.mark.parametrize("s", ["42", "-17xyz", "  +7", "", "2147483647", "-2147483648", "0x10", "abc", "\t\n 99"])
def test_atoi(srt: yaia.Runtime, libc: ctypes.CDLL, s: str) -> None:
    assert srt.perform("libc", "atoi", [s]) == libc.atoi(s.encode())


@pytest.mark.parametrize("v", [0, 5, -5, 2**31 - 1, -(2**31) + 1])
def test_abs(srt: yaia.Runtime, libc: ctypes.CDLL, v: int) -> None:
    assert srt.perform("libc", "abs", [v]) == abs(v) == libc.abs(v)


@pytest.mark.parametrize("v", [0, -1, 1, INT64_MAX, INT64_MIN + 1, -(2**32)])
def test_labs(srt: yaia.Runtime, libc: ctypes.CDLL, v: int) -> None:
    assert srt.perform("libc", "labs", [v]) == abs(v) == libc.labs(v)


@pytest.mark.parametrize("c", [ord("a"), ord("z"), ord("A"), ord("0"), 0, 127, 255, -1])
def test_toupper(srt: yaia.Runtime, libc: ctypes.CDLL, c: int) -> None:
    got = srt.perform("libc", "toupper", [c])
    assert got == libc.toupper(c)
    if 0 <= c < 128:
        assert got == ord(chr(c).upper())


# ---------------------------------------------------------------- zlib vs the zlib module


def _random_bytes(n: int) -> bytes:
    return random.Random(4).randbytes(n)


ZDATA = {
    "empty": b"",
    "hello": b"hello",
    "fox": b"The quick brown fox jumps over the lazy dog",
    "nul": b"a\x00b\x00",
    "all-bytes": bytes(range(256)),
    "1MiB-random": _random_bytes(MIB),
}


@pytest.mark.parametrize("name", list(ZDATA))
def test_crc32_adler32_base64(srt: yaia.Runtime, name: str) -> None:
    data = ZDATA[name]
    arg = {"base64": base64.b64encode(data).decode()}
    assert srt.perform("z", "crc32", [0, arg]) == zlib.crc32(data)
    assert srt.perform("z", "adler32", [1, arg]) == zlib.adler32(data)
    assert srt.perform("z", "crc32", [12345, arg]) == zlib.crc32(data, 12345)


@pytest.mark.parametrize("text", ["", "hello", "\u00e9\u2603", "a\u0000b", "".join(chr(32 + i % 95) for i in range(MIB))],
                         ids=lambda s: repr(s[:12]))
def test_crc32_adler32_text(srt: yaia.Runtime, text: str) -> None:
    data = text.encode()
    assert srt.perform("z", "crc32", [0, text]) == zlib.crc32(data)
    assert srt.perform("z", "adler32", [1, text]) == zlib.adler32(data)


def test_crc32_chained(srt: yaia.Runtime) -> None:
    first = srt.perform("z", "crc32", [0, "hello "])
    assert srt.perform("z", "crc32", [first, "world"]) == zlib.crc32(b"hello world")
    assert srt.perform("z", "crc32", [2**32 - 1, "a"]) == zlib.crc32(b"a", 2**32 - 1)


def test_zlib_version(srt: yaia.Runtime) -> None:
    lib = ctypes.CDLL("libz.so.1")
    lib.zlibVersion.restype = ctypes.c_char_p
    assert srt.perform("z", "zlibVersion", []) == lib.zlibVersion().decode()
    assert zlib.ZLIB_RUNTIME_VERSION == lib.zlibVersion().decode()


# ---------------------------------------------------------------- every type vs ctypes


@pytest.mark.parametrize("t,x,ct,lo,hi", INTEGERS, ids=[i[0] for i in INTEGERS])
def test_integers(frt: yaia.Runtime, tl: ctypes.CDLL, t: str, x: str, ct: Any, lo: int, hi: int) -> None:
    ident = ctypes_function(tl, f"tl_id_{x}", TL_OPS[f"tl_id_{x}"])
    add = ctypes_function(tl, f"tl_add_{x}", TL_OPS[f"tl_add_{x}"])
    for v in (lo, hi, 0, 1, hi // 2):
        assert frt.perform("t", f"tl_id_{x}", [v]) == v == ident(v)
        assert frt.perform("t", f"tl_widen_{x}", [v]) == v
        assert frt.perform("t", f"tl_out_{x}", [v]) == {"return": None, "out": [v]}
    assert frt.perform("t", f"tl_min_{x}", []) == lo == ctypes_function(tl, f"tl_min_{x}", TL_OPS[f"tl_min_{x}"])()
    assert frt.perform("t", f"tl_max_{x}", []) == hi == ctypes_function(tl, f"tl_max_{x}", TL_OPS[f"tl_max_{x}"])()
    assert frt.perform("t", f"tl_add_{x}", [hi, 1]) == add(hi, 1) == (lo if lo else 0)
    assert frt.perform("t", f"tl_add_{x}", [lo, hi]) == add(lo, hi)
    # int64's lo - 1 has a test of its own: test_int64_below_min_is_refused.
    below = [lo - 1] if t != "int64" else []
    for bad in below + [hi + 1, 1.5, -0.5, "1", True, None, [1], "NaN", 1e300]:
        assert bad_argument(frt, "t", f"tl_id_{x}", [bad])["index"] == 0, bad
    assert bad_argument(frt, "t", f"tl_add_{x}", [1, hi + 1])["index"] == 1
    assert frt.perform("t", f"tl_id_{x}", [1.0]) == 1


def test_int64_below_min_is_refused(frt: yaia.Runtime) -> None:
    """-2**63 - 1 must not be rounded to INT64_MIN on the way in."""
    assert bad_argument(frt, "t", "tl_id_i64", [INT64_MIN - 1])["index"] == 0


@pytest.mark.parametrize("op,v", [("tl_low_i8", 511), ("tl_low_i8", -129), ("tl_low_u8", -1), ("tl_low_i16", 98304),
                                  ("tl_low_u16", -1), ("tl_low_i32", 6442450944), ("tl_low_u32", -1),
                                  ("tl_low_u32", INT64_MAX)])
def test_narrow_returns(frt: yaia.Runtime, tl: ctypes.CDLL, op: str, v: int) -> None:
    assert frt.perform("t", op, [v]) == ctypes_function(tl, op, TL_OPS[op])(v)


def test_bool(frt: yaia.Runtime, tl: ctypes.CDLL) -> None:
    ident = ctypes_function(tl, "tl_id_bool", TL_OPS["tl_id_bool"])
    for b in (True, False):
        assert frt.perform("t", "tl_id_bool", [b]) is b is ident(b)
        assert frt.perform("t", "tl_not", [b]) is (not b)
        assert frt.perform("t", "tl_out_bool", [b]) == {"return": None, "out": [b]}
    for bad in (1, 0, "true", None):
        assert bad_argument(frt, "t", "tl_id_bool", [bad])["index"] == 0


def test_void(frt: yaia.Runtime, tl: ctypes.CDLL) -> None:
    before = tl.tl_touches()
    assert frt.perform("t", "tl_touch", []) is None
    assert frt.perform("t", "tl_touch") is None
    assert tl.tl_touches() == before + 2 == frt.perform("t", "tl_touches", [])
    assert "index" not in bad_argument(frt, "t", "tl_touch", [1])
    assert tl.tl_touches() == before + 2  # a refused call makes no call


@pytest.mark.parametrize("x", [0.1, 1 / 3, 16777217.0, 3.4028234663852886e38, -3.4028234663852886e38, 1.401298464324817e-45,
                               1e-50, math.nan, math.inf, -math.inf, 2.5], ids=repr)
def test_float_precision(frt: yaia.Runtime, tl: ctypes.CDLL, x: float) -> None:
    ident = ctypes_function(tl, "tl_id_f32", TL_OPS["tl_id_f32"])
    want = ctypes.c_float(x).value
    assert same(frt.perform("t", "tl_id_f32", [to_json(x)]), want)
    assert same(frt.perform("t", "tl_id_f32", [to_json(x)]), ident(x))
    assert same(frt.perform("t", "tl_widen_f32", [to_json(x)]), want)
    assert same(frt.perform("t", "tl_narrow_f64", [to_json(x)]), want)
    assert same(frt.perform("t", "tl_out_f32", [to_json(x)])["out"][0], want)


def test_float_arithmetic(frt: yaia.Runtime) -> None:
    def f(v: float) -> float:
        return float(ctypes.c_float(v).value)

    assert same(frt.perform("t", "tl_add_f32", [16777216, 1]), 16777216.0)
    assert same(frt.perform("t", "tl_add_f32", [0.1, 0.2]), f(f(0.1) + f(0.2)))
    assert same(frt.perform("t", "tl_max_f32", []), 3.4028234663852886e38)
    assert same(frt.perform("t", "tl_tiny_f32", []), 1.401298464324817e-45)
    for bad in (3.5e38, -1e39, 1e300):
        assert bad_argument(frt, "t", "tl_id_f32", [bad])["index"] == 0
    assert bad_argument(frt, "t", "tl_add_f32", [1, 1.7976931348623157e308])["index"] == 1


@pytest.mark.parametrize("x", [0.1, 0.1 + 0.2, 1.7976931348623157e308, 5e-324, 2.0**53 + 2, -(2.0**63), math.nan,
                               math.inf, -math.inf, -0.0], ids=repr)
def test_double(frt: yaia.Runtime, tl: ctypes.CDLL, x: float) -> None:
    assert same(frt.perform("t", "tl_id_f64", [to_json(x)]), x)
    assert same(frt.perform("t", "tl_id_f64", [to_json(x)]), ctypes_function(tl, "tl_id_f64", TL_OPS["tl_id_f64"])(x))
    assert same(frt.perform("t", "tl_out_f64", [to_json(x)])["out"][0], x)


def test_negative_zero(frt: yaia.Runtime) -> None:
    assert frt.perform("t", "tl_signbit", [-0.0]) is True  # the sign arrives
    assert same(frt.perform("t", "tl_neg_zero", []), -0.0)  # and must come back


def test_double_bad(frt: yaia.Runtime) -> None:
    bads: List[Any] = ["nan", "inf", "1.5", True, None, {}]
    for bad in bads:
        assert bad_argument(frt, "t", "tl_id_f64", [bad])["index"] == 0
    assert same(frt.perform("t", "tl_add_f64", [0.1, 0.2]), 0.1 + 0.2)


def test_strings(frt: yaia.Runtime, tl: ctypes.CDLL) -> None:
    static = ctypes_function(tl, "tl_static_str", TL_OPS["tl_static_str"])
    assert frt.perform("t", "tl_static_str", []) == static().decode() == "static \u00e9\u2603"
    assert frt.perform("t", "tl_null_str", []) is None
    for s in ("", "h\u00e9llo \u2603", 'q"b\\s\n\t\u0001', "\U0001f600", "A" * MIB):
        assert frt.perform("t", "tl_id_str", [s]) == s
        assert frt.perform("t", "tl_strlen", [s]) == len(s.encode())
    assert [frt.perform("t", "tl_byte_at", ["\u00e9", i]) for i in (0, 1)] == list("\u00e9".encode())
    for bad in ("a\u0000b", "\u0000"):
        assert bad_argument(frt, "t", "tl_strlen", [bad])["index"] == 0
    wrong: List[Any] = [None, 5, ["a"], {"base64": "YQ=="}]
    for bad in wrong:
        assert bad_argument(frt, "t", "tl_strlen", [bad])["index"] == 0


def test_owned_strings_freed_once(frt: yaia.Runtime, tl: ctypes.CDLL) -> None:
    allocs, frees = tl.tl_allocs(), tl.tl_frees()
    assert frt.perform("t", "tl_dup", ["x"]) == "x"
    assert frt.perform("t", "tl_dup", [""]) == ""
    assert frt.perform("t", "tl_dup", ["\u00e9\u2603"]) == "\u00e9\u2603"
    assert frt.perform("t", "tl_dup_or_null", [""]) is None  # NULL: nothing to free
    assert frt.perform("t", "tl_dup_or_null", ["a"]) == "a"
    assert frt.perform("t", "tl_repeat", ["ab", 3]) == "ababab"
    assert frt.perform("t", "tl_repeat", ["z", MIB]) == "z" * MIB
    bad_argument(frt, "t", "tl_dup", ["a\u0000"])
    assert tl.tl_allocs() - allocs == 6
    assert tl.tl_frees() - frees == 6
    assert tl.tl_bad_frees() == 0 and tl.tl_live() == 0


def test_owned_strings_from_threads(frt: yaia.Runtime, tl: ctypes.CDLL) -> None:
    allocs, frees = tl.tl_allocs(), tl.tl_frees()
    errors: List[Any] = []

    def work(n: int) -> None:
        for i in range(200):
            s = f"w{n}-{i}"
            got = frt.perform("t", "tl_dup", [s])
            if got != s:
                errors.append((s, got))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT)
    assert errors == []
    assert tl.tl_allocs() - allocs == 800 == tl.tl_frees() - frees
    assert tl.tl_bad_frees() == 0


def fnv1a(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & (2**64 - 1)
    return h


def test_bytes(frt: yaia.Runtime) -> None:
    for data in (b"", b"hello", bytes(range(256)), _random_bytes(4096)):
        assert frt.perform("t", "tl_fnv1a", [{"base64": base64.b64encode(data).decode()}]) == fnv1a(data)
    assert frt.perform("t", "tl_fnv1a", ["h\u00e9"]) == fnv1a("h\u00e9".encode())
    assert frt.perform("t", "tl_count_nul", ["a\u0000b\u0000"]) == 2
    assert frt.perform("t", "tl_count_nul", [{"base64": "AAAA"}]) == 3
    assert frt.perform("t", "tl_same_bytes", ["abc", {"base64": "YWJj"}]) is True
    assert frt.perform("t", "tl_len_u8", ["b" * 255]) == 255
    assert bad_argument(frt, "t", "tl_len_u8", ["b" * 256])["index"] == 0
    assert bad_argument(frt, "t", "tl_same_bytes", ["a", 5])["index"] == 1
    assert "index" not in bad_argument(frt, "t", "tl_same_bytes", ["a", 1, "b", 1])
    for bad in (5, None, [1], {"base64": "@@@@"}, {"base64": "YQ==", "x": 1}, {"b64": "YQ=="}, {}):
        assert bad_argument(frt, "t", "tl_fnv1a", [bad])["index"] == 0


def test_pointers(frt: yaia.Runtime, tl: ctypes.CDLL) -> None:
    address = ctypes_function(tl, "tl_static_ptr", TL_OPS["tl_static_ptr"])()
    p = frt.perform("t", "tl_static_ptr", [])
    # A handle, not the address; the same address, the same handle.
    assert isinstance(p, int) and p > 0 and p != address
    assert frt.perform("t", "tl_static_ptr", []) == p
    assert frt.perform("t", "tl_is_static", [p]) is True
    assert frt.perform("t", "tl_deref", [p]) == 0x5EED
    assert frt.perform("t", "tl_id_ptr", [p]) == p
    assert frt.perform("t", "tl_out_ptr", [p]) == {"return": None, "out": [p]}
    assert frt.perform("t", "tl_is_null", [None]) is True
    assert frt.perform("t", "tl_is_null", [0]) is True
    assert frt.perform("t", "tl_null_ptr", []) == 0
    for bad in (-1, 1.5, "0x10", True, UINT64_MAX + 1):
        assert bad_argument(frt, "t", "tl_id_ptr", [bad])["index"] == 0
    # A heap handle made through the runtime, read through ctypes, freed through the runtime.
    boxes = tl.tl_boxes()
    box = frt.perform("t", "tl_box_new", [INT64_MIN])
    assert frt.perform("t", "tl_box_get", [box]) == INT64_MIN
    assert tl.tl_boxes() == boxes + 1
    assert frt.perform("t", "tl_box_free", [box]) is None
    assert tl.tl_boxes() == boxes
    # pointer! consumed the handle: no use after free, no double free.
    assert "not a pointer handle" in bad_argument(frt, "t", "tl_box_get", [box])["message"]
    assert bad_argument(frt, "t", "tl_box_free", [box])["index"] == 0
    assert tl.tl_boxes() == boxes


def test_made_up_pointers_are_refused_without_a_call(frt: yaia.Runtime, tl: ctypes.CDLL, tl_path: str) -> None:
    address = ctypes_function(tl, "tl_static_ptr", TL_OPS["tl_static_ptr"])()
    # The real address (a call would read 0x5EED), a page that would fault, any number never handed out.
    for made_up in (address, 4096, 2**40, UINT64_MAX, 987654):
        detail = bad_argument(frt, "t", "tl_deref", [made_up])
        assert detail["index"] == 0 and "not a pointer handle of this service" in detail["message"]
    # Handles belong to the service that handed them out.
    p = frt.perform("t", "tl_static_ptr", [])
    bind(frt, {"service": "t_other", "library": tl_path, "ops": {"tl_deref": "int64(pointer)"}})
    assert bad_argument(frt, "t_other", "tl_deref", [p])["index"] == 0


def test_refused_call_consumes_no_handle(frt: yaia.Runtime, tl: ctypes.CDLL) -> None:
    boxes = tl.tl_boxes()
    box = frt.perform("t", "tl_box_new", [5])
    assert bad_argument(frt, "t", "tl_box_drop", [box, "x"])["index"] == 1
    assert frt.perform("t", "tl_box_get", [box]) == 5
    assert frt.perform("t", "tl_box_drop", [box, 1]) is None
    assert bad_argument(frt, "t", "tl_box_drop", [box, 1])["index"] == 0
    assert tl.tl_boxes() == boxes


def test_bytes_length_is_declared(frt: yaia.Runtime, srt: yaia.Runtime) -> None:
    # memchr's layout: bytes, an argument, then the declared length.
    assert frt.perform("t", "tl_find", ["hello", ord("l")]) == 2
    assert frt.perform("t", "tl_find", ["hello", ord("z")]) == -6  # the length received was 5
    assert frt.perform("t", "tl_find", [{"base64": "AAE="}, 1]) == 1
    assert "index" not in bad_argument(frt, "t", "tl_find", ["hello", ord("l"), 5])
    # The old implicit rule -- the integer after bytes took its length -- is refused at bind time.
    for signature in ("pointer(bytes, int32, size_t)", "uint64(uint64, bytes, uint32)", "int64(bytes)"):
        with pytest.raises(yaia.YaiaError) as info:
            bind(srt, {"service": "memchr", "library": "libc.so.6", "ops": {"memchr": signature}})
        assert info.value.code == "bad_signature" and "len size_t" in info.value.message, signature
    assert "memchr" not in [s["name"] for s in srt.services()]


def test_outs(frt: yaia.Runtime) -> None:
    assert frt.perform("t", "tl_divmod", [17, 5]) == {"return": 0, "out": [3, 2]}
    assert frt.perform("t", "tl_divmod", [-17, 5]) == {"return": 0, "out": [-3, -2]}  # C truncates
    q = -((-INT64_MIN) // 7)  # C division truncates toward zero
    assert frt.perform("t", "tl_divmod", [INT64_MIN, 7]) == {"return": 0, "out": [q, INT64_MIN - 7 * q]}
    assert frt.perform("t", "tl_divmod", [1, 0]) == {"return": -1, "out": [0, 0]}
    assert frt.perform("t", "tl_out_first", [21]) == {"return": None, "out": [42]}
    assert "index" not in bad_argument(frt, "t", "tl_divmod", [1, 2, 0, 0])
    assert bad_argument(frt, "t", "tl_out_first", [2**31])["index"] == 0


def test_twenty_parameters(frt: yaia.Runtime, tl: ctypes.CDLL) -> None:
    args = [-128, 255, -32768, 65535, -(2**31), 2**32 - 1, INT64_MIN, UINT64_MAX, True, UINT64_MAX,
            0.1, 0.2, -1.5, -2.5, 3.4028234663852886e38, 1.7976931348623157e308, 1.401298464324817e-45, 5e-324, 3, 4]
    describe = ctypes_function(tl, "tl_describe", TL_OPS["tl_describe"])
    assert frt.perform("t", "tl_describe", args) == describe(*args).decode()
    assert bad_argument(frt, "t", "tl_describe", args[:19] + ["x"])["index"] == 19


def test_inline_call_runs_on_the_calling_thread(frt: yaia.Runtime) -> None:
    assert frt.perform("t", "tl_thread", []) == threading.get_ident()


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "binding,code,at",
    [
        ({"library": "libm.so.6", "ops": {"cos": "double(double)"}}, "bad_binding", "/service"),
        ({"service": "b", "ops": {"cos": "double(double)"}}, "bad_binding", "/library"),
        ({"service": "b", "library": "libm.so.6"}, "bad_binding", "/ops"),
        ({"service": "b", "library": "libm.so.6", "ops": {}}, "bad_binding", "/ops"),
        ({"service": "b", "library": "libm.so.6", "ops": {"cos": "double(double)"}, "colour": 1}, "bad_binding", "/colour"),
        ({"service": "b", "library": "libm.so.6", "ops": {"cos": "double(double)"}, "blocking": 1}, "bad_binding", "/blocking"),
        ({"service": "b", "library": "libm.so.6", "ops": {"cos": 5}}, "bad_binding", "/ops/cos"),
        ({"service": "b", "library": "libm.so.6", "ops": {"cos": {"signature": "double(double)", "sybmol": "sin"}}},
         "bad_binding", "/ops/cos/sybmol"),
        ({"service": "b", "library": "libyaia-no-such.so.3", "ops": {"cos": "double(double)"}}, "library_not_found", "/library"),
        ({"service": "b", "library": "libm.so.6", "ops": {"no_such_fn_x": "int32()"}}, "symbol_not_found", "/ops/no_such_fn_x"),
        ({"service": "b", "library": "libc.so.6", "free": "no_free_x", "ops": {"strdup": "string!(string)"}},
         "symbol_not_found", "/ops/strdup"),
        ({"service": "b", "library": "libm.so.6", "ops": {"cos": "double(double, dbl)"}}, "bad_signature", "/ops/cos"),
        ({"service": "math", "library": "libm.so.6", "ops": {"sin": "double(double)"}}, "duplicate_service", None),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_bad_bindings(srt: yaia.Runtime, binding: Dict[str, Any], code: str, at: Optional[str]) -> None:
    before = srt.services()
    with pytest.raises(yaia.YaiaError) as info:
        bind(srt, binding)
    assert info.value.code == code, info.value.envelope
    if at is not None:
        assert info.value.at == at
    assert srt.services() == before
    assert srt.perform("math", "pow", [2, 10]) == 1024


@pytest.mark.parametrize(
    "signature,token,column",
    [("dbl(double)", "dbl", 1), ("double(double, dbl)", "dbl", 16), ("double double", "double", 8),
     ("double(double,)", ")", 15), ("int32(out string)", "string", 11), ("size_t(string!)", "string!", 8),
     ("bytes(int32)", "bytes", 1), ("int32(void, int32)", "void", 7), ("double(double) x", "x", 16),
     ("int32(bytes, int32, size_t)", "bytes", 7), ("int32(len size_t)", "len", 7), ("int32(bytes, len double)", "double", 18),
     ("int32(bytes, bytes, len size_t, len size_t)", "bytes", 7), ("pointer!(int32)", "pointer!", 1),
     ("int32(out pointer!)", "pointer!", 11)],
)
def test_bad_signature_names_token_and_column(srt: yaia.Runtime, signature: str, token: str, column: int) -> None:
    with pytest.raises(yaia.YaiaError) as info:
        bind(srt, {"service": "sig", "library": "libm.so.6", "ops": {"cos": signature}})
    assert info.value.code == "bad_signature"
    assert f'"{token}" at column {column}' in info.value.message


def test_bad_calls(srt: yaia.Runtime) -> None:
    for args in ([2], [], [1, 2, 3], {"x": 2}, "2"):
        assert "index" not in bad_argument(srt, "math", "pow", args)
    assert "index" not in bad_argument(srt, "math", "frexp", [8, 0])
    assert "index" not in bad_argument(srt, "z", "crc32", [0, "a", 1])
    cases: List[Tuple[str, str, Any, int]] = [
        ("math", "pow", ["2", 10], 0), ("math", "pow", [2, None], 1), ("libc", "strlen", [5], 0),
        ("z", "crc32", [0, 5], 1), ("libc", "abs", [2**31], 0), ("libc", "abs", [-(2**31) - 1], 0),
        ("z", "crc32", [-1, "a"], 0), ("libc", "abs", [1.5], 0), ("libc", "labs", [-0.5], 0),
        ("libc", "strlen", ["a\u0000b"], 0), ("libc", "atoi", ["1\u0000"], 0), ("math", "cosf", [3.5e38], 0),
        ("math", "cos", ["nan"], 0), ("math", "pow", [2, "+Infinity"], 1),
    ]
    for service, op, args, index in cases:
        assert bad_argument(srt, service, op, args).get("index") == index, (service, op, args)
    with pytest.raises(yaia.YaiaError) as info:
        srt.perform("math", "sin", [1])
    assert info.value.code == "service_failed" and info.value.detail["code"] == "unknown_op"
    assert srt.perform("math", "pow", [2, 10]) == 1024


def test_config_bind_errors() -> None:
    with pytest.raises(yaia.YaiaError) as info:
        yaia.Runtime(config={"bind": [MATH, {**MATH, "service": "m2", "library": "no-such-lib.so"}]})
    assert (info.value.code, info.value.at) == ("library_not_found", "/bind/1/library")
    with pytest.raises(yaia.YaiaError) as info:
        yaia.Runtime(config={"bind": [{**MATH, "ops": {"cos": "dbl(double)"}}]})
    assert (info.value.code, info.value.at) == ("bad_signature", "/bind/0/ops/cos")
    with pytest.raises(yaia.YaiaError) as info:
        yaia.Runtime(config={"bind": [MATH, MATH]})
    assert info.value.code == "duplicate_service"
    with pytest.raises(yaia.YaiaError) as info:
        yaia.Runtime(config={"bind": {}})
    assert info.value.code == "bad_config"


def test_services_listing(frt: yaia.Runtime, tl_path: str) -> None:
    listing = {s["name"]: s for s in frt.services()}
    assert listing["math"] == {"name": "math", "origin": "foreign", "library": "libm.so.6", "blocking": False}
    assert listing["t"]["library"] == tl_path


# ---------------------------------------------------------------- from a scene, blocking, typed plugin ops


def test_foreign_effect_from_a_scene(tl_path: str, examples_pack: str) -> None:
    with yaia.Runtime(scenes=[examples_pack],
                      config={"bind": [MATH, {"service": "slow", "library": tl_path, "blocking": True,
                                              "ops": {"tl_wait": "int32(int32)", "tl_release": "int64(int64)",
                                                      "tl_thread": "uint64()"}}]}, **HOST) as rt:
        jobs = rt.open("example/jobs")
        (effect,) = jobs.send("run", {"service": "math", "op": "pow", "args": [2, 10]}).effects
        assert effect.status == "running"
        event = wait_event(rt)
        assert (event.event, event.effect) == ("update", effect.id)
        assert event.view_model["log"] == [{"ok": True, "result": 1024}]
        jobs.send("run", {"service": "math", "op": "pow", "args": [2, "x"]})
        failed = wait_event(rt).view_model["log"][-1]
        assert failed["ok"] is False and failed["error"]["code"] == "bad_argument" and failed["error"]["index"] == 1
        # A blocking call held at the test library's gate: the send returns
        # while it waits on a worker, and its outcome comes once the gate opens.
        (held,) = jobs.send("run", {"service": "slow", "op": "tl_wait", "args": [20]}).effects
        assert held.status == "running"
        assert rt.receive() is None
        assert rt.perform("slow", "tl_release", [1]) == 1
        event = wait_event(rt)
        assert event.effect == held.id and event.view_model["log"][-1] == {"ok": True, "result": 20}
        # The blocking binding runs on a worker thread, not this one.
        assert rt.perform("slow", "tl_thread", []) != threading.get_ident()


def test_typed_plugin(test_plugin: Callable[[str], str]) -> None:
    with yaia.Runtime(plugins=[test_plugin("typed")], **HOST) as rt:
        services = {s["name"]: s for s in rt.services()}
        assert services["calc"]["blocking"] is False and services["calc_slow"]["blocking"] is True
        assert rt.perform("calc", "add", [1.5, 2.25]) == 3.75
        assert same(rt.perform("calc", "add", [0.1, 0.2]), 0.1 + 0.2)
        for text in ("", "   ", "the quick  brown\tfox\n", "\u00e9t\u00e9 \u2603", "w " * (MIB // 2)):
            assert rt.perform("calc", "count_words", [text]) == len(text.split())
        allocs = rt.perform("calc", "allocs", [])
        assert rt.perform("calc", "upper", ["abc xyz"]) == "ABC XYZ"
        assert rt.perform("calc", "upper", [""]) == ""
        assert rt.perform("calc", "allocs", []) == allocs + 2 == rt.perform("calc", "frees", [])
        assert rt.perform("calc", "bad_frees", []) == 0
        assert rt.perform("calc", "stats", ["abc"]) == {"return": 3, "out": [294, 98]}
        assert rt.perform("calc", "thread", []) == threading.get_ident()
        assert rt.perform("calc_slow", "thread", []) != threading.get_ident()
        assert rt.perform("calc_v2", "mul", [3, 4]) == 12
        assert rt.perform("calc_v2", "neg", [INT64_MIN]) == INT64_MIN
        assert bad_argument(rt, "calc", "count_words", ["a\u0000b"])["index"] == 0


def test_typed_plugin_with_a_bad_signature(test_plugin: Callable[[str], str]) -> None:
    with yaia.Runtime(**HOST) as rt:
        before = rt.services()
        with pytest.raises(yaia.YaiaError) as info:
            rt.load_plugin(test_plugin("typed_bad"))
        assert info.value.code == "bad_signature"
        assert '"dbl" at column 16' in info.value.message
        assert rt.services() == before
        with pytest.raises(yaia.YaiaError) as info:
            rt.perform("typed_bad_ok", "twice", [1])
        assert info.value.code == "no_such_service"
