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

Writes, per launch in the test's order, the SHA-256 of the input and of the output bytes (the
output tensor, contiguous, little-endian), with torch's and the device's names. Needs torch
with CUDA and the xformers wheel's libcudart.so.12 on the loader's path.
"""
import argparse
import hashlib
import json
import struct
import sys
import time

import torch


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


def half_bits(v, f16):
    """binary16 (f16) or bfloat16 bits of v (exact in both for the test's values)."""
    if f16:
        return struct.unpack("<H", struct.pack("<e", v))[0]
    return struct.unpack("<I", struct.pack("<f", v))[0] >> 16


def tensor(bits, rows, cols, dtype):
    signed = [b - 0x10000 if b & 0x8000 else b for b in bits]
    return torch.tensor(signed, dtype=torch.int16).view(dtype).reshape(rows, cols).cuda()


def raw(t):
    return bytes(t.contiguous().cpu().view(torch.int16).numpy().tobytes())


def sha(b):
    return hashlib.sha256(b).hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
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
    import xformers

    main()
