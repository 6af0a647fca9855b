#!/usr/bin/env bash
# Make WORK for tools/hip-standin/run.sh on the CPU side: the demo wheel and the nvcc fixtures
# converted by the current wheelport (target/release/wheelport, built first) for dtk, rocm and
# the cuda twin whose PTX the stand-in runs.
# Usage: tools/hip-standin/prepare.sh WORK
#   WORK/orig/demo/       the unpacked demo wheel
#   WORK/<target>/demo/   the unpacked converted demo wheel (target: dtk, rocm, cuda)
#   WORK/<target>/fx/     the converted fixtures/gpu/<suite>_fixtures.so (+ the shim or the
#                         twin's identity interposer beside them)
# Prints the sha256 of every converted object (what tests/hip_standin.rs expects once the
# results are recorded with tools/hip-standin/results.py).
set -euo pipefail
export LC_ALL=C
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; ROOT="$(cd "$HERE/../.." && pwd)"
WORK="$(mkdir -p "$1" && realpath "$1")"
WP="$ROOT/target/release/wheelport"
(cd "$ROOT" && cargo build --release -q)
DEMO="$ROOT/fixtures/wheels/wheelport_demo-0.1.0+cu13-py3-none-manylinux_2_28_x86_64.whl"
SUITES="twin warp mma wmma video tensor_mem mbarrier cub"
rm -rf "$WORK/orig"; mkdir -p "$WORK/orig/demo"
(cd "$WORK/orig/demo" && python3 -m zipfile -e "$DEMO" .)
for t in dtk rocm cuda; do
  rm -rf "$WORK/$t"; mkdir -p "$WORK/$t/demo" "$WORK/$t/fx"
  "$WP" "$DEMO" --target $t -q -o "$WORK/$t/demo" >/dev/null
  (cd "$WORK/$t/demo" && python3 -m zipfile -e ./*.whl . && rm ./*.whl)
  for s in $SUITES; do
    "$WP" convert "$ROOT/fixtures/gpu/${s}_fixtures.so" --target $t -q -o "$WORK/$t/fx" --allow-partial >/dev/null
  done
done
cd "$WORK" && sha256sum */demo/wheelport_demo/_kernels.so */fx/*_fixtures.so
