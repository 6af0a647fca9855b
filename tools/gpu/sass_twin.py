#!/usr/bin/env python3
"""The SASS lifter's twin on an NVIDIA GPU: each fixtures/sass kernel's original sm_90
cubin and the PTX wheelport lifted from its sm_80 and sm_90 cubins (lowered for the cuda
profile, JIT-compiled by the driver) run on the same inputs (the edge values of
tests/sass_lift.rs, reproduced here); every output must equal the original's bit for bit.
(The host-side meaning of each kernel is checked on the CPU by tests/sass_lift.rs.)

Usage: tools/gpu/sass_twin.py DIR RESULTS.json
  DIR: fixtures/sass/gpu (made by tools/gpu/sass_twin_prep.sh)
Needs python3 (stdlib only) and the NVIDIA driver (libcuda.so.1). Exit 0 when every kernel
matched, 1 on a mismatch, 2 on a setup error.
"""
import ctypes, json, os, struct, sys

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF


def values32(n, seed):
    edges = [0, 1, 2, 7, 15, 31, 32, 63, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFE,
             0xFFFFFFFF, 0x12345678, 0xDEADBEEF, 12345]
    x = (seed | 1) & M32
    out = []
    for i in range(n):
        if i < len(edges):
            out.append(edges[(i + seed) % len(edges)])
        else:
            x ^= (x << 13) & M32
            x ^= x >> 17
            x ^= (x << 5) & M32
            out.append(x)
    return out


def values64(n, seed):
    lo = values32(n, seed)
    hi = values32(n, (seed * 7 + 3) & M32)
    edges = [0, 1, M64, 1 << 63, (1 << 63) - 1, 0xFFFFFFFF, 1 << 32]
    return [edges[(i + seed) % len(edges)] if i < len(edges) else (hi[i] << 32) | lo[i]
            for i in range(n)]


class Cuda:
    def __init__(self):
        self.lib = ctypes.CDLL("libcuda.so.1")
        c = ctypes
        L = self.lib
        L.cuMemAlloc_v2.argtypes = [c.POINTER(c.c_uint64), c.c_size_t]
        L.cuMemcpyHtoD_v2.argtypes = [c.c_uint64, c.c_void_p, c.c_size_t]
        L.cuMemcpyDtoH_v2.argtypes = [c.c_void_p, c.c_uint64, c.c_size_t]
        L.cuMemFree_v2.argtypes = [c.c_uint64]
        L.cuModuleLoadData.argtypes = [c.POINTER(c.c_void_p), c.c_void_p]
        L.cuModuleGetFunction.argtypes = [c.POINTER(c.c_void_p), c.c_void_p, c.c_char_p]
        L.cuLaunchKernel.argtypes = [c.c_void_p] + [c.c_uint] * 6 + [c.c_uint, c.c_void_p,
                                                                      c.c_void_p, c.c_void_p]
        L.cuCtxSetCurrent.argtypes = [c.c_void_p]
        self.check(self.lib.cuInit(0), "cuInit")
        dev = ctypes.c_int()
        self.check(self.lib.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        name = ctypes.create_string_buffer(256)
        self.lib.cuDeviceGetName(name, 256, dev)
        self.name = name.value.decode()
        self.ctx = ctypes.c_void_p()
        self.check(self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(self.ctx), dev), "ctx")
        self.check(self.lib.cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")

    def check(self, r, what):
        if r != 0:
            s = ctypes.c_char_p()
            self.lib.cuGetErrorString(r, ctypes.byref(s))
            raise RuntimeError(f"{what}: CUDA error {r} ({s.value.decode() if s.value else '?'})")

    def load(self, data, kernel):
        mod = ctypes.c_void_p()
        buf = ctypes.create_string_buffer(data + (b"\0" if not data.startswith(b"\x7fELF") else b""))
        self.check(self.lib.cuModuleLoadData(ctypes.byref(mod), buf), f"load {kernel}")
        fn = ctypes.c_void_p()
        self.check(self.lib.cuModuleGetFunction(ctypes.byref(fn), mod, kernel.encode()), kernel)
        return fn

    def alloc(self, data):
        p = ctypes.c_uint64()
        self.check(self.lib.cuMemAlloc_v2(ctypes.byref(p), max(len(data), 4)), "alloc")
        if data:
            self.check(self.lib.cuMemcpyHtoD_v2(p.value, data, len(data)), "HtoD")
        return p

    def run(self, fn, inputs, out_len, n, grid, block):
        """inputs: device buffers (bytes), or ("u32", v) / ("bytes", b) values passed by
        value after the output pointer; n: a last u32 argument, if not None."""
        ptrs = [self.alloc(b) for b in inputs if isinstance(b, bytes)]
        out = self.alloc(bytes(out_len))
        vals = []
        for b in inputs:
            if isinstance(b, tuple):
                vals.append(ctypes.c_uint32(b[1]) if b[0] == "u32" else ctypes.create_string_buffer(b[1], len(b[1])))
        args = ptrs + [out] + vals + ([ctypes.c_uint32(n)] if n is not None else [])
        argv = (ctypes.c_void_p * len(args))(*[ctypes.cast(ctypes.byref(a), ctypes.c_void_p) for a in args])
        self.check(self.lib.cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, None, argv, None), "launch")
        self.check(self.lib.cuCtxSynchronize(), "sync")
        got = ctypes.create_string_buffer(out_len)
        self.check(self.lib.cuMemcpyDtoH_v2(got, out.value, out_len), "DtoH")
        for p in ptrs + [out]:
            self.lib.cuMemFree_v2(p.value)
        return got.raw


