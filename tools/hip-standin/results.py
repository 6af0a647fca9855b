#!/usr/bin/env python3
"""Write fixtures/gpu/results/standin.json from the output folders of tools/hip-standin/run.sh
(the demo wheel and the nvcc fixtures), tools/hip-standin/cupy.sh (CuPy's own tests) and
tools/hip-standin/torchvision.sh (torchvision's ops) and tools/hip-standin/xformers.sh
(xformers' test_sparsity24): one
record per target and suite, the original against the dtk or rocm output run under the HIP
stand-in (tests/hip_standin.rs checks it against the current conversion in CI).

Usage: results.py OUTDIR [--cupy CUPY_OUTDIR] [--torchvision TV_OUTDIR] [--xformers XF_OUTDIR]
                  [--results fixtures/gpu/results/standin.json]

Record: {target, suite, cases, passed, original_passed, failed: [{case, reason}],
inputs: [{path, sha256, converted_sha256, allow_partial}] (path a repository path or
`wheel.whl!member`, as the CI test converts it again; allow_partial: converted with
--allow-partial, exit 6), hip_calls: the HIP functions the converted run called (from
the stand-in's log), notes: the stand-in's diagnostics}. The file also holds the date, the
device and the sha256 of the stand-in's sources (hip_standin.c, torch_standin.c, gen.py),
which the test compares with the current ones.
"""
import argparse
import hashlib
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu"))
from libraries import junit  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUITES = ["twin", "warp", "mma", "wmma", "video", "tensor_mem", "mbarrier"]
DEMO = "fixtures/wheels/wheelport_demo-0.1.0+cu13-py3-none-manylinux_2_28_x86_64.whl"
CUPY_WHEEL = "cupy_cuda13x-14.2.0-cp312-cp312-manylinux2014_x86_64.whl"
TV_WHEEL = "torchvision-0.26.0-cp312-cp312-manylinux_2_28_x86_64.whl"
TV_C_SHA = "165ae1b510f0caafe15beb872ddf716f89d92fa8af2daf7491008f55118236e7"
XF_WHEEL = "xformers-0.0.35-py39-none-manylinux_2_28_x86_64.whl"
XF_C_SHA = "4a60d6af951c82b495007174097a43a1376f8865e81e7e881fca2f563a40ba1a"
CUPY_SUITE = ("CuPy v14.2.0 tests: core_tests/test_cub_reduction.py, statistics_tests/test_histogram.py, "
              "sorting_tests/test_sort.py, sorting_tests/test_search.py, "
              "math_tests/test_sumprod.py::{TestCubReduction,TestCumsum,TestCumprod}; "
              "CUPY_ACCELERATORS=cub")


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def calls(path):
    if not os.path.exists(path):
        return [], []
    lines = open(path).read().splitlines()
    c = sorted({l[5:] for l in lines if l.startswith("call ")})
    # The run's own folders are not facts of the record: a path keeps its file name.
    n = sorted({re.sub(r"(?:/[^/\s()]+)+/([^/\s()]+)", r"\1", l[5:])
                for l in lines if l.startswith("note ")})
    return c, n


def load(path):
    """The JSON at `path`, or None."""
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None


