#!/usr/bin/env bash
# Build the inputs of tools/gpu/sass_twin.py into fixtures/sass/gpu/ (on the developer
# machine, where ptxas and nvdisasm are): for each fixtures/sass/<k>.ptx,
#   <k>-sm_90.cubin          ptxas -arch=sm_90: the original machine code the H200 runs
#   <k>-<arch>.lifted.ptx    wheelport sass lift of the sm_80 / sm_90 cubin
#   <k>-<arch>.twin.ptx      that PTX lowered for the cuda profile (llc NVPTX), which the
#                            driver JIT-compiles on the H200
# A fixture whose header has a `// archs: sm_80` line is lifted for those archs only
# (windows.ptx: sm_90 reads the windows through other registers the lifter lacks).
# Needs ptxas ($WHEELPORT_CUDA_BIN or PATH), nvdisasm (doctor finds it) and a built wheelport
# ($WHEELPORT_BIN, default target/release/wheelport).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
W="${WHEELPORT_BIN:-$ROOT/target/release/wheelport}"
PTXAS="${WHEELPORT_CUDA_BIN:+$WHEELPORT_CUDA_BIN/}ptxas"
OUT="$ROOT/fixtures/sass/gpu"
TMP="$(mktemp -d)"; trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"
for src in "$ROOT"/fixtures/sass/*.ptx; do
  k="$(basename "$src" .ptx)"
  archs="$(sed -n 's|^// archs: ||p' "$src")"
  for arch in ${archs:-sm_80 sm_90}; do
    "$PTXAS" -arch=$arch "$src" -o "$TMP/$k-$arch.cubin"
    "$W" sass lift "$TMP/$k-$arch.cubin" -o "$TMP/lift-$k-$arch" >/dev/null
    cp "$TMP/lift-$k-$arch/0-$arch.ptx" "$OUT/$k-$arch.lifted.ptx"
    WHEELPORT_NO_CACHE=1 "$W" ptx lower --target cuda --offload-arch sm_90 --emit obj \
      -o "$TMP/cuda-$k-$arch" "$OUT/$k-$arch.lifted.ptx" >/dev/null
    cp "$TMP/cuda-$k-$arch/$k-$arch.lifted.ptx" "$OUT/$k-$arch.twin.ptx"
  done
  "$PTXAS" -arch=sm_90 "$src" -o "$OUT/$k-sm_90.cubin"
done
ls -l "$OUT"
