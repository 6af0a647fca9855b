#!/usr/bin/env python3
"""Static figures of the gfx906 code wheelport builds, per kernel (issue 22's measure).

    tools/codegen-stats.py [--arch gfx906] FILE.ptx|FILE.so ...

For each input, `wheelport ptx lower --target dtk --emit obj` (a PTX file) or the PTX that
`cuobjdump -xptx all` extracts from a `.so`, then per kernel of the code object: VGPRs,
SGPRs, VGPR and SGPR spills, private segment (scratch) bytes, from the code object's
NT_AMDGPU_METADATA note (`llvm-readobj --notes`), and the instructions of its
`llvm-objdump -d` disassembly within the kernel symbol's size (`llvm-nm -S`; alignment padding
after it is not counted). One tab-separated line per kernel on stdout.
`benches/codegen_vs_hipcc.rs` reads the same figures in Rust for its comparison with hipcc.

Tools: the wheelport binary ($WHEELPORT_BIN, default target/release/wheelport), LLVM 19's
llvm-readobj, llvm-nm and llvm-objdump ($WHEELPORT_LLVM_BIN or PATH), cuobjdump ($WHEELPORT_CUDA_BIN
or PATH) for `.so` inputs; PyYAML.
"""
import argparse, glob, os, re, shutil, subprocess, sys, tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tool(name, env):
    d = os.environ.get(env)
    p = os.path.join(d, name) if d else shutil.which(name) or shutil.which(name + "-19")
    if not p or not os.path.exists(p):
        sys.exit(f"codegen-stats: {name} not found (set {env} or PATH)")
    return p


def ptx_inputs(path, tmp):
    if path.endswith(".ptx"):
        return [path]
    d = tempfile.mkdtemp(dir=tmp)
    subprocess.run([tool("cuobjdump", "WHEELPORT_CUDA_BIN"), "-xptx", "all", os.path.abspath(path)],
                   cwd=d, check=True, capture_output=True)
    return sorted(glob.glob(os.path.join(d, "*.ptx")))


def stats(ptx, arch, tmp):
    w = os.environ.get("WHEELPORT_BIN", os.path.join(ROOT, "target/release/wheelport"))
    out = tempfile.mkdtemp(dir=tmp)
    subprocess.run([w, "ptx", "lower", "--target", "dtk", "--offload-arch", arch, "--emit", "obj",
                    "-o", out, ptx], capture_output=True)
    cos = glob.glob(os.path.join(out, "*.co"))
    if not cos:
        return []
    co = cos[0]
    notes = subprocess.run([tool("llvm-readobj", "WHEELPORT_LLVM_BIN"), "--notes", co],
                           capture_output=True, text=True, check=True).stdout
    y = notes[notes.index("---"):notes.index("\n...")].split("\n")
    ind = len(y[1]) - len(y[1].lstrip())
    doc = yaml.safe_load("\n".join(l[ind:] if l.startswith(" " * ind) else l for l in y))
    dis = subprocess.run([tool("llvm-objdump", "WHEELPORT_LLVM_BIN"), "-d", "--no-show-raw-insn", co],
                         capture_output=True, text=True, check=True).stdout
    # Each symbol's address range (llvm-nm -S), so that the alignment padding after a
    # function (s_nop, s_code_end) is not counted.
    nm = subprocess.run([tool("llvm-nm", "WHEELPORT_LLVM_BIN"), "-S", co],
                        capture_output=True, text=True, check=True).stdout
    span = {}
    for line in nm.split("\n"):
        f = line.split()
        if len(f) == 4 and f[2] in "Tt":
            span[f[3]] = (int(f[0], 16), int(f[0], 16) + int(f[1], 16))
    count, name = {}, None
    for line in dis.split("\n"):
        m = re.match(r"^[0-9a-f]+ <(.*)>:", line)
        if m:
            name = m.group(1)
            count[name] = 0
            continue
        a = re.match(r"^\s+[a-z_].*// ([0-9A-Fa-f]+):", line)
        if name and a and name in span and span[name][0] <= int(a.group(1), 16) < span[name][1]:
            count[name] += 1
    rows = []
    for k in doc["amdhsa.kernels"]:
        n = k[".name"]
        rows.append((n, k[".vgpr_count"], k[".sgpr_count"], k[".vgpr_spill_count"],
                     k[".sgpr_spill_count"], k[".private_segment_fixed_size"], count.get(n, 0)))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--arch", default="gfx906")
    ap.add_argument("inputs", nargs="+")
    a = ap.parse_args()
    print("kernel\tvgpr\tsgpr\tvgpr_spill\tsgpr_spill\tscratch_bytes\tinstructions")
    with tempfile.TemporaryDirectory() as tmp:
        for i in a.inputs:
            for p in ptx_inputs(i, tmp):
                for r in sorted(stats(p, a.arch, tmp)):
                    print("\t".join(str(x) for x in r))


if __name__ == "__main__":
    main()