def fixture_records(out, t):
    """The demo wheel, the nvcc fixture suites and the CUB fixture converted for `t`."""
    d = os.path.join(out, t)
    orig = (load(os.path.join(out, "demo-original.json")) or {"runs": [{}]})["runs"][0]
    reference = "the original"
    if "saxpy_y_sha256" not in orig:
        # The original demo has no code some GPUs run (CUDA error 222 on an H100): its twin's
        # committed H200 outputs are the reference.
        orig = load(os.path.join(ROOT, "fixtures/gpu/results/demo.json"))["runs"][0]
        reference = "the cuda twin's outputs (fixtures/gpu/results/demo.json): the original did not run here"
    rec = {"target": t, "suite": "demo wheel (tools/gpu/demo_run.py)", "cases": 2, "passed": 0,
           "original_passed": 2, "reference": reference, "failed": [],
           "inputs": [{"path": DEMO, "member": "wheelport_demo/_kernels.so",
                       "sha256": sha(os.path.join(ROOT, DEMO))}]}
    run = (load(os.path.join(d, "demo.json")) or {"runs": [None]})["runs"][0]
    if run is None:
        rec["failed"].append({"case": "demo", "reason": "no result (see demo.log)"})
    else:
        rec["inputs"][0]["converted_sha256"] = run["sha256"]
        for k in ("saxpy_y_sha256", "reduce_sum_sha256"):
            if run.get(k) == orig.get(k):
                rec["passed"] += 1
            else:
                rec["failed"].append({"case": k[:-7], "reason": f"output differs from {reference}"})
    yield rec, os.path.join(d, "demo.calls")
    for s in SUITES:
        so = f"fixtures/gpu/{s}_fixtures.so"
        rec = {"target": t, "suite": f"{so} (tools/gpu/run-on-device.sh)",
               "inputs": [{"path": so, "sha256": sha(os.path.join(ROOT, so))}]}
        r = load(os.path.join(d, s, "results.json"))
        if r is None:
            rec.update(cases=0, passed=0, original_passed=0,
                       failed=[{"case": s, "reason": "no result (see the suite's log)"}])
        else:
            summ = r["summary"]
            rec["inputs"][0]["converted_sha256"] = r["converted"]["sha256"]
            rec.update(cases=summ["cases"], passed=summ["cases_passed"],
                       original_passed=summ["cases"],
                       failed=[{"case": f, "reason": "outputs differ from the original's "
                                "(see the run's results.json)"} for f in summ["failed_cases"]])
        yield rec, os.path.join(d, f"{s}.calls")
    so = "fixtures/gpu/cub_fixtures.so"
    rec = {"target": t, "suite": f"{so} (tools/gpu/cub_suite.py, n <= 100000)",
           "inputs": [{"path": so, "sha256": sha(os.path.join(ROOT, so))}]}
    r = load(os.path.join(d, "cub.json"))
    if r is None:
        rec.update(cases=0, passed=0, original_passed=0,
                   failed=[{"case": "cub", "reason": "no result (see cub.log)"}])
    else:
        rec["inputs"][0]["converted_sha256"] = r["conv_so_sha256"]
        by_case = {}
        for f in r["failed"]:  # one entry per failed check; a case may fail several
            by_case.setdefault(f["case"], []).append(f["reason"])
        rec.update(cases=r["cases"], passed=r["twin_passed"], original_passed=r["original_passed"],
                   failed=[{"case": c, "reason": "; ".join(dict.fromkeys(why))}
                           for c, why in by_case.items()])
    yield rec, os.path.join(d, "cub.calls")


def cupy_records(out, t):
    """CuPy's own tests with cub and thrust converted for `t` (tools/hip-standin/cupy.sh)."""
    conv = {}
    for line in open(os.path.join(out, "converted.sha256")):
        h, path = line.split()
        if f"/{t}/" in path:
            conv[os.path.basename(path)] = h
    inputs = []
    for m, h in (("cub", "5e632aa2cee38bb719ee5273a759085c47ff67387c77b0286c4ad44463965c7b"),
                 ("thrust", "b9419ccdc02fb63e78fe54c9c98db3d38b3538b773e0a289b1e0dfc0a528f942")):
        member = f"cupy/cuda/{m}.cpython-312-x86_64-linux-gnu.so"
        inputs.append({"path": f"{CUPY_WHEEL}!{member}", "sha256": h,
                       "converted_sha256": conv[os.path.basename(member)]})
    orig_xml = os.path.join(out, "dtk", "cupy-original.xml")
    conv_xml = os.path.join(out, t, "cupy-twin.xml")
    rec = {"target": t, "suite": CUPY_SUITE, "inputs": inputs}
    if not (os.path.exists(orig_xml) and os.path.exists(conv_xml)):
        return None  # not run for this target
    rec.update(compare_junit(orig_xml, conv_xml))
    return rec


def compare_junit(orig_xml, conv_xml):
    """cases, skipped, passed, original_passed, failed of a converted pytest run against the
    original's: a case passes when the converted run passes it."""
    o, _ = junit(orig_xml)
    c, skipped = junit(conv_xml)
    cases = sorted(set(o) | set(c))
    failed = []
    for k in cases:
        ok, msg = c.get(k, (False, "not run"))
        if not ok:
            why = msg or "failed"
            if not o.get(k, (False, ""))[0]:
                why += " (the original fails too)"
            failed.append({"case": k, "reason": why})
    return dict(cases=len(cases), skipped=skipped, passed=len(cases) - len(failed),
                original_passed=sum(1 for k in cases if o.get(k, (False, ""))[0]), failed=failed)


