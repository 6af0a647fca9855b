#!/usr/bin/env python3
"""FlashAttention-2 forward on an NVIDIA GPU: the original fixture (fixtures/gpu/flash_fwd_sm90.so,
NVIDIA's sm_90 SASS) and its twin (what `wheelport convert fixtures/gpu/flash_fwd_sass80.so
--target cuda -o DIR` writes: the lifted sm_80 SASS rebuilt for this GPU) are run on the same
seeded inputs and each is checked against PyTorch references with FlashAttention's own test
criterion for the forward output.

Usage: python3 tools/gpu/flash_twin.py ORIG.so TWIN.so OUT.json [--cases SPEC]
       python3 tools/gpu/flash_twin.py --self-test      (CPU only: the reference functions)
       python3 tools/gpu/flash_twin.py --mock-test      (CPU only, needs cc: the whole harness,
                                                         with tools/gpu/flash_twin_mock.c as .so)
  --cases SPEC  a comma-separated subset, names as in OUT.json (e.g. hd64-fp16-causal-256x256)
  --save DIR    for the two one-CTA exec-* cases: q, k, v, orig_out, orig_lse, out_ref, lse_ref
                as raw little-endian arrays in DIR/<case>/, with params.bin (the original's
                Flash_fwd_params from wp_flash_params, pointers = SENTINELS) and case.json
                (tests/flash_fixture.rs runs the dtk conversion on them in tools/amdgpu-exec)

A run, from the repository root (the convert on a machine with nvdisasm and the CUDA tools, the
comparison on the GPU machine):
  wheelport convert fixtures/gpu/flash_fwd_sass80.so --target cuda -o twin-flash --allow-partial
  python3 tools/gpu/flash_twin.py fixtures/gpu/flash_fwd_sm90.so twin-flash/flash_fwd_sass80.so \
      fixtures/gpu/results/flash-twin.json
(with the `run` device tool, twin-flash/ is an ignored folder named in `carry`). A twin whose
kernels were not translated is the unchanged sm_80 object: its launches fail on an sm_90 GPU
(no kernel image), and every case reports the failing return code.

Needs PyTorch with CUDA (torch 2.11 cu13: --self-test and --mock-test pass with 2.11.0+cu130
on a CPU, the GPU path ran with it on the H200: fixtures/gpu/results/flash-twin.json) and
libcudart.so.13 (the fixtures link it dynamically: the torch cu13 wheels bring it; else put its
folder in LD_LIBRARY_PATH). No network.

Each .so is loaded (ctypes) only in worker processes of its own, never both in one process: the
twin exports the same symbol names as the original. The entry point is fixtures/gpu/flash/
flash_entry.cu's wp_flash_fwd (q, k, v, out: contiguous [batch, seqlen, heads, head_dim] fp16 or
bf16; softmax_lse fp32 [batch, heads, seqlen_q]; softmax_scale 1/sqrt(head_dim) here). A worker
that dies (an illegal address poisons its CUDA context) is replaced by a new one for the cases left;
the case it died on is recorded as failed.

Cases: head dim {64, 128} x {fp16, bf16} x causal {0, 1} x (seqlen_q, seqlen_k) in
{(256, 256) (Is_even_MN kernels), (197, 241), (241, 197) (Is_even_MN=false kernels; the second
has, when causal, 44 query rows that see no key)}; batch 2, heads 4; q, k, v from torch.randn
(seeded per case) on the GPU. The uneven shapes are skipped when the .so says it holds only the
8 Is_even_MN kernels (wp_flash_fwd_kernel_count).

References (written for this script, following FlashAttention's tests/test_flash_attn.py
attention_ref semantics):
  out_ref  fp32 attention of the upcast inputs: softmax(scale * q k^T, masked) v;
  out_pt   the same in the inputs' precision, the scale applied to k ("reorder_ops"), no upcast;
  causal   bottom-right aligned (FlashAttention >= 2.1): query i sees key j iff
           j <= i + seqlen_k - seqlen_q; a query row that sees no key gives 0 (and LSE +inf);
  lse_ref  fp32 logsumexp over the keys of scale * q k^T (masked), -> +inf for a row with no key.
Pass criteria, for ORIG and TWIN alike:
  out:  max|out - out_ref| <= 2 * max|out_pt - out_ref| + 1e-5  (FlashAttention's test criterion
        for the forward output; the 1e-5 absolute slack is this script's), and no NaN;
  lse:  the same +inf rows as lse_ref, and max|lse - lse_ref| over the finite rows <= 1e-3
        (the kernel accumulates in fp32 from exact fp16/bf16 products; 1e-3 is generous);
  and the launch returned 0, and a second launch gave the same bits (the forward is deterministic).
Also recorded, not pass criteria: max|twin - orig| for out and lse, and whether they are bitwise
equal. Exit 0 when every case passed for both, 1 when some failed, 2 on a setup error.
"""
import argparse
import datetime
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
import traceback

