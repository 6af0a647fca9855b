#!/usr/bin/env bash
# xformers' own tests/test_sparsity24.py on an NVIDIA GPU: the wheel as published against the
# same wheel with xformers/_C.so replaced by its cuda twin (and the identity interposer
# wp*.so beside it, docs/identity.md).
# Usage: tools/gpu/xformers-suite.sh WHEEL TWIN_DIR TESTS CUDART12_DIR OUTDIR
#   TWIN_DIR      `wheelport ptx twin` output: _C.so[.xz] and wp*.so
#   TESTS         xformers' tests/ at the wheel's tag (`git archive v0.0.35 tests`)
#   CUDART12_DIR  a folder with libcudart.so.12 (xformers 0.0.35 links CUDA 12's runtime;
#                 PyPI nvidia-cuda-runtime-cu12), put on LD_LIBRARY_PATH
# Needs python3 with torch, pytest. Writes OUTDIR/xformers-{original,twin}.xml and logs.
set -uo pipefail
export LC_ALL=C PYTHONUNBUFFERED=1
WHEEL="$(realpath "$1")"; TWIN="$(realpath "$2")"; TESTS="$(realpath "$3")"; RT="$(realpath "$4")"
OUTDIR="$5"; mkdir -p "$OUTDIR"; OUTDIR="$(realpath "$OUTDIR")"
export LD_LIBRARY_PATH="$RT${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
W=/tmp/wp-xf; rm -rf $W; mkdir -p $W/original $W/twin
python3 -m pip install -q --no-index --no-deps --no-compile --target $W/original "$WHEEL" || exit 2
cp -r $W/original/xformers $W/twin/xformers
if [ -f "$TWIN/_C.so.xz" ]; then xz -dc "$TWIN/_C.so.xz" > $W/twin/xformers/_C.so; else cp "$TWIN/_C.so" $W/twin/xformers/_C.so; fi
cp "$TWIN"/wp*.so $W/twin/xformers/
sha256sum $W/original/xformers/_C.so $W/twin/xformers/_C.so $W/twin/xformers/wp*.so > "$OUTDIR/xf-env.txt"
for side in original twin; do
  ( cd "$TESTS/.." && PYTHONPATH=$W/$side WHEELPORT_IDENTITY_LOG=1 timeout ${SUITE_TIMEOUT:-200} python3 -m pytest -q -p no:cacheprovider \
      --junitxml="$OUTDIR/xformers-$side.xml" tests/test_sparsity24.py > "$OUTDIR/xf-pytest-$side.txt" 2>&1 ); echo "xformers $side rc=$?"
  tail -2 "$OUTDIR/xf-pytest-$side.txt"
done
