#!/usr/bin/env python3
"""The demo wheel's two kernels on an NVIDIA GPU, on the inputs tests/amdgpu_exec_demo.rs uses.

  demo_run.py --so ORIG.so [--so TWIN.so ...] --out RESULTS.json

Each .so is the wheel's wheelport_demo/_kernels.so (or its `wheelport ptx twin`); it is loaded
with ctypes (it links libcudart.so.13, which must be on the loader's path) and driven through
its exported launchers wp_saxpy(n, a, x, y, stream) and wp_reduce_sum(in, out, n, stream), as
the wheel's __init__.py does. Inputs (binary32, n = 10000):

  x[i]    = f32(f32((i * 7919) % 1000) * f32(0.37)) - 100     (each step rounded to binary32)
  y[i]    = f32(f32((i * 104729) % 997) * f32(-1.25)) + 3
  ints[i] = ((i * 31) % 201) - 100
  a       = 1.5

The record holds, per .so, the SHA-256 of the input bytes, of y after saxpy and of the 4-byte
reduce_sum result, and the result's value. Python 3 stdlib only; exit status 1 when the .so
files disagree.
"""
import argparse
import ctypes
import hashlib
import json
import os
import struct
import sys
import time

N = 10000


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def inputs():
    k037, km125 = f32(0.37), f32(-1.25)
    x = [f32(f32(f32((i * 7919) % 1000) * k037) - 100.0) for i in range(N)]
    y = [f32(f32(f32((i * 104729) % 997) * km125) + 3.0) for i in range(N)]
    ints = [float(((i * 31) % 201) - 100) for i in range(N)]
    pack = lambda v: struct.pack(f"<{len(v)}f", *v)
    return pack(x), pack(y), pack(ints)


def sha(b):
    return hashlib.sha256(b).hexdigest()


class Cudart:
    def __init__(self):
        self.rt = ctypes.CDLL("libcudart.so.13")
        self.rt.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
        self.rt.cudaMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        self.rt.cudaFree.argtypes = [ctypes.c_void_p]

    def check(self, e, what):
        if e:
            raise RuntimeError(f"{what}: CUDA error {e}")

    def alloc(self, size):
        p = ctypes.c_void_p()
        self.check(self.rt.cudaMalloc(ctypes.byref(p), size), "cudaMalloc")
        return p

    def h2d(self, p, b):
        self.check(self.rt.cudaMemcpy(p, b, len(b), 1), "cudaMemcpy h2d")

    def d2h(self, p, size):
        buf = ctypes.create_string_buffer(size)
        self.check(self.rt.cudaMemcpy(buf, p, size, 2), "cudaMemcpy d2h")
        return buf.raw


def run(path, rt, xb, yb, ib):
    lib = ctypes.CDLL(os.path.abspath(path))
    lib.wp_saxpy.argtypes = [ctypes.c_int, ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    lib.wp_reduce_sum.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
    dx, dy, di, do = rt.alloc(4 * N), rt.alloc(4 * N), rt.alloc(4 * N), rt.alloc(4)
    rt.h2d(dx, xb)
    rt.h2d(dy, yb)
    rt.h2d(di, ib)
    rt.check(lib.wp_saxpy(N, ctypes.c_float(1.5), dx, dy, None), "wp_saxpy")
    rt.check(rt.rt.cudaDeviceSynchronize(), "saxpy")
    y = rt.d2h(dy, 4 * N)
    rt.check(lib.wp_reduce_sum(di, do, N, None), "wp_reduce_sum")
    rt.check(rt.rt.cudaDeviceSynchronize(), "reduce_sum")
    s = rt.d2h(do, 4)
    for p in (dx, dy, di, do):
        rt.rt.cudaFree(p)
    return {
        "file": os.path.basename(path),
        "sha256": sha(open(path, "rb").read()),
        "saxpy_y_sha256": sha(y),
        "reduce_sum_sha256": sha(s),
        "reduce_sum": struct.unpack("<f", s)[0],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--so", action="append", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    xb, yb, ib = inputs()
    rt = Cudart()
    runs = [run(p, rt, xb, yb, ib) for p in a.so]
    prop = ctypes.create_string_buffer(16384)
    getp = getattr(rt.rt, "cudaGetDeviceProperties_v2", None) or rt.rt.cudaGetDeviceProperties
    getp(prop, 0)
    name = prop.raw[:256].split(b"\0")[0].decode()
    rec = {
        "schema": "wheelport-demo-results/1",
        "generated_by": "tools/gpu/demo_run.py",
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "device": name,
        "n": N,
        "a": 1.5,
        "inputs_sha256": {"x": sha(xb), "y": sha(yb), "ints": sha(ib)},
        "runs": runs,
    }
    with open(a.out, "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")
    print(json.dumps(rec, indent=1))
    keys = ("saxpy_y_sha256", "reduce_sum_sha256")
    same = all(r[k] == runs[0][k] for r in runs for k in keys)
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