BATCH, HEADS = 2, 4
# The pointer values --save's parameter blocks hold, for the reader to replace with its buffers'.
SENTINELS = {"q": 0x7A0100000000, "k": 0x7A0200000000, "v": 0x7A0300000000,
             "out": 0x7A0400000000, "lse": 0x7A0500000000}
SHAPES = [(256, 256), (197, 241), (241, 197)]
OUT_SLACK = 1e-5
LSE_TOL = 1e-3


def case_list():
    cases = []
    seed = 1000
    for hd in (64, 128):
        for dt in ("fp16", "bf16"):
            for causal in (0, 1):
                for sq, sk in SHAPES:
                    seed += 1
                    cases.append({
                        "name": f"hd{hd}-{dt}-{'causal' if causal else 'full'}-{sq}x{sk}",
                        "head_dim": hd, "dtype": dt, "causal": causal, "batch": BATCH,
                        "heads": HEADS, "seqlen_q": sq, "seqlen_k": sk, "seed": seed,
                        "even_mn": is_even_mn(hd, sq, sk),
                    })
    # One-CTA cases whose inputs, references and original outputs --save writes for the CPU
    # execution of the dtk conversion (tests/flash_fixture.rs).
    for causal in (0, 1):
        seed += 1
        cases.append({
            "name": f"exec-hd64-fp16-{'causal' if causal else 'full'}-128x128",
            "head_dim": 64, "dtype": "fp16", "causal": causal, "batch": 1, "heads": 1,
            "seqlen_q": 128, "seqlen_k": 128, "seed": seed, "even_mn": True,
        })
    return cases


def block_mn(head_dim):
    """kBlockM, kBlockN of the fixture's Kernel_traits (flash_entry.cu)."""
    return {64: (128, 128), 128: (128, 64)}[head_dim]


def is_even_mn(head_dim, sq, sk):
    bm, bn = block_mn(head_dim)
    return sq % bm == 0 and sk % bn == 0


def causal_visible(i, j, sq, sk):
    """Bottom-right aligned causal mask: may query row i see key j."""
    return j <= i + sk - sq


# ---------------------------------------------------------------- references (torch)

def causal_mask(sq, sk, device):
    """Bool [sq, sk], True where the key is masked out (bottom-right aligned)."""
    import torch
    row = torch.arange(sq, device=device).view(-1, 1)
    col = torch.arange(sk, device=device).view(1, -1)
    return col > row + (sk - sq)