def xformers_record(out, t):
    """xformers' test_sparsity24 with _C.so converted for `t` (tools/hip-standin/xformers.sh,
    converted with --allow-partial)."""
    conv = converted_by_target(out)
    rec = {"target": t, "suite": "xformers v0.0.35 tests/test_sparsity24.py",
           "inputs": [{"path": f"{XF_WHEEL}!xformers/_C.so", "sha256": XF_C_SHA,
                       "allow_partial": True, "converted_sha256": conv[t]}]}
    orig_xml = os.path.join(out, "xformers-original.xml")
    conv_xml = os.path.join(out, f"xformers-{t}.xml")
    if not (os.path.exists(orig_xml) and os.path.exists(conv_xml)):
        rec.update(cases=0, passed=0, original_passed=0,
                   failed=[{"case": "xformers", "reason": f"no result (see xf-pytest-{t}.txt)"}])
        return rec
    rec.update(compare_junit(orig_xml, conv_xml))
    return rec


def converted_by_target(out):
    """{target: sha256} of the converted objects in OUTDIR/converted.sha256 (one folder per
    target: dtk, rocm, cuda)."""
    conv = {}
    for line in open(os.path.join(out, "converted.sha256")):
        h, path = line.split()
        conv[os.path.basename(os.path.dirname(path))] = h
    return conv


def torchvision_record(out, t):
    """torchvision's ops with _C.so converted for `t` (tools/hip-standin/torchvision.sh)."""
    conv = converted_by_target(out)
    rec = {"target": t, "suite": "torchvision 0.26.0 ops (tools/gpu/torchvision_ops.py)",
           "inputs": [{"path": f"{TV_WHEEL}!torchvision/_C.so", "sha256": TV_C_SHA,
                       "converted_sha256": conv[t]}]}
    r = load(os.path.join(out, f"{t}.json"))
    if r is None:
        rec.update(cases=0, passed=0, original_passed=0,
                   failed=[{"case": "torchvision", "reason": f"no result (see {t}.log)"}])
        return rec
    rec.update(cases=r["cases"], passed=r["twin_passed"], original_passed=r["original_passed"],
               failed=[{"case": f, "reason": "outputs differ from the original's beyond its "
                        "tolerance and run-to-run spread (see the run's records)"}
                       for f in r["failed"]])
    return rec


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--cupy")
    p.add_argument("--torchvision")
    p.add_argument("--xformers")
    p.add_argument("--results", default=os.path.join(ROOT, "fixtures/gpu/results/standin.json"))
    a = p.parse_args()
    env = open(os.path.join(a.out, "env.txt")).read().splitlines()
    records = []
    for t in ("dtk", "rocm"):
        found = list(fixture_records(a.out, t))
        rec = cupy_records(a.cupy, t) if a.cupy else None
        if rec:
            found.append((rec, os.path.join(a.cupy, f"{t}.calls")))
        if a.torchvision:
            found.append((torchvision_record(a.torchvision, t),
                          os.path.join(a.torchvision, f"{t}.calls")))
        if a.xformers:
            found.append((xformers_record(a.xformers, t), os.path.join(a.xformers, f"{t}.calls")))
        for rec, log in found:
            rec["hip_calls"], rec["notes"] = calls(log)
            records.append(rec)
    src = hashlib.sha256()
    for f in ("hip_standin.c", "torch_standin.c", "gen.py"):
        src.update(open(os.path.join(ROOT, "tools/hip-standin", f), "rb").read())
    data = {"schema": "wheelport.gpu.standin/2", "generated_by": "tools/hip-standin/results.py",
            "date": env[0], "device": env[1] if len(env) > 1 else "",
            "standin_source_sha256": src.hexdigest(), "records": records}
    with open(a.results, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    for r in records:
        print(f"{r['target']:5} {r['suite'][:60]:60} {r['passed']}/{r['cases']} (original {r['original_passed']})")


if __name__ == "__main__":
    main()
