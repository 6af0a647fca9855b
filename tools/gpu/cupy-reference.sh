#!/usr/bin/env bash
# Build the reference cubins of tools/gpu/cupy-launch-diff.sh on the CPU: CuPy 14.2's
# cupy/cuda/cupy_cub.cu and cupy_thrust.cu, with the CCCL headers the wheel bundles
# (cupy/_core/include/cupy/_cccl, CCCL 3.1.2), compiled by nvcc for compute_80 and assembled
# for sm_90 (`-gencode arch=compute_80,code=sm_90`): on an H200 these run the sm_80 policies
# of the same kernels that the wheel's sm_80 SASS holds, compiled by NVIDIA's tools. Their
# names differ from the wheel's only in CUB's and Thrust's ABI namespace, which carries the
# build's arch list (cupy-launch-diff.sh maps them).
#
# Usage: tools/gpu/cupy-reference.sh WHEEL CUPY_SRC OUTDIR
#   WHEEL     cupy_cuda13x-14.2.0-cp312-cp312-manylinux2014_x86_64.whl (tools/pypi-pins.txt)
#   CUPY_SRC  `git archive v14.2.0 cupy/cuda` of github.com/cupy/cupy (for cupy_cub.h and
#             cupy_thrust.h, which the wheel does not ship)
#   OUTDIR    receives cub_ref.cubin, thrust_ref.cubin
# Needs nvcc and cuobjdump 13.x ($CUDA_HOME/bin or $WHEELPORT_CUDA_BIN; .ci/run installs them
# from PyPI) and gcc. About 4 minutes on two cores.
set -euo pipefail
export LC_ALL=C
WHEEL="$(realpath "$1")"; SRC="$(realpath "$2")"; OUT="$3"
mkdir -p "$OUT"; OUT="$(realpath "$OUT")"
BIN="${CUDA_HOME:+$CUDA_HOME/bin}"; BIN="${BIN:-${WHEELPORT_CUDA_BIN:?set CUDA_HOME or WHEELPORT_CUDA_BIN}}"
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
unzip -q "$WHEEL" 'cupy/cuda/cupy_*.cu' 'cupy/_core/include/*' -d "$T"
I="$T/cupy/_core/include"
for m in cub thrust; do
  "$BIN/nvcc" -c -O2 --std=c++17 --expt-relaxed-constexpr -Xcompiler -fPIC \
    -gencode arch=compute_80,code=sm_90 -I"$SRC/cupy/cuda" -I"$I" -I"$I/cupy/_cccl/libcudacxx" \
    -I"$I/cupy/_cccl/cub" -I"$I/cupy/_cccl/thrust" "$T/cupy/cuda/cupy_$m.cu" -o "$T/$m.o" &
done
wait
for m in cub thrust; do
  (cd "$T" && "$BIN/cuobjdump" -xelf all "$m.o" >/dev/null && mv "$m".*sm_90.cubin "$OUT/${m}_ref.cubin")
done
sha256sum "$OUT"/*_ref.cubin
