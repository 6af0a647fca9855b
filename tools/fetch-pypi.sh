#!/usr/bin/env bash
# Download the PyPI wheels of tools/pypi-pins.txt into DEST (default: ./pypi-cache), checked
# against their sha256. Needs pip and access to the package index. The tests find them through
# $WHEELPORT_CORPUS (the folder .ci/run passes).
set -euo pipefail
dest=${1:-pypi-cache}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dest"
grep -v '^#' "$here/pypi-pins.txt" | while IFS=$'\t' read -r req file sha; do
  [ -n "$req" ] || continue
  if [ ! -f "$dest/$file" ]; then
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
      --python-version 3.12 --platform manylinux_2_28_x86_64 --platform manylinux_2_24_x86_64 --platform manylinux2014_x86_64 \
      --platform manylinux_2_17_x86_64 -d "$dest" "$req"
  fi
  echo "$sha  $dest/$file" | sha256sum -c --quiet - || { echo "checksum mismatch: $file" >&2; exit 1; }
done
