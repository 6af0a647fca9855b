#!/usr/bin/env python3
"""CUB/Thrust fixture suite driver (issue 16). Python 3 stdlib + ctypes only.

Runs the entry points of fixtures/gpu/cub_fixtures*.so (src/cub_suite.cu) on seeded inputs,
checks every output against a CPU reference computed here, and compares an original run with
a twin run (`wheelport ptx twin` output of the same .so).

  cub_suite.py list                                   the cases (name, entry, n)
  cub_suite.py run --so X.so --out DIR [--only SUBSTR] [--case-timeout S]
      Runs every case in worker subprocesses: a worker whose case returns a CUDA error, dies or
      runs past --case-timeout is replaced by a fresh one for the remaining cases, and that case
      is recorded with its error. Writes DIR/run.json (versions, per-case status) and the raw
      outputs DIR/raw/<case>.<buffer>.bin. Inputs are regenerated from the case name.
  cub_suite.py check --dir DIR [--out CHECK.json]
      Checks one run against the CPU reference. Exit 1 on any failure.
  cub_suite.py compare --orig DIR --conv DIR --out RESULTS.json [--orig-so A.so --conv-so B.so]
      Checks both runs against the reference and against each other; writes
      {library, version, suite, cases, original_passed, twin_passed, failed: [{case, reason}],
       orig_so_sha256, conv_so_sha256, detail: {case: ...}}. Exit 1 on any failure.

Comparison rules (per output):
  integers, sorts, select/partition/RLE, histogram, max/argmax scans: bytes equal
  (select/RLE: the first num_selected / num_runs items only; the rest is unwritten).
  float DeviceReduce::Max: numerically equal (-0 == +0: the reduction order decides which zero).
  float sums (scans, reductions, segmented sums, thrust::inclusive_scan) -- ordering tolerance:
      an output y_i that sums m items x_j (a prefix for scans, a segment for segmented sums) has,
      for ANY summation tree of depth d, |y_i - exact| <= gamma_d * S_i + d * tiny, where
      S_i = sum |x_j|, gamma_d = d*u / (1 - d*u), u = unit roundoff of the type (f16 2^-11,
      f32 2^-24, f64 2^-53), tiny = its smallest subnormal (Higham, Accuracy and Stability of
      Numerical Algorithms, 2nd ed., sec. 4.2). CUB's trees have depth d <= D(m) = 64 + ceil(m/128)
      (per-thread items, warp and block levels <= 64, then one chained partial per tile of >= 128
      items). So:
        original vs twin:       |a - b|   <= 2 * gamma_D(m) * S_i + 2 * D(m) * tiny
        run vs CPU reference:   |a - ref| <= gamma_D(m) * S_i + D(m) * tiny + 2^-49 * S_i
      (ref: math.fsum, or a compensated running sum in binary64 for scans, whose own error is
      below 2^-49 * S_i). Float sum inputs are finite and small, so no partial overflows.
"""
import argparse
import array
import ctypes
import hashlib
import itertools
import json
import math
import os
import random
import struct
import subprocess
import sys
import time
import zlib

SUITE = "cub_suite"
SEED = 20261202
SIZES = [1, 5, 31, 32, 33, 1000, 4097, 100000, 10 ** 7]

# type: (bytes, signed array code, unsigned array code, is_float)
TYPES = {
    "i8": (1, "b", "B", False), "u8": (1, "B", "B", False), "i16": (2, "h", "H", False),
    "i32": (4, "i", "I", False), "u32": (4, "I", "I", False), "i64": (8, "q", "Q", False),
    "f16": (2, None, "H", True), "f32": (4, None, "I", True), "f64": (8, None, "Q", True),
}
STRUCT_F = {"f16": "e", "f32": "f", "f64": "d"}
UNIT = {"f16": 2.0 ** -11, "f32": 2.0 ** -24, "f64": 2.0 ** -53}
TINY = {"f16": 2.0 ** -24, "f32": 2.0 ** -149, "f64": 5e-324}
for _c in "bBhHiIqQ":
    assert array.array(_c).itemsize == {"b": 1, "B": 1, "h": 2, "H": 2, "i": 4, "I": 4,
                                        "q": 8, "Q": 8}[_c]


def width(t):
    return TYPES[t][0]


