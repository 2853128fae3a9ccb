#!/bin/bash
# The daemon's overhead over the engine alone on the GPU (issue 25's Speed section), in one
# device call: `snarkpipe bench service` (src/cli/bench_service.cpp) with packed witnesses
# uploaded over loopback. At full shape (SCALE=1) the key is a bellperson .params (set up on
# the GPU once and reused on a warm machine, as memory_device.sh does) and the circuit a
# .snkr1cs; at a smaller SCALE both are made in the process.
#   pack, here:   ninja -C build snarkpipe && bash bench/cuda/service_device.sh --pack   (→ build/service-dist)
#   run, there:   carry build/service-dist;  SCALE=1 OUT=/tmp/r bash bench/cuda/service_device.sh
# Knobs: SCALE (1), PARTITIONS (10), PROOFS (3), CONCURRENCY (3: bench pipeline's best at full shape; an upload of
# 4.6 GB then always has two jobs of work behind it), ROUNDS (1), KEYDIR (build/keys),
# STATE_DIR (the daemon's spool: /tmp when it has room for CONCURRENCY+1 jobs' witnesses, else
# /dev/shm; the log says which), EXTRA (more bench service arguments), PREPARE_ONLY=1 (make the
# key and circuit files, then stop: a later call on the warm machine measures).
# $OUT gets two files: run.log (everything said) and service-overhead.json (the record).
set -u
DIST=build/service-dist
if [ "${1:-}" = "--pack" ]; then
  rm -rf "$DIST" && mkdir -p "$DIST/lib"
  cp build/snarkpipe "$DIST/"
  bash bench/cuda/pack_libs.sh "$DIST/lib" "$DIST"/snarkpipe* $(ls "$DIST"/test_* "$DIST"/*.so* 2>/dev/null)
  strip "$DIST/snarkpipe"
  xz -T0 -6 -f "$DIST/snarkpipe"
  du -sh "$DIST"
  exit 0
fi
for f in "$DIST"/*.xz; do [ -e "$f" ] && xz -d -f "$f" && chmod +x "${f%.xz}"; done
export LD_LIBRARY_PATH="$PWD/$DIST/lib:${LD_LIBRARY_PATH:-}"
SP="$DIST/snarkpipe"
OUT=${OUT:-/tmp/snarkpipe-service-out}
SCALE=${SCALE:-1}
PARTITIONS=${PARTITIONS:-10}
PROOFS=${PROOFS:-3}
CONCURRENCY=${CONCURRENCY:-3}
mkdir -p "$OUT"
T0=$(date +%s)
KEYDIR=${KEYDIR:-$PWD/build/keys}
mkdir -p "$KEYDIR"
LOG="$OUT/run.log"
exec > >(tee -a "$LOG") 2>&1
date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv; nproc; free -g
df -h "$KEYDIR" /tmp /dev/shm
FILES=()
if [ "$SCALE" = 1 ]; then
  if [ "$(stat -c %s "$KEYDIR/k.params" 2>/dev/null || echo 0)" -gt 47000000000 ]; then
    echo "=== key: $KEYDIR/k.params from an earlier call"
  else
    echo "=== key: setup on the GPU, written to $KEYDIR/k.params"
    timeout 330 "$SP" bench prove --circuit synthetic --scale 1 --backend cuda --params "$KEYDIR/k.params" --runs 1 \
      --json > /dev/null 2> "$OUT/key-write.err"
    echo "exit $? ($(( $(date +%s) - T0 )) s)"; tail -3 "$OUT/key-write.err"; rm -f "$OUT/key-write.err"
  fi
  # The disk (64 GiB) holds the 47 GB key but not also the 29 GB circuit: that goes to /dev/shm.
  CDIR="$KEYDIR"
  [ "$(df -k --output=avail "$KEYDIR" | tail -1)" -lt $((80 * 1024 * 1024)) ] && CDIR=/dev/shm
  if [ ! -s "$CDIR/c.snkr1cs" ]; then
    echo "=== circuit to $CDIR ($(( $(date +%s) - T0 )) s)"
    timeout 150 "$SP" synthetic --scale 1 --out "$CDIR/c.snkr1cs" 2>&1 | tail -2
    echo "exit ${PIPESTATUS[0]} ($(( $(date +%s) - T0 )) s)"
  fi
  FILES=(--params "$KEYDIR/k.params" --r1cs "$CDIR/c.snkr1cs")
  ls -la "$KEYDIR" "$CDIR"
fi
[ "${PREPARE_ONLY:-0}" = 1 ] && exit 0
# The spool holds each job's packed witnesses (~0.46 GB per full partition) until it is done.
if [ -z "${STATE_DIR:-}" ]; then
  STATE_DIR=/tmp
  need_kb=$(( (CONCURRENCY + 1) * PARTITIONS * 480 * 1024 ))
  [ "$SCALE" = 1 ] && [ "$(df -k --output=avail /tmp | tail -1)" -lt "$need_kb" ] && STATE_DIR=/dev/shm
fi
echo "=== bench service, spool under $STATE_DIR ($(( $(date +%s) - T0 )) s)"
# shellcheck disable=SC2086
"$SP" bench service --backend cuda --shape-scale "$SCALE" "${FILES[@]}" --partitions "$PARTITIONS" --proofs "$PROOFS" \
  --concurrency "$CONCURRENCY" --rounds "${ROUNDS:-1}" --state-dir "$STATE_DIR" --set synthesis.check_witness=false ${EXTRA:-} \
  --json -o "$OUT/service-overhead.json" 2>&1 | tr '\r' '\n'
echo "exit ${PIPESTATUS[0]} ($(( $(date +%s) - T0 )) s)"
