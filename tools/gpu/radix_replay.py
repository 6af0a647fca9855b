#!/usr/bin/env python3
"""Replay CUB's radix-sort upsweep (and downsweep) kernels alone through the CUDA driver API
(ctypes, no CuPy), on keys and GridEvenShare values built here from CUB's formulas
(cub/grid/grid_even_share.cuh), each output checked against a CPU reference
(docs/identity.md, "A ptxas miscompile").

  radix_replay.py DIR KEY
      KEY is u8 or f16 (`__half`: CUB's twiddle, sign-flipped, -0.0 counted as +0.0).
      DIR holds SIDE_up.ptx, and optionally SIDE_dn.ptx, for each SIDE (e.g. orig, twin):
      one `.entry` each, the KEY DeviceRadixSortUpsweepKernel / DeviceRadixSortDownsweepKernel
      of fixtures/gpu/cub_fixtures_c80.so with the alternate policy (`Lb1`). orig: the kernel's
      text from `cuobjdump -xptx all` under that PTX's `.version`/`.target`/`.address_size`
      lines (`.version` lowered to one the driver accepts); twin: `wheelport ptx lower
      --target cuda` of orig. Upsweep: 256 threads, 47 keys each (tile 12,032);
      downsweep: 128 threads. Every PTX side runs with the driver JIT at -O0 and at -O4
      (CU_JIT_OPTIMIZATION_LEVEL). A side may instead be SIDE_up.co, an amdgcn code object
      (`wheelport ptx lower --target dtk --emit obj` of orig_up.ptx): it is executed on the
      CPU by `amdgpu-exec launch` (tools/amdgpu-exec; $AMDGPU_EXEC, else the workspace's
      target/release/amdgpu-exec), upsweep only. With no PTX side, no GPU is needed.
Prints one line per (case, side, JIT level). Exit 1 when a side other than orig is wrong at
any level, 2 when orig itself is.
"""
import ctypes, glob, os, random, struct, subprocess, sys, tempfile

cu = None
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def ck(r, what):
    if r != 0:
        s = ctypes.c_char_p(); cu.cuGetErrorString(r, ctypes.byref(s)); raise RuntimeError(f"{what}: {r} {s.value}")


def load(path, olevel):
    m = ctypes.c_void_p(); data = open(path, "rb").read() + b"\0"
    logsz = 1 << 16; log = ctypes.create_string_buffer(logsz)
    opts = (ctypes.c_int * 3)(5, 6, 7)  # CU_JIT_ERROR_LOG_BUFFER, _SIZE_BYTES, CU_JIT_OPTIMIZATION_LEVEL
    vals = (ctypes.c_void_p * 3)(ctypes.cast(log, ctypes.c_void_p), ctypes.c_void_p(logsz), ctypes.c_void_p(olevel))
    r = cu.cuModuleLoadDataEx(ctypes.byref(m), data, 3, opts, vals)
    if r: print(log.value.decode()[:2000])
    ck(r, "load " + path)
    name = entry_of(path)
    f = ctypes.c_void_p(); ck(cu.cuModuleGetFunction(ctypes.byref(f), m, name.encode()), "func"); return f


def entry_of(ptx):
    return [l.split()[2].split("(")[0] for l in open(ptx) if l.startswith(".visible .entry")][0]


def exec_upsweep(co, raw, counters, grid, values):
    """The spine counters (u32) the upsweep in code object `co` writes, run by amdgpu-exec."""
    tool = os.environ.get("AMDGPU_EXEC") or os.path.join(ROOT, "target", "release", "amdgpu-exec")
    with tempfile.TemporaryDirectory() as t:
        kp, sp = os.path.join(t, "keys"), os.path.join(t, "spine")
        open(kp, "wb").write(raw); open(sp, "wb").write(b"\xff" * (4 * counters + 4096))  # the policy's digits, not only num_bits

        r = subprocess.run([tool, "launch", "--object", co, "--grid", str(grid), "--block", "256",
                            f"buf:{kp}", f"buf:{sp}"] + ["val:" + v.hex() for v in values],
                           capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError(r.stderr.strip())
        return list(struct.unpack(f"<{counters}I", open(sp + ".out", "rb").read()[:4 * counters]))


def alloc(nbytes, init=None):
    p = ctypes.c_uint64(); ck(cu.cuMemAlloc_v2(ctypes.byref(p), max(nbytes, 16)), "alloc")
    b = init if init is not None else b"\xff" * nbytes
    ck(cu.cuMemcpyHtoD_v2(p, b, len(b)), "htod"); return p.value


def read(p, nbytes):
    b = ctypes.create_string_buffer(nbytes); ck(cu.cuMemcpyDtoH_v2(b, ctypes.c_uint64(p), nbytes), "dtoh"); return b.raw


def launch(f, grid, block, params):
    bufs = [ctypes.create_string_buffer(p, len(p)) for p in params]
    arr = (ctypes.c_void_p * len(bufs))(*[ctypes.cast(b, ctypes.c_void_p) for b in bufs])
    ck(cu.cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, None, arr, None), "launch"); ck(cu.cuCtxSynchronize(), "sync")