# ----------------------------------------------------------------------------- the cases
# algorithm: (signature, types, largest size, input kind)
ALGOS = {
    "inclusive_sum": ("unary", ["u8", "i16", "i32", "i64", "f16", "f32", "f64"], 100000, "sum"),
    "exclusive_sum": ("unary", ["i32", "u32", "i64", "f32", "f64"], 100000, "sum"),
    "inclusive_max": ("unary", ["i8", "i16", "i32", "i64", "f32", "f64"], 100000, "nonan"),
    "inclusive_absmax": ("unary", ["i32", "f32", "f64"], 100000, "nonan"),
    "radix_sort_keys": ("unary", ["i8", "u8", "i16", "i32", "u32", "i64", "f16", "f32", "f64"],
                        100000, "bits"),
    "radix_sort_keys_desc": ("unary", ["i32", "f32"], 100000, "bits"),
    "reduce_sum": ("reduce", ["i8", "i32", "u32", "i64", "f16", "f32", "f64"], 100000, "sum"),
    "reduce_max": ("reduce", ["u8", "i16", "i32", "i64", "f16", "f32", "f64"], 100000, "nonan"),
    "reduce_argmax": ("argmax", ["i32", "f32", "f64"], 100000, "nonan"),
    "segmented_sum": ("segsum", ["i32", "i64", "f32", "f64"], 100000, "sum"),
    "histogram_even": ("histogram", ["u8", "i16", "i32", "f32"], 100000, "hist"),
    "radix_sort_pairs": ("pairs", ["i32_i32", "f32_i32", "i64_i64", "f64_u32"], 100000, "bits"),
    "select_flagged": ("flagged", ["i8", "i32", "i64", "f32"], 100000, "bits"),
    "select_if": ("if", ["u8", "i32", "f64"], 100000, "bits"),
    "partition_if": ("if", ["i32", "f32"], 100000, "bits"),
    "rle_encode": ("rle", ["u8", "i32", "i64"], 100000, "runs"),
    "thrust_sort": ("unary", ["i32", "i64", "f32", "f64"], 100000, "bits"),
    "thrust_sort_by_key": ("pairs", ["i32_f32", "f64_i32"], 100000, "bits"),
    "thrust_inclusive_scan": ("unary", ["i32", "f32"], 100000, "sum"),
}
# cases also run at 10**7 items
BIG = {"inclusive_sum_i32", "inclusive_sum_f32", "reduce_sum_f32", "radix_sort_keys_u32",
       "radix_sort_pairs_i32_i32", "thrust_sort_i32", "select_flagged_i32", "histogram_even_u8"}
F16_MAX = 4097  # f16 sums: beyond this gamma_D(m) for f16 says little
PIVOT = {"u8": 100, "i32": 0, "f64": 0.25, "f32": -0.5}
HIST = {  # sample type: (num_levels, lower, upper, sample range for the generator)
    "u8": (257, 0, 256, None), "i16": (101, -1000, 1000, (-1200, 1200)),
    "i32": (1001, -1000000, 1000000, (-1200000, 1200000)), "f32": (257, 0.0, 256.0, (-10.0, 266.0)),
}


def cases():
    out = []
    for algo, (sig, types, top, kind) in ALGOS.items():
        for t in types:
            entry = "wp_cub_%s_%s" % (algo, t)
            stem = "%s_%s" % (algo, t)
            for n in SIZES:
                if n > top and stem not in BIG:
                    continue
                if t == "f16" and kind == "sum" and n > F16_MAX:
                    continue
                out.append({"case": "%s_n%d" % (stem, n), "algo": algo, "sig": sig, "type": t,
                            "entry": entry, "n": n, "kind": kind})
    return out


CASES = {c["case"]: c for c in cases()}


# ----------------------------------------------------------------------------- inputs
def f_bits(t, x):
    return struct.unpack("<" + TYPES[t][2], struct.pack("<" + STRUCT_F[t], x))[0]


def edges(t):
    w = 8 * width(t)
    if not TYPES[t][3]:
        m = (1 << w) - 1
        s = [0, 1, -1, 2, -2, 7, -7, (1 << (w - 1)) - 1, -(1 << (w - 1)), -(1 << (w - 1)) + 1,
             0x55 if w == 8 else 0x5555, 100, -100]
        return [v & m for v in s]
    specials = {
        "f16": [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x0001, 0x8001, 0x03FF, 0x7BFF,
                0xFBFF, 0x3C00, 0xBC00],
        "f32": [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
                0x7FC00001, 0x00000001, 0x80000001, 0x007FFFFF, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000],
        "f64": [0, 1 << 63, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000,
                0xFFF8000000000000, 0x7FF8000000000001, 1, (1 << 63) | 1, 0x000FFFFFFFFFFFFF,
                0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF, 0x3FF0000000000000],
    }
    return specials[t]


def float_bits(t, xs):
    """Python floats to the bit patterns of float type t (rounded to nearest)."""
    raw = struct.pack("<%d%s" % (len(xs), STRUCT_F[t]), *xs)
    return array.array(TYPES[t][2], raw).tolist()


def is_nan(t, b):
    w = 8 * width(t)
    m = {"f16": 10, "f32": 23, "f64": 52}[t]
    e = ((1 << (w - 1 - m)) - 1) << m
    return (b & e) == e and (b & ((1 << m) - 1)) != 0


def is_inf_or_nan(t, b):
    w = 8 * width(t)
    m = {"f16": 10, "f32": 23, "f64": 52}[t]
    e = ((1 << (w - 1 - m)) - 1) << m
    return (b & e) == e


