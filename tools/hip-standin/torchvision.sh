#!/usr/bin/env bash
# Run torchvision's CUDA ops (tools/gpu/torchvision_ops.py) on an NVIDIA GPU with torchvision/_C.so
# converted for dtk and for rocm, under the HIP and PyTorch stand-ins (tools/hip-standin/build.sh),
# their kernels answered by the cuda twin's PTX; the installed torchvision run twice beside them.
# Usage: tools/hip-standin/torchvision.sh DELTAS OUTDIR    (then tools/hip-standin/results.py)
#   DELTAS  tools/gpu/blockdelta.py deltas of the converted _C.so against the installed one
#           (torchvision 0.26.0's): dtk-_C.delta, rocm-_C.delta, cuda-_C.delta (the twin), and
#           shim-<target>.so, the libwheelport_shim.so each conversion wrote beside it
#   OUTDIR  tv-orig.pt, tv-orig2.pt, <target>.pt, <target>.json (torchvision_ops.py compare),
#           <target>.calls (HIP functions called), converted.sha256
# Needs python3 with torch and torchvision 0.26.0, gcc, libcudart.so.13 (as run.sh finds it).
set -uo pipefail
export LC_ALL=C PYTHONUNBUFFERED=1
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; ROOT="$(cd "$HERE/../.." && pwd)"
DELTAS="$(realpath "$1")"; OUT="$2"; mkdir -p "$OUT"; OUT="$(realpath "$OUT")"
TV="$(python3 -c 'import torchvision, os; print(os.path.dirname(torchvision.__file__))')" || exit 2
CUDART=${WP_CUDART_DIR:-$(dirname "$(find / -name libcudart.so.13 -path '*nvidia*' 2>/dev/null | head -1)")}
OPS="$ROOT/tools/gpu/torchvision_ops.py"
W="$(mktemp -d)"
for t in dtk rocm cuda; do
  mkdir -p "$W/$t"
  python3 "$ROOT/tools/gpu/blockdelta.py" decode "$TV/_C.so" "$DELTAS/$t-_C.delta" "$W/$t/_C.so" || exit 2
done
sha256sum "$W"/*/_C.so > "$OUT/converted.sha256"
python3 "$OPS" run --out "$OUT/tv-orig.pt" > "$OUT/orig.log" 2>&1; echo "orig rc=$?"
python3 "$OPS" run --out "$OUT/tv-orig2.pt" > "$OUT/orig2.log" 2>&1; echo "orig2 rc=$?"
for t in dtk rocm; do
  bash "$HERE/build.sh" $t "$W/si-$t" > /dev/null || { echo "$t: stand-in build failed"; continue; }
  mkdir -p "$W/pkg-$t"; cp -r "$TV" "$W/pkg-$t/torchvision"
  cp "$W/$t/_C.so" "$W/pkg-$t/torchvision/_C.so"
  cp "$DELTAS/shim-$t.so" "$W/pkg-$t/torchvision/libwheelport_shim.so"
  PYTHONPATH="$W/pkg-$t" LD_LIBRARY_PATH="$W/si-$t:$CUDART" WP_HIP_TWIN_DIR="$W/cuda" \
    WP_HIP_STANDIN_LOG="$OUT/$t.calls" timeout ${TARGET_TIMEOUT:-200} \
    python3 "$OPS" run --out "$OUT/$t.pt" > "$OUT/$t.log" 2>&1
  echo "$t rc=$?"
  python3 "$OPS" compare --orig "$OUT/tv-orig.pt" --orig2 "$OUT/tv-orig2.pt" --conv "$OUT/$t.pt" \
    --out "$OUT/$t.json" >> "$OUT/$t.log" 2>&1
  echo "$t compare rc=$?"
done