def attention_ref(q, k, v, causal, upcast=True, reorder_ops=False):
    """q: [b, sq, h, d], k, v: [b, sk, h, d]. Returns (out [b, sq, h, d] in q's dtype, or fp32
    when upcast; lse fp32 [b, h, sq] of the scores as computed)."""
    import torch
    dtype_in = q.dtype
    if upcast:  # to fp32 (fp64 stays fp64, for the self-test)
        q, k, v = (t if t.dtype == torch.float64 else t.float() for t in (q, k, v))
    d = q.shape[-1]
    sq, sk = q.shape[1], k.shape[1]
    scale = 1.0 / math.sqrt(d)
    if reorder_ops:
        scores = torch.einsum("bqhd,bkhd->bhqk", q, k * scale)
    else:
        scores = torch.einsum("bqhd,bkhd->bhqk", q * scale, k)
    if causal:
        m = causal_mask(sq, sk, scores.device)
        scores = scores.masked_fill(m, float("-inf"))
    # fp32 (fp64 stays fp64, for the self-test); -inf for a row that sees no key
    lse = torch.logsumexp(scores if scores.dtype == torch.float64 else scores.float(), dim=-1)
    lse = torch.where(torch.isneginf(lse), torch.full_like(lse, float("inf")), lse)
    attn = torch.softmax(scores, dim=-1)
    if causal:
        empty = m.all(dim=-1).view(1, 1, sq, 1)
        attn = attn.masked_fill(empty, 0.0)
    out = torch.einsum("bhqk,bkhd->bqhd", attn.to(v.dtype), v)
    return (out if upcast else out.to(dtype_in)), lse


def make_inputs(case, device):
    import torch
    dt = {"fp16": torch.float16, "bf16": torch.bfloat16}[case["dtype"]]
    g = torch.Generator(device=device)
    g.manual_seed(case["seed"])
    b, h, d = case["batch"], case["heads"], case["head_dim"]
    q = torch.randn(b, case["seqlen_q"], h, d, generator=g, device=device, dtype=dt)
    k = torch.randn(b, case["seqlen_k"], h, d, generator=g, device=device, dtype=dt)
    v = torch.randn(b, case["seqlen_k"], h, d, generator=g, device=device, dtype=dt)
    return q, k, v


def maxabs(a, b):
    """max |a - b| as a float (NaN if either holds a NaN where the other does not agree)."""
    d = (a.float() - b.float()).abs()
    if d.numel() == 0:
        return 0.0
    return float(d.max().item()) if not bool(d.isnan().any()) else float("nan")


def lse_check(lse, lse_ref):
    import torch
    inf_ref = torch.isinf(lse_ref)
    inf_got = torch.isinf(lse) & (lse > 0)
    same_inf = bool(torch.equal(inf_ref, inf_got))
    fin = ~inf_ref
    err = maxabs(lse[fin], lse_ref[fin]) if bool(fin.any()) else 0.0
    ok = same_inf and not math.isnan(err) and err <= LSE_TOL
    return {"lse_max_err": err, "lse_inf_rows_match": same_inf, "lse_pass": ok}


def out_check(out, out_ref, pt_err):
    import torch
    err = maxabs(out, out_ref)
    nan = int(torch.isnan(out.float()).sum().item())
    bound = 2 * pt_err + OUT_SLACK
    ok = nan == 0 and not math.isnan(err) and err <= bound
    return {"out_max_err": err, "out_bound": bound, "out_nan": nan, "out_pass": ok}


# ---------------------------------------------------------------- worker

