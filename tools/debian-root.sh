#!/usr/bin/env bash
# A Debian 12 (bookworm) root made by debootstrap (variant minbase) from Debian's packages,
# cached as a tar file; tests/quickstart_debian.rs unpacks a fresh copy for every run and
# follows the README's Install lines in it. Needs root (debootstrap); installs debootstrap from
# Debian when it is missing.
#
# Usage: tools/debian-root.sh DIR   (makes DIR/bookworm-minbase.tar once; prints its path)
set -euo pipefail
dir=${1:?usage: tools/debian-root.sh DIR}
tar="$dir/bookworm-minbase.tar"
if [ ! -f "$tar" ]; then
  if ! command -v debootstrap >/dev/null; then
    apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null
  fi
  mkdir -p "$dir"
  work=$(mktemp -d "$dir/make.XXXXXX")
  # debootstrap mounts /proc and /sys inside the root while it runs: never cross into them.
  trap 'umount -R "$work/root/proc" "$work/root/sys" 2>/dev/null || true; rm -rf --one-file-system "$work"' EXIT
  if ! debootstrap --variant=minbase bookworm "$work/root" >"$work/log" 2>&1; then
    tail -n 30 "$work/log" >&2
    exit 1
  fi
  rm -f "$work/root/var/cache/apt/archives/"*.deb
  tar -C "$work/root" -cf "$work/root.tar" .
  mv "$work/root.tar" "$tar"
fi
echo "$tar"
