#!/usr/bin/env python3
"""Small CuPy CUB/Thrust probe: a few device-wide scans, histograms, reductions and sorts on
inputs from 1 to 10**6 elements, each checked against NumPy. Prints one line per case and
exits 1 when any result differs. Used by tools/gpu/cupy-suite.sh to show the identity
mismatch before and after the interposer (docs/identity.md); needs cupy and numpy."""
import os
import sys

os.environ.setdefault("CUPY_ACCELERATORS", "cub")
import cupy as cp  # noqa: E402
import numpy as np  # noqa: E402

rng = np.random.default_rng(0)
bad = 0
cases = 0


def check(name, got, want):
    global bad, cases
    cases += 1
    got = cp.asnumpy(got)
    ok = got.shape == np.shape(want) and np.allclose(got, want, rtol=1e-5, atol=1e-6)
    if not ok:
        bad += 1
    flat = np.ravel(got)[:6]
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {flat.tolist()}{' ...' if got.size > 6 else ''}")


for n in (1, 5, 33, 1000, 100_000, 1_000_000):
    xi = rng.integers(0, 10, n).astype(np.int32)
    xf = rng.random(n).astype(np.float32)
    di, df = cp.asarray(xi), cp.asarray(xf)
    try:
        check(f"cumsum int32 n={n}", cp.cumsum(di), np.cumsum(xi))
        check(f"cumsum float32 n={n}", cp.cumsum(df), np.cumsum(xf))
        check(f"cumprod int32 n={n}", cp.cumprod(di % 2 + 1)[: min(n, 20)],
              np.cumprod(xi % 2 + 1)[: min(n, 20)])
        check(f"sum int32 n={n}", di.sum(), xi.sum())
        check(f"max float32 n={n}", df.max(), xf.max())
        check(f"argmax float32 n={n}", df.argmax(), xf.argmax())
        check(f"histogram n={n}", cp.histogram(df, bins=10, range=(0, 1))[0],
              np.histogram(xf, bins=10, range=(0, 1))[0])
        check(f"bincount n={n}", cp.bincount(di), np.bincount(xi))
        check(f"sort float32 n={n}", cp.sort(df), np.sort(xf))
        check(f"argsort int32 n={n} (stable keys)", di[cp.argsort(di)], xi[np.argsort(xi, kind="stable")])
        cp.cuda.Device().synchronize()
    except Exception as e:  # a CUDA error is a failure, reported
        bad += 1
        cases += 1
        print(f"FAIL n={n}: {type(e).__name__}: {e}")

print(f"cupy probe: {cases - bad}/{cases} cases passed")
sys.exit(1 if bad else 0)
