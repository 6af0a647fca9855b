#!/usr/bin/env bash
# Make WORK for tools/gpu/run-all.sh on the CPU side: every twin made again by the current
# wheelport (target/release/wheelport, built first), big ones xz-compressed, each with the
# identity interposer `wheelport ptx twin` writes beside it (docs/identity.md, "Re-running").
# Usage: tools/gpu/prepare-work.sh WORK
#   Needs $WHEELPORT_CORPUS holding the pinned wheels (tools/pypi-pins.txt: cupy-cuda13x 14.2.0,
#   torchvision 0.26.0, xformers 0.0.35). Left as they are when present: WORK/xf/src/tests
#   (`git archive v0.0.35 tests` of facebookresearch/xformers), WORK/cupy-tests/tests
#   (`git archive v14.2.0 tests` of cupy/cupy) and WORK/xf/rt/libcudart.so.12 (PyPI
#   nvidia-cuda-runtime-cu12); run-all.sh needs them.
# Prints the sha256 of every twin (the values tests/library_results.rs and
# tests/gpu_results.rs expect once the results are recorded).
set -euo pipefail
export LC_ALL=C
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; ROOT="$(cd "$HERE/../.." && pwd)"
WORK="$(mkdir -p "$1" && realpath "$1")"
C="${WHEELPORT_CORPUS:?set WHEELPORT_CORPUS to the folder with the pinned wheels}"
WP="$ROOT/target/release/wheelport"
(cd "$ROOT" && cargo build --release -q)
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
twin() {  # twin IN OUT_DIR NAME [xz]
  local in=$1 dir=$2 name=$3
  mkdir -p "$dir"
  local rc=0
  "$WP" ptx twin "$in" -o "$dir/$name" > "$dir/${name%%.*}.txt" || rc=$?
  # 4: some kernel not lowered (reported in the .txt; the suites record it); anything else fails
  if [ $rc -ne 0 ] && [ $rc -ne 4 ]; then echo "twin of $in failed (exit $rc)" >&2; return 1; fi
  if [ "${4:-}" = xz ]; then xz -T0 -6 -f "$dir/$name"; fi
}
rm -rf "$WORK/fx" "$WORK/cub" "$WORK/tv" "$WORK/xf/twin" "$WORK/cupy-twins"
for s in twin warp mma wmma video mbarrier tensor_mem tensor_mem_sm90; do
  twin "$ROOT/fixtures/gpu/${s}_fixtures.so" "$WORK/fx" "${s}_twin.so" &
done
twin "$ROOT/fixtures/gpu/cub_fixtures.so" "$WORK/cub" cub_twin.so xz &
twin "$ROOT/fixtures/gpu/cub_fixtures_c80.so" "$WORK/cub" cub_c80_twin.so xz &
unzip -q -o "$C/torchvision-0.26.0-cp312-cp312-manylinux_2_28_x86_64.whl" 'torchvision/_C.so' -d "$T/tv"
unzip -q -o "$C/xformers-0.0.35-py39-none-manylinux_2_28_x86_64.whl" 'xformers/_C.so' -d "$T/xf"
unzip -q -o "$C/cupy_cuda13x-14.2.0-cp312-cp312-manylinux2014_x86_64.whl" \
  'cupy/cuda/cub.cpython-312-x86_64-linux-gnu.so' 'cupy/cuda/thrust.cpython-312-x86_64-linux-gnu.so' \
  'cupy/random/_generator_api.cpython-312-x86_64-linux-gnu.so' -d "$T/cupy"
twin "$T/tv/torchvision/_C.so" "$WORK/tv" _C.so xz &
twin "$T/xf/xformers/_C.so" "$WORK/xf/twin" _C.so xz &
for m in cuda/cub cuda/thrust random/_generator_api; do
  twin "$T/cupy/cupy/$m.cpython-312-x86_64-linux-gnu.so" "$WORK/cupy-twins" "${m#*/}.cpython-312-x86_64-linux-gnu.so" xz &
done
for j in $(jobs -p); do wait "$j"; done
cp "$C/xformers-0.0.35-py39-none-manylinux_2_28_x86_64.whl" "$WORK/xf/"
for f in "$WORK"/fx/*_twin.so "$WORK"/*/*.so.xz "$WORK"/xf/twin/*.so.xz; do
  case "$f" in *.xz) echo "$(xz -dc "$f" | sha256sum | cut -d' ' -f1)  ${f#"$WORK"/}";; *) (cd "$WORK" && sha256sum "${f#"$WORK"/}");; esac
done