def rand_bits(rng, t, n):
    w = width(t)
    raw = rng.getrandbits(8 * w * n).to_bytes(w * n, "little") if n else b""
    return array.array(TYPES[t][2], raw).tolist()


def sprinkle(rng, vals, extra):
    """Put the edge values at random positions (all of them when they fit)."""
    n = len(vals)
    for v in extra[:n]:
        vals[rng.randrange(n)] = v


def gen_values(rng, t, n, kind, case):
    """Raw bit patterns (unsigned ints) of one input array."""
    if kind == "bits":
        v = rand_bits(rng, t, n)
        if case["sig"] in ("if", "flagged") or n < 4097:
            # short arrays and predicates: a small domain, so equal keys and ties occur
            if not TYPES[t][3]:
                dom = edges(t) + rand_bits(rng, t, 16)
                v = [dom[x % len(dom)] if (x >> 9) & 1 else x for x in v]
        if TYPES[t][3] and case["sig"] in ("if",):
            v = [f_bits(t, rng.uniform(-2.0, 2.0)) if i % 3 else x for i, x in enumerate(v)]
        sprinkle(rng, v, edges(t))
        return v
    if kind == "sum":
        if not TYPES[t][3]:
            v = rand_bits(rng, t, n)
            sprinkle(rng, v, edges(t))
            return v
        # finite, mostly in [-1, 1), a few magnitudes 2^-20..2^10, signed zeros, subnormals
        r = rng.random
        vals = [r() * 2.0 - 1.0 for i in range(n)]
        for i in range(0, n, 97):
            vals[i] *= 2.0 ** rng.randint(-20, 10)
        vals = float_bits(t, vals)
        sprinkle(rng, vals, [0, 1 << (8 * width(t) - 1), 1, (1 << (8 * width(t) - 1)) | 1])
        return vals
    if kind == "nonan":
        v = rand_bits(rng, t, n)
        if TYPES[t][3]:
            ed = [e for e in edges(t) if not is_nan(t, e)]
            v = [x if not is_nan(t, x) else f_bits(t, rng.uniform(-9.0, 9.0)) for x in v]
            if case["algo"] == "inclusive_absmax":
                ed = [e for e in ed if not is_inf_or_nan(t, e)]
                v = [x if not is_inf_or_nan(t, x) else 0 for x in v]
            # ties: repeat some values (incl. +0/-0)
            dom = ed + v[:8]
            v = [dom[x % len(dom)] if (x & 7) == 0 else x for x in v]
            sprinkle(rng, v, ed)
            return v
        dom = edges(t) + v[:8]
        v = [dom[x % len(dom)] if (x & 7) == 0 else x for x in v]
        sprinkle(rng, v, edges(t))
        return v
    if kind == "hist":
        lv, lo, hi, rg = HIST[t]
        if rg is None:
            return rand_bits(rng, t, n)
        if TYPES[t][3]:
            v = float_bits(t, [rng.uniform(*rg) for _ in range(n)])
            # exact bin edges, zeros, NaN, inf (NaN and inf fall outside every bin)
            sprinkle(rng, v, [0, 0x80000000, f_bits(t, 255.0), f_bits(t, 256.0), f_bits(t, 1.0),
                              0x7FC00000, 0x7F800000, 0xFF800000, f_bits(t, 255.99998)])
            return v
        m = (1 << (8 * width(t))) - 1
        v = [rng.randint(*rg) & m for _ in range(n)]
        sprinkle(rng, v, [lo & m, (hi - 1) & m, hi & m, (lo - 1) & m, 0, 19 & m, 20 & m])
        return v
    if kind == "runs":
        dom = edges(t)[:6]
        v = []
        while len(v) < n:
            v.extend([dom[rng.randrange(len(dom))]] * min(n - len(v), int(rng.expovariate(0.15)) + 1))
        return v
    raise ValueError(kind)


def to_bytes(t, bits):
    return array.array(TYPES[t][2], bits).tobytes()


