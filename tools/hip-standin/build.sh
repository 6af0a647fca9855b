#!/usr/bin/env bash
# Build the HIP stand-in (hip_standin.c, docs/verification.md "The dtk and rocm host side on the
# GPU") for one target: OUTDIR/<the target's HIP runtime soname>, and beside it the PyTorch
# stand-ins OUTDIR/libc10_hip.so and OUTDIR/libtorch_hip.so (torch_standin.c).
# Usage: tools/hip-standin/build.sh TARGET OUTDIR [ARCH]
#   TARGET  dtk or rocm (relink-tables/TARGET: its runtime soname and its renamed functions)
#   ARCH    the gfx the stand-in reports (gcnArchName, major.minor), default the target
#           profile's first default arch (targets/TARGET.toml); WP_HIP_STANDIN_ARCH overrides it
#           at run time
# Needs python3 and gcc; CUDA (libcudart.so.13, libcuda.so.1) is loaded at run time.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; ROOT="$(cd "$HERE/../.." && pwd)"
TARGET=$1; OUT=$2; mkdir -p "$OUT"
SONAME=$(sed -n 's/^# target runtime library: \([^;]*\);.*/\1/p' "$ROOT/relink-tables/$TARGET/cudart12.tsv")
ARCH=${3:-$(sed -n 's/^default_archs = \["\([^"]*\)".*/\1/p' "$ROOT/targets/$TARGET.toml")}
[ -n "$SONAME" ] && [ -n "$ARCH" ] || { echo "build.sh: no soname or arch for $TARGET" >&2; exit 2; }
GEN="$(mktemp -d)"; trap 'rm -rf "$GEN"' EXIT
python3 "$HERE/gen.py" "$TARGET" "$GEN/standin_gen.h"
gcc -O2 -g -shared -fPIC -mgeneral-regs-only -fvisibility=hidden -Wall -Wextra -Wno-unused-parameter \
    -DSI_DEFAULT_ARCH="\"$ARCH\"" -I"$GEN" -Wl,-soname,"$SONAME" -o "$OUT/$SONAME" \
    "$HERE/hip_standin.c" -ldl -lpthread
for lib in c10 torch; do
  gcc -O2 -g -shared -fPIC -fvisibility=hidden -Wall -Wextra -DSI_$(echo $lib | tr a-z A-Z) \
      -I"$GEN" -Wl,-soname,lib${lib}_hip.so -o "$OUT/lib${lib}_hip.so" "$HERE/torch_standin.c" -ldl
done
echo "$OUT/$SONAME"
