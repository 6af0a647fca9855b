#!/usr/bin/env bash
# torchvision's CUDA ops on a twin, one case per process (CUDA_LAUNCH_BLOCKING=1), to find the
# cases a twin fails and, under compute-sanitizer, the kernel and instruction that fail: the
# diagnosis companion of torchvision-suite.sh, whose single process stops at the first CUDA
# error.
# Usage: tools/gpu/torchvision-each.sh TWIN_C.so[.xz] OUTDIR
# Writes OUTDIR/each.txt (one line per case: rc and the error) and, for the first case that
# fails, OUTDIR/sanitizer.txt.
set -uo pipefail
export LC_ALL=C PYTHONUNBUFFERED=1
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TWIN="$(realpath "$1")"; OUTDIR="$2"; mkdir -p "$OUTDIR"; OUTDIR="$(realpath "$OUTDIR")"
TV="$(python3 -c 'import torchvision, os; print(os.path.dirname(torchvision.__file__))')" || exit 2
W="$(mktemp -d)"; trap 'rm -rf "$W"' EXIT; cp -r "$TV" $W/torchvision
if [[ "$TWIN" == *.xz ]]; then xz -dc "$TWIN" > $W/torchvision/_C.so; else cp "$TWIN" $W/torchvision/_C.so; fi
names=()
for d in float16 float32 float64; do
  for a in False True; do for sr in 0 2; do names+=("roi_align[$d,aligned=$a,sr=$sr]"); done; done
  names+=("roi_pool[$d]" "ps_roi_align[$d]" "ps_roi_pool[$d]" "deform_conv2d[$d]")
  [ $d = float64 ] || names+=("nms[$d]" "batched_nms[$d]")
done
: > "$OUTDIR/each.txt"
first=""
for n in "${names[@]}"; do
  out=$(CUDA_LAUNCH_BLOCKING=1 PYTHONPATH=$W timeout 120 python3 "$HERE/torchvision_ops.py" run --only "$n" --out $W/each.pt 2>&1)
  rc=$?
  err=$(printf '%s\n' "$out" | grep -m1 -E "Error|error" | cut -c1-300)
  printf '%s\trc=%s\t%s\n' "$n" "$rc" "$err" | tee -a "$OUTDIR/each.txt"
  if [ -z "$first" ] && { [ $rc -ne 0 ] || [ -n "$err" ]; }; then first="$n"; fi
done
if [ -n "$first" ] && command -v compute-sanitizer >/dev/null; then
  echo "compute-sanitizer on $first" > "$OUTDIR/sanitizer.txt"
  PYTHONPATH=$W timeout 300 compute-sanitizer --tool memcheck --show-backtrace device \
    python3 "$HERE/torchvision_ops.py" run --only "$first" --out $W/each.pt >> "$OUTDIR/sanitizer.txt" 2>&1
fi
