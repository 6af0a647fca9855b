#!/usr/bin/env python3
"""Audit the CUDA runtime ABI between CUDA 12 and CUDA 13: every symbol both `libcudart.so.12`
and `libcudart.so.13` export, with the prototype each header gives that exported name, and
every struct those prototypes pass whose layout differs. Writes relink-tables/cuda13-abi.tsv,
which gen_relink_tables.py turns into the cudart13 rows and docs/cuda13-abi.md documents.

    python3 relink-tables/tools/cuda13_abi.py CUDA12_ROOT CUDA13_ROOT OUT.tsv

CUDA12_ROOT: nvidia-cuda-runtime-cu12 12.9.79 unpacked (nvidia/cuda_runtime/{include,lib});
CUDA13_ROOT: the CUDA 13 toolkit's nvidia/cu13 from PyPI (nvidia-cuda-nvcc 13.5 with its
nvidia-cuda-runtime: include/, lib/libcudart.so.13). .ci/run installs both
($WHEELPORT_CUDA12_INCLUDE/.., $WHEELPORT_CUDA_BIN/..).

The prototype of an exported name is the header's last declaration of it: the CUDA 12 header
redirects new code to `_v2`/`_v3` names with #define and declares the legacy prototype of the
old name in its trailing `__CUDART_API_VERSION_INTERNAL` section, which is what the export
implements. Struct layouts are printed by gcc (sizeof, offsetof of every member) against each
header. Rows: symbol, cuda12 prototype, cuda13 prototype, and the structs whose layout
differs (`cudaDeviceProp: 1032 -> 1008 bytes`); only symbols whose prototype or a passed struct's
layout differ are written (and those whose structs only gained members in reserved bytes,
marked compatible).
"""
import os
import re
import subprocess
import sys
import tempfile

C12, C13, OUT = sys.argv[1:4]


