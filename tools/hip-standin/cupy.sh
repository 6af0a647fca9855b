#!/usr/bin/env bash
# Run CuPy 14.2's own CUB/Thrust tests (tools/gpu/cupy-suite.sh) on an NVIDIA GPU with
# cupy/cuda/cub and cupy/cuda/thrust converted for dtk and for rocm, their HIP calls answered by
# the stand-in (tools/hip-standin/build.sh), their kernels by the cuda twin's PTX; the
# original's run beside the dtk one.
# Usage: tools/hip-standin/cupy.sh DELTAS TESTS OUTDIR      (then tools/hip-standin/results.py)
#   DELTAS  the converted modules as tools/gpu/blockdelta.py deltas against the installed
#           cupy's: <target>-cub.delta and <target>-thrust.delta for dtk, rocm and cuda (the
#           twin), and shim-<target>.so, the libwheelport_shim.so each conversion wrote
#   TESTS   cupy's tests/ at tag v14.2.0
#   OUTDIR  <target>/ with cupy-suite.sh's output per target, <target>.calls (HIP functions
#           called, from the stand-in's log)
# Needs what cupy-suite.sh needs, gcc, and libcudart.so.13 (as run.sh finds it).
set -uo pipefail
export LC_ALL=C
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; ROOT="$(cd "$HERE/../.." && pwd)"
DELTAS="$(realpath "$1")"; TESTS="$(realpath "$2")"; OUT="$3"; mkdir -p "$OUT"; OUT="$(realpath "$OUT")"
CUPY="$(python3 -c 'import cupy, os; print(os.path.dirname(cupy.__file__))')" || exit 2
CUDART=${WP_CUDART_DIR:-$(dirname "$(find / -name libcudart.so.13 -path '*nvidia*' 2>/dev/null | head -1)")}
W="$(mktemp -d)"
for t in dtk rocm cuda; do
  mkdir -p "$W/$t"
  for m in cub thrust; do
    f=$(basename "$(ls "$CUPY"/cuda/$m.*.so)")
    python3 "$ROOT/tools/gpu/blockdelta.py" decode "$CUPY/cuda/$f" "$DELTAS/$t-$m.delta" "$W/$t/$f" || exit 2
  done
  [ $t = cuda ] || cp "$DELTAS/shim-$t.so" "$W/$t/libwheelport_shim.so"
done
sha256sum "$W"/*/*.so > "$OUT/converted.sha256"
# TARGETS: the targets run (default both; the original's run goes with the first).
first=${TARGETS:-dtk rocm}; first=${first%% *}
for t in ${TARGETS:-dtk rocm}; do
  bash "$HERE/build.sh" $t "$W/si-$t" > /dev/null || { echo "$t: stand-in build failed"; continue; }
  sides="twin"; [ $t = "$first" ] && sides="original twin"
  SIDES="$sides" SERIAL=1 PROBES=twin LD_LIBRARY_PATH="$W/si-$t:$CUDART" WP_HIP_TWIN_DIR="$W/cuda" \
    WP_HIP_STANDIN_LOG="$OUT/$t.calls" timeout ${TARGET_TIMEOUT:-280} \
    "$ROOT/tools/gpu/cupy-suite.sh" "$W/$t" "$TESTS" "$OUT/$t"
  echo "$t rc=$?"
done