def ges(n, tile, maxg):
    total = -(-n // tile); grid = min(total, maxg); avg = total // grid; big = total - avg * grid; normal = avg * tile
    return grid, big, normal, struct.pack("<10I", total, big, normal + tile, normal, big * tile, n, grid, n, n, 0)


def ranges(n, tile, grid, big, normal):
    out = []
    for b in range(grid):
        if b < big: o = b * (normal + tile); e = o + normal + tile
        else: o = big * tile + b * normal; e = o + min(n - o, normal)
        out.append((o, e))
    return out


def f16_twiddle(k):
    t = (~k & 0xFFFF) if k & 0x8000 else k ^ 0x8000
    return 0x8000 if t == 0x7FFF else t  # -0.0 sorts as +0.0


def f16_keys(rnd, n):
    out = []
    while len(out) < n:
        k = rnd.randrange(1 << 16)
        if (k & 0x7C00) == 0x7C00 and (k & 0x3FF):
            continue  # no NaNs
        out.append(k)
    out[:4] = [0x0000, 0x8000, 0x3C00, 0xBC00]
    return out


KEYS = {
    # name: (bytes per key, key generator, twiddle, (n, current_bit, num_bits, max grid) cases)
    "u8": (1, lambda rnd, n: [rnd.randrange(256) for _ in range(n)], lambda k: k,
           [(100000, 0, 4, 1000), (100000, 5, 3, 1000), (100000, 5, 3, 3), (12032, 0, 4, 1)]),
    "f16": (2, f16_keys, f16_twiddle,
            # the three passes of SortKeys<__half> (all with this 6-bit policy), then others
            [(100000, 0, 6, 1000), (100000, 6, 6, 1000), (100000, 12, 4, 1000), (100000, 0, 4, 1000),
             (100000, 8, 4, 3), (12032, 0, 6, 1), (4097, 0, 6, 1000)]),
}
TILE = 12032
u64 = lambda v: struct.pack("<Q", v); u32 = lambda v: struct.pack("<I", v)


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in KEYS:
        sys.exit(__doc__)
    D, key = sys.argv[1], sys.argv[2]
    width, gen, tw, cases = KEYS[key]
    fmt = {1: "B", 2: "H"}[width]
    sides = sorted(os.path.basename(p).rsplit("_up.", 1) for p in glob.glob(f"{D}/*_up.ptx") + glob.glob(f"{D}/*_up.co"))
    if any(kind == "ptx" for _, kind in sides):
        global cu
        cu = ctypes.CDLL("libcuda.so.1")
        ck(cu.cuInit(0), "init"); dev = ctypes.c_int(); ck(cu.cuDeviceGet(ctypes.byref(dev), 0), "dev")
        ctx = ctypes.c_void_p(); ck(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "ctx"); ck(cu.cuCtxSetCurrent(ctx), "cur")
    status = 0
    for n, cb, nb, maxg in cases:
        keys = gen(random.Random(7), n); raw = struct.pack(f"<{n}{fmt}", *keys)
        grid, big, normal, g = ges(n, TILE, maxg)
        digits = 1 << nb
        dig = lambda x: (tw(x) >> cb) & (digits - 1)
        want = [0] * (digits * grid)
        for b, (o, e) in enumerate(ranges(n, TILE, grid, big, normal)):
            for x in keys[o:e]: want[dig(x) * grid + b] += 1
        sp = []; acc = 0  # exclusive scan of the spine (digit-major), then the stable scatter
        for c in want: sp.append(acc); acc += c
        want_out = [keys[i] for i in sorted(range(n), key=lambda i: dig(keys[i]))]
        for side, kind in sides:
            if kind == "co":
                got = exec_upsweep(f"{D}/{side}_up.co", raw, len(want), grid,
                                   [u32(n), u32(cb), u32(nb), g, b"\0"])
                bad = [i for i in range(len(want)) if got[i] != want[i]]
                r1 = "ok" if not bad else f"{len(bad)} of {len(want)} counters bad, first (index, want, got) {[(i, want[i], got[i]) for i in bad[:4]]}"
                if r1 != "ok":
                    status = max(status, 1)
                print(f"{key} n={n} bits={cb}+{nb} grid={grid} {side} amdgpu-exec: upsweep {r1}", flush=True)
                continue
            for olevel in (0, 4):
                dk = alloc(n * width, raw); ds = alloc(4 * len(want) + 4096)
                try:
                    fu = load(f"{D}/{side}_up.ptx", olevel)
                    launch(fu, grid, 256, [u64(dk), u64(ds), u32(n), u32(cb), u32(nb), g, b"\0"])
                    got = list(struct.unpack(f"<{len(want)}I", read(ds, 4 * len(want))))
                    bad = [i for i in range(len(want)) if got[i] != want[i]]
                    r1 = "ok" if not bad else f"{len(bad)} of {len(want)} counters bad, first (index, want, got) {[(i, want[i], got[i]) for i in bad[:4]]}"
                except RuntimeError as e:
                    r1 = str(e)
                r2 = "not run"
                if os.path.exists(f"{D}/{side}_dn.ptx"):
                    try:
                        fd = load(f"{D}/{side}_dn.ptx", olevel)
                        dsp = alloc(4 * len(sp) + 4096, struct.pack(f"<{len(sp)}I", *sp) + b"\0" * 4096)
                        do = alloc(n * width + 64)
                        launch(fd, grid, 128, [u64(dk), u64(do), u64(0), u64(0), u64(dsp), u32(n), u32(cb), u32(nb), g, b"\0"])
                        out = struct.unpack(f"<{n}{fmt}", read(do, n * width))
                        bad = [i for i in range(n) if out[i] != want_out[i]]
                        r2 = "ok" if not bad else f"{len(bad)} bad, first {bad[:5]}"
                    except RuntimeError as e:
                        r2 = str(e)
                if r1 != "ok" or r2 not in ("ok", "not run"):
                    status = max(status, 2 if side == "orig" else 1)
                print(f"{key} n={n} bits={cb}+{nb} grid={grid} {side} -O{olevel}: upsweep {r1}; downsweep {r2}", flush=True)
    sys.exit(status)


if __name__ == "__main__":
    main()