def worker(so, inputs_dir, cases, results_dir, device):
    import ctypes
    import torch
    on_gpu = device == "cuda"
    lib = ctypes.CDLL(so)
    f = lib.wp_flash_fwd
    f.restype = ctypes.c_int
    f.argtypes = [ctypes.c_int] * 3 + [ctypes.c_void_p] * 5 + [ctypes.c_int] * 4 + \
        [ctypes.c_float, ctypes.c_void_p]
    count = None
    if hasattr(lib, "wp_flash_fwd_kernel_count"):
        lib.wp_flash_fwd_kernel_count.restype = ctypes.c_int
        count = int(lib.wp_flash_fwd_kernel_count())
    with open(os.path.join(results_dir, "kernel_count.json"), "w") as fh:
        json.dump({"kernel_count": count}, fh)
    stream = torch.cuda.current_stream().cuda_stream if on_gpu else None
    for c in cases:
        if count == 8 and not c["even_mn"]:
            torch.save({"skipped": f"the .so holds {count} kernels (no Is_even_MN=false)"},
                       os.path.join(results_dir, c["name"] + ".pt"))
            continue
        print(f"    {c['name']}", flush=True)
        q, k, v = (t.to(device) for t in torch.load(os.path.join(inputs_dir, c["name"] + ".pt")))
        runs = []
        for _ in range(2):
            out = torch.full_like(q, float("nan"))
            lse = torch.full((c["batch"], c["heads"], c["seqlen_q"]), float("nan"),
                             device=q.device, dtype=torch.float32)
            rc = f(c["head_dim"], int(c["dtype"] == "bf16"), c["causal"], q.data_ptr(), k.data_ptr(),
                   v.data_ptr(), out.data_ptr(), lse.data_ptr(), c["batch"], c["heads"],
                   c["seqlen_q"], c["seqlen_k"], 1.0 / math.sqrt(c["head_dim"]),
                   stream)
            if on_gpu:
                torch.cuda.synchronize()
            runs.append((rc, out.cpu(), lse.cpu()))
        (rc, out, lse), (rc2, out2, lse2) = runs
        det = rc == rc2 and torch.equal(out.view(torch.int16), out2.view(torch.int16)) and \
            torch.equal(lse.view(torch.int32), lse2.view(torch.int32))
        res = {"rc": rc, "rc2": rc2, "deterministic": bool(det), "out": out, "lse": lse}
        if c["name"].startswith("exec-") and hasattr(lib, "wp_flash_params"):
            # The parameter block, with the SENTINELS for the pointers (--save).
            g = lib.wp_flash_params
            g.restype = ctypes.c_int
            g.argtypes = f.argtypes[:-1] + [ctypes.c_void_p, ctypes.c_int]
            buf = ctypes.create_string_buffer(4096)
            sn = SENTINELS
            n = g(c["head_dim"], int(c["dtype"] == "bf16"), c["causal"], sn["q"], sn["k"], sn["v"],
                  sn["out"], sn["lse"], c["batch"], c["heads"], c["seqlen_q"], c["seqlen_k"],
                  1.0 / math.sqrt(c["head_dim"]), buf, 4096)
            if n > 0:
                res["params"] = buf.raw[:n]
        torch.save(res, os.path.join(results_dir, c["name"] + ".pt"))


def run_side(so, inputs_dir, cases, work, label, env, device):
    """Run CASES on SO in worker processes; returns (kernel_count, {name: ("ok", result file) or
    ("error", message)})."""
    rdir = os.path.join(work, label)
    os.makedirs(rdir, exist_ok=True)
    results, pending, count = {}, list(cases), None
    while pending:
        spec = os.path.join(work, f"{label}-pending.json")
        with open(spec, "w") as fh:
            json.dump(pending, fh)
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", so,
                               inputs_dir, spec, rdir, device], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        sys.stdout.write(proc.stdout)
        kc = os.path.join(rdir, "kernel_count.json")
        if count is None and os.path.exists(kc):
            with open(kc) as fh:
                count = json.load(fh)["kernel_count"]
        left = []
        for c in pending:
            p = os.path.join(rdir, c["name"] + ".pt")
            if os.path.exists(p):
                results[c["name"]] = ("ok", p)
            else:
                left.append(c)
        if proc.returncode != 0 or left:
            if not left:
                break
            dead = left.pop(0)
            tail = "\n".join(proc.stdout.strip().splitlines()[-6:])
            results[dead["name"]] = ("error", f"worker exited {proc.returncode} on this case: {tail}")
            if proc.returncode == 0:  # finished without writing: should not happen
                for c in left:
                    results[c["name"]] = ("error", "worker skipped the case")
                left = []
        pending = left
    return count, results


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for blk in iter(lambda: fh.read(1 << 20), b""):
            h.update(blk)
    return h.hexdigest()


