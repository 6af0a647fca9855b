#!/usr/bin/env bash
# Run the dtk and rocm outputs made by tools/hip-standin/prepare.sh on an NVIDIA GPU, their HIP
# calls answered by the stand-in (tools/hip-standin/build.sh), their kernels by the cuda twin's
# PTX: the demo wheel (tools/gpu/demo_run.py), the nvcc fixture suites
# (tools/gpu/run-on-device.sh, original against converted) and the CUB/Thrust fixture
# (tools/gpu/cub_suite.py). Each converted run logs the HIP functions it called
# (OUTDIR/<target>/<suite>.calls).
# Usage: tools/hip-standin/run.sh WORK OUTDIR       (then tools/hip-standin/results.py)
# Needs python3, gcc, the NVIDIA driver and libcudart.so.13 (as run-on-device.sh finds it).
set -uo pipefail
export LC_ALL=C PYTHONUNBUFFERED=1
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; ROOT="$(cd "$HERE/../.." && pwd)"
WORK="$(realpath "$1")"; OUT="$2"; mkdir -p "$OUT"; OUT="$(realpath "$OUT")"
cd "$ROOT"
# libcudart.so.13: $WP_CUDART_DIR, else the pip `nvidia` packages' copy (torch cu13 wheels).
CUDART=${WP_CUDART_DIR:-$(dirname "$(find / -name libcudart.so.13 -path '*nvidia*' 2>/dev/null | head -1)")}
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "libcudart.so.13: $CUDART"; } > "$OUT/env.txt"
LD_LIBRARY_PATH="$CUDART" python3 tools/gpu/demo_run.py --so "$WORK/orig/demo/wheelport_demo/_kernels.so" --out "$OUT/demo-original.json" > "$OUT/demo-original.log" 2>&1 || true
target() {
  local t=$1 o="$OUT/$1"; mkdir -p "$o"
  bash "$HERE/build.sh" $t "$o/lib" > /dev/null || { echo "$t: stand-in build failed"; return; }
  local env=(LD_LIBRARY_PATH="$o/lib:$WORK/$t/fx:$CUDART" WP_HIP_TWIN_DIR="$WORK/cuda/demo/wheelport_demo:$WORK/cuda/fx")
  env "${env[@]}" WP_HIP_STANDIN_LOG="$o/demo.calls" python3 tools/gpu/demo_run.py \
      --so "$WORK/$t/demo/wheelport_demo/_kernels.so" --out "$o/demo.json" > "$o/demo.log" 2>&1
  echo "$t demo rc=$?"
  for s in twin warp mma wmma video tensor_mem mbarrier; do
    cases=fixtures/gpu/${s}_cases.json; [ $s = twin ] && cases=fixtures/gpu/cases.json
    env "${env[@]}" WP_HIP_STANDIN_LOG="$o/$s.calls" timeout 200 tools/gpu/run-on-device.sh \
        fixtures/gpu/${s}_fixtures.so "$WORK/$t/fx/${s}_fixtures.so" "$o/$s" twin $cases > "$o/$s.log" 2>&1
    echo "$t $s rc=$?"
    rm -f "$o/$s/worker-records.tar.gz"
  done
  env "${env[@]}" WP_HIP_STANDIN_LOG="$o/cub.calls" WP_CUB_MAX_N=${WP_CUB_MAX_N:-100000} timeout 300 \
      python3 tools/gpu/cub_suite.py run --so "$WORK/$t/fx/cub_fixtures.so" --out "$o/cub-run" > "$o/cub.log" 2>&1
  python3 tools/gpu/cub_suite.py compare --orig "$OUT/cub-original" --conv "$o/cub-run" \
      --orig-so fixtures/gpu/cub_fixtures.so --conv-so "$WORK/$t/fx/cub_fixtures.so" --out "$o/cub.json" >> "$o/cub.log" 2>&1
  echo "$t cub rc=$?"
  rm -rf "$o/cub-run/raw"
}
LD_LIBRARY_PATH="$CUDART" WP_CUB_MAX_N=${WP_CUB_MAX_N:-100000} timeout 300 python3 tools/gpu/cub_suite.py run --so fixtures/gpu/cub_fixtures.so --out "$OUT/cub-original" > "$OUT/cub-original.log" 2>&1
target dtk > "$OUT/dtk.log" 2>&1 &
target rocm > "$OUT/rocm.log" 2>&1 &
wait
rm -rf "$OUT/cub-original/raw"
cat "$OUT"/dtk.log "$OUT"/rocm.log
