#!/usr/bin/env bash
# Run the twin comparison on an NVIDIA GPU machine and write the results JSON.
#
# Usage: tools/gpu/run-on-device.sh ORIG.so CONV.so OUTDIR [KIND] [CASES]
#   ORIG.so  the original fixture (fixtures/gpu/twin_fixtures.so: the driver runs its sm_90 SASS)
#   CONV.so  the other side: `wheelport ptx twin` output (KIND twin, the default), or
#            fixtures/gpu/twin_fixtures_ptxjit.so (KIND ptxjit-validation: NVIDIA's own PTX,
#            JIT-compiled by the driver, to validate the harness and the fixtures)
#   OUTDIR   receives results.json (tools/gpu/harness.py compare) and env.txt
#   CASES    case table, default fixtures/gpu/cases.json (warp_fixtures: fixtures/gpu/warp_cases.json)
#
# Needs python3 (stdlib only), the NVIDIA driver, and libcudart.so.13 (the fixtures link it
# dynamically): found through ldconfig, $WP_CUDART_DIR, the pip `nvidia` packages of python3
# (nvidia/cu13/lib, as torch cu13x wheels install it), /usr/local/cuda*/lib64, or
# $WP_CUDART_FALLBACK (a carried copy), in that order.
# Each .so runs in its own worker processes (tools/gpu/harness.py run). Exit status: 0 when
# every case passed, 1 when some failed, 2 on a setup error.
#
# With the `run` device tool, from the repository root (fixtures and tools travel with the tree):
#   set -o pipefail; tools/gpu/run-on-device.sh fixtures/gpu/twin_fixtures.so \
#       OUT_OF_TWIN.so $OUT/twin twin 2>&1 | tee $OUT/twin.log
# then copy $OUT/twin/results.json to fixtures/gpu/results/twin.json and commit it.
set -uo pipefail
export LC_ALL=C PYTHONUNBUFFERED=1

if [ $# -lt 3 ]; then sed -n '2,20p' "$0" >&2; exit 2; fi
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
ORIG="$(realpath "$1")"; CONV="$(realpath "$2")"; OUTDIR="$3"
KIND="${4:-twin}"; CASES="$(realpath "${5:-$ROOT/fixtures/gpu/cases.json}")"
for f in "$ORIG" "$CONV" "$CASES"; do [ -f "$f" ] || { echo "missing: $f" >&2; exit 2; }; done
mkdir -p "$OUTDIR"
OUTDIR="$(realpath "$OUTDIR")"

# ---------------------------------------------------------------- libcudart.so.13
find_cudart() {
    if [ -n "${WP_CUDART_DIR:-}" ] && [ -e "$WP_CUDART_DIR/libcudart.so.13" ]; then echo "$WP_CUDART_DIR"; return; fi
    if ldconfig -p 2>/dev/null | grep -q 'libcudart\.so\.13 '; then echo system; return; fi
    local d
    d="$(python3 - <<'EOF' 2>/dev/null
import glob, os, sys
for p in sys.path:
    for hit in sorted(glob.glob(os.path.join(p, "nvidia", "**", "libcudart.so.13"), recursive=True)):
        print(os.path.dirname(hit)); sys.exit(0)
EOF
)"
    if [ -n "$d" ]; then echo "$d"; return; fi
    for d in /usr/local/cuda*/lib64 /usr/local/cuda*/targets/x86_64-linux/lib ${WP_CUDART_FALLBACK:-}; do
        if [ -e "$d/libcudart.so.13" ]; then echo "$d"; return; fi
    done
}
CUDART="$(find_cudart)"
if [ -z "$CUDART" ]; then echo "libcudart.so.13 not found (set WP_CUDART_DIR)" >&2; exit 2; fi
if [ "$CUDART" != system ]; then export LD_LIBRARY_PATH="$CUDART${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; fi

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "kind: $KIND"
    echo "libcudart.so.13 from: $CUDART"
    echo "python3: $(python3 --version 2>&1)"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1
    nvcc --version 2>/dev/null | tail -2
    sha256sum "$ORIG" "$CONV" "$CASES"
} > "$OUTDIR/env.txt"
cat "$OUTDIR/env.txt"

WORK="$(mktemp -d /tmp/wp-gpu-run.XXXXXX)"
SEEDS="$(python3 -c 'import json,sys; print(",".join(str(s) for s in json.load(open(sys.argv[1]))["seeds"]))' "$CASES")"
t0=$(date +%s)
python3 "$HERE/harness.py" run --so "$ORIG" --cases "$CASES" --out "$WORK/orig" --seeds "$SEEDS" || exit 2
t1=$(date +%s)
python3 "$HERE/harness.py" run --so "$CONV" --cases "$CASES" --out "$WORK/conv" --seeds "$SEEDS" || exit 2
t2=$(date +%s)
echo "seconds: original $((t1 - t0)), converted $((t2 - t1))" | tee -a "$OUTDIR/env.txt"
WP_NVIDIA_DRIVER="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)" \
python3 "$HERE/harness.py" compare --orig "$WORK/orig" --conv "$WORK/conv" --orig-so "$ORIG" \
    --conv-so "$CONV" --cases "$CASES" --kind "$KIND" --seeds "$SEEDS" --out "$OUTDIR/results.json"
rc=$?
# per-case worker records (errors, timings, stability) of both sides, for diagnosis
(cd "$WORK" && tar czf "$OUTDIR/worker-records.tar.gz" orig/*.json conv/*.json 2>/dev/null)
exit $rc
