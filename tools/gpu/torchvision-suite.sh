#!/usr/bin/env bash
# torchvision's CUDA ops on an NVIDIA GPU: the installed torchvision (original, run twice for
# its run-to-run spread) against the same package with _C.so replaced by its cuda twin.
# Usage: tools/gpu/torchvision-suite.sh TWIN_C.so[.xz] WANT_SHA256 OUTDIR
#   WANT_SHA256  sha256 of the _C.so the twin was made from: the installed one must match.
# Needs python3 with torch and torchvision. Writes OUTDIR/torchvision.json
# (tools/gpu/torchvision_ops.py compare) and the three raw runs.
set -uo pipefail
export LC_ALL=C PYTHONUNBUFFERED=1
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TWIN="$(realpath "$1")"; WANT="$2"; OUTDIR="$3"; mkdir -p "$OUTDIR"; OUTDIR="$(realpath "$OUTDIR")"
TV="$(python3 -c 'import torchvision, os; print(os.path.dirname(torchvision.__file__))')" || exit 2
HAVE="$(sha256sum "$TV/_C.so" | cut -d' ' -f1)"
echo "installed torchvision $TV/_C.so sha256 $HAVE" > "$OUTDIR/tv-env.txt"
[ "$HAVE" = "$WANT" ] || { echo "installed _C.so is not the one the twin was made from ($HAVE)" >&2; exit 2; }
W=/tmp/wp-tv; rm -rf $W; mkdir -p $W; cp -r "$TV" $W/torchvision
if [[ "$TWIN" == *.xz ]]; then xz -dc "$TWIN" > $W/torchvision/_C.so; else cp "$TWIN" $W/torchvision/_C.so; fi
sha256sum $W/torchvision/_C.so >> "$OUTDIR/tv-env.txt"
python3 "$HERE/torchvision_ops.py" run --out "$OUTDIR/tv-orig.pt"; echo "orig rc=$?"
python3 "$HERE/torchvision_ops.py" run --out "$OUTDIR/tv-orig2.pt"; echo "orig2 rc=$?"
PYTHONPATH=$W python3 -c 'import torchvision; print(torchvision.__file__)' >> "$OUTDIR/tv-env.txt"
PYTHONPATH=$W python3 "$HERE/torchvision_ops.py" run --out "$OUTDIR/tv-twin.pt"; echo "twin rc=$?"
python3 "$HERE/torchvision_ops.py" compare --orig "$OUTDIR/tv-orig.pt" --orig2 "$OUTDIR/tv-orig2.pt" \
    --conv "$OUTDIR/tv-twin.pt" --out "$OUTDIR/torchvision.json"
