#!/usr/bin/env bash
# warp64 helper: twin runs of fixtures/gpu/warp_fixtures.so (issue 5).
set -uo pipefail
R=.gpurun/warp64
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for v in warp_twin_keepvars warp_twin; do
  tools/gpu/run-on-device.sh fixtures/gpu/warp_fixtures.so $R/$v.so "$OUT/$v" twin fixtures/gpu/warp_cases.json > "$OUT/$v.log" 2>&1
  echo "$v rc=$?"
  tail -5 "$OUT/$v.log"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['summary'])" "$OUT/$v/results.json" 2>&1 | tail -2
done
mkdir -p "$OUT/orig-raw"
first=$(ls -d /tmp/wp-gpu-run.* | head -1)
cp "$first"/orig/raw/* "$OUT/orig-raw/" 2>/dev/null
du -sh "$OUT"
