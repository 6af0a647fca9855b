#!/usr/bin/env bash
# Every GPU suite of the twin in one device call, in parallel (one H200 is enough for all;
# nothing here is timed): the fixture suites (run-on-device.sh), the CUB/Thrust fixture
# (cub_suite.py), torchvision ops, xformers' test_sparsity24 and CuPy's CUB/Thrust tests.
# Usage: tools/gpu/run-all.sh WORK OUTDIR
#   WORK is a folder prepared on the CPU side (see docs/identity.md, "Re-running"):
#     fx/<suite>_twin.so + wp*.so            `wheelport ptx twin fixtures/gpu/<suite>_fixtures.so`
#     cub/cub_twin.so.xz, cub_c80_twin.so.xz + wp*.so   twins of fixtures/gpu/cub_fixtures*.so
#     tv/_C.so.xz                            twin of torchvision 0.26.0's _C.so
#     xf/<wheel>, xf/twin/{_C.so.xz,wp*.so}, xf/rt/libcudart.so.12, xf/src/tests/
#     cupy-twins/*.so.xz + wp*.so, cupy-tests/tests/
# Each job writes under OUTDIR/<job>/ and its log to OUTDIR/<job>.log; the twin CUB fixture
# runs with the identity interposer's log (module loads) in OUTDIR/cub/identity-<tag>.log. With PACK=1, OUTDIR is
# then packed into OUTDIR.tar.gz and removed: the device tool brings back only a few files and
# folders a few levels deep, and the fixture results lie deeper than that.
set -uo pipefail
export LC_ALL=C PYTHONUNBUFFERED=1
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; ROOT="$(cd "$HERE/../.." && pwd)"
WORK="$(realpath "$1")"; OUTDIR="$2"; mkdir -p "$OUTDIR"; OUTDIR="$(realpath "$OUTDIR")"
T=${JOB_TIMEOUT:-500}; export WORK OUTDIR
cd "$ROOT"
fixtures() {
  for s in twin warp mma wmma video mbarrier tensor_mem tensor_mem_sm90; do
    cases=fixtures/gpu/${s}_cases.json; [ $s = twin ] && cases=fixtures/gpu/cases.json
    tools/gpu/run-on-device.sh fixtures/gpu/${s}_fixtures.so "$WORK/fx/${s}_twin.so" "$OUTDIR/fx/$s" twin $cases
    echo "fixture $s rc=$?"
  done
}
cub() {
  local d=/tmp/wp-cub; rm -rf $d; mkdir -p $d; cp "$WORK"/cub/wp*.so $d/
  xz -dc "$WORK/cub/cub_twin.so.xz" > $d/cub_twin.so; xz -dc "$WORK/cub/cub_c80_twin.so.xz" > $d/cub_c80_twin.so
  for v in 120:cub_fixtures:cub_twin 80:cub_fixtures_c80:cub_c80_twin; do
    IFS=: read -r tag orig twin <<< "$v"
    python3 tools/gpu/cub_suite.py run --so fixtures/gpu/$orig.so --out $d/o$tag &
    WHEELPORT_IDENTITY_LOG=1 python3 tools/gpu/cub_suite.py run --so $d/$twin.so --out $d/t$tag \
        2> "$OUTDIR/cub/identity-$tag.log" &
    wait
    python3 tools/gpu/cub_suite.py compare --orig $d/o$tag --conv $d/t$tag --orig-so fixtures/gpu/$orig.so \
        --conv-so $d/$twin.so --out "$OUTDIR/cub/cub-$tag.json"; echo "cub $tag rc=$?"
  done
}
mkdir -p "$OUTDIR/fx" "$OUTDIR/cub"
(timeout $T bash -c "$(declare -f fixtures); fixtures" > "$OUTDIR/fixtures.log" 2>&1) &
(export WP_CUB_MAX_N=${WP_CUB_MAX_N:-100000}; timeout $T bash -c "$(declare -f cub); cub" > "$OUTDIR/cub.log" 2>&1) &
(timeout $T tools/gpu/torchvision-suite.sh "$WORK/tv/_C.so.xz" "${TV_SHA:?}" "$OUTDIR/tv" > "$OUTDIR/tv.log" 2>&1) &
(timeout $T tools/gpu/xformers-suite.sh "$WORK"/xf/*.whl "$WORK/xf/twin" "$WORK/xf/src/tests" "$WORK/xf/rt" "$OUTDIR/xf" > "$OUTDIR/xf.log" 2>&1) &
(PROBES=${PROBES:-twin} SUITE_TIMEOUT=$((T - 60)) JOBS=${JOBS:-6} timeout $T tools/gpu/cupy-suite.sh "$WORK/cupy-twins" "$WORK/cupy-tests/tests" "$OUTDIR/cupy" > "$OUTDIR/cupy.log" 2>&1) &
wait
tail -n 3 "$OUTDIR"/*.log
if [ -n "${PACK:-}" ]; then
  tar -C "$(dirname "$OUTDIR")" -czf "$OUTDIR.tar.gz" "$(basename "$OUTDIR")" && rm -rf "$OUTDIR"
fi