def child_env():
    """Environment for the workers: libcudart.so.13 from torch's nvidia packages first."""
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    import glob
    for p in sys.path:
        hits = sorted(glob.glob(os.path.join(p, "nvidia", "**", "libcudart.so.13"), recursive=True))
        if hits:
            d = os.path.dirname(hits[0])
            env["LD_LIBRARY_PATH"] = d + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
            break
    return env


_REFS = {}  # (case name, device) -> (inputs, references): --mock-test compares several times


def fp32_matmul_ieee(torch):
    """The fp32 reference must be fp32: no TF32 in its matmuls (off by default; made sure)."""
    try:
        torch.backends.cuda.matmul.fp32_precision = "ieee"
    except (AttributeError, TypeError, ValueError):
        pass
    try:
        torch.backends.cuda.matmul.allow_tf32 = False
    except (AttributeError, TypeError, ValueError, RuntimeError):
        pass


def compare(orig_so, twin_so, out_json, only, device="cuda", save_dir=None):
    """device "cpu" is for --mock-test only (tools/gpu/flash_twin_mock.c: host pointers)."""
    import torch
    if device == "cuda" and not torch.cuda.is_available():
        print("no CUDA device", file=sys.stderr)
        return 2
    for p in (orig_so, twin_so):
        if not os.path.isfile(p):
            print(f"missing: {p}", file=sys.stderr)
            return 2
    orig_so, twin_so = os.path.abspath(orig_so), os.path.abspath(twin_so)
    cases = case_list()
    if only:
        want = set(only.split(","))
        cases = [c for c in cases if c["name"] in want]
        if len(cases) != len(want):
            print(f"unknown case names in --cases: {sorted(want - {c['name'] for c in cases})}",
                  file=sys.stderr)
            return 2
    dev = torch.device(device)
    fp32_matmul_ieee(torch)
    env = child_env()
    with tempfile.TemporaryDirectory(prefix="flash_twin.") as work:
        inputs_dir = os.path.join(work, "inputs")
        os.makedirs(inputs_dir)
        refs = {}
        for c in cases:
            key = (c["name"], device)
            if key not in _REFS:
                q, k, v = make_inputs(c, dev)
                out_ref, lse_ref = attention_ref(q, k, v, c["causal"], upcast=True)
                out_pt, _ = attention_ref(q, k, v, c["causal"], upcast=False, reorder_ops=True)
                _REFS[key] = ((q.cpu(), k.cpu(), v.cpu()),
                              (out_ref.cpu(), lse_ref.cpu(), maxabs(out_pt, out_ref)))
            qkv, refs[c["name"]] = _REFS[key]
            torch.save(qkv, os.path.join(inputs_dir, c["name"] + ".pt"))
        sides = {}
        for label, so in (("orig", orig_so), ("twin", twin_so)):
            print(f"  {label}: {so}", flush=True)
            count, res = run_side(so, inputs_dir, cases, work, label, env, device)
            sides[label] = (count, res)
        rows = []
        for c in cases:
            out_ref, lse_ref, pt_err = refs[c["name"]]
            row = dict(c)
            row["pt_max_err"] = pt_err
            got = {}
            for label in ("orig", "twin"):
                count, res = sides[label]
                kind, r = res.get(c["name"], ("error", "no result"))
                if kind == "error":
                    row[label] = {"error": r, "pass": False}
                    continue
                d = torch.load(r)
                if "skipped" in d:
                    row[label] = {"skipped": d["skipped"], "pass": None}
                    continue
                ent = {"rc": d["rc"], "deterministic": d["deterministic"]}
                if d["rc"] != 0:
                    ent.update({"pass": False, "error": f"wp_flash_fwd returned {d['rc']}"})
                else:
                    ent.update(out_check(d["out"], out_ref, pt_err))
                    ent.update(lse_check(d["lse"], lse_ref))
                    ent["pass"] = ent["out_pass"] and ent["lse_pass"] and d["deterministic"]
                    got[label] = d
                row[label] = ent
            if len(got) == 2:
                o, t = got["orig"], got["twin"]
                row["twin_vs_orig"] = {
                    "out_max_diff": maxabs(t["out"], o["out"]),
                    "lse_max_diff": maxabs(t["lse"][torch.isfinite(o["lse"])],
                                           o["lse"][torch.isfinite(o["lse"])]),
                    "out_bitwise_equal": bool(torch.equal(t["out"].view(torch.int16),
                                                          o["out"].view(torch.int16))),
                    "lse_bitwise_equal": bool(torch.equal(t["lse"].view(torch.int32),
                                                          o["lse"].view(torch.int32))),
                }
            rows.append(row)
            if save_dir and c["name"].startswith("exec-") and "orig" in got:
                d = os.path.join(save_dir, c["name"])
                os.makedirs(d, exist_ok=True)
                q, k, v = torch.load(os.path.join(inputs_dir, c["name"] + ".pt"))
                for fname, t in (("q", q), ("k", k), ("v", v), ("orig_out", got["orig"]["out"]),
                                 ("orig_lse", got["orig"]["lse"]), ("out_ref", out_ref),
                                 ("lse_ref", lse_ref)):
                    with open(os.path.join(d, fname + ".bin"), "wb") as fh:
                        fh.write(bytes(t.contiguous().cpu().view(torch.uint8).flatten().tolist()))
                if "params" in got["orig"]:
                    with open(os.path.join(d, "params.bin"), "wb") as fh:
                        fh.write(got["orig"]["params"])
                with open(os.path.join(d, "case.json"), "w") as fh:
                    json.dump({"case": c, "sentinels": SENTINELS, "pt_max_err": pt_err,
                               "out_bound": 2 * pt_err + OUT_SLACK, "lse_tol": LSE_TOL,
                               "orig": row["orig"]}, fh, indent=1)
                    fh.write("\n")
            tv = row.get("twin_vs_orig", {})
            print(f"  {c['name']:28s} pt_err {pt_err:.3e}  orig {fmt(row['orig'])}  "
                  f"twin {fmt(row['twin'])}  twin-orig {tv.get('out_max_diff', '-')}"
                  f"{' (bitwise)' if tv.get('out_bitwise_equal') else ''}", flush=True)
    # A case passes when both sides passed, or both skipped it (an 8-kernel build's uneven shapes);
    # one side skipping what the other ran is a failure.
    for r in rows:
        o, t = r["orig"]["pass"], r["twin"]["pass"]
        r["pass"] = None if (o is None and t is None) else bool(o and t)
    ran = [r for r in rows if r["pass"] is not None]
    summary = {
        "cases": len(rows),
        "ran": len(ran),
        "skipped": len(rows) - len(ran),
        "orig_pass": sum(1 for r in rows if r["orig"]["pass"]),
        "twin_pass": sum(1 for r in rows if r["twin"]["pass"]),
        "twin_bitwise_equal_to_orig": sum(1 for r in rows
                                          if r.get("twin_vs_orig", {}).get("out_bitwise_equal")
                                          and r["twin_vs_orig"]["lse_bitwise_equal"]),
        "orig_kernel_count": sides["orig"][0],
        "twin_kernel_count": sides["twin"][0],
    }
    summary["all_pass"] = bool(ran) and all(r["pass"] for r in ran)
    report = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "gpu": torch.cuda.get_device_name(0) if device == "cuda" else "none (--mock-test on the CPU)",
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "orig": {"file": os.path.basename(orig_so), "sha256": sha256(orig_so)},
        "twin": {"file": os.path.basename(twin_so), "sha256": sha256(twin_so)},
        "criteria": {
            "out": f"max|out - out_ref| <= 2 * max|out_pt - out_ref| + {OUT_SLACK}, no NaN",
            "lse": f"+inf rows as lse_ref, max|lse - lse_ref| (finite rows) <= {LSE_TOL}",
            "also": "launch returned 0; a second launch gave the same bits",
        },
        "summary": summary,
        "cases": rows,
    }
    with open(out_json, "w") as fh:
        json.dump(report, fh, indent=1, sort_keys=False)
        fh.write("\n")
    print(json.dumps(summary))
    return 0 if summary["all_pass"] else 1


