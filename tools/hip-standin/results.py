#!/usr/bin/env python3
"""Write fixtures/gpu/results/standin.json from a tools/hip-standin/run.sh output folder: one
record per target and suite, the original against the dtk or rocm output run under the HIP
stand-in (tests/hip_standin.rs checks it against the current conversion in CI).

Usage: results.py OUTDIR [--results fixtures/gpu/results/standin.json]

Record: {target, suite, cases, passed, failed: [{case, reason}], input, converted_sha256,
hip_calls: the HIP functions the converted run called (from the stand-in's log), notes: the
stand-in's diagnostics}. The file also holds the date, the device and the sha256 of the
stand-in's sources (hip_standin.c, gen.py), which the test compares with the current ones.
"""
import argparse
import hashlib
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUITES = ["twin", "warp", "mma", "wmma", "video", "tensor_mem", "mbarrier"]
DEMO = "fixtures/wheels/wheelport_demo-0.1.0+cu13-py3-none-manylinux_2_28_x86_64.whl"


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def calls(path):
    if not os.path.exists(path):
        return [], []
    lines = open(path).read().splitlines()
    c = sorted({l[5:] for l in lines if l.startswith("call ")})
    n = sorted({l[5:] for l in lines if l.startswith("note ")})
    return c, n


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--results", default=os.path.join(ROOT, "fixtures/gpu/results/standin.json"))
    a = p.parse_args()
    env = open(os.path.join(a.out, "env.txt")).read().splitlines()
    records = []
    orig = json.load(open(os.path.join(a.out, "demo-original.json")))["runs"][0]
    for t in ("dtk", "rocm"):
        d = os.path.join(a.out, t)
        c, n = calls(os.path.join(d, "demo.calls"))
        rec = {"target": t, "suite": "demo", "input": DEMO + "!wheelport_demo/_kernels.so",
               "cases": 2, "passed": 0, "failed": [], "hip_calls": c, "notes": n}
        try:
            run = json.load(open(os.path.join(d, "demo.json")))["runs"][0]
            rec["converted_sha256"] = run["sha256"]
            for k in ("saxpy_y_sha256", "reduce_sum_sha256"):
                if run[k] == orig[k]:
                    rec["passed"] += 1
                else:
                    rec["failed"].append({"case": k[:-7], "reason": "output differs from the original's"})
        except (OSError, KeyError, ValueError) as e:
            rec["failed"] = [{"case": "demo", "reason": f"no result: {e}"}]
        records.append(rec)
        for s in SUITES:
            c, n = calls(os.path.join(d, f"{s}.calls"))
            rec = {"target": t, "suite": f"fixtures/gpu/{s}_fixtures.so",
                   "input": f"fixtures/gpu/{s}_fixtures.so", "hip_calls": c, "notes": n}
            try:
                r = json.load(open(os.path.join(d, s, "results.json")))
                summ = r["summary"]
                rec.update(cases=summ["cases"], passed=summ["cases_passed"],
                           converted_sha256=r["converted"]["sha256"],
                           failed=[{"case": f, "reason": "outputs differ from the original's "
                                    "(see the run's results.json)"} for f in summ["failed_cases"]])
            except (OSError, KeyError, ValueError) as e:
                rec.update(cases=0, passed=0, failed=[{"case": s, "reason": f"no result: {e}"}])
            records.append(rec)
        c, n = calls(os.path.join(d, "cub.calls"))
        rec = {"target": t, "suite": "tools/gpu/cub_suite.py (n <= 100000)",
               "input": "fixtures/gpu/cub_fixtures.so", "hip_calls": c, "notes": n}
        try:
            r = json.load(open(os.path.join(d, "cub.json")))
            rec.update(cases=r["cases"], passed=r["twin_passed"],
                       converted_sha256=r["conv_so_sha256"],
                       failed=[{"case": f["case"], "reason": f["reason"]} for f in r["failed"]])
        except (OSError, KeyError, ValueError) as e:
            rec.update(cases=0, passed=0, failed=[{"case": "cub", "reason": f"no result: {e}"}])
        records.append(rec)
    src = hashlib.sha256()
    for f in ("hip_standin.c", "gen.py"):
        src.update(open(os.path.join(ROOT, "tools/hip-standin", f), "rb").read())
    data = {"schema": "wheelport.gpu.standin/1", "generated_by": "tools/hip-standin/results.py",
            "date": env[0], "device": env[1] if len(env) > 1 else "",
            "standin_source_sha256": src.hexdigest(), "records": records}
    with open(a.results, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    for r in records:
        print(f"{r['target']:5} {r['suite']:45} {r['passed']}/{r['cases']}")


if __name__ == "__main__":
    main()
