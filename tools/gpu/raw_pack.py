#!/usr/bin/env python3
"""Keep the H200's raw output bytes of some fixture cases (tools/amdgpu-exec's `--raw`).

  raw_pack.py --raw DIR/raw --results fixtures/gpu/results/twin.json \
              --cases f32_approx,half_approx --out fixtures/gpu/results/raw

DIR is a `harness.py run` output of the original fixture on the GPU. Each
`<case>.s<seed>.<output>.bin` of the named cases is checked against the results file's
`orig_sha256` for that case, seed and output (a file that differs is an error: the run is not
the recorded one) and written zstd-compressed (`zstd -19`) as `<out>/<same name>.zst`.
Needs the `zstd` command.
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--cases", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    want = {}
    for k in json.load(open(a.results))["kernels"]:
        for s in k["seeds"]:
            for o in s["outputs"]:
                want[(k["case"], s["seed"], o["name"])] = o["orig_sha256"]
    cases = set(a.cases.split(","))
    os.makedirs(a.out, exist_ok=True)
    n = 0
    for f in sorted(os.listdir(a.raw)):
        m = re.fullmatch(r"(.+)\.s(\d+)\.(.+)\.bin", f)
        if not m or m.group(1) not in cases:
            continue
        key = (m.group(1), int(m.group(2)), m.group(3))
        data = open(os.path.join(a.raw, f), "rb").read()
        got = hashlib.sha256(data).hexdigest()
        if want.get(key) != got:
            sys.exit(f"{f}: SHA-256 {got} is not {a.results}'s {want.get(key)}")
        dst = os.path.join(a.out, f + ".zst")
        subprocess.run(["zstd", "-q", "-19", "-f", os.path.join(a.raw, f), "-o", dst], check=True)
        n += 1
    print(f"{n} outputs written to {a.out}")


if __name__ == "__main__":
    main()
