#!/bin/bash
# A/B of synthesis.pack_as_generated at full shape, in one device call after service_device.sh
# (or memory_device.sh) left the key and circuit on the warm machine: `bench pipeline` with 10
# partitions per proof, 3 jobs in flight, 8 synthesis workers, every proof verified, once with
# witnesses packed as generated (true, the default) and once made whole and then packed (false),
# in ORDER (default "true false").
#   run, there:  carry build/service-dist;  OUT=/tmp/r bash bench/cuda/pack_ab_device.sh
# Writes $OUT/pipeline-pack-<true|false>.json (+ .log).
set -u
DIST=${DIST:-build/service-dist}
for f in "$DIST"/*.xz; do [ -e "$f" ] && xz -d -f "$f" && chmod +x "${f%.xz}"; done
export LD_LIBRARY_PATH="$PWD/$DIST/lib:${LD_LIBRARY_PATH:-}"
SP="$DIST/snarkpipe"
OUT=${OUT:-/tmp/snarkpipe-pack-ab-out}
mkdir -p "$OUT"
KEYDIR=${KEYDIR:-$PWD/build/keys}
CIRCUIT=$KEYDIR/c.snkr1cs
[ -s "$CIRCUIT" ] || CIRCUIT=/dev/shm/c.snkr1cs
[ -s "$KEYDIR/k.params" ] && [ -s "$CIRCUIT" ] || { echo "no key or circuit: run service_device.sh with PREPARE_ONLY=1 first"; exit 2; }
T0=$(date +%s)
for pack in ${ORDER:-true false}; do
  echo "=== pipeline pack_as_generated=$pack ($(( $(date +%s) - T0 )) s)"
  timeout "${PIPE_TIMEOUT:-200}" "$SP" bench pipeline --shape-scale 1 --params "$KEYDIR/k.params" --r1cs "$CIRCUIT" \
    --backend cuda --partitions 10 --proofs "${PROOFS:-3}" --concurrency 3 --synthesis-workers "${SYNTH:-8}" \
    --set synthesis.check_witness=false --set synthesis.pack_as_generated="$pack" \
    --json -o "$OUT/pipeline-pack-$pack.json" > /dev/null 2> "$OUT/pipeline-pack-$pack.log"
  echo "exit $?"; tr '\r' '\n' < "$OUT/pipeline-pack-$pack.log" | grep -E "s/proof|busy|error|Error" | tail -4
done
echo "=== done ($(( $(date +%s) - T0 )) s)"
