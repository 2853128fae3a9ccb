#!/bin/bash
# Host memory of the full-shape pipeline (issue 23), in one device call: the key written once
# as a bellperson .params and the circuit as a .snkr1cs, then `snarkpipe bench pipeline` from
# those files (10 partitions per proof, 3 jobs in flight), the key's queries going from the
# file straight to the GPU: once with the whole GPU (key in VRAM), once with all but 16 GiB
# held by ../shared/anchors/bin/ballast (key in page-locked host memory, streamed).
# Each record carries peak_private_rss_bytes (RssAnon + RssShmem), peak_rss_bytes (ru_maxrss,
# mapped file pages included) and peak_machine_used_bytes (MemTotal − MemAvailable).
# The device's disk (64 GiB) holds the 47 GB .params but not also the 29 GB circuit: the
# circuit goes to /dev/shm when the disk is short (written after the key, whose setup process
# holds both in memory), and the record says so (its pages are then
# machine memory in use, not page cache).
#   pack, here: bash bench/cuda/abi_device.sh --pack; carry build/abi-dist and .anchors
#   run, there: OUT=/tmp/r bash bench/cuda/memory_device.sh
set -u
DIST=build/abi-dist
for f in "$DIST"/*.xz; do [ -e "$f" ] && xz -d -f "$f" && chmod +x "${f%.xz}"; done
export LD_LIBRARY_PATH="$PWD/$DIST/lib:${LD_LIBRARY_PATH:-}"
chmod +x .anchors/bin/* 2>/dev/null
SP="$DIST/snarkpipe"
OUT=${OUT:-/tmp/snarkpipe-memory-out}
mkdir -p "$OUT"
T0=$(date +%s)
KEYDIR=${KEYDIR:-$PWD/build/keys}
mkdir -p "$KEYDIR"
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv; nproc; free -g;
  df -h "$KEYDIR" /tmp /dev/shm; } > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
free_kb=$(df -k --output=avail "$KEYDIR" | tail -1)
CDIR="$KEYDIR"
[ "$free_kb" -lt $((80 * 1024 * 1024)) ] && CDIR=/dev/shm
# A key an earlier call on this (warm) machine wrote is used as it is (tiers_device.sh with
# PARAMS=$PWD/build/keys/k.params writes the same file).
if [ "$(stat -c %s "$KEYDIR/k.params" 2>/dev/null || echo 0)" -gt 47000000000 ]; then
  echo "=== key: $KEYDIR/k.params from an earlier call"
else
  echo "=== key: setup on the GPU, written to $KEYDIR/k.params ($(( $(date +%s) - T0 )) s)"
  timeout 300 "$SP" bench prove --circuit synthetic --scale 1 --backend cuda --params "$KEYDIR/k.params" --runs 1 \
    --json -o "$OUT/key-write.json" > /dev/null 2> "$OUT/key-write.log"
  echo "exit $?"; grep -E "setup|written|wrote|error|proof" "$OUT/key-write.log" | tail -5
fi
ls -la "$KEYDIR"
echo "=== circuit to $CDIR ($(( $(date +%s) - T0 )) s)"
/usr/bin/time -f "synthetic: %e s, %M KiB peak" timeout 120 "$SP" synthetic --scale 1 --out "$CDIR/c.snkr1cs" > "$OUT/synthetic.log" 2>&1
tail -2 "$OUT/synthetic.log"
pipeline() {  # NAME, then extra arguments
  local name="$1"; shift
  echo "=== pipeline $name ($(( $(date +%s) - T0 )) s)"
  timeout "${PIPE_TIMEOUT:-175}" "$SP" bench pipeline --shape-scale 1 --params "$KEYDIR/k.params" --r1cs "$CDIR/c.snkr1cs" \
    --backend cuda --partitions 10 --proofs 3 --concurrency 3 --set synthesis.check_witness=false "$@" --json -o "$OUT/pipeline-$name.json" \
    > "$OUT/pipeline-$name.stdout" 2> "$OUT/pipeline-$name.log"
  echo "exit $?"; grep -E "proofs|tier" "$OUT/pipeline-$name.log" | tail -c 300; tail -c 1500 "$OUT/pipeline-$name.stdout"; grep -iE "error|tier|plan" "$OUT/pipeline-$name.log" | tail -5
}
# Synthesis workers: each partition's witness generation is parallel inside (TBB), so a few
# workers feed one GPU; each holds a full 4.2 GB witness while it works.
PIPE_TIMEOUT=${VRAM_TIMEOUT:-240} pipeline vram --synthesis-workers "${VRAM_SYNTH:-3,2}"
.anchors/bin/ballast 16 > "$OUT/ballast.log" 2>&1 &
B=$!
for i in $(seq 60); do grep -q . "$OUT/ballast.log" 2>/dev/null && break; sleep 0.5; done
cat "$OUT/ballast.log"
PIPE_TIMEOUT=$(( ${CALL_LIMIT:-585} - ($(date +%s) - T0) - 10 )) pipeline free16 --synthesis-workers "${HOST_SYNTH:-3}"
kill $B; wait $B 2>/dev/null
echo "=== done ($(( $(date +%s) - T0 )) s)"
