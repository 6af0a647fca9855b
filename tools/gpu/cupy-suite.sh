#!/usr/bin/env bash
# Run CuPy's own CUB/Thrust tests on an NVIDIA GPU: the installed cupy (original) against
# the same cupy with its fatbin modules replaced by their cuda twins (docs/identity.md).
#
# Usage: tools/gpu/cupy-suite.sh TWINS TESTS OUTDIR
#   TWINS   folder with the twins made by `wheelport ptx twin` of cupy 14.2.0's
#           cupy/cuda/cub*.so, cupy/cuda/thrust*.so, cupy/random/_generator_api*.so (file
#           names as in the wheel, optionally .xz-compressed) and the identity interposer
#           wp*.so written beside them; or the same modules converted for dtk or rocm with
#           their libwheelport_shim.so, run under the HIP stand-in
#           (tools/hip-standin/cupy.sh sets LD_LIBRARY_PATH and WP_HIP_TWIN_DIR for it)
#   TESTS   a checkout of cupy's tests/ at tag v14.2.0 (`git archive v14.2.0 tests`)
#   OUTDIR  receives junit XML per run, the probe logs and env.txt
# Needs python3 with cupy-cuda13x 14.2.0, numpy, pytest and pytest-xdist.
# Runs: the probe (tools/gpu/cupy_probe.py) on the original, on the twin WITHOUT the
# interposer (its libcuda.so.1 string restored: the identity mismatch) and on the twin; then
# CuPy's test files SUITE below on the original and on the twin.
set -uo pipefail
export LC_ALL=C PYTHONUNBUFFERED=1 CUPY_ACCELERATORS=cub
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TWINS="$(realpath "$1")"; TESTS="$(realpath "$2")"; OUTDIR="$3"
mkdir -p "$OUTDIR"; OUTDIR="$(realpath "$OUTDIR")"
SUITE="cupy_tests/core_tests/test_cub_reduction.py cupy_tests/statistics_tests/test_histogram.py cupy_tests/sorting_tests/test_sort.py cupy_tests/sorting_tests/test_search.py cupy_tests/math_tests/test_sumprod.py::TestCubReduction cupy_tests/math_tests/test_sumprod.py::TestCumsum cupy_tests/math_tests/test_sumprod.py::TestCumprod"
CUPY="$(python3 -c 'import cupy, os; print(os.path.dirname(cupy.__file__))')" || exit 2
VER="$(python3 -c 'import cupy; print(cupy.__version__)')"
{ echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "cupy: $VER at $CUPY"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > "$OUTDIR/env.txt"
W="$(mktemp -d)"; mkdir -p $W/twin $W/before
cp -r "$CUPY" $W/twin/cupy
for f in "$TWINS"/*; do
  b=$(basename "$f" .xz)
  case "$b" in
    wp*.so|libwheelport_shim.so) dest=(cuda random) ;;
    cub.*|thrust.*) dest=(cuda) ;;
    _generator_api.*) dest=(random) ;;
    *) continue ;;
  esac
  for d in "${dest[@]}"; do
    if [[ "$f" == *.xz ]]; then xz -dc "$f" > $W/twin/cupy/$d/$b; else cp "$f" $W/twin/cupy/$d/$b; fi
  done
done
cp -r $W/twin/cupy $W/before/cupy
python3 - "$W/before/cupy" <<'PY'
import glob, sys
for so in glob.glob(sys.argv[1] + "/*/*.so"):
    data = open(so, "rb").read()
    for name in set(glob.os.path.basename(p).encode() for p in glob.glob(sys.argv[1] + "/*/wp*.so")):
        slot = name + b"\0" * (13 - len(name))
        if slot in data:
            open(so, "wb").write(data.replace(slot, b"libcuda.so.1\0"))
            print("restored libcuda.so.1 in", so)
PY
sha256sum $W/twin/cupy/cuda/cub.*.so $W/twin/cupy/cuda/thrust.*.so $W/twin/cupy/random/_generator_api.*.so $W/twin/cupy/cuda/wp*.so $W/twin/cupy/cuda/libwheelport_shim.so 2>/dev/null >> "$OUTDIR/env.txt"
cd "$TESTS/.." || exit 2
# PROBES: all (default: original, before, twin) or twin (the twin alone, with the identity log).
if [ "${PROBES:-all}" = all ]; then
  python3 "$HERE/cupy_probe.py" > "$OUTDIR/probe-original.txt" 2>&1; echo "probe original rc=$?"
  PYTHONPATH=$W/before python3 "$HERE/cupy_probe.py" > "$OUTDIR/probe-before.txt" 2>&1; echo "probe before rc=$?"
fi
WHEELPORT_IDENTITY_LOG=1 PYTHONPATH=$W/twin python3 "$HERE/cupy_probe.py" > "$OUTDIR/probe-twin.txt" 2>&1; echo "probe twin rc=$?"
PYTHONPATH=$W/twin python3 -c 'import cupy; print(cupy.__file__)' >> "$OUTDIR/env.txt"
# SIDES: the runs of the suite (default both; `twin` alone when the original was run before).
for side in ${SIDES:-original twin}; do
  pp=""; [ $side = twin ] && pp=$W/twin
  ( cd "$TESTS" && PYTHONPATH=$pp timeout ${SUITE_TIMEOUT:-200} python3 -m pytest -q -n ${JOBS:-12} -p no:cacheprovider \
      --junitxml="$OUTDIR/cupy-$side.xml" $SUITE > "$OUTDIR/pytest-$side.txt" 2>&1; echo "pytest $side rc=$?" ) &
  # SERIAL=1: one side at a time (the GPU's memory for one side's JOBS workers alone).
  [ "${SERIAL:-0}" = 1 ] && wait
done
wait
tail -n 3 "$OUTDIR"/pytest-*.txt
