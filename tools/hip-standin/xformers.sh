#!/usr/bin/env bash
# Run xformers 0.0.35's own tests/test_sparsity24.py on an NVIDIA GPU with xformers/_C.so
# converted for dtk and for rocm (`--allow-partial`: the kernels over the target's LDS are not
# translated, docs/lowering.md), under the HIP and PyTorch stand-ins (tools/hip-standin/build.sh),
# their kernels answered by the cuda twin's PTX; the wheel as published run beside them.
# Usage: tools/hip-standin/xformers.sh WHEEL DELTAS TESTS CUDART12_DIR OUTDIR
#                                                          (then tools/hip-standin/results.py)
#   WHEEL         xformers-0.0.35-py39-none-manylinux_2_28_x86_64.whl
#   DELTAS        tools/gpu/blockdelta.py deltas of the converted _C.so against the wheel's:
#                 dtk-_C.delta, rocm-_C.delta, cuda-_C.delta (the twin), and shim-<target>.so,
#                 the libwheelport_shim.so each conversion wrote beside it
#   TESTS         xformers' tests/ at the wheel's tag (`git archive v0.0.35 tests`)
#   CUDART12_DIR  a folder with libcudart.so.12, which the original _C.so links
#   OUTDIR        xformers-original.xml, xformers-<target>.xml, <target>.calls (HIP functions
#                 called), converted.sha256
# Needs python3 with torch and pytest, gcc, libcudart.so.13 (as run.sh finds it).
set -uo pipefail
export LC_ALL=C PYTHONUNBUFFERED=1
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; ROOT="$(cd "$HERE/../.." && pwd)"
WHEEL="$(realpath "$1")"; DELTAS="$(realpath "$2")"; TESTS="$(realpath "$3")"; RT="$(realpath "$4")"
OUT="$5"; mkdir -p "$OUT"; OUT="$(realpath "$OUT")"
CUDART=${WP_CUDART_DIR:-$(dirname "$(find / -name libcudart.so.13 -path '*nvidia*' 2>/dev/null | head -1)")}
W="$(mktemp -d)"
python3 -m pip install -q --no-index --no-deps --no-compile --target "$W/original" "$WHEEL" || exit 2
for t in dtk rocm cuda; do
  mkdir -p "$W/$t"
  python3 "$ROOT/tools/gpu/blockdelta.py" decode "$W/original/xformers/_C.so" "$DELTAS/$t-_C.delta" "$W/$t/_C.so" || exit 2
done
sha256sum "$W"/*/_C.so > "$OUT/converted.sha256"
suite() {  # suite SIDE PACKAGE_DIR ENV...
  local side=$1 pkg=$2; shift 2
  ( cd "$TESTS/.." && env PYTHONPATH="$pkg" "$@" timeout ${SUITE_TIMEOUT:-200} python3 -m pytest -q \
      -p no:cacheprovider --junitxml="$OUT/xformers-$side.xml" tests/test_sparsity24.py \
      > "$OUT/xf-pytest-$side.txt" 2>&1 ); echo "xformers $side rc=$?"
  tail -2 "$OUT/xf-pytest-$side.txt"
}
suite original "$W/original" LD_LIBRARY_PATH="$RT:$CUDART"
for t in dtk rocm; do
  bash "$HERE/build.sh" $t "$W/si-$t" > /dev/null || { echo "$t: stand-in build failed"; continue; }
  mkdir -p "$W/pkg-$t"; cp -r "$W/original/xformers" "$W/pkg-$t/xformers"
  cp "$W/$t/_C.so" "$W/pkg-$t/xformers/_C.so"
  cp "$DELTAS/shim-$t.so" "$W/pkg-$t/xformers/libwheelport_shim.so"
  suite $t "$W/pkg-$t" LD_LIBRARY_PATH="$W/si-$t:$CUDART" WP_HIP_TWIN_DIR="$W/cuda" \
      WP_HIP_STANDIN_LOG="$OUT/$t.calls"
done