def gen_inputs(case):
    """{name: (type, bytes)} plus the scalar arguments of the case."""
    rng = random.Random(SEED ^ zlib.crc32(case["case"].encode()))
    sig, t, n = case["sig"], case["type"], case["n"]
    if sig == "pairs":
        kt, vt = t.split("_")
        keys = gen_values(rng, kt, n, "bits", case)
        vals = list(range(n)) if not TYPES[vt][3] else [f_bits(vt, float(i)) for i in range(n)]
        if vt in ("i32", "u32", "i64"):
            vals = [(i * 2654435761) & ((1 << (8 * width(vt) - 1)) - 1) for i in range(n)]
        return {"keys": (kt, to_bytes(kt, keys)), "vals": (vt, to_bytes(vt, vals))}, {}
    ins = {"in": (t, to_bytes(t, gen_values(rng, t, n, case["kind"], case)))}
    extra = {}
    if sig == "segsum":
        off = [0]
        while off[-1] < n:
            ln = rng.choice([0, 0, 1, 2, 3, 31, 32, 33, 200, 1000, 5000])
            off.append(min(n, off[-1] + ln))
        off.append(n)  # one empty segment at the end
        ins["offsets"] = ("i32", to_bytes("i32", off))
        extra["nseg"] = len(off) - 1
    if sig == "flagged":
        f = rng.getrandbits(8 * n).to_bytes(n, "little")
        ins["flags"] = ("u8", bytes(b if b & 1 else 0 for b in f))
    if sig == "if":
        extra["pivot"] = float(PIVOT[t])
    if sig == "histogram":
        lv, lo, hi, _ = HIST[t]
        extra.update(levels=lv, lower=float(lo), upper=float(hi))
    return ins, extra


# ----------------------------------------------------------------------------- decoding
def ints(t, b):
    code = TYPES[t][1] if not TYPES[t][3] else TYPES[t][2]
    return array.array(code, b).tolist()