def exports(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    return {l.split()[-1].split("@")[0] for l in out.splitlines() if l.split()[-1].startswith("cuda")}


def declarations(header):
    text = open(header).read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    decls = {}
    for m in re.finditer(r"CUDARTAPI\s+(\w+)\s*\((.*?)\)\s*;", text, re.S):
        decls[m.group(1)] = normal(m.group(2))
    return decls


def normal(params):
    params = re.sub(r"__dv\([^()]*(\([^()]*\))?[^()]*\)", "", params)
    params = re.sub(r"\s+", " ", params).strip()
    out = []
    for p in params.split(","):
        p = p.strip()
        # drop the parameter name (the last identifier of a non-pointer, non-array declarator)
        p = re.sub(r"\s*\b[A-Za-z_]\w*\s*(\[[^\]]*\])?$", lambda m: "" if m.group(0).strip() not in TYPES else m.group(0), p)
        out.append(p.replace(" *", "*").replace("* ", "*").strip())
    return ", ".join(out)


TYPES = {"int", "void", "size_t", "float", "unsigned", "char", "long"}


def structs(protos):
    names = set()
    for p in protos:
        names.update(re.findall(r"struct (\w+)", p))
        names.update(re.findall(r"\b(cuda\w+(?:_t|Params\w*|Desc|Data|Location|Attributes|Props|Op))\b", p))
    return sorted(names)


def layouts(inc, names):
    """{name: (size, [(member, offset)])} by gcc against include dir `inc`: the size of every
    struct, the offsets of the members of those whose body the header spells plainly."""
    text = open(os.path.join(inc, "driver_types.h")).read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    src = ["#include <stdio.h>", "#include <stddef.h>", "#include <cuda_runtime_api.h>", "int main(void) {"]
    for n in names:
        base = n[:-2] if n.endswith("_t") else n
        if not re.search(r"struct __device_builtin__ " + re.escape(base) + r"\b", text):
            continue
        ty = f"struct {base}"
        src.append(f'printf("{n} size %zu\\n", sizeof({ty}));')
        m = re.search(r"struct __device_builtin__ " + re.escape(base) + r"\s*\{(.*?)\}\s*\w*\s*;", text, re.S)
        if not m or "union" in m.group(1) or "struct {" in m.group(1):
            continue
        for decl in m.group(1).split(";"):
            w = re.findall(r"\w+", re.sub(r"\[[^\]]*\]", "", decl))
            if w:
                src.append(f'printf("{n} {w[-1]} %zu\\n", offsetof({ty}, {w[-1]}));')
    src.append("return 0; }")
    with tempfile.TemporaryDirectory() as d:
        c = os.path.join(d, "l.c")
        open(c, "w").write("\n".join(src))
        exe = os.path.join(d, "l")
        # crt/host_defines.h ships with nvcc, not with the 12.9 runtime wheel: after `inc`.
        subprocess.run(["gcc", "-w", f"-I{inc}", "-idirafter", os.path.join(C13, "include"), c, "-o", exe], check=True)
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    res = {}
    for l in out.splitlines():
        n, k, v = l.split()
        res.setdefault(n, [0, []])
        if k == "size":
            res[n][0] = int(v)
        else:
            res[n][1].append((k, int(v)))
    return {n: (v[0], v[1]) for n, v in res.items()}


def main():
    inc12, inc13 = os.path.join(C12, "include"), os.path.join(C13, "include")
    e12 = exports(os.path.join(C12, "lib/libcudart.so.12"))
    e13 = exports(os.path.join(C13, "lib/libcudart.so.13"))
    d12 = declarations(os.path.join(inc12, "cuda_runtime_api.h"))
    d13 = declarations(os.path.join(inc13, "cuda_runtime_api.h"))
    both = sorted(e12 & e13)
    # A per-thread-default-stream export (`X_ptsz`) the header declares only through a macro
    # has the prototype of `X` in that header.
    for d in (d12, d13):
        for s in both:
            if s.endswith("_ptsz") and s not in d and s[: -len("_ptsz")] in d:
                d[s] = d[s[: -len("_ptsz")]]
    protos = [d12.get(s, "") for s in both] + [d13.get(s, "") for s in both]
    names = structs(protos)
    l12, l13 = layouts(inc12, names), layouts(inc13, names)
    # A struct changed when its size differs, or a member both have moved, or a member went
    # (reserved members aside); members only CUDA 13 has, in former reserved bytes, are noted.
    changed, added = {}, {}
    for n in names:
        a, b = l12.get(n), l13.get(n)
        if not (a and b):
            continue
        ma, mb = dict(a[1]), dict(b[1])
        if not (ma and mb):  # a body with a union: its size only
            ma = mb = {}
        moved = [m for m in ma if m in mb and ma[m] != mb[m] and not m.startswith("reserved")]
        gone = [m for m in ma if m not in mb and not m.startswith("reserved")]
        new = [m for m in mb if m not in ma and not m.startswith("reserved")]
        if a[0] != b[0]:
            changed[n] = f"{n}: {a[0]} -> {b[0]} bytes"
        elif moved or gone:
            changed[n] = f"{n}: {', '.join(moved + gone)} moved or removed ({a[0]} bytes)"
        elif new:
            added[n] = f"{n}: {', '.join(new)} added in reserved bytes ({a[0]} bytes)"
    rows = []
    for s in both:
        p12, p13 = d12.get(s), d13.get(s)
        if p12 is None or p13 is None:
            continue
        layout = sorted({changed[n] for n in structs([p13]) if n in changed})
        compatible = sorted({added[n] for n in structs([p13]) if n in added})
        if p12 != p13 or layout or compatible:
            kind = "prototype" if p12 != p13 else "layout" if layout else "compatible"
            rows.append((s, kind, p12, p13, "; ".join(layout + compatible) or "-"))
    with open(OUT, "w") as f:
        f.write("#% schema: wheelport-cuda13-abi/1\n")
        f.write("#% provenance: nvidia-cuda-runtime-cu12 12.9.79 (libcudart.so.12, include/cuda_runtime_api.h, driver_types.h) and nvidia/cu13 of nvidia-cuda-nvcc 13.5 (libcudart.so.13 CUDART_VERSION 13050, same headers); layouts by gcc\n")
        f.write("# Generated by relink-tables/tools/cuda13_abi.py; do not edit by hand.\n")
        f.write("# Columns: symbol (exported by both); change: prototype (the parameters differ), layout (a struct it\n")
        f.write("#   passes has another size or moved members) or compatible (members added in reserved bytes only);\n")
        f.write("#   cuda12_prototype; cuda13_prototype; structs (the layout changes of the structs the CUDA 13 prototype passes)\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    print(f"{len(both)} symbols in both; {len(rows)} rows; structs changed: {', '.join(sorted(changed))}; gained members: {', '.join(sorted(added))}")


main()
