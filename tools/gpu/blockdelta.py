#!/usr/bin/env python3
"""Carry a converted object to the GPU machine as a delta against the original it was made
from (which the machine already has, e.g. an installed CuPy's cub module): wheelport keeps an
object's sections at their file offsets and appends what it adds, so most 4096-byte blocks of
the output equal the original's block at the same offset.

  blockdelta.py encode BASE NEW DELTA   DELTA (xz): header line (JSON: size, sha256 of NEW and
                                        BASE, block size), one byte per block of NEW (1: the
                                        BASE block at that offset, 0: literal), the literals
  blockdelta.py decode BASE DELTA NEW   rebuilds NEW; exits 1 when BASE or the result does not
                                        have the recorded sha256
"""
import hashlib
import json
import lzma
import sys

BLOCK = 4096


def encode(base_path, new_path, delta_path):
    base, new = open(base_path, "rb").read(), open(new_path, "rb").read()
    flags, literals = bytearray(), []
    for off in range(0, len(new), BLOCK):
        blk = new[off:off + BLOCK]
        same = base[off:off + len(blk)] == blk
        flags.append(1 if same else 0)
        if not same:
            literals.append(blk)
    head = {"size": len(new), "block": BLOCK, "sha256": hashlib.sha256(new).hexdigest(),
            "base_sha256": hashlib.sha256(base).hexdigest()}
    with lzma.open(delta_path, "wb", preset=6) as f:
        f.write(json.dumps(head).encode() + b"\n")
        f.write(bytes(flags))
        for blk in literals:
            f.write(blk)
    print(f"{new_path}: {sum(flags)} of {len(flags)} blocks from the base")


def decode(base_path, delta_path, new_path):
    base = open(base_path, "rb").read()
    with lzma.open(delta_path, "rb") as f:
        head = json.loads(f.readline())
        if hashlib.sha256(base).hexdigest() != head["base_sha256"]:
            sys.exit(f"{base_path}: not the base the delta was made against")
        size, block = head["size"], head["block"]
        flags = f.read((size + block - 1) // block)
        out = bytearray()
        for i, same in enumerate(flags):
            n = min(block, size - i * block)
            out += base[i * block:i * block + n] if same else f.read(n)
    if hashlib.sha256(out).hexdigest() != head["sha256"]:
        sys.exit(f"{delta_path}: the rebuilt file does not have the recorded sha256")
    open(new_path, "wb").write(out)


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] not in ("encode", "decode"):
        sys.exit(__doc__)
    (encode if sys.argv[1] == "encode" else decode)(*sys.argv[2:])