def floats(t, b):
    return list(struct.unpack("<%d%s" % (len(b) // width(t), STRUCT_F[t]), b))


def wrap(t, x):
    w = 8 * width(t)
    x &= (1 << w) - 1
    if TYPES[t][1] in "bhiq" and x >= 1 << (w - 1):
        x -= 1 << w
    return x


def sort_key(t):
    """Radix-sort order of raw bits: -0 == +0, negative NaNs first, positive NaNs last."""
    w = 8 * width(t)
    sign = 1 << (w - 1)
    mask = (1 << w) - 1
    if TYPES[t][3]:
        def k(b):
            if b == sign:
                b = 0
            return (~b & mask) if b & sign else (b | sign)
        return k
    if TYPES[t][1] in "bhiq":
        return lambda b: b ^ sign
    return lambda b: b


# ----------------------------------------------------------------------------- references
def D(m):
    return 64 + (m + 127) // 128


def gamma(d, u):
    return d * u / (1 - d * u) if d * u < 1 else math.inf


def reference(case, ins, extra):
    """{output: ("bytes", bytes) | ("fsum", [(ref, S, m)]) | ("num", t, [values])}; counts of
    the meaningful prefix in "valid"."""
    algo, t, n = case["algo"], case["type"], case["n"]
    ref, valid = {}, {}
    if algo in ("inclusive_sum", "exclusive_sum", "thrust_inclusive_scan"):
        x = ins["in"][1]
        excl = algo == "exclusive_sum"
        if not TYPES[t][3]:
            s = list(itertools.accumulate(ints(t, x)))
            if excl:
                s = [0] + s[:-1]
            ref["out"] = ("bytes", to_bytes(t, [v & ((1 << (8 * width(t))) - 1) for v in s]))
        else:
            xs = floats(t, x)
            rows, tot, comp, S = [], 0.0, 0.0, 0.0
            for i, v in enumerate(xs):
                if excl:
                    rows.append((tot + comp, S, i))
                y = tot + v  # Neumaier compensated running sum
                comp += (tot - y) + v if abs(tot) >= abs(v) else (v - y) + tot
                tot = y
                S += abs(v)
                if not excl:
                    rows.append((tot + comp, S, i + 1))
            ref["out"] = ("fsum", t, rows)
    elif algo in ("inclusive_max", "inclusive_absmax"):
        x = ins["in"][1]
        if TYPES[t][3]:
            vals = floats(t, x)
            bits = ints(t, x)
        else:
            vals = bits = ints(t, x)
        key = (lambda v: abs(v)) if algo == "inclusive_absmax" else (lambda v: v)
        out, cur = [], None
        for v, b in zip(vals, bits):
            if cur is None or key(v) > key(cur[0]):
                cur = (v, b)
            out.append(cur[1])
        ref["out"] = ("bytes", to_bytes(t, [b & ((1 << (8 * width(t))) - 1) for b in out]))
    elif algo in ("radix_sort_keys", "radix_sort_keys_desc", "thrust_sort"):
        desc = algo.endswith("desc")
        if not TYPES[t][3]:  # integers: plain value order
            ref["out"] = ("bytes", array.array(TYPES[t][1], sorted(ints(t, ins["in"][1]), reverse=desc)).tobytes())
        else:  # stable (descending: equal keys, i.e. -0 and +0, keep their input order)
            b = array.array(TYPES[t][2], ins["in"][1]).tolist()
            k = sort_key(t)
            s = sorted(b, key=(lambda v: -k(v)) if desc else k)
            ref["out"] = ("bytes", to_bytes(t, s))
    elif algo in ("radix_sort_pairs", "thrust_sort_by_key"):
        kt, vt = t.split("_")
        kb = array.array(TYPES[kt][2], ins["keys"][1]).tolist()
        vb = array.array(TYPES[vt][2], ins["vals"][1]).tolist()
        if TYPES[kt][3]:
            k = sort_key(kt)
            kk = [k(v) for v in kb]
        else:
            kk = ints(kt, ins["keys"][1])
        order = sorted(range(n), key=kk.__getitem__)  # stable
        ref["keys"] = ("bytes", to_bytes(kt, [kb[i] for i in order]))
        ref["vals"] = ("bytes", to_bytes(vt, [vb[i] for i in order]))
    elif algo == "reduce_sum":
        x = ins["in"][1]
        if TYPES[t][3]:
            xs = floats(t, x)
            ref["out"] = ("fsum", t, [(math.fsum(xs), math.fsum(abs(v) for v in xs), n)])
        else:
            ref["out"] = ("bytes", to_bytes(t, [sum(ints(t, x)) & ((1 << (8 * width(t))) - 1)]))
    elif algo == "reduce_max":
        x = ins["in"][1]
        if TYPES[t][3]:
            ref["out"] = ("num", t, [max(floats(t, x))])
        else:
            ref["out"] = ("bytes", to_bytes(t, [max(ints(t, x)) & ((1 << (8 * width(t))) - 1)]))
    elif algo == "reduce_argmax":
        x = ins["in"][1]
        vals = floats(t, x) if TYPES[t][3] else ints(t, x)
        i = max(range(n), key=lambda j: (vals[j], -j))
        ref["max"] = ("bytes", x[i * width(t):(i + 1) * width(t)])
        ref["index"] = ("bytes", to_bytes("i64", [i]))
    elif algo == "segmented_sum":
        off = ints("i32", ins["offsets"][1])
        x = ins["in"][1]
        if TYPES[t][3]:
            xs = floats(t, x)
            ref["out"] = ("fsum", t, [(math.fsum(xs[a:b]), math.fsum(abs(v) for v in xs[a:b]), b - a)
                                      for a, b in zip(off, off[1:])])
        else:
            xs = ints(t, x)
            m = (1 << (8 * width(t))) - 1
            ref["out"] = ("bytes", to_bytes(t, [sum(xs[a:b]) & m for a, b in zip(off, off[1:])]))
    elif algo == "histogram_even":
        lv, lo, hi = extra["levels"], extra["lower"], extra["upper"]
        bins = lv - 1
        h = [0] * bins
        vals = floats(t, ins["in"][1]) if TYPES[t][3] else ints(t, ins["in"][1])
        for v in vals:
            if lo <= v < hi:  # False for NaN
                if TYPES[t][3]:
                    h[int(math.floor((v - lo) * (bins / (hi - lo))))] += 1
                else:
                    h[(int(v) - int(lo)) * bins // (int(hi) - int(lo))] += 1
        ref["hist"] = ("bytes", to_bytes("i32", h))
    elif algo == "select_flagged":
        w = width(t)
        x, f = ins["in"][1], ins["flags"][1]
        sel = b"".join(x[i * w:(i + 1) * w] for i in range(n) if f[i])
        ref["out"] = ("bytes", sel)
        ref["num"] = ("bytes", to_bytes("i64", [len(sel) // w]))
        valid["out"] = len(sel)
    elif algo in ("select_if", "partition_if"):
        w = width(t)
        x = ins["in"][1]
        vals = floats(t, x) if TYPES[t][3] else ints(t, x)
        pv = extra["pivot"]
        if t == "f32":
            pv = struct.unpack("<f", struct.pack("<f", pv))[0]
        yes = [x[i * w:(i + 1) * w] for i in range(n) if vals[i] < pv]
        no = [x[i * w:(i + 1) * w] for i in range(n) if not vals[i] < pv]
        if algo == "select_if":
            ref["out"] = ("bytes", b"".join(yes))
            valid["out"] = len(yes) * w
        else:  # selected in order, then the rejected in reverse order
            ref["out"] = ("bytes", b"".join(yes) + b"".join(reversed(no)))
        ref["num"] = ("bytes", to_bytes("i64", [len(yes)]))
    elif algo == "rle_encode":
        w = width(t)
        b = array.array(TYPES[t][2], ins["in"][1]).tolist()
        uniq, counts = [], []
        for v, g in itertools.groupby(b):
            uniq.append(v)
            counts.append(sum(1 for _ in g))
        ref["unique"] = ("bytes", to_bytes(t, uniq))
        ref["counts"] = ("bytes", to_bytes("i32", counts))
        ref["num"] = ("bytes", to_bytes("i64", [len(uniq)]))
        valid["unique"] = len(uniq) * w
        valid["counts"] = len(uniq) * 4
    else:
        raise ValueError(algo)
    return ref, valid


# ----------------------------------------------------------------------------- running
def out_specs(case, extra):
    """[(name, bytes)] of the output buffers, in call order."""
    sig, t, n = case["sig"], case["type"], case["n"]
    if sig == "unary":
        return [("out", n * width(t))]
    if sig == "reduce":
        return [("out", width(t))]
    if sig == "argmax":
        return [("max", width(t)), ("index", 8)]
    if sig == "segsum":
        return [("out", extra["nseg"] * width(t))]
    if sig == "histogram":
        return [("hist", (extra["levels"] - 1) * 4)]
    if sig == "pairs":
        kt, vt = t.split("_")
        return [("keys", n * width(kt)), ("vals", n * width(vt))]
    if sig in ("flagged", "if"):
        return [("out", n * width(t)), ("num", 8)]
    if sig == "rle":
        return [("unique", n * width(t)), ("counts", n * 4), ("num", 8)]
    raise ValueError(sig)


def call_case(lib, case):
    ins, extra = gen_inputs(case)
    outs = out_specs(case, extra)
    ib = {k: ctypes.create_string_buffer(v[1], max(1, len(v[1]))) for k, v in ins.items()}
    ob = {k: ctypes.create_string_buffer(max(1, sz)) for k, sz in outs}
    fn = getattr(lib, case["entry"])
    fn.restype = ctypes.c_int
    n = ctypes.c_int64(case["n"])
    sig = case["sig"]
    if sig in ("unary", "reduce"):
        args = [ib["in"], ob["out"], n]
    elif sig == "argmax":
        args = [ib["in"], ob["max"], ob["index"], n]
    elif sig == "segsum":
        args = [ib["in"], ib["offsets"], ob["out"], n, ctypes.c_int64(extra["nseg"])]
    elif sig == "histogram":
        args = [ib["in"], ob["hist"], n, ctypes.c_int(extra["levels"]),
                ctypes.c_double(extra["lower"]), ctypes.c_double(extra["upper"])]
    elif sig == "pairs":
        args = [ib["keys"], ib["vals"], ob["keys"], ob["vals"], n]
    elif sig == "flagged":
        args = [ib["in"], ib["flags"], ob["out"], ob["num"], n]
    elif sig == "if":
        args = [ib["in"], ob["out"], ob["num"], n, ctypes.c_double(extra["pivot"])]
    elif sig == "rle":
        args = [ib["in"], ob["unique"], ob["counts"], ob["num"], n]
    t0 = time.time()
    rc = fn(*args)
    dt = time.time() - t0
    return rc, dt, {k: ob[k].raw[:sz] for k, sz in outs}, ins


def sha(b):
    return hashlib.sha256(b).hexdigest()


def worker(so, outdir, names):
    lib = ctypes.CDLL(os.path.abspath(so))
    lib.wp_cub_error_string.restype = ctypes.c_char_p
    os.makedirs(os.path.join(outdir, "raw"), exist_ok=True)
    for name in names:
        case = CASES[name]
        with open(os.path.join(outdir, ".current"), "w") as f:
            f.write(name)
        rc, dt, outs, ins = call_case(lib, case)
        rec = {"case": name, "entry": case["entry"], "n": case["n"], "rc": rc, "seconds": round(dt, 4),
               "inputs_sha256": {k: sha(v[1]) for k, v in ins.items()}}
        if rc:
            rec["error"] = lib.wp_cub_error_string(rc).decode()
        else:
            rec["outputs"] = {}
            for k, b in outs.items():
                with open(os.path.join(outdir, "raw", "%s.%s.bin" % (name, k)), "wb") as f:
                    f.write(b)
                rec["outputs"][k] = {"bytes": len(b), "sha256": sha(b)}
        with open(os.path.join(outdir, "rec", name + ".json"), "w") as f:
            json.dump(rec, f)
        if rc:
            return 3  # the context may be poisoned: let a fresh worker take the rest
    return 0


def cmd_run(a):
    os.makedirs(os.path.join(a.out, "rec"), exist_ok=True)
    names = [c for c in CASES if (not a.only or any(s in c for s in a.only.split(",")))]
    lib = ctypes.CDLL(os.path.abspath(a.so))
    lib.wp_cub_version.restype = lib.wp_thrust_version.restype = ctypes.c_int
    info = {"so": os.path.abspath(a.so), "so_sha256": sha(open(a.so, "rb").read()),
            "cub_version": lib.wp_cub_version(), "thrust_version": lib.wp_thrust_version(),
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    del lib
    todo = list(names)
    t_start = time.time()
    while todo:
        cur = os.path.join(a.out, ".current")
        if os.path.exists(cur):
            os.remove(cur)
        p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "worker", "--so", a.so,
                              "--out", a.out, "--cases", ",".join(todo)])
        last, since = None, time.time()
        while p.poll() is None:
            time.sleep(0.05)
            now = open(cur).read() if os.path.exists(cur) else None
            if now != last:
                last, since = now, time.time()
            elif now and time.time() - since > a.case_timeout:
                p.kill()
                p.wait()
                break
        done = [c for c in todo if os.path.exists(os.path.join(a.out, "rec", c + ".json"))]
        rest = [c for c in todo if c not in done]
        if rest and p.returncode != 3:  # died or timed out inside rest[0]
            now = open(cur).read() if os.path.exists(cur) else rest[0]
            why = ("timed out after %ss" % a.case_timeout) if p.returncode in (-9,) else \
                  ("worker died (exit %s)" % p.returncode)
            with open(os.path.join(a.out, "rec", now + ".json"), "w") as f:
                json.dump({"case": now, "rc": None, "error": why}, f)
            rest = [c for c in rest if c != now]
        todo = rest
    recs = {}
    for c in names:
        with open(os.path.join(a.out, "rec", c + ".json")) as f:
            recs[c] = json.load(f)
    info["seconds"] = round(time.time() - t_start, 1)
    info["cases"] = recs
    with open(os.path.join(a.out, "run.json"), "w") as f:
        json.dump(info, f, indent=1, sort_keys=True)
    bad = [c for c, r in recs.items() if r.get("rc") != 0]
    print("%s: %d cases run in %.0fs, %d with errors%s" % (a.so, len(recs), info["seconds"], len(bad),
          "".join("\n  %s: %s" % (c, recs[c].get("error")) for c in bad[:20])))
    return 0


# ----------------------------------------------------------------------------- comparing
def load_out(d, name, k):
    with open(os.path.join(d, "raw", "%s.%s.bin" % (name, k)), "rb") as f:
        return f.read()


def check_fsum(t, got, rows, scale):
    """scale 1: against the reference; scale 2: run vs run (ref taken from the other run)."""
    u, tiny = UNIT[t], TINY[t]
    vals = floats(t, got)
    worst, bad = 0.0, []
    for i, ((r, S, m), g) in enumerate(zip(rows, vals)):
        d = D(m)
        tol = scale * (gamma(d, u) * S + d * tiny) + (2.0 ** -49 * S if scale == 1 else 0.0)
        err = abs(g - r) if not (math.isnan(g) or math.isnan(r)) else math.inf
        if tol > 0:
            worst = max(worst, err / tol)
        if not err <= tol:
            bad.append({"i": i, "got": g, "want": r, "tol": tol})
    return worst, bad


def diff_bytes(a, b, w):
    out = []
    for i in range(0, min(len(a), len(b)), w):
        if a[i:i + w] != b[i:i + w]:
            out.append({"i": i // w, "got": a[i:i + w].hex(), "want": b[i:i + w].hex()})
            if len(out) >= 8:
                break
    return out


def judge(case, outs, ref, valid, other=None):
    """Check one run's outputs against the reference (other None) or against another run.
    Returns (ok, reason, detail)."""
    t = case["type"]
    detail = {}
    for k, r in ref.items():
        got = outs[k]
        if r[0] == "bytes":
            want = r[1] if other is None else other[k]
            if k in valid:  # compare only the meaningful prefix (num_selected / num_runs)
                lim = valid[k]
                got, want = got[:lim], want[:lim]
            w = width(t.split("_")[0]) if k not in ("index", "num", "counts", "hist") else \
                (4 if k in ("counts", "hist") else 8)
            if k == "vals":
                w = width(t.split("_")[1])
            if got != want:
                ex = diff_bytes(got, want, w)
                detail[k] = {"mismatch": True, "examples": ex}
                return False, "%s differs at item %s" % (k, ex[0]["i"] if ex else "(length)"), detail
            detail[k] = {"exact": True}
        elif r[0] == "num":
            a = floats(t, got)
            b = r[2] if other is None else floats(t, other[k])
            if a != b:  # == on floats: -0 == +0, no NaN inputs
                return False, "%s: %r != %r" % (k, a, b), detail
            detail[k] = {"numeric": True}
        elif r[0] == "fsum":
            rows = r[2]
            if other is not None:
                rows = [(v, S, m) for v, (_, S, m) in zip(floats(t, other[k]), rows)]
            worst, bad = check_fsum(t, got, rows, 1 if other is None else 2)
            detail[k] = {"worst_err_over_tol": worst}
            if bad:
                detail[k]["examples"] = bad[:8]
                return False, "%s: %d items outside the ordering tolerance, first %s" % (
                    k, len(bad), bad[0]), detail
    return True, "", detail


def load_run(d):
    with open(os.path.join(d, "run.json")) as f:
        return json.load(f)


def outputs_of(d, run, name):
    rec = run["cases"].get(name)
    if rec is None:
        return None, "not run"
    if rec.get("rc") != 0:
        return None, "CUDA error %s: %s" % (rec.get("rc"), rec.get("error"))
    return {k: load_out(d, name, k) for k in rec["outputs"]}, ""


def version_str(v):
    return "%d.%d.%d" % (v // 100000, v // 100 % 1000, v % 100)


def cmd_check(a):
    run = load_run(a.dir)
    failed, detail = [], {}
    for name in run["cases"]:
        case = CASES[name]
        outs, why = outputs_of(a.dir, run, name)
        if outs is None:
            failed.append({"case": name, "reason": why})
            continue
        ins, extra = gen_inputs(case)
        ref, valid = reference(case, ins, extra)
        ok, why, det = judge(case, outs, ref, valid)
        detail[name] = det
        if not ok:
            failed.append({"case": name, "reason": "vs CPU reference: " + why})
    res = {"library": "cccl", "version": version_str(run["cub_version"]), "suite": SUITE,
           "cases": len(run["cases"]), "passed": len(run["cases"]) - len(failed), "failed": failed,
           "so_sha256": run["so_sha256"], "detail": detail}
    if a.out:
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1, sort_keys=True)
    print("check %s: %d of %d passed" % (a.dir, res["passed"], res["cases"]))
    for f_ in failed[:30]:
        print("  FAIL %s: %s" % (f_["case"], f_["reason"]))
    return 1 if failed else 0


def cmd_compare(a):
    ro, rc = load_run(a.orig), load_run(a.conv)
    names = [c for c in CASES if c in ro["cases"] or c in rc["cases"]]
    failed, detail = [], {}
    orig_ok = twin_ok = 0
    for name in names:
        case = CASES[name]
        ins, extra = gen_inputs(case)
        ref, valid = reference(case, ins, extra)
        d = {"entry": case["entry"], "n": case["n"]}
        oo, why_o = outputs_of(a.orig, ro, name)
        co, why_c = outputs_of(a.conv, rc, name)
        if oo is None:
            d["original"] = why_o
            failed.append({"case": name, "reason": "original: " + why_o})
        else:
            ok, why, det = judge(case, oo, ref, valid)
            d["original_vs_reference"] = det
            orig_ok += ok
            if not ok:
                failed.append({"case": name, "reason": "original vs CPU reference: " + why})
        if co is None:
            d["twin"] = why_c
            failed.append({"case": name, "reason": "twin: " + why_c})
        else:
            okr, whyr, detr = judge(case, co, ref, valid)
            d["twin_vs_reference"] = detr
            oko, whyo, deto = (judge(case, co, ref, valid, other=oo) if oo is not None
                               else (False, "no original output", {}))
            d["twin_vs_original"] = deto
            twin_ok += okr and oko
            if not okr:
                failed.append({"case": name, "reason": "twin vs CPU reference: " + whyr})
            if oo is not None and not oko:
                failed.append({"case": name, "reason": "twin vs original: " + whyo})
        d["seconds"] = {"original": ro["cases"].get(name, {}).get("seconds"),
                        "twin": rc["cases"].get(name, {}).get("seconds")}
        detail[name] = d
    res = {"library": "cccl", "version": version_str(ro["cub_version"]), "suite": SUITE,
           "cases": len(names), "original_passed": orig_ok, "twin_passed": twin_ok,
           "failed": failed, "orig_so_sha256": sha(open(a.orig_so, "rb").read()) if a.orig_so else ro["so_sha256"],
           "conv_so_sha256": sha(open(a.conv_so, "rb").read()) if a.conv_so else rc["so_sha256"],
           "cub_version": ro["cub_version"], "thrust_version": ro["thrust_version"],
           "tolerance": "float sums: |orig - twin| <= 2*gamma_D(m)*S + 2*D(m)*tiny, D(m) = 64 + ceil(m/128), "
                        "gamma_d = d*u/(1-d*u); see tools/gpu/cub_suite.py",
           "detail": detail}
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
    print("%s %s: %d cases, original passed %d, twin passed %d, %d failures" % (
        res["library"], res["version"], len(names), orig_ok, twin_ok, len(failed)))
    for f_ in failed[:40]:
        print("  FAIL %s: %s" % (f_["case"], f_["reason"]))
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list")
    r = sub.add_parser("run")
    r.add_argument("--so", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--only", default="", help="comma-separated substrings of case names")
    r.add_argument("--case-timeout", type=float, default=120.0)
    w = sub.add_parser("worker")
    w.add_argument("--so", required=True)
    w.add_argument("--out", required=True)
    w.add_argument("--cases", required=True)
    c = sub.add_parser("check")
    c.add_argument("--dir", required=True)
    c.add_argument("--out")
    m = sub.add_parser("compare")
    m.add_argument("--orig", required=True)
    m.add_argument("--conv", required=True)
    m.add_argument("--out", required=True)
    m.add_argument("--orig-so")
    m.add_argument("--conv-so")
    a = ap.parse_args()
    if a.cmd == "list":
        for c_ in CASES.values():
            print(c_["case"], c_["entry"], c_["n"])
        return 0
    if a.cmd == "worker":
        return worker(a.so, a.out, a.cases.split(","))
    return {"run": cmd_run, "check": cmd_check, "compare": cmd_compare}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
