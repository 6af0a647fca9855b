#!/usr/bin/env python3
"""Summarise the identity interposer's kernel-lookup log lines of one tools/gpu/run-all.sh run
into fixtures/gpu/results/twin-kernel-lookups.json (checked by tests/library_results.rs).

Usage: tools/gpu/module_loads.py OUTDIR RESULT_JSON
  OUTDIR: the unpacked run-all.sh output (cupy/probe-twin.txt, cub/identity-<tag>.log).
Each line "wheelport-identity: kernel lookup via VIA: NAME: PTX version V (twin code|not twin
code)" is counted per suite by VIA and by whether the kernel found is the twin's code, whose
real PTX version is the twin arch (docs/identity.md)."""
import datetime
import hashlib
import json
import os
import re
import sys

out, result = sys.argv[1], sys.argv[2]
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
logs = {
    "cupy-probe": os.path.join(out, "cupy", "probe-twin.txt"),
    "cub-compute_80": os.path.join(out, "cub", "identity-80.log"),
    "cub-compute_120": os.path.join(out, "cub", "identity-120.log"),
}
line_re = re.compile(r"^wheelport-identity: kernel lookup via (\S+): (.*): PTX version (-?\d+) \((twin code|not twin code)\)$")
suites = {}
for name, path in logs.items():
    s = {"lookups": 0, "twin_code": 0, "not_twin_code": 0, "via": {}, "examples": []}
    for line in open(path, errors="replace"):
        m = line_re.match(line.rstrip("\n"))
        if not m:
            continue
        via = m.group(1)
        s["lookups"] += 1
        s["via"][via] = s["via"].get(via, 0) + 1
        if m.group(4) == "twin code":
            s["twin_code"] += 1
        else:
            s["not_twin_code"] += 1
        if len(s["examples"]) < 3 and line.strip() not in s["examples"]:
            s["examples"].append(line.strip())
    suites[name] = s
src = open(os.path.join(root, "shims/cuda-identity/wp_identity.c"), "rb").read()
rec = {
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "interposer_source_sha256": hashlib.sha256(src).hexdigest(),
    "suites": suites,
}
with open(result, "w") as f:
    json.dump(rec, f, indent=1, sort_keys=True)
    f.write("\n")
for k, v in suites.items():
    print(k, v["lookups"], "lookups,", v["twin_code"], "twin code,", v["not_twin_code"], "not", v["via"])
