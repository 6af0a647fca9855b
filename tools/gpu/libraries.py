#!/usr/bin/env python3
"""Write fixtures/gpu/results/libraries.json: one record per real-library suite run on the GPU,
original against twin (docs/identity.md, tests/library_results.rs checks it in CI).

  libraries.py add --results FILE --library NAME --version V --suite TEXT
                   (--junit-original A.xml --junit-twin B.xml | --summary S.json)
                   --input PATH=SHA256 ... --twin PATH=SHA256 ... [--date ISO] [--device TEXT]
      Adds (or replaces, by library+suite) one record. With junit files (pytest
      --junitxml) the cases are the test ids; a case passes when it has no failure or error
      element (skipped cases are left out and counted). With --summary, a JSON holding
      `records: [{case, passed, ...}]` and `errors_original` (tools/gpu/torchvision_ops.py
      compare, tools/gpu/cub_suite.py compare).
      --input names each converted input (the .so the twin was made from, as a path the CI
      test can rebuild: `wheel.whl!member` or a repository path) with its sha256; --twin the
      sha256 of the twin made from it (the CI test makes it again and compares).
      --lifted PATH=SHA256 instead of --twin: the twin was converted from the input's SASS
      (`convert --device-code sass`); the sha256 is that of the PTX `wheelport sass lift
      --arch ARCH -o DIR` writes for it (its `<n>-ARCH.ptx` files in order, concatenated), which
      the CI test lifts again and compares; --arch names the SASS arch (sm_80).
The record: {library, version, suite, date, device, cases, skipped, original_passed,
twin_passed, failed: [{case, original, twin, reason}], inputs: [{path, sha256, twin_sha256 or
lifted_ptx_sha256}], interposer_source_sha256}, and `device_code: {source: "sass", arch}` for a
lifted twin.
"""
import argparse
import hashlib
import json
import os
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def junit(path):
    """{case id: (passed, message)} of a pytest junit file; skipped cases left out."""
    out, skipped = {}, 0
    for tc in ET.parse(path).getroot().iter("testcase"):
        cid = f"{tc.get('classname')}::{tc.get('name')}"
        kids = {c.tag: c for c in tc}
        if "skipped" in kids:
            skipped += 1
            continue
        bad = kids.get("failure")
        if bad is None:
            bad = kids.get("error")
        msg = ""
        if bad is not None:
            msg = (bad.get("message") or bad.text or "").strip().splitlines()
            msg = msg[0][:300] if msg else ""
        out[cid] = (bad is None, msg)
    return out, skipped


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cmd", choices=["add"])
    p.add_argument("--results", required=True)
    p.add_argument("--library", required=True)
    p.add_argument("--version", required=True)
    p.add_argument("--suite", required=True)
    p.add_argument("--junit-original")
    p.add_argument("--junit-twin")
    p.add_argument("--summary")
    p.add_argument("--input", action="append", default=[])
    p.add_argument("--twin", action="append", default=[])
    p.add_argument("--lifted", action="append", default=[])
    p.add_argument("--arch", default="sm_80")
    p.add_argument("--date", default="")
    p.add_argument("--device", default="")
    a = p.parse_args()

    failed = []
    if a.summary:
        s = json.load(open(a.summary))
        if "records" not in s:  # tools/gpu/cub_suite.py compare: counts and failed cases
            by_case = {}
            for f in s["failed"]:
                by_case.setdefault(f["case"], []).append(f["reason"])
            s["records"] = [{"case": c, "passed": False, "reason": "; ".join(r)}
                            for c, r in by_case.items()]
            s["records"] += [{"case": f"passed #{i}", "passed": True}
                             for i in range(s["twin_passed"])]

        recs = s["records"]
        cases = len(recs)
        skipped = 0
        original_passed = s.get("original_passed", cases)
        twin_passed = sum(1 for r in recs if r["passed"])
        for r in recs:
            if not r["passed"]:
                failed.append({"case": r["case"], "original": r.get("original_ok", True),
                               "twin": False, "reason": r.get("reason") or r.get("error") or
                               "outputs differ beyond the tolerance"})
    else:
        o, so = junit(a.junit_original)
        t, st = junit(a.junit_twin)
        ids = sorted(set(o) | set(t))
        cases, skipped = len(ids), max(so, st)
        original_passed = sum(1 for i in ids if o.get(i, (False,))[0])
        twin_passed = sum(1 for i in ids if t.get(i, (False,))[0])
        for i in ids:
            oo, to = o.get(i, (False, "not run")), t.get(i, (False, "not run"))
            if oo[0] != to[0] or not to[0]:
                why = to[1] if not to[0] else oo[1]
                if not oo[0] and not to[0]:
                    why = f"fails on the original too: {why}"
                failed.append({"case": i, "original": oo[0], "twin": to[0], "reason": why})
    twins = dict(x.split("=", 1) for x in a.twin)
    lifted = dict(x.split("=", 1) for x in a.lifted)
    inputs = []
    for x in a.input:
        path, sha = x.split("=", 1)
        if path in lifted:
            inputs.append({"path": path, "sha256": sha, "lifted_ptx_sha256": lifted[path]})
            if path in twins:  # the converted file run, for the record (not rebuilt by CI)
                inputs[-1]["twin_sha256"] = twins[path]
        else:
            inputs.append({"path": path, "sha256": sha, "twin_sha256": twins[path]})
    src = open(os.path.join(ROOT, "shims/cuda-identity/wp_identity.c"), "rb").read()
    rec = {"library": a.library, "version": a.version, "suite": a.suite, "date": a.date,
           "device": a.device, "cases": cases, "skipped": skipped,
           "original_passed": original_passed, "twin_passed": twin_passed, "failed": failed,
           "inputs": inputs, "interposer_source_sha256": hashlib.sha256(src).hexdigest()}
    if lifted:
        rec["device_code"] = {"source": "sass", "arch": a.arch}
    data = {"schema": "wheelport.gpu.libraries/1", "records": []}
    if os.path.exists(a.results):
        data = json.load(open(a.results))
    data["records"] = [r for r in data["records"]
                       if (r["library"], r["suite"]) != (a.library, a.suite)] + [rec]
    data["records"].sort(key=lambda r: (r["library"], r["suite"]))
    with open(a.results, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    print(f"{a.library} {a.version} {a.suite}: cases {cases}, original {original_passed}, "
          f"twin {twin_passed}, failed {len(failed)}")


if __name__ == "__main__":
    main()
