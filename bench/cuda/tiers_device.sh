#!/bin/bash
# The memory tiers on the device (issue 23): `snarkpipe bench prove` with all but N GiB of the
# GPU held by ../shared/anchors/bin/ballast, for each N, in one device call; every proof
# verified, each record with memory_tier, memory_plan and device_free_gib. Carry build/abi-dist
# (bench/cuda/abi_device.sh --pack) and .anchors (cp -r ../shared/anchors .anchors).
#   run, there:  FREE_GIB='48 32 24 16 12 0' SCALE=1/4 bash bench/cuda/tiers_device.sh   (0: no ballast)
# A refusal is recorded as such (the plan's message in the log): tier 4 (bounded H) is what
# the smallest cards need.
set -u
DIST=build/abi-dist
for f in "$DIST"/*.xz; do [ -e "$f" ] && xz -d -f "$f" && chmod +x "${f%.xz}"; done
OUT=${OUT:-/tmp/snarkpipe-tiers-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/$DIST/lib:${LD_LIBRARY_PATH:-}"
chmod +x .anchors/bin/* 2>/dev/null
SCALE=${SCALE:-1/4}
KEYDIR=${KEYDIR:-$PWD/build/keys}
mkdir -p "$KEYDIR"
tag=$(echo "$SCALE" | tr '/' '_')
T0=${T0:-$(date +%s)}
for n in ${FREE_GIB:-48 32 24 16 12 0}; do
  # CALL_LIMIT (s since T0): a run is not started without RUN_S seconds left for it.
  left=$(( ${CALL_LIMIT:-100000} - ($(date +%s) - T0) ))
  if [ "$left" -lt "${RUN_S:-60}" ]; then echo "=== skipped ${n} GiB: ${left} s left"; continue; fi
  pid=""
  if [ "$n" != 0 ]; then
    .anchors/bin/ballast "$n" > "$OUT/ballast-$n.txt" 2>&1 &
    pid=$!
    for _ in $(seq 60); do grep -q "ballast:" "$OUT/ballast-$n.txt" 2>/dev/null && break; sleep 1; done
    cat "$OUT/ballast-$n.txt"
  fi
  echo "=== $SCALE with ${n:-all} GiB free"
  # One key for every N (set up and written by the first run, read by the rest).
  timeout $(( left - 5 )) "$DIST/snarkpipe" bench prove --circuit synthetic --scale "$SCALE" --backend cuda --srs-residency auto \
    --params "$KEYDIR/synthetic-$tag.params" --runs "${RUNS:-3}" --json -o "$OUT/tiers-$tag-$n.json" \
    > /dev/null 2> "$OUT/tiers-$tag-$n.log"
  echo "exit $?"; grep -E "tier|proof [0-9]|error" "$OUT/tiers-$tag-$n.log" | tail -6
  [ -n "$pid" ] && kill "$pid" && wait "$pid" 2>/dev/null
done
