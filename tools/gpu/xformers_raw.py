#!/usr/bin/env python3
"""xformers' sparse24 kernels on an NVIDIA GPU, on the inputs tests/xformers_exec.rs uses.

  PYTHONPATH=<xformers 0.0.35 installed> python3 xformers_raw.py --out RESULTS.json

Makes the same inputs as tests/xformers_exec.rs (its 64-bit LCG, the same draws in the same
order) and runs them through xformers' own operators on the GPU:

  * torch.ops.xformers.sparseNM_dense(x, "largest" | "largest_abs", 2, M) on 128x128 bfloat16
    inputs, M = 4 and 8: the inputs the test gives the eight sparseNM_dense_kernel
    instantiations (sparseNM_dense<false> and <true> run the same kernel bodies; the CUDA
    dispatch launches the <false> ones);
  * torch.ops.xformers.sparse24_largest_mask_2d(x), f16 and bf16: test_sparse24_largest_mask_2d's
    4x4 input and the test's 64x64 input with distinct values in every 4x4 tile (the kernels
    without the random fill); sparse24_largest_with_Krandom_mask_2d(x, 0) on the 4x4 input
    (the kernels with the random fill, with no random element, as the test launches them).

  * torch.ops.xformers.sparse24_sparsify_both_ways(x) (the default algorithm, CUTLASS metadata),
    f16 and bf16: test_pack_both_ways_edge_case1's 32x64 input and a 256x1024 one (packed,
    packed_t, threads_masks); sparse24_apply(x, threads_masks) on the latter (packed,
    packed_t); sparse24_apply_dense_output(x, threads_masks, mul0, mul1) with a row-major and a
    column-major x, for (0, 1) and (0.5, 2);
  * torch.ops.xformers._sparse24_meta_shuffle_test(local_meta, transpose), transposed and not.

Writes, per launch in the test's order, the SHA-256 of the input and of the output bytes (the
output tensor, contiguous, little-endian; `outputs` by name for launches with several), with
torch's and the device's names. Needs torch with CUDA and the xformers wheel's
libcudart.so.12 on the loader's path. `--inputs-only` prints the input SHA-256s without torch
(to compare with the test's).
"""
import argparse
import hashlib
import json
import struct
import sys
import time


class Rng:
    """tests/xformers_exec.rs's generator: a 64-bit LCG, the high bits."""

    def __init__(self, seed):
        self.s = seed

    def next(self):
        self.s = (self.s * 6364136223846793005 + 1442695040888963407) & (2**64 - 1)
        return self.s >> 33


def distinct_groups(rng, n, m):
    v = []
    while len(v) < n:
        group = []
        while len(group) < m:
            mag = 0x3E00 + rng.next() % 0x0600
            if any(g & 0x7FFF == mag for g in group):
                continue
            group.append(mag | (0x8000 if rng.next() & 1 else 0))
        v.extend(group)
    return v


