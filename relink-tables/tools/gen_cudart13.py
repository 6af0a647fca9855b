#!/usr/bin/env python3
"""Generate relink-tables/<target>/cudart13.tsv: one row per export of libcudart.so.13.

    python3 relink-tables/tools/gen_cudart13.py CUDA13_ROOT DATE [OUT]

CUDA13_ROOT is the CUDA 13 toolkit's nvidia/cu13 from PyPI (nvidia-cuda-nvcc 13.5 and its
runtime: lib/libcudart.so.13), as cuda13_abi.py reads it. Each export gets:
* when relink-tables/cuda13-abi.tsv lists it (its prototype, or a struct it passes, differs
  from libcudart.so.12's export of the same name): the row of
  relink-tables/tools/cuda13-decisions.tsv for dtk and rocm, unsupported for musa (with
  torchada's verdict, which every MUSA row records, from cudart12.tsv's row of the name);
* when libcudart.so.12 exports it with the same ABI: the target's cudart12.tsv row, for
  libcudart.so.13 (musa: no row; the lookup by name finds cudart12.tsv's);
* otherwise (new in CUDA 13): unsupported (musa: no row).
OUT (default relink-tables/) receives <target>/cudart13.tsv; tests/cuda13_abi.rs writes to a
temporary OUT and compares with the committed tables.
"""
import os
import subprocess
import sys

C13, DATE = sys.argv[1:3]
OUT = sys.argv[3] if len(sys.argv) > 3 else None  # default: relink-tables/ itself
HERE = os.path.dirname(os.path.abspath(__file__))
TABLES = os.path.dirname(HERE)


def rows(path):
    return [l.rstrip("\n").split("\t") for l in open(path) if l.strip() and not l.startswith("#")]


def header_lines(path):
    return [l for l in open(path) if l.startswith("#")]


lib = os.path.join(C13, "lib/libcudart.so.13")
nm = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
exports = sorted({l.split()[-1].split("@")[0] for l in nm.splitlines()
                  if l.split()[1] in "TtWi" and not l.split()[-1].startswith("_init")
                  and not l.split()[-1].startswith("_fini") and l.split()[-1] != "libcudart.so.13"})
abi = {r[0]: r for r in rows(os.path.join(TABLES, "cuda13-abi.tsv"))}
decisions = {r[0]: r for r in rows(os.path.join(HERE, "cuda13-decisions.tsv"))}
missing = sorted(set(abi) - set(decisions))
if missing:
    sys.exit(f"cuda13-decisions.tsv decides nothing for: {', '.join(missing)}")
TORCHADA = "torchada@0.1.103"


def musa_verdict(row12, sym):
    """torchada's verdict on an unsupported CUDA 13 row of `sym`: torchada ports names, so its
    port is the one cudart12.tsv's row records; where it maps the name, ours differs now."""
    notes = row12[6] if row12 else ""
    mark = f"{TORCHADA}: "
    v = notes[notes.index(mark) + len(mark):] if mark in notes else "no entry"
    if v.startswith("no entry"):
        return f"{mark}no entry"
    if v.startswith("agrees"):
        got = row12[5] if row12[2] == "shim" else row12[3]
    else:
        got = v[len("maps it to "):].split(";")[0]
    return (f"{mark}maps it to {got}; resolved: ours (unsupported): CUDA 13's {sym} takes other "
            f"parameters or structs than CUDA 12's, which {got} follows")


