#!/usr/bin/env python3
"""Ground-truth harness for the NVIDIA twin target (issue 4). Python 3 stdlib only.

It runs the kernels of a fixture .so (fixtures/gpu/twin_fixtures.so and the twin that
`wheelport ptx twin` makes of it) on seeded inputs through the .so's exported launchers
(fixtures/gpu/src/wp.h) and compares two such runs output by output.

  harness.py run --so X.so --cases fixtures/gpu/cases.json --out DIR [--seeds 0,1,2]
      Runs every case of the table on every seed, each seed twice (a fixture whose two runs
      differ is reported as unstable), in worker processes: a worker that hits a CUDA error
      or dies is replaced by a fresh one for the remaining cases, and a case that runs past
      --case-timeout seconds is killed and reported. Writes DIR/device.json,
      DIR/<case>.json and the raw output bytes DIR/raw/<case>.s<seed>.<buffer>.bin.
  harness.py compare --orig DIR_A --conv DIR_B --cases CASES --orig-so A.so --conv-so B.so
                     --kind twin|ptxjit-validation --out RESULTS.json
      Compares the two runs under each output's rule (cases.json "cmp") and writes the
      results: device, driver and runtime versions, sha256 of both .so files and of the case
      table, and per case, seed and output the element count, sha256 of both byte strings,
      the largest ulp distance (float types), mismatches (with up to 8 examples) and pass/fail.
      Exit status 1 when anything failed.
  harness.py inputs --cases CASES --case NAME --seed S
      Prints the generated inputs of one case (for debugging on a machine without a GPU).

Comparison rules ("cmp" of an output buffer):
  "exact"                         bytes equal.
  {"ulp": K, "cite": "..."}       float elements within K units in the last place (both NaN
                                  counts as equal; +0 and -0 are 0 ulp apart); for outputs of
                                  .approx instructions, whose error bounds PTX ISA states
                                  relative to the exact result, so two conforming
                                  implementations may differ.
  {"exact": true, "approx_cols": {"stride": S, "cols": [..], "ulp": K, "cite": "..."}}
                                  exact except columns cols of each row of S elements.
  "lines_sorted" (stdout only)    the captured device printf lines, sorted, equal.
"""
import argparse
import ctypes
import hashlib
import json
import math
import os
import random
import struct
import subprocess
import sys
import tempfile
import time