def fmt(ent):
    if ent.get("pass") is None:
        return "skipped"
    if "error" in ent:
        return "ERROR"
    return (f"{'ok  ' if ent['pass'] else 'FAIL'} out {ent['out_max_err']:.3e} "
            f"lse {ent['lse_max_err']:.1e}")


# ---------------------------------------------------------------- self-test (CPU)

def self_test():
    # Pure-Python parts first (they run without torch).
    assert causal_visible(0, 0, 4, 4) and not causal_visible(0, 1, 4, 4)
    assert causal_visible(0, 2, 2, 4) and not causal_visible(0, 3, 2, 4)  # sq < sk: shifted right
    assert not any(causal_visible(0, j, 4, 2) for j in range(2))          # sq > sk: row 0 sees none
    assert is_even_mn(64, 256, 256) and not is_even_mn(64, 197, 241)
    assert is_even_mn(128, 128, 192) and not is_even_mn(64, 128, 192)
    names = [c["name"] for c in case_list()]
    assert len(names) == len(set(names)) == 26
    try:
        import torch
    except ImportError:
        print("self-test: pure-Python checks passed; torch not installed, reference checks skipped")
        return 0
    torch.manual_seed(0)
    for sq, sk, causal in ((5, 7, True), (7, 5, True), (6, 6, False), (4, 9, False)):
        b, h, d = 2, 3, 8
        q, k, v = (torch.randn(b, s, h, d, dtype=torch.float64) for s in (sq, sk, sk))
        out, lse = attention_ref(q, k, v, causal)
        # naive loops
        for bi in range(b):
            for hi in range(h):
                for i in range(sq):
                    vis = [j for j in range(sk) if not causal or causal_visible(i, j, sq, sk)]
                    if not vis:
                        assert torch.all(out[bi, i, hi] == 0) and math.isinf(lse[bi, hi, i]) \
                            and lse[bi, hi, i] > 0
                        continue
                    s = [float((q[bi, i, hi] * k[bi, j, hi]).sum()) / math.sqrt(d) for j in vis]
                    m = max(s)
                    z = sum(math.exp(x - m) for x in s)
                    ref_lse = m + math.log(z)
                    assert abs(ref_lse - float(lse[bi, hi, i])) < 1e-9, (sq, sk, i)
                    o = sum(math.exp(x - m) / z * v[bi, j, hi] for x, j in zip(s, vis))
                    assert torch.allclose(out[bi, i, hi], o, atol=1e-9), (sq, sk, i)
        # the same-precision path runs and stays close
        out_pt, _ = attention_ref(q.float(), k.float(), v.float(), causal, upcast=False,
                                  reorder_ops=True)
        assert maxabs(out_pt, out) < 1e-5
    # criteria
    a = torch.zeros(4)
    assert out_check(a + 1e-3, a, 1e-3)["out_pass"] and not out_check(a + 3e-3, a, 1e-3)["out_pass"]
    lr = torch.tensor([1.0, float("inf")])
    assert lse_check(torch.tensor([1.0005, float("inf")]), lr)["lse_pass"]
    assert not lse_check(torch.tensor([1.0, 5.0]), lr)["lse_pass"]
    assert not lse_check(torch.tensor([float("nan"), float("inf")]), lr)["lse_pass"]
    print("self-test: passed")
    return 0