def cases():
    n = 200
    a64, b64 = values64(n, 1), values64(n, 2)
    a32, b32 = values32(n, 1), values32(n, 2)
    m = 256
    a3 = values32(m, 3)
    p64 = lambda v: struct.pack(f"<{len(v)}Q", *v)
    p32 = lambda v: struct.pack(f"<{len(v)}I", *v)
    return {
        "int64": ([p64(a64), p64(b64)], n * 64, n, 4, 64),
        "int32": ([p32(a32), p32(b32)], n * 32, n, 4, 64),
        "smem": ([p32(a3)], m * 4, None, m // 64, 64),
        # sm_80 only (their `// archs:` line): the bank-0 windows, and the selector/QSPC/fence
        # forms (tests/sass_lift.rs checks both outputs' meaning on gfx906).
        "windows": ([p32(values32(64, 5)), ("bytes", p32(values32(6, 9)))], 64 * 16, None, 1, 64),
        "forms": ([p32(values32(64, 7)), ("u32", 9), ("u32", 3)], 64 * 16, None, 1, 64),
        # printf and assert, __constant__ and __device__ data: (in, strs, cap) then out; the
        # printed lines go to stdout, out holds printf's results and the data reads.
        "device_printf": ([p32(values32(64, 11)),
                           b"".join(w.ljust(8, b"\0") for w in (b"zero", b"one", b"two", b"three")),
                           bytes(16384)], 64 * 32, None, 1, 64),
    }


def input_hashes(d):
    """sha256 of every input file in DIR (what tests/sass_lift.rs compares with the current
    lifter's and lowering's output)."""
    import hashlib
    return {f: hashlib.sha256(open(os.path.join(d, f), "rb").read()).hexdigest()
            for f in sorted(os.listdir(d)) if f.endswith((".lifted.ptx", ".twin.ptx", "-sm_90.cubin"))}


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    d, out = sys.argv[1], sys.argv[2]
    try:
        cu = Cuda()
    except Exception as e:  # noqa: BLE001
        print(f"setup: {e}", file=sys.stderr)
        return 2
    results = {"device": cu.name, "kernels": [], "generated_by": "tools/gpu/sass_twin.py fixtures/sass/gpu",
               "date_utc": __import__("datetime").datetime.now(__import__("datetime").timezone.utc).strftime("%Y-%m-%d"),
               "inputs": input_hashes(d)}
    ok = True
    for k, (ins, out_len, n, grid, block) in cases().items():
        orig = cu.run(cu.load(open(os.path.join(d, f"{k}-sm_90.cubin"), "rb").read(), k),
                      ins, out_len, n, grid, block)
        row = {"kernel": k, "orig_sha256": __import__("hashlib").sha256(orig).hexdigest()}
        for arch in ("sm_80", "sm_90"):
            twin = os.path.join(d, f"{k}-{arch}.twin.ptx")
            if not os.path.exists(twin):  # a fixture lifted for sm_80 only
                continue
            ptx = open(twin, "rb").read()
            got = cu.run(cu.load(ptx, k), ins, out_len, n, grid, block)
            same = got == orig
            ok &= same
            first = next((i for i in range(out_len) if got[i] != orig[i]), None)
            row[f"lifted_{arch}"] = {"equal": same, "first_differing_byte": first}
        results["kernels"].append(row)
        print(k, row)
    with open(out, "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