# ----------------------------------------------------------------------------- types
# name: (bytes, struct code of the raw bits, is_float, exponent bits, mantissa bits)
TYPES = {
    "i8": (1, "b", False), "u8": (1, "B", False), "i16": (2, "h", False), "u16": (2, "H", False),
    "i32": (4, "i", False), "u32": (4, "I", False), "i64": (8, "q", False), "u64": (8, "Q", False),
    "f16": (2, "H", True), "bf16": (2, "H", True), "f32": (4, "I", True), "f64": (8, "Q", True),
}
INT_RANGE = {
    "i8": (-(1 << 7), (1 << 7) - 1), "u8": (0, (1 << 8) - 1),
    "i16": (-(1 << 15), (1 << 15) - 1), "u16": (0, (1 << 16) - 1),
    "i32": (-(1 << 31), (1 << 31) - 1), "u32": (0, (1 << 32) - 1),
    "i64": (-(1 << 63), (1 << 63) - 1), "u64": (0, (1 << 64) - 1),
}
FLOAT_BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}
MANT = {"f16": 10, "bf16": 7, "f32": 23, "f64": 52}


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f64_bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def f16_bits(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


def bits_f32(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


def bits_f64(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def bits_f16(b):
    return struct.unpack("<e", struct.pack("<H", b))[0]


def to_bits(t, x):
    """A Python float to the bit pattern of float type t (bf16: truncation of f32)."""
    if t == "f32":
        return f32_bits(x)
    if t == "f64":
        return f64_bits(x)
    if t == "f16":
        try:
            return f16_bits(x)
        except OverflowError:
            return 0x7C00 if x > 0 else 0xFC00
    if t == "bf16":
        return f32_bits(x) >> 16
    raise ValueError(t)


def from_bits(t, b):
    if t == "f32":
        return bits_f32(b)
    if t == "f64":
        return bits_f64(b)
    if t == "f16":
        return bits_f16(b)
    if t == "bf16":
        return bits_f32(b << 16)
    raise ValueError(t)


def is_nan_bits(t, b):
    w = FLOAT_BITS[t]
    m = MANT[t]
    exp_mask = ((1 << (w - 1 - m)) - 1) << m
    return (b & exp_mask) == exp_mask and (b & ((1 << m) - 1)) != 0


def ordered(t, b):
    """Map a float bit pattern to an integer whose differences count ulps (-0 == +0)."""
    w = FLOAT_BITS[t]
    sign = 1 << (w - 1)
    return -(b & (sign - 1)) if b & sign else b


# ----------------------------------------------------------------------------- edge values
def _f32(*xs):
    return [f32_bits(x) for x in xs]


INT_EDGES = {
    32: [0, 1, -1, 2, -2, 3, -7, 7, 31, 32, 33, 63, 64, 255, 256, 0x7FFF, 0x8000, -0x8000,
         0xFFFF, 0x10000, 1000003, 0x55555555, -0x55555556, (1 << 31) - 1, -(1 << 31),
         -(1 << 31) + 1, (1 << 31) - 2, 0x01000001, -0x01000001, 12345],
    64: [0, 1, -1, 2, -2, 7, -7, 63, 64, (1 << 31) - 1, -(1 << 31), 1 << 31, (1 << 32) - 1,
         1 << 32, (1 << 24) + 1, (1 << 53), (1 << 53) + 1, -((1 << 53) + 1), (1 << 63) - 1,
         -(1 << 63), -(1 << 63) + 1, (1 << 63) - 1024, 0x5555555555555555, -0x5555555555555556,
         1000000007, 0x00000000FFFFFFFF, 0x7FFFFFFF00000000, 12345678901234, -98765432109876,
         (1 << 62) + (1 << 38) + 1],
}
F32_EDGES = [
    0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7FC00001, 0xFFC00000,
    0x7F800001, 0x00000001, 0x007FFFFF, 0x80000001, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF,
    0x3F800001, 0x4F7FFFFF, 0x7F7F8000, 0x7F7F0000,
] + _f32(1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.49999997, 16777216.0, 16777218.0,
         2.0 ** 31, -(2.0 ** 31), 2.0 ** 32, 2.0 ** 63, 2.0 ** 64, 65504.0, 65520.0,
         1.0 / 3.0, math.pi, -math.pi, 2.0 ** -14, 2.0 ** -24, 2.0 ** -25, 1.0 + 2.0 ** -11,
         1.0 + 2.0 ** -8, 100.0, -100.0, 1e-40, 88.7, -87.4, 1e30)
F64_EDGES = [
    0x0000000000000000, 0x8000000000000000, 0x7FF0000000000000, 0xFFF0000000000000,
    0x7FF8000000000000, 0x7FF8000000000001, 0xFFF8000000000000, 0x7FF0000000000001,
    0x0000000000000001, 0x000FFFFFFFFFFFFF, 0x8000000000000001, 0x0010000000000000,
    0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF, 0x3FF0000000000001,
] + [f64_bits(x) for x in (
    1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 1.0 + 2.0 ** -24, 1.0 + 2.0 ** -24 + 2.0 ** -52,
    3.4028235677973366e38, 3.4028234663852886e38, 2.0 ** 31 - 0.5, 2.0 ** 31, -(2.0 ** 31) - 1.0,
    2.0 ** 32, 2.0 ** 63, 2.0 ** 64, 1e300, -1e300, 1e-310, 2.0 ** -150, 1.5 * 2.0 ** -149,
    0.1, 1.0 / 3.0, 65504.0, 65520.0, math.pi, 709.8, -745.2, 2.0 ** 53 + 1.0)]
F16_EDGES = [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7E01, 0xFE00, 0x7C01, 0x0001, 0x03FF,
             0x8001, 0x0400, 0x7BFF, 0xFBFF, 0x3C00, 0xBC00, 0x3800, 0x3E00, 0x4100, 0x3C01,
             0x3555, 0x4248, 0x5BFF, 0x6BFF, 0x3BFF, 0xC100, 0x0200, 0x4900, 0x2E66, 0xB800]
BF16_EDGES = [0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x7FC1, 0xFFC0, 0x7F81, 0x0001, 0x007F,
              0x8001, 0x0080, 0x7F7F, 0xFF7F, 0x3F80, 0xBF80, 0x3F00, 0x3FC0, 0x4020, 0x3F81,
              0x3EAB, 0x4049, 0x4B80, 0x4F00, 0xCF00, 0x3F7F, 0xC020, 0x0040, 0x42C8, 0xBF00]


def edges_of(t):
    if t in ("i32", "u32"):
        return [v & 0xFFFFFFFF for v in INT_EDGES[32]]
    if t in ("i64", "u64"):
        return [v & 0xFFFFFFFFFFFFFFFF for v in INT_EDGES[64]]
    if t in ("i8", "u8"):
        return [0, 1, 0xFF, 0x7F, 0x80, 0x81, 2, 0xFE, 0x55, 0xAA]
    if t in ("i16", "u16"):
        return [0, 1, 0xFFFF, 0x7FFF, 0x8000, 0x8001, 2, 0xFFFE, 0x5555, 0xAAAA, 0x00FF, 0xFF00]
    return {"f32": F32_EDGES, "f64": F64_EDGES, "f16": F16_EDGES, "bf16": BF16_EDGES}[t]


# ----------------------------------------------------------------------------- generators
def _mask(t):
    return (1 << (8 * TYPES[t][0])) - 1


def random_value(t, rng, g):
    """One random element (raw bits) of type t for generator spec g."""
    kind = g.get("kind", "mix")
    if kind == "bits":
        return rng.getrandbits(8 * TYPES[t][0])
    if kind == "range":
        lo, hi = g["lo"], g["hi"]
        if TYPES[t][2]:
            return to_bits(t, rng.uniform(lo, hi))
        return rng.randint(lo, hi) & _mask(t)
    if kind == "near":
        return near_value(t, rng, g["to"])
    # mix: a third raw bits, a third uniform in [lo, hi], a third scaled powers of two
    r = rng.random()
    if r < 1 / 3:
        return rng.getrandbits(8 * TYPES[t][0])
    if TYPES[t][2]:
        lo, hi = g.get("lo", -100.0), g.get("hi", 100.0)
        if r < 2 / 3:
            return to_bits(t, rng.uniform(lo, hi))
        span = {"f16": 14, "bf16": 60, "f32": 60, "f64": 300}[t]
        x = rng.uniform(1.0, 2.0) * 2.0 ** rng.randint(-span, span)
        return to_bits(t, -x if rng.random() < 0.5 else x)
    lo, hi = g.get("lo", -1000), g.get("hi", 1000)
    if r < 2 / 3:
        return rng.randint(lo, hi) & _mask(t)
    bits = 8 * TYPES[t][0]
    v = rng.getrandbits(rng.randint(1, bits))
    return (-v if rng.random() < 0.5 else v) & _mask(t)


def near_value(t, rng, to):
    """Values on and next to rounding boundaries of a narrower format `to`."""
    pick = rng.randint(0, 3)  # 0: exact, 1: halfway, 2: halfway - 1 ulp, 3: halfway + 1 ulp
    delta = {0: None, 1: 0, 2: -1, 3: 1}[pick]
    if to == "int":  # k + 0.5 (and neighbours) for float -> int conversions
        k = rng.choice([rng.randint(-40, 40), rng.randint(-(1 << 22), 1 << 22),
                        rng.randint(-(1 << 31), 1 << 31)])
        x = k + (0.5 if delta is not None else 0.0)
        b = to_bits(t, x)
        if delta:
            b = (b + delta) & _mask(t)
        return b
    if t in ("f32", "f64") and to in ("f16", "bf16", "f32"):
        if to == "f16":
            h = rng.getrandbits(15)
            if (h >> 10) == 0x1F:
                h = 0x7BFF
            x = bits_f16(h)
            half_ulp = 2.0 ** (max((h >> 10), 1) - 15 - 11)
        elif to == "bf16":
            h = rng.getrandbits(15)
            if (h >> 7) == 0xFF:
                h = 0x7F7F
            x = bits_f32(h << 16)
            half_ulp = 2.0 ** (max((h >> 7), 1) - 127 - 8)
        else:  # f32 values and their halfway points, in f64
            h = rng.getrandbits(31)
            if (h >> 23) == 0xFF:
                h = 0x7F7FFFFF
            x = bits_f32(h)
            half_ulp = 2.0 ** (max((h >> 23), 1) - 127 - 24)
        if rng.random() < 0.5:
            x = -x
        y = x + (half_ulp if x >= 0 else -half_ulp) if delta is not None else x
        b = to_bits(t, y)
        if delta:
            b = (b + delta) & _mask(t)
        return b
    if t in ("i64", "u64", "i32", "u32") and to in ("f32", "f64"):
        m = 24 if to == "f32" else 53
        width = 8 * TYPES[t][0]
        e = rng.randint(m, width - 2)
        v = rng.getrandbits(m) | (1 << (m - 1))
        v <<= e - m + 1
        if delta is not None:
            v += 1 << (e - m)
            v += delta
        if t[0] == "i" and rng.random() < 0.5:
            v = -v
        return v & _mask(t)
    raise ValueError(f"near {to} for {t}")


def generate(case, buf, seed, n_elems):
    """Raw bit patterns for an input buffer: edge values first (crossed with the partner
    buffer when the spec says "cross"), then random values; all from a seeded RNG."""
    t = buf["type"]
    g = buf.get("gen", {"kind": "mix"})
    rng = random.Random(f"{case['name']}:{buf['name']}:{seed}")
    out = []
    kind = g.get("kind", "mix")
    if kind == "iota":
        return [(i * g.get("step", 1) + g.get("start", 0)) & _mask(t) for i in range(n_elems)]
    if kind == "const":
        v = g["value"]
        v = to_bits(t, v) if TYPES[t][2] and isinstance(v, float) else v & _mask(t)
        return [v] * n_elems
    if kind in ("mix", "near") and not g.get("no_edges"):
        edges = edges_of(t) if kind == "mix" else []
        if g.get("nonzero"):
            edges = [e for e in edges if e != 0]
        if "cross" in g and edges:
            e = len(edges)
            for i in range(min(e * e, n_elems)):
                out.append(edges[i % e] if g["cross"] == 0 else edges[i // e])
        else:
            out.extend(edges[:n_elems])
    while len(out) < n_elems:
        v = random_value(t, rng, g)
        if g.get("nonzero") and v == 0:
            continue
        out.append(v)
    if seed % 2 == 1 and kind != "near":
        out = out[::-1]  # edges land in other warps and blocks
    return out


def pack(t, vals):
    code = TYPES[t][1]
    if code in "bhiq":  # signed codes take signed values
        w = 8 * TYPES[t][0]
        vals = [v - (1 << w) if v >> (w - 1) else v for v in vals]
    return struct.pack(f"<{len(vals)}{code}", *vals)


def unpack_bits(t, data):
    size = TYPES[t][0]
    code = {1: "B", 2: "H", 4: "I", 8: "Q"}[size]
    return struct.unpack(f"<{len(data) // size}{code}", data)


# ----------------------------------------------------------------------------- case table
def count_of(expr, n, blocks):
    if isinstance(expr, int):
        return expr
    env = {"n": n, "blocks": blocks}
    val = 1
    for part in str(expr).split("*"):
        part = part.strip()
        val *= env[part] if part in env else int(part)
    return val


def shape_of(case):
    n = case.get("n", 1024)
    block = case.get("block", [256, 1, 1])
    grid = case.get("grid", [(n + block[0] - 1) // block[0], 1, 1])
    return n, grid, block, case.get("dynsmem", 0)


def load_cases(path):
    with open(path) as f:
        table = json.load(f)
    names = [c["name"] for c in table["cases"]]
    if len(names) != len(set(names)):
        raise SystemExit(f"{path}: duplicate case names")
    return table


def buffer_bytes(case, buf, seed):
    """Initial contents of a buffer: generated inputs, or the output's init pattern."""
    n, grid, _, _ = shape_of(case)
    blocks = grid[0] * grid[1] * grid[2]
    cnt = count_of(buf.get("count", "n"), n, blocks)
    t = buf["type"]
    if buf["role"] in ("in", "inout"):
        return pack(t, generate(case, buf, seed, cnt))
    init = buf.get("init")
    if init is None:
        return bytes(cnt * TYPES[t][0])
    vals = []
    for seg_count, value in init["segments"]:
        v = to_bits(t, float(value)) if TYPES[t][2] and not isinstance(value, int) else value
        vals += [v & _mask(t)] * seg_count
    if len(vals) != cnt:
        raise SystemExit(f"{case['name']}.{buf['name']}: init covers {len(vals)} of {cnt} elements")
    return pack(t, vals)


# ----------------------------------------------------------------------------- worker
class Lib:
    def __init__(self, path):
        self.lib = ctypes.CDLL(os.path.abspath(path))
        self.lib.wp_error_name.restype = ctypes.c_char_p
        self.lib.wp_malloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
        self.lib.wp_free.argtypes = [ctypes.c_void_p]
        self.lib.wp_h2d.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
        self.lib.wp_d2h.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]

    def err(self, e):
        return f"{e} ({self.lib.wp_error_name(e).decode()})"

    def check(self, e, what):
        if e:
            raise CudaError(f"{what}: {self.err(e)}")

    def device_info(self):
        name = ctypes.create_string_buffer(256)
        info = (ctypes.c_int * 6)()
        self.check(self.lib.wp_device_info(name, info), "wp_device_info")
        return {"name": name.value.decode(), "compute_capability": f"{info[0]}.{info[1]}",
                "multiprocessors": info[2], "driver_version": info[3], "runtime_version": info[4],
                "warp_size": info[5]}


class CudaError(Exception):
    pass


class StdoutCapture:
    """Redirect fd 1 (where the CUDA runtime writes device printf output) to a file."""

    def __init__(self):
        self.libc = ctypes.CDLL(None)

    def __enter__(self):
        sys.stdout.flush()
        self.libc.fflush(None)
        self.tmp = tempfile.TemporaryFile()
        self.saved = os.dup(1)
        os.dup2(self.tmp.fileno(), 1)
        return self

    def __exit__(self, *exc):
        self.libc.fflush(None)
        os.dup2(self.saved, 1)
        os.close(self.saved)
        self.tmp.seek(0)
        self.text = self.tmp.read().decode("utf-8", "replace")
        self.tmp.close()


def run_once(lib, case, seed):
    """Run a case once on one seed; returns ({buffer: bytes}, stdout text)."""
    n, grid, block, dyn = shape_of(case)
    ptrs, outs = [], {}
    try:
        for buf in case["buffers"]:
            data = buffer_bytes(case, buf, seed)
            p = ctypes.c_void_p()
            lib.check(lib.lib.wp_malloc(ctypes.byref(p), max(len(data), 16)), f"malloc {buf['name']}")
            ptrs.append(p)
            lib.check(lib.lib.wp_h2d(p, data, len(data)), f"h2d {buf['name']}")
        argv = (ctypes.c_void_p * len(ptrs))(*[p.value for p in ptrs])
        shape = (ctypes.c_uint * 6)(*grid, *block)
        fn = getattr(lib.lib, case["launcher"])
        fn.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
        text = None
        if case.get("stdout"):
            with StdoutCapture() as cap:
                e = fn(argv, n, shape, dyn)
            text = cap.text
        else:
            e = fn(argv, n, shape, dyn)
        lib.check(e, f"{case['launcher']}")
        for buf, p in zip(case["buffers"], ptrs):
            if buf["role"] in ("out", "inout"):
                size = len(buffer_bytes(case, buf, seed))
                host = ctypes.create_string_buffer(size)
                lib.check(lib.lib.wp_d2h(host, p, size), f"d2h {buf['name']}")
                outs[buf["name"]] = host.raw
    finally:
        for p in ptrs:
            lib.lib.wp_free(p)
    return outs, text


def worker(args):
    table = load_cases(args.cases)
    os.makedirs(os.path.join(args.out, "raw"), exist_ok=True)
    try:
        lib = Lib(args.so)
        info = lib.device_info()
    except (OSError, CudaError) as e:
        with open(os.path.join(args.out, ".fatal"), "w") as f:
            f.write(f"{args.so}: {e}")
        raise
    dev_path = os.path.join(args.out, "device.json")
    if not os.path.exists(dev_path):
        write_json(dev_path, info)
    seeds = [int(s) for s in args.seeds.split(",")]
    todo = set(args.only.split(",")) if args.only else None
    for case in table["cases"]:
        if todo is not None and case["name"] not in todo:
            continue
        res_path = os.path.join(args.out, case["name"] + ".json")
        if os.path.exists(res_path):
            continue
        with open(os.path.join(args.out, ".current"), "w") as f:
            f.write(case["name"])
        res = {"case": case["name"], "seeds": {}, "error": None}
        t0 = time.time()
        try:
            for seed in seeds:
                first, text1 = run_once(lib, case, seed)
                second, text2 = run_once(lib, case, seed)
                unstable = sorted(k for k in first if first[k] != second[k])
                if text1 is not None and sorted(text1.splitlines()) != sorted(text2.splitlines()):
                    unstable.append("stdout")
                for k, v in first.items():
                    with open(os.path.join(args.out, "raw", f"{case['name']}.s{seed}.{k}.bin"), "wb") as f:
                        f.write(v)
                if text1 is not None:
                    with open(os.path.join(args.out, "raw", f"{case['name']}.s{seed}.stdout.txt"), "w") as f:
                        f.write(text1)
                res["seeds"][str(seed)] = {"unstable": unstable}
        except CudaError as e:
            res["error"] = str(e)
        res["seconds"] = round(time.time() - t0, 3)
        write_json(res_path, res)
        if res["error"]:
            sys.exit(3)  # a fresh process (and CUDA context) for the remaining cases


def write_json(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1, sort_keys=False)
        f.write("\n")
    os.replace(tmp, path)


def supervise(args):
    table = load_cases(args.cases)
    os.makedirs(args.out, exist_ok=True)
    names = [c["name"] for c in table["cases"]]
    restarts = 0
    while True:
        pending = [c for c in names if not os.path.exists(os.path.join(args.out, c + ".json"))]
        if not pending or restarts > len(names) + 2:
            break
        cur = os.path.join(args.out, ".current")
        if os.path.exists(cur):
            os.remove(cur)
        cmd = [sys.executable, os.path.abspath(__file__), "worker", "--so", args.so, "--cases",
               args.cases, "--out", args.out, "--seeds", args.seeds, "--only", ",".join(pending)]
        proc = subprocess.Popen(cmd)
        last_done, last_t = len(names) - len(pending), time.time()
        while proc.poll() is None:
            time.sleep(0.05)
            done = sum(os.path.exists(os.path.join(args.out, c + ".json")) for c in names)
            if done != last_done:
                last_done, last_t = done, time.time()
            elif time.time() - last_t > args.case_timeout:
                proc.kill()
                proc.wait()
                break
        rc = proc.returncode
        if rc not in (0, 3):
            # the worker died or hung: blame the case it was running
            name = open(cur).read().strip() if os.path.exists(cur) else None
            if name and not os.path.exists(os.path.join(args.out, name + ".json")):
                why = (f"timed out after {args.case_timeout}s" if rc in (-9, 137)
                       else f"worker exited with status {rc}")
                write_json(os.path.join(args.out, name + ".json"),
                           {"case": name, "seeds": {}, "error": why})
            elif not name:
                # died before any case (e.g. the .so failed to load): report every case
                fatal = os.path.join(args.out, ".fatal")
                why = open(fatal).read().strip() if os.path.exists(fatal) else f"status {rc}"
                for c in pending:
                    write_json(os.path.join(args.out, c + ".json"),
                               {"case": c, "seeds": {}, "error": f"worker failed before running: {why}"})
        restarts += 1
    print(f"run: {args.so}: {len(names)} cases in {args.out}")


# ----------------------------------------------------------------------------- compare
def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def compare_output(buf, a, b):
    """Compare two byte strings of one output buffer under its rule."""
    t = buf["type"]
    cmp = buf.get("cmp", "exact")
    size = TYPES[t][0]
    res = {"name": buf["name"], "type": t, "count": len(a) // size,
           "orig_sha256": hashlib.sha256(a).hexdigest(), "conv_sha256": hashlib.sha256(b).hexdigest()}
    if len(a) != len(b):
        res.update(rule="exact", max_ulp=None, mismatches=None, pass_=False,
                   note=f"sizes differ: {len(a)} vs {len(b)}")
        return res
    if isinstance(cmp, str):
        rule = {"ulp": 0, "cols": None}
        res["rule"] = "exact"
    elif "approx_cols" in cmp:
        ac = cmp["approx_cols"]
        rule = {"ulp": 0, "cols": (ac["stride"], set(ac["cols"]), ac["ulp"])}
        res["rule"] = f"exact; columns {sorted(ac['cols'])} of {ac['stride']}: ulp<={ac['ulp']}"
        res["cite"] = ac["cite"]
    else:
        rule = {"ulp": cmp["ulp"], "cols": None}
        res["rule"] = f"ulp<={cmp['ulp']}"
        res["cite"] = cmp["cite"]
    is_float = TYPES[t][2]
    max_ulp = 0 if is_float else None
    mismatches, examples = 0, []
    if a != b:
        va, vb = unpack_bits(t, a), unpack_bits(t, b)
        for i, (x, y) in enumerate(zip(va, vb)):
            if x == y:
                continue
            tol = rule["ulp"]
            if rule["cols"] is not None and i % rule["cols"][0] in rule["cols"][1]:
                tol = rule["cols"][2]
            d = None
            if is_float:
                if is_nan_bits(t, x) and is_nan_bits(t, y):
                    d = 0
                elif is_nan_bits(t, x) or is_nan_bits(t, y):
                    d = float("inf")
                else:
                    d = abs(ordered(t, x) - ordered(t, y))
                max_ulp = max(max_ulp, d)
            ok = is_float and tol > 0 and d <= tol
            if not ok:
                mismatches += 1
                if len(examples) < 8:
                    w = 2 * size
                    ex = {"index": i, "orig": f"0x{x:0{w}x}", "conv": f"0x{y:0{w}x}"}
                    if is_float:
                        ex["orig_value"] = repr(from_bits(t, x))
                        ex["conv_value"] = repr(from_bits(t, y))
                        ex["ulp"] = d if d != float("inf") else "nan-vs-number"
                    examples.append(ex)
    if max_ulp == float("inf"):
        max_ulp = "nan-vs-number"
    res.update(max_ulp=max_ulp, mismatches=mismatches, pass_=mismatches == 0)
    if examples:
        res["examples"] = examples
    return res


def compare(args):
    table = load_cases(args.cases)
    seeds = [int(s) for s in args.seeds.split(",")]
    dev_a = json.load(open(os.path.join(args.orig, "device.json"))) if os.path.exists(os.path.join(args.orig, "device.json")) else None
    dev_b = json.load(open(os.path.join(args.conv, "device.json"))) if os.path.exists(os.path.join(args.conv, "device.json")) else None
    kernels, n_pass = [], 0
    for case in table["cases"]:
        ra = read_case(args.orig, case["name"])
        rb = read_case(args.conv, case["name"])
        k = {"case": case["name"], "launcher": case["launcher"], "family": case["family"],
             "entries": case["entries"], "seeds": []}
        errors = [f"original: {ra['error']}" if ra.get("error") else None,
                  f"converted: {rb['error']}" if rb.get("error") else None]
        errors = [e for e in errors if e]
        for seed in seeds:
            s = {"seed": seed, "outputs": [], "unstable": {}}
            for side, r in (("original", ra), ("converted", rb)):
                u = r.get("seeds", {}).get(str(seed), {}).get("unstable")
                if u:
                    s["unstable"][side] = u
            if errors or str(seed) not in ra.get("seeds", {}) or str(seed) not in rb.get("seeds", {}):
                s["error"] = "; ".join(errors) or "seed not run"
                s["pass"] = False
                k["seeds"].append(s)
                continue
            ok = not s["unstable"]
            for buf in case["buffers"]:
                if buf["role"] == "in":
                    continue
                a = read_raw(args.orig, case["name"], seed, buf["name"])
                b = read_raw(args.conv, case["name"], seed, buf["name"])
                o = compare_output(buf, a, b)
                o["pass"] = o.pop("pass_")
                ok &= o["pass"]
                s["outputs"].append(o)
            if case.get("stdout"):
                ta = read_text(args.orig, case["name"], seed)
                tb = read_text(args.conv, case["name"], seed)
                la, lb = sorted(ta.splitlines()), sorted(tb.splitlines())
                o = {"name": "stdout", "type": "text", "count": len(la), "rule": "lines_sorted",
                     "orig_sha256": hashlib.sha256("\n".join(la).encode()).hexdigest(),
                     "conv_sha256": hashlib.sha256("\n".join(lb).encode()).hexdigest(),
                     "max_ulp": None, "mismatches": sum(1 for x, y in zip(la, lb) if x != y) + abs(len(la) - len(lb)),
                     "pass": la == lb and len(la) > 0}
                if not o["pass"]:
                    o["examples"] = [{"orig": x, "conv": y} for x, y in zip(la, lb) if x != y][:4]
                ok &= o["pass"]
                s["outputs"].append(o)
            s["pass"] = bool(ok)
            if not s["unstable"]:
                del s["unstable"]
            k["seeds"].append(s)
        k["pass"] = all(s["pass"] for s in k["seeds"]) and len(k["seeds"]) >= 3
        n_pass += k["pass"]
        kernels.append(k)
    entries = sorted({e for c in table["cases"] for e in c["entries"]})
    results = {
        "schema": "wheelport-gpu-results/1",
        "kind": args.kind,
        "generated_by": "tools/gpu/harness.py compare",
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "device": dev_a or dev_b,
        "device_converted_run": dev_b if dev_b != dev_a else None,
        "original": {"file": os.path.basename(args.orig_so), "sha256": sha256_file(args.orig_so)},
        "converted": {"file": os.path.basename(args.conv_so), "sha256": sha256_file(args.conv_so)},
        "cases_file": {"file": os.path.basename(args.cases), "sha256": sha256_file(args.cases)},
        "seeds": seeds,
        "summary": {"cases": len(kernels), "cases_passed": n_pass, "entries": len(entries),
                    "failed_cases": [k["case"] for k in kernels if not k["pass"]]},
        "kernels": kernels,
    }
    if results["device_converted_run"] is None:
        del results["device_converted_run"]
    if os.environ.get("WP_NVIDIA_DRIVER") and results["device"]:
        results["device"]["nvidia_driver"] = os.environ["WP_NVIDIA_DRIVER"]
    write_json(args.out, results)
    print(f"compare: {n_pass}/{len(kernels)} cases pass; {len(entries)} entries -> {args.out}")
    for k in kernels:
        if not k["pass"]:
            why = [s.get("error") or [o["name"] for o in s["outputs"] if not o["pass"]] or s.get("unstable")
                   for s in k["seeds"] if not s["pass"]]
            print(f"  FAIL {k['case']}: {why[0] if why else 'fewer than 3 seeds'}")
    return 0 if n_pass == len(kernels) else 1


def read_case(d, name):
    p = os.path.join(d, name + ".json")
    if not os.path.exists(p):
        return {"error": "not run", "seeds": {}}
    return json.load(open(p))


def read_raw(d, name, seed, buf):
    p = os.path.join(d, "raw", f"{name}.s{seed}.{buf}.bin")
    return open(p, "rb").read() if os.path.exists(p) else b""


def read_text(d, name, seed):
    p = os.path.join(d, "raw", f"{name}.s{seed}.stdout.txt")
    return open(p).read() if os.path.exists(p) else ""


def show_inputs(args):
    table = load_cases(args.cases)
    case = next(c for c in table["cases"] if c["name"] == args.case)
    for buf in case["buffers"]:
        data = buffer_bytes(case, buf, args.seed)
        vals = unpack_bits(buf["type"], data)
        t = buf["type"]
        shown = [repr(from_bits(t, v)) if TYPES[t][2] else hex(v) for v in vals[:args.limit]]
        print(f"{buf['name']} {t} {buf['role']} x{len(vals)}: {' '.join(shown)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("run", "worker"):
        p = sub.add_parser(name)
        p.add_argument("--so", required=True)
        p.add_argument("--cases", required=True)
        p.add_argument("--out", required=True)
        p.add_argument("--seeds", default="0,1,2")
        p.add_argument("--only", default="")
        p.add_argument("--case-timeout", type=float, default=30.0)
    p = sub.add_parser("compare")
    p.add_argument("--orig", required=True)
    p.add_argument("--conv", required=True)
    p.add_argument("--orig-so", required=True)
    p.add_argument("--conv-so", required=True)
    p.add_argument("--cases", required=True)
    p.add_argument("--kind", required=True, choices=["twin", "ptxjit-validation"])
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--out", required=True)
    p = sub.add_parser("inputs")
    p.add_argument("--cases", required=True)
    p.add_argument("--case", required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--limit", type=int, default=40)
    args = ap.parse_args()
    if args.cmd == "run":
        supervise(args)
    elif args.cmd == "worker":
        worker(args)
    elif args.cmd == "compare":
        sys.exit(compare(args))
    else:
        show_inputs(args)


if __name__ == "__main__":
    main()
