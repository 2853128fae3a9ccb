#!/bin/bash
# The memory tiers on the device (issue 23): one `snarkpipe bench prove` process measures every
# card size in turn (--free-gib), each with all but N GiB of the GPU held by
# ../shared/anchors/bin/ballast; the key and circuit are made once. Every proof verified; each
# result carries memory_tier, memory_plan and device_free_gib. Carry build/abi-dist
# (bench/cuda/abi_device.sh --pack) and .anchors (cp -r ../shared/anchors .anchors).
#   run, there:  FREE_GIB=16,24,12,32,48,0 SCALE=1 bash bench/cuda/tiers_device.sh
#   small scale, proof bytes against the CPU backend:  SCALE=1/16 FREE_GIB=6,4,3,2 COMPARE=1 RUNS=1 ...
# A card too small for every tier is recorded as refused, with the plan's words.
set -u
DIST=build/abi-dist
for f in "$DIST"/*.xz; do [ -e "$f" ] && xz -d -f "$f" && chmod +x "${f%.xz}"; done
OUT=${OUT:-/tmp/snarkpipe-tiers-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/$DIST/lib:${LD_LIBRARY_PATH:-}"
chmod +x .anchors/bin/* 2>/dev/null
SCALE=${SCALE:-1/4}
tag=$(echo "$SCALE" | tr '/' '_')
extra=""
[ "${COMPARE:-0}" = 1 ] && extra="--compare-cpu"
[ -n "${PARAMS:-}" ] && extra="$extra --params $PARAMS"
echo "=== $SCALE, cards ${FREE_GIB:-16,24,12,32,48,0} GiB"
timeout "${TIMEOUT_S:-560}" "$DIST/snarkpipe" bench prove --circuit synthetic --scale "$SCALE" --backend cuda --srs-residency auto \
  --free-gib "${FREE_GIB:-16,24,12,32,48,0}" --ballast "$PWD/.anchors/bin/ballast" --runs "${RUNS:-3}" $extra \
  --json -o "$OUT/tiers-$tag.json" > /dev/null 2> "$OUT/tiers-$tag.log"
echo "exit $?"; grep -E "===|tier|proof [0-9]|error|refused|circuit generated|setup in|key read" "$OUT/tiers-$tag.log" | cut -c1-400 | tail -60
