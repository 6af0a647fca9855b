#!/usr/bin/env python3
"""Run one PTX kernel through the CUDA driver API (ctypes, no CuPy) on a zeroed output buffer
and record the buffer: the ground truth of the small PTX form fixtures (fixtures/ptx/forms),
the original PTX against its cuda twin (`wheelport ptx lower --target cuda --emit obj`).

  ptx_run.py --kernel K --block N --out-bytes B RESULTS.json LABEL=FILE.ptx ...
      Each FILE is JIT-compiled by the driver and kernel K launched once, grid 1, block N,
      with one parameter: a pointer to B zeroed bytes. RESULTS.json gets
      {device, kernel, block, out_bytes, runs: {LABEL: {ptx_sha256, words: [u32 ...]}}}.
Needs python3 (stdlib) and libcuda.so.1. Exit 0 when every run completed, 1 otherwise.
"""
import argparse, ctypes, hashlib, json, struct, sys

p = argparse.ArgumentParser()
p.add_argument("--kernel", required=True)
p.add_argument("--block", type=int, required=True)
p.add_argument("--out-bytes", type=int, required=True)
p.add_argument("results")
p.add_argument("runs", nargs="+")
a = p.parse_args()

cu = ctypes.CDLL("libcuda.so.1")


def ck(r, what):
    if r != 0:
        s = ctypes.c_char_p()
        cu.cuGetErrorString(r, ctypes.byref(s))
        raise RuntimeError(f"{what}: {r} {s.value}")


ck(cu.cuInit(0), "cuInit")
dev = ctypes.c_int()
ck(cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
name = ctypes.create_string_buffer(256)
ck(cu.cuDeviceGetName(name, 256, dev), "cuDeviceGetName")
ctx = ctypes.c_void_p()
ck(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "ctx")
ck(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
drv = ctypes.c_int()
ck(cu.cuDriverGetVersion(ctypes.byref(drv)), "cuDriverGetVersion")
out = {"device": name.value.decode(), "driver_api_version": drv.value, "kernel": a.kernel,
       "block": a.block, "out_bytes": a.out_bytes, "runs": {}}
for spec in a.runs:
    label, path = spec.split("=", 1)
    text = open(path, "rb").read()
    m = ctypes.c_void_p()
    log = ctypes.create_string_buffer(1 << 14)
    opts = (ctypes.c_int * 2)(5, 6)  # CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
    vals = (ctypes.c_void_p * 2)(ctypes.cast(log, ctypes.c_void_p), ctypes.c_void_p(1 << 14))
    r = cu.cuModuleLoadDataEx(ctypes.byref(m), text + b"\0", 2, opts, vals)
    if r:
        print(log.value.decode(errors="replace"), file=sys.stderr)
    ck(r, f"load {path}")
    f = ctypes.c_void_p()
    ck(cu.cuModuleGetFunction(ctypes.byref(f), m, a.kernel.encode()), "function")
    buf = ctypes.c_uint64()
    ck(cu.cuMemAlloc_v2(ctypes.byref(buf), a.out_bytes), "alloc")
    ck(cu.cuMemsetD8_v2(buf, 0, a.out_bytes), "memset")
    arg = ctypes.c_uint64(buf.value)
    params = (ctypes.c_void_p * 1)(ctypes.cast(ctypes.byref(arg), ctypes.c_void_p))
    ck(cu.cuLaunchKernel(f, 1, 1, 1, a.block, 1, 1, 0, None, params, None), "launch")
    ck(cu.cuCtxSynchronize(), "sync")
    host = ctypes.create_string_buffer(a.out_bytes)
    ck(cu.cuMemcpyDtoH_v2(host, buf, a.out_bytes), "dtoh")
    words = list(struct.unpack(f"<{a.out_bytes // 4}I", host.raw))
    out["runs"][label] = {"ptx_sha256": hashlib.sha256(text).hexdigest(), "words": words}
    print(label, words[:8], "...")
with open(a.results, "w") as fo:
    json.dump(out, fo, indent=1)
    fo.write("\n")