for target in ("dtk", "rocm", "musa"):
    base = os.path.join(TABLES, target, "cudart12.tsv")
    r12 = {r[0]: r for r in rows(base)}
    runtime = next(r[4] for r in r12.values() if r[2] == "rename")
    out = []
    for s in exports:
        if s in abi:
            change = abi[s][4] if abi[s][4] != "-" else f"CUDA 12: ({abi[s][2]}); CUDA 13: ({abi[s][3]})"
            if target == "musa":
                out.append([s, "libcudart.so.13", "unsupported", "-", "-", "-",
                            f"CUDA 13 ABI differs from CUDA 12's ({abi[s][1]}: {change}); not translated for musa; "
                            + musa_verdict(r12.get(s), s)])
                continue
            _, kind, shim, via, note = decisions[s]
            out.append([s, "libcudart.so.13", kind, shim, "@shim" if kind == "shim" else "-", via,
                        f"CUDA 13 {abi[s][1]} change ({change}): {note}"])
        elif target == "musa":
            # The MUSA tables carry torchada's verdict on every row: a function of the same ABI
            # keeps its cudart12.tsv row (found by name), one new in CUDA 13 has no row.
            continue
        elif s in r12:
            r = list(r12[s])
            r[1] = "libcudart.so.13"
            r[6] = f"same ABI as libcudart.so.12's export (relink-tables/cuda13-abi.tsv); {r[6]}"
            out.append(r)
        else:
            out.append([s, "libcudart.so.13", "unsupported", "-", "-", "-",
                        "new in CUDA 13 (libcudart.so.12 does not export it); no counterpart mapped"])
    head = header_lines(base)
    dest = os.path.join(OUT or TABLES, target)
    os.makedirs(dest, exist_ok=True)
    with open(os.path.join(dest, "cudart13.tsv"), "w") as f:
        for l in head:
            if l.startswith("#% domain:"):
                l = "#% domain: libcudart.so.13\n"
            elif l.startswith("#% provenance:"):
                l = ("#% provenance: nvidia-cuda-nvcc 13.5's nvidia/cu13/lib/libcudart.so.13 (PyPI; nm -D --defined-only: "
                     f"{len(exports)} exports); relink-tables/cuda13-abi.tsv (the CUDA 12/13 ABI audit); "
                     "relink-tables/tools/cuda13-decisions.tsv; every other row as this target's cudart12.tsv\n")
            elif l.startswith("#% date:"):
                l = f"#% date: {DATE}\n"
            elif l.startswith("#% crosscheck:"):
                none = sum(1 for r in out if r[6].endswith(f"{TORCHADA}: no entry"))
                diff = sum(1 for r in out if f"{TORCHADA}: maps it to" in r[6])
                l = (l.split("rules): ")[0] + f"rules): 0 agree, {none} no entry, {diff} differ "
                     f"({diff} resolved, 0 VERIFY)\n")
            elif l.startswith("# Generated by"):
                l = "# Generated by relink-tables/tools/gen_cudart13.py; do not edit by hand (a user\n"
            elif "rows: one per libcudart.so.12" in l:
                l = (f"# target runtime library: {runtime}; rows: one per libcudart.so.13 export, sorted by name; "
                     "shim symbols of CUDA 13 forms begin 'wp13' (same length as 'cuda')\n"
                     if target != "musa" else
                     f"# target runtime library: {runtime}; rows: the libcudart.so.13 exports whose ABI differs from "
                     "libcudart.so.12's (relink-tables/cuda13-abi.tsv), sorted by name; the others take cudart12.tsv's rows\n")
            f.write(l)
        for r in out:
            f.write("\t".join(r) + "\n")
    kinds = {}
    for r in out:
        kinds[r[2]] = kinds.get(r[2], 0) + 1
    print(target, len(out), kinds)

# docs/cuda13-abi.md: the audit as a table (written beside OUT's tables when OUT is given).
doc = os.path.join(OUT, "cuda13-abi.md") if OUT else os.path.join(os.path.dirname(TABLES), "docs", "cuda13-abi.md")
with open(doc, "w") as f:
    f.write("<!-- Generated by relink-tables/tools/gen_cudart13.py from relink-tables/cuda13-abi.tsv and "
            "relink-tables/tools/cuda13-decisions.tsv; do not edit. -->\n")
    f.write("# CUDA 13 under CUDA 12's names\n\n")
    f.write("`libcudart.so.13` exports these functions under the names `libcudart.so.12` uses, with other "
            "parameters or passing structs of another layout (`relink-tables/tools/cuda13_abi.py`: every "
            "symbol both export, the prototype each header gives the exported name, and gcc's `sizeof`/"
            "`offsetof` of every struct passed, on CUDA 12.9.79's and CUDA 13.5's headers). An object "
            "linked against `libcudart.so.13` takes the rows of `relink-tables/<target>/cudart13.tsv`, which "
            "`gen_cudart13.py` makes from this audit; every other CUDA 13 function has the ABI of CUDA 12's "
            "and keeps its CUDA 12 row. A statically linked runtime is CUDA 13's when it defines a function "
            "only CUDA 13 has.\n\n")
    f.write("| function | change | CUDA 12 | CUDA 13 | dtk, rocm |\n|---|---|---|---|---|\n")
    for sym in sorted(abi):
        r = abi[sym]
        dec = decisions[sym]
        what = (f"shim `{dec[2]}` (calls `{dec[3]}`): {dec[4]}" if dec[1] == "shim" else f"unsupported: {dec[4]}")
        change = r[1] + (f" ({r[4]})" if r[4] != "-" else "")
        f.write(f"| `{sym}` | {change} | `({r[2]})` | `({r[3]})` | {what} |\n")
    f.write("\nmusa: every function above is unsupported (the MUSA tables follow CUDA 12's ABI).\n")
