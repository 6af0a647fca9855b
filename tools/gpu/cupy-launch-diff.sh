#!/usr/bin/env bash
# Kernel-level differential of a CuPy twin on an NVIDIA GPU (tools/gpu/wp_launch_diff.c):
# CuPy's own CUB/Thrust tests (cupy-suite.sh's SUITE) run on the twin; launches are checked
# against NVIDIA's own compilation of the same kernels (the reference cubins), outputs
# compared byte for byte.
#
# Usage: tools/gpu/cupy-launch-diff.sh TWINS REFS TESTS OUTDIR
#   TWINS   as for cupy-suite.sh: the twins of cupy/cuda/cub*.so and thrust*.so (optionally
#           .xz) and the identity interposer wp*.so written beside them
#   REFS    folder of reference cubins (*.cubin, optionally .xz): for CuPy 14.2's sm_80 SASS,
#           cupy/cuda/cupy_{cub,thrust}.cu of the wheel compiled with its bundled CCCL for
#           -gencode arch=compute_80,code=sm_90 (tools/gpu/cupy-reference.sh)
#   TESTS   a checkout of cupy's tests/ at tag v14.2.0
#   OUTDIR  receives launches.tsv (every checked launch, all processes), summary.txt,
#           records.tar.xz (the differing launches kept for replay) and the pytest log
# Needs python3 with cupy-cuda13x 14.2.0, pytest, pytest-xdist, gcc, and the NVIDIA driver.
set -uo pipefail
export LC_ALL=C PYTHONUNBUFFERED=1 CUPY_ACCELERATORS=cub
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TWINS="$(realpath "$1")"; REFS="$(realpath "$2")"; TESTS="$(realpath "$3")"; OUTDIR="$4"
mkdir -p "$OUTDIR"; OUTDIR="$(realpath "$OUTDIR")"
SUITE="cupy_tests/core_tests/test_cub_reduction.py cupy_tests/statistics_tests/test_histogram.py cupy_tests/sorting_tests/test_sort.py cupy_tests/sorting_tests/test_search.py cupy_tests/math_tests/test_sumprod.py::TestCubReduction cupy_tests/math_tests/test_sumprod.py::TestCumsum cupy_tests/math_tests/test_sumprod.py::TestCumprod"
CUPY="$(python3 -c 'import cupy, os; print(os.path.dirname(cupy.__file__))')" || exit 2
W="$(mktemp -d)"; trap 'rm -rf "$W"' EXIT; mkdir -p $W/twin $W/refs $W/records
cp -r "$CUPY" $W/twin/cupy
for f in "$TWINS"/*; do
  b=$(basename "$f" .xz)
  case "$b" in wp*.so|cub.*|thrust.*) ;; *) continue ;; esac
  if [[ "$f" == *.xz ]]; then xz -dc "$f" > $W/twin/cupy/cuda/$b; else cp "$f" $W/twin/cupy/cuda/$b; fi
done
refs=()
for f in "$REFS"/*.cubin*; do
  b=$(basename "$f" .xz)
  if [[ "$f" == *.xz ]]; then xz -dc "$f" > $W/refs/$b; else cp "$f" $W/refs/$b; fi
  refs+=("$W/refs/$b")
done
ident=$(cd $W/twin/cupy/cuda && ls wp[0-9]*.so | head -1)
[ -n "$ident" ] || { echo "no identity interposer wp*.so in $TWINS" >&2; exit 2; }
libcuda_dir=$(dirname "$(ldconfig -p | awk '/libcuda\.so\.1 / {print $NF; exit}')")
gcc -O2 -shared -fPIC -o $W/twin/cupy/cuda/wpdiff.so "$HERE/wp_launch_diff.c" \
  -Wl,--no-as-needed -L$W/twin/cupy/cuda -l:"$ident" -L"$libcuda_dir" -l:libcuda.so.1 \
  -ldl -lpthread -Wl,-rpath,'$ORIGIN' || exit 2
# The twins' runtimes open the identity interposer by its name; point them at wpdiff.so.
python3 - "$W/twin/cupy/cuda" "$ident" <<'PY' || exit 2
import glob, sys
d, ident = sys.argv[1], sys.argv[2].encode()
slot = ident + b"\0" * (13 - len(ident))
new = b"wpdiff.so" + b"\0" * 4
for so in glob.glob(d + "/cub.*.so") + glob.glob(d + "/thrust.*.so"):
    data = open(so, "rb").read()
    if slot in data:
        open(so, "wb").write(data.replace(slot, new))
        print("diff harness in", so, data.count(slot), "slot(s)")
PY
{ echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  sha256sum $W/twin/cupy/cuda/cub.*.so $W/twin/cupy/cuda/thrust.*.so "${refs[@]}"; } > "$OUTDIR/env.txt"
L=750_800_860_890_900_1000_1200
export WP_DIFF_OUT=$W/records WP_DIFF_NEXT="$ident" WP_DIFF_REF="$(IFS=:; echo "${refs[*]}")" \
  WP_DIFF_RENAME="43CUB_300102_SM_${L}=17CUB_300102_SM_800;49THRUST_300102_SM_${L}_NS=23THRUST_300102_SM_800_NS" \
  WP_DIFF_PER_SHAPE=${WP_DIFF_PER_SHAPE:-2} WP_DIFF_PER_KERNEL=${WP_DIFF_PER_KERNEL:-8} WP_DIFF_KEEP=${WP_DIFF_KEEP:-2}
( cd "$TESTS" && PYTHONPATH=$W/twin timeout ${SUITE_TIMEOUT:-300} python3 -m pytest -q -n ${JOBS:-6} -p no:cacheprovider \
    --junitxml="$OUTDIR/cupy-diff.xml" $SUITE > "$OUTDIR/pytest-diff.txt" 2>&1; echo "pytest diff rc=$?" )
cat $W/records/launches.*.tsv > "$OUTDIR/launches.tsv" 2>/dev/null
python3 - $W/records "$OUTDIR/summary.txt" <<'PY'
import collections, glob, sys
tot = collections.Counter()
for f in glob.glob(sys.argv[1] + "/summary.*.txt"):
    for line in open(f):
        k, _, v = line.rstrip().rpartition(" ")
        tot[k] += int(v)
open(sys.argv[2], "w").write("".join(f"{k} {v}\n" for k, v in tot.items()))
PY
cat "$OUTDIR/summary.txt"
(cd $W/records && ls -d */ >/dev/null 2>&1 && tar cf - */ | xz -T0 -6 > "$OUTDIR/records.tar.xz")
tail -n 3 "$OUTDIR/pytest-diff.txt"