def mock_test():
    """The harness end to end on the CPU, with tools/gpu/flash_twin_mock.c built as stand-ins."""
    import shutil
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        print("mock-test: no C compiler", file=sys.stderr)
        return 2
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "flash_twin_mock.c")
    with tempfile.TemporaryDirectory(prefix="flash_twin_mock.") as d:
        def build(name, *defs):
            so = os.path.join(d, name + ".so")
            subprocess.run([cc, "-O2", "-shared", "-fPIC", *defs, src, "-o", so, "-lm"], check=True)
            return so

        orig = build("orig")
        variants = {
            "perturb": build("perturb", "-DWP_MOCK_PERTURB"),
            "broken": build("broken", "-DWP_MOCK_ABORT_SQ=197", "-DWP_MOCK_WRONG_SQ=241"),
            "even": build("even", "-DWP_MOCK_EVEN_ONLY"),
        }

        def run(o, t, tag, save=None):
            out = os.path.join(d, tag + ".json")
            rc = compare(o, t, out, None, device="cpu", save_dir=save)
            with open(out) as fh:
                return rc, json.load(fh)

        rc, r = run(orig, orig, "same", save=os.path.join(d, "save"))
        assert rc == 0 and r["summary"]["twin_bitwise_equal_to_orig"] == 26, r["summary"]
        for causal in ("full", "causal"):
            sd = os.path.join(d, "save", f"exec-hd64-fp16-{causal}-128x128")
            sizes = {n: os.path.getsize(os.path.join(sd, n + ".bin")) for n in
                     ("q", "k", "v", "orig_out", "orig_lse", "out_ref", "lse_ref")}
            assert sizes == {"q": 16384, "k": 16384, "v": 16384, "orig_out": 16384,
                             "orig_lse": 512, "out_ref": 32768, "lse_ref": 512}, sizes
        assert all(c["orig"]["deterministic"] for c in r["cases"])
        rc, r = run(orig, variants["perturb"], "perturb")
        assert rc == 0 and r["summary"]["twin_bitwise_equal_to_orig"] == 0, r["summary"]
        assert all(0 < c["twin_vs_orig"]["out_max_diff"] < 1e-2 for c in r["cases"])
        rc, r = run(orig, variants["broken"], "broken")
        by = {c["name"]: c for c in r["cases"]}
        assert rc == 1 and r["summary"]["twin_pass"] == 10, r["summary"]
        assert all("worker exited" in c["twin"]["error"] for n, c in by.items() if "197x241" in n)
        assert all(not c["twin"]["out_pass"] for n, c in by.items() if "241x197" in n)
        assert all(c["twin"]["pass"] for n, c in by.items() if "256x256" in n)
        rc, r = run(orig, variants["even"], "even")
        assert rc == 1 and r["summary"]["twin_kernel_count"] == 8, r["summary"]
        rc, r = run(variants["even"], variants["even"], "even2")
        assert rc == 0 and r["summary"]["ran"] == 10 and r["summary"]["skipped"] == 16, r["summary"]
        causal_short = by["hd64-fp16-causal-241x197"]
        assert causal_short["orig"]["lse_inf_rows_match"] and causal_short["orig"]["pass"]
    print("mock-test: passed")
    return 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        so, inputs_dir, spec, rdir, device = sys.argv[2:7]
        with open(spec) as fh:
            cases = json.load(fh)
        try:
            worker(so, inputs_dir, cases, rdir, device)
        except Exception:
            traceback.print_exc()
            return 1
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("orig", nargs="?")
    ap.add_argument("twin", nargs="?")
    ap.add_argument("out_json", nargs="?")
    ap.add_argument("--cases")
    ap.add_argument("--save", metavar="DIR", help="write the exec-* cases' inputs, references "
                    "and original outputs as raw little-endian arrays under DIR/<case>/")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--mock-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    if a.mock_test:
        return mock_test()
    if not (a.orig and a.twin and a.out_json):
        ap.print_usage(sys.stderr)
        return 2
    return compare(a.orig, a.twin, a.out_json, a.cases, save_dir=a.save)


if __name__ == "__main__":
    sys.exit(main())
