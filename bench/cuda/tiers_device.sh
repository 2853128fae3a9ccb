#!/bin/bash
# The memory tiers on the device (issue 23): one `snarkpipe bench prove` process measures every
# card size in turn (--free-gib), each with all but N GiB of the GPU held by
# ../shared/anchors/bin/ballast; the key and circuit are made once. Every proof verified; each
# result carries memory_tier, memory_plan and device_free_gib. Carry build/abi-dist
# (bench/cuda/abi_device.sh --pack) and .anchors (cp -r ../shared/anchors .anchors).
#   run, there:  FREE_GIB=16,24,12,32,48,0 SCALE=1 bash bench/cuda/tiers_device.sh
#   with supraseal-c2 beside it under ballast 16, the key also written for memory_device.sh:
#     ANCHOR=1 PARAMS=$PWD/build/keys/k.params FREE_GIB=... SCALE=1 bash bench/cuda/tiers_device.sh
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
# supraseal-c2 beside it on a 16 GiB card (ANCHOR=1): the same ballast, its full partition.
if [ "${ANCHOR:-0}" = 1 ]; then
  echo "=== supraseal-c2 under ballast 16"
  .anchors/bin/ballast 16 > "$OUT/anchor-ballast.log" 2>&1 &
  B=$!
  for i in $(seq 60); do grep -q . "$OUT/anchor-ballast.log" 2>/dev/null && break; sleep 0.5; done
  cat "$OUT/anchor-ballast.log"
  mkdir -p "$OUT/anchor"
  OUT="$OUT/anchor" ANCHOR_SPPARK=0 ANCHOR_SUPRASEAL=1 ANCHOR_SUPRASEAL_SHAPES=full ANCHOR_SUPRASEAL_CALLS="${ANCHOR_CALLS:-2}" \
    ANCHOR_DEADLINE_S="${ANCHOR_DEADLINE_S:-150}" bash .anchors/run.sh > /dev/null 2>&1
  kill $B; wait $B 2>/dev/null
  tail -4 "$OUT/anchor/supraseal.csv" 2>/dev/null; grep -iE "error|out of memory|fail" "$OUT/anchor/supraseal.log" | head -5
fi
