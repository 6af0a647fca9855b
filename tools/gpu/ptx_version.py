#!/usr/bin/env python3
"""Lower the declared PTX ISA version of the raw (uncompressed) PTX entries of a host .so.

Usage: ptx_version.py FILE.so FROM TO        e.g. ptx_version.py x.so 9.5 9.0

Why: nvcc 13.5 writes `.version 9.5` even for compute_80 code, but the H200 machines'
driver (r580, CUDA 13.0) JITs PTX ISA <= 9.0 only and refuses newer text with
cudaErrorUnsupportedPtxVersion. build.sh builds the *_ptxjit.so variants with --no-compress
(PTX stored as NUL-terminated text in the fatbin) and rewrites, in place and at the same
length, the `.version FROM` line of every PTX entry and the entry header's PTX version fields
(+0x18 u16 minor, +0x1a u16 major; layout in src/fatbin/layout.rs). build.sh then assembles
the rewritten PTX with ptxas 13.5, which rejects any instruction newer than the declared ISA.

Stdlib only. Fails (exit 1) when an entry is compressed or lacks the `.version FROM` line.
"""
import struct
import sys

MAGIC = 0xBA55ED50


def sections(data):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    stroff = hdrs[shstrndx][4]
    for h in hdrs:
        name = data[stroff + h[0]:data.index(b"\0", stroff + h[0])].decode()
        yield name, h[4], h[5]


def patch(path, old, new):
    data = bytearray(open(path, "rb").read())
    omaj, omin = (int(v) for v in old.split("."))
    nmaj, nmin = (int(v) for v in new.split("."))
    old_line, new_line = f".version {old}\n".encode(), f".version {new}\n".encode()
    if len(old_line) != len(new_line):
        sys.exit("versions must have the same length")
    count = 0
    for name, off, size in sections(bytes(data)):
        if name != ".nv_fatbin":
            continue
        pos, end = off, off + size
        while pos + 16 <= end:
            magic, _ver, hsize, fat = struct.unpack_from("<IHHQ", data, pos)
            if magic != MAGIC:
                pos += 8  # containers are 8-aligned; skip padding
                continue
            e, cend = pos + hsize, pos + hsize + fat
            while e < cend:
                kind, _fv, ehs, padded, csize = struct.unpack_from("<HHIQI", data, e)
                if kind == 1:
                    if csize:
                        sys.exit(f"{path}: PTX entry at {e:#x} is compressed; build it with --no-compress")
                    vmin, vmaj = struct.unpack_from("<HH", data, e + 0x18)
                    if (vmaj, vmin) != (omaj, omin):
                        sys.exit(f"{path}: PTX entry at {e:#x} has header version {vmaj}.{vmin}, not {old}")
                    payload = data[e + ehs:e + ehs + padded]
                    k = payload.find(old_line)
                    if k < 0:
                        sys.exit(f"{path}: PTX entry at {e:#x} has no '{old_line.decode().strip()}' line")
                    data[e + ehs + k:e + ehs + k + len(new_line)] = new_line
                    struct.pack_into("<HH", data, e + 0x18, nmin, nmaj)
                    count += 1
                e += ehs + padded
            pos = cend
    if count == 0:
        sys.exit(f"{path}: no PTX entry found")
    open(path, "wb").write(data)
    print(f"{path}: {count} PTX entries now declare .version {new}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    patch(sys.argv[1], sys.argv[2], sys.argv[3])
