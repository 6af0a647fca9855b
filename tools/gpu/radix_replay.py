#!/usr/bin/env python3
"""Replay CUB's radix-sort upsweep and downsweep kernels alone through the CUDA driver API
(ctypes, no CuPy): the source PTX against the twin's, on keys and GridEvenShare values built
here from CUB's formulas (cub/grid/grid_even_share.cuh), each output checked against a CPU
reference (docs/identity.md, "A ptxas miscompile").

  radix_replay.py DIR
      DIR holds {orig,twin}_up.ptx and {orig,twin}_dn.ptx: one `.entry` each, the u8-key
      DeviceRadixSortUpsweepKernel / DeviceRadixSortDownsweepKernel of
      fixtures/gpu/cub_fixtures_c80.so. orig_*: the kernel's text from `cuobjdump -xptx all`
      under that PTX's `.version`/`.target`/`.address_size` lines (`.version` lowered to one the
      driver accepts); twin_*: `wheelport ptx lower --target cuda --emit obj` of orig_*.
      Upsweep: 256 threads, 47 keys each (the alternate policy, `Lb1`); downsweep: 128 threads.
Prints one line per (case, side). Exit 1 when a twin output is wrong.
"""
import ctypes, struct, random, sys, os
def ck(r, what):
    if r != 0:
        s = ctypes.c_char_p(); cu.cuGetErrorString(r, ctypes.byref(s)); raise RuntimeError(f"{what}: {r} {s.value}")
ck(cu.cuInit(0), "init"); dev = ctypes.c_int(); ck(cu.cuDeviceGet(ctypes.byref(dev), 0), "dev")
ctx = ctypes.c_void_p(); ck(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "ctx"); ck(cu.cuCtxSetCurrent(ctx), "cur")
def load(path, olevel=4):
    m = ctypes.c_void_p(); data = open(path, "rb").read() + b"\0"
    logsz = 1 << 16; log = ctypes.create_string_buffer(logsz)
    opts = (ctypes.c_int * 3)(5, 6, 7)  # CU_JIT_ERROR_LOG_BUFFER, _SIZE_BYTES, CU_JIT_OPTIMIZATION_LEVEL
    vals = (ctypes.c_void_p * 3)(ctypes.cast(log, ctypes.c_void_p), ctypes.c_void_p(logsz), ctypes.c_void_p(olevel))
    r = cu.cuModuleLoadDataEx(ctypes.byref(m), data, 3, opts, vals)
    if r: print(log.value.decode()[:2000])
    ck(r, "load " + path)
    name = [l.split()[2].split("(")[0] for l in open(path) if l.startswith(".visible .entry")][0]
    f = ctypes.c_void_p(); ck(cu.cuModuleGetFunction(ctypes.byref(f), m, name.encode()), "func"); return f
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
u64 = lambda v: struct.pack("<Q", v); u32 = lambda v: struct.pack("<I", v)
D = sys.argv[1] if len(sys.argv) > 1 else sys.exit(__doc__)
BAD = 0
for n, cb, nb, maxg, tile in [(100000, 0, 4, 1000, 12032), (100000, 5, 3, 1000, 12032), (100000, 5, 3, 3, 12032), (12032, 0, 4, 1, 12032)]:
    rnd = random.Random(7); keys = bytes(rnd.randrange(256) for _ in range(n))
    grid, big, normal, g = ges(n, tile, maxg)
    rs = ranges(n, tile, grid, big, normal); digits = 1 << nb
    dig = lambda x: (x >> cb) & (digits - 1)
    want = [0] * (digits * grid)
    for b, (o, e) in enumerate(rs):
        for x in keys[o:e]: want[dig(x) * grid + b] += 1
    # exclusive scan of the spine (digit-major), then the stable scatter
    sp = []; acc = 0
    for c in want: sp.append(acc); acc += c
    order = sorted(range(n), key=lambda i: dig(keys[i]))
    want_out = bytes(keys[i] for i in order)
    for side in ("orig", "twin"):
        fu = load(f"{D}/{side}_up.ptx"); fd = load(f"{D}/{side}_dn.ptx")
        dk = alloc(n, keys); ds = alloc(4 * len(want) + 4096)
        try:
            launch(fu, grid, 256, [u64(dk), u64(ds), u32(n), u32(cb), u32(nb), g, b"\0"])
            got = list(struct.unpack(f"<{len(want)}I", read(ds, 4 * len(want))))
            bad = [i for i in range(len(want)) if got[i] != want[i]]
            r1 = "ok" if not bad else f"{len(bad)} bad, first {[(i, want[i], got[i]) for i in bad[:4]]}"
        except RuntimeError as e:
            r1 = str(e)
        try:
            dsp = alloc(4 * len(sp) + 4096, struct.pack(f"<{len(sp)}I", *sp) + b"\0" * 4096); do = alloc(n + 64)
            launch(fd, grid, 128, [u64(dk), u64(do), u64(0), u64(0), u64(dsp), u32(n), u32(cb), u32(nb), g, b"\0"])
            out = read(do, n)
            bad = [i for i in range(n) if out[i] != want_out[i]]
            r2 = "ok" if not bad else f"{len(bad)} bad, first {bad[:5]}"
        except RuntimeError as e:
            r2 = str(e)
        if side == "twin" and (r1 != "ok" or r2 != "ok"):
            BAD = 1
        print(f"n={n} bits={cb}+{nb} grid={grid} {side}: upsweep {r1}; downsweep {r2}", flush=True)
sys.exit(BAD)