def tile_distinct(rng, rows, cols, half):
    inp = [0] * (rows * cols)
    for r0 in range(0, rows, 4):
        for c0 in range(0, cols, 4):
            seen = []
            for k in range(16):
                while True:
                    if half:
                        mag = 0x3000 + rng.next() % 0x1400
                    else:
                        mag = 0x3E00 + rng.next() % 0x0600
                    x = mag | (0x8000 if rng.next() & 1 else 0)
                    if x not in seen:
                        break
                seen.append(x)
                inp[(r0 + k // 4) * cols + c0 + k % 4] = x
    return inp


def sp24_random(rng, n, f16):
    """tests/xformers_exec.rs's sp24_random: magnitudes (1 + k/1024) * 2^(e-3), random sign;
    bfloat16 by truncating the binary32 bits, as the test's encoder does."""
    out = []
    for _ in range(n):
        k = rng.next() % 1024
        e = rng.next() % 6
        v = (1.0 + k / 1024.0) * 2.0 ** (e - 3)
        if rng.next() & 1:
            v = -v
        out.append(half_bits(v, f16))
    return out


EDGE_QUAD = [[2.0, -1.0, -2.0, -3.0], [-1.0, 8.0, -1.0, 6.0], [-1.0, -1.0, 4.0, 5.0],
             [-1.0, 3.0, 7.0, -1.0]]


def sp24_inputs(rng, f16):
    """The test's two sparsify inputs for one type: the 32x64 edge case, then 256x1024."""
    a = sp24_random(rng, 32 * 64, f16)
    for r, line in enumerate(EDGE_QUAD):
        for c, v in enumerate(line):
            a[r * 64 + c] = half_bits(v, f16)
    x = sp24_random(rng, 256 * 1024, f16)
    return a, x


def meta_shuffle_input(rng):
    """The test's local_meta: [4, 8, 8] int64, random bytes in [:2, :2]."""
    lm = [[[0] * 8 for _ in range(8)] for _ in range(4)]
    for i in range(2):
        for j in range(2):
            for k in range(8):
                lm[i][j][k] = rng.next() % 256
    return lm


def bits_bytes(bits):
    return b"".join((b & 0xFFFF).to_bytes(2, "little") for b in bits)


def meta_bytes(lm):
    return b"".join(v.to_bytes(8, "little") for a in lm for b in a for v in b)


def skip_first_launches(rng):
    """Advance `rng` past the draws of the sparseNM_dense and largest_mask_2d launches."""
    for mm in (4, 8):
        for _ in range(4):
            distinct_groups(rng, 128 * 128, mm)
    for f16 in (True, False):
        tile_distinct(rng, 64, 64, f16)


def half_bits(v, f16):
    """binary16 (f16) or bfloat16 bits of v (exact in both for the test's values)."""
    if f16:
        return struct.unpack("<H", struct.pack("<e", v))[0]
    return struct.unpack("<I", struct.pack("<f", v))[0] >> 16


def raw_any(t):
    import torch

    t = t.contiguous().cpu()
    if t.dtype in (torch.float16, torch.bfloat16):
        t = t.view(torch.int16)
    return bytes(t.numpy().tobytes())


def tensor(bits, rows, cols, dtype):
    signed = [b - 0x10000 if b & 0x8000 else b for b in bits]
    return torch.tensor(signed, dtype=torch.int16).view(dtype).reshape(rows, cols).cuda()


def raw(t):
    return bytes(t.contiguous().cpu().view(torch.int16).numpy().tobytes())


def sha(b):
    return hashlib.sha256(b).hexdigest()


def inputs_only():
    rng = Rng(0x5EED)
    skip_first_launches(rng)
    for f16 in (True, False):
        a, x = sp24_inputs(rng, f16)
        print("f16" if f16 else "bf16", "32x64", sha(bits_bytes(a)))
        print("f16" if f16 else "bf16", "256x1024", sha(bits_bytes(x)))
    for transpose in (True, False):
        print("meta_shuffle", transpose, sha(meta_bytes(meta_shuffle_input(rng))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--inputs-only", action="store_true")
    a = ap.parse_args()
    if a.inputs_only:
        inputs_only()
        return
    if not a.out:
        ap.error("--out is required")
    global torch
    import torch
    import xformers
    import xformers.ops  # noqa: F401  (registers torch.ops.xformers)

    ops = torch.ops.xformers
    rng = Rng(0x5EED)
    launches = []

    def record(kernel, inp_bits, out):
        ib = b"".join((b & 0xFFFF).to_bytes(2, "little") for b in inp_bits)
        launches.append({"kernel": kernel, "elements": len(inp_bits),
                         "input_sha256": sha(ib), "output_sha256": sha(raw(out))})

    for mm in (4, 8):
        for meta in ("false", "true"):
            for lam, sort in (("#1", "largest"), ("#2", "largest_abs")):
                bits = distinct_groups(rng, 128 * 128, mm)
                out = ops.sparseNM_dense(tensor(bits, 128, 128, torch.bfloat16), sort, 2, mm)
                torch.cuda.synchronize()
                record(f"sparseNM_dense_kernel<2, {mm}, bfloat16> sparseNM_dense<{meta}> lambda {lam} ({sort})",
                       bits, out)

    verbatim = [4.0, 3.0, 2.0, 1.0, 0.0, 0.0, 0.5, 0.5, 1.0, 2.0, 3.0, 4.0, 10.0, 2.0, -1.0, 5.0]
    for ty, dtype in (("cutlass::half_t", torch.float16), ("cutlass::bfloat16_t", torch.bfloat16)):
        for random in ("false", "true"):
            bits = [half_bits(v, dtype == torch.float16) for v in verbatim]
            if random == "true":
                # sparse24_largest_with_Krandom_mask_2d launches the kHasRandom kernel; with
                # numRandom 0, as the test launches it.
                out = ops.sparse24_largest_with_Krandom_mask_2d(tensor(bits, 4, 4, dtype), 0)
                torch.cuda.synchronize()
                record(f"sparse24_largest_mask_2d_cu<Sp24MaskKernel<{ty}, true>> 4x4 numRandom 0", bits, out)
            else:
                out = ops.sparse24_largest_mask_2d(tensor(bits, 4, 4, dtype))
                torch.cuda.synchronize()
                record(f"sparse24_largest_mask_2d_cu<Sp24MaskKernel<{ty}, false>> 4x4", bits, out)
                big = tile_distinct(rng, 64, 64, dtype == torch.float16)
                out = ops.sparse24_largest_mask_2d(tensor(big, 64, 64, dtype))
                torch.cuda.synchronize()
                record(f"sparse24_largest_mask_2d_cu<Sp24MaskKernel<{ty}, false>> 64x64", big, out)

    def record_many(kernel, inp, outs):
        launches.append({"kernel": kernel, "input_sha256": sha(inp),
                         "outputs": {k: sha(raw_any(v)) for k, v in outs.items()}})

    for ty, dtype in (("cutlass::half_t", torch.float16), ("cutlass::bfloat16_t", torch.bfloat16)):
        f16 = dtype == torch.float16
        a_bits, x_bits = sp24_inputs(rng, f16)
        sparsify = f"sparse24_sparsify_both_ways_kernel<KernelTypes<{ty}>, MetadataCutlassSm80, LargestValuesGreedy<IdentityOp>>"
        packed, _, packed_t, _, masks = ops.sparse24_sparsify_both_ways(tensor(a_bits, 32, 64, dtype))
        torch.cuda.synchronize()
        # packed_t is round_up(64, 32) x ceil(round_up(32, 64) / 2) = 64 x 32 from new_empty: the
        # kernel writes the first ceil(32 / 2) columns of each row, the rest is whatever memory
        # the allocator gave, so only the written columns are recorded.
        record_many(f"{sparsify} 32x64", bits_bytes(a_bits),
                    {"packed": packed, "packed_t": packed_t[:, :16], "threads_masks": masks})
        x = tensor(x_bits, 256, 1024, dtype)
        packed, _, packed_t, _, masks = ops.sparse24_sparsify_both_ways(x)
        torch.cuda.synchronize()
        record_many(f"{sparsify} 256x1024", bits_bytes(x_bits),
                    {"packed": packed, "packed_t": packed_t, "threads_masks": masks})
        packed2, _, packed_t2, _ = ops.sparse24_apply(x, masks)
        torch.cuda.synchronize()
        record_many(f"sparse24_apply_kernel<KernelTypes<{ty}>> 256x1024", bits_bytes(x_bits),
                    {"packed": packed2, "packed_t": packed_t2})
        for row_major in (True, False):
            xin = x if row_major else x.t().contiguous().t()
            for mul0, mul1 in ((0.0, 1.0), (0.5, 2.0)):
                out = ops.sparse24_apply_dense_output(xin, masks, mul0, mul1)
                torch.cuda.synchronize()
                record_many(f"sparse24_apply_dense_output_k<{ty}, {str(row_major).lower()}, true> mul0={mul0} mul1={mul1}",
                            bits_bytes(x_bits), {"output": out})
    for transpose in (True, False):
        lm = meta_shuffle_input(rng)
        out = ops._sparse24_meta_shuffle_test(torch.tensor(lm, dtype=torch.int64).cuda(), transpose)
        torch.cuda.synchronize()
        record_many(f"meta_shuffle_test_kernel transpose={str(transpose).lower()}", meta_bytes(lm),
                    {"output": out})

    rec = {
        "schema": "wheelport-xformers-raw/1",
        "generated_by": "tools/gpu/xformers_raw.py",
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "device": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "xformers": getattr(xformers, "__version__", "?"),
        "launches": launches,
    }
    with open(a.out, "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")
    print(json.dumps(rec, indent=1))


if __name__ == "__main__":
    main()
