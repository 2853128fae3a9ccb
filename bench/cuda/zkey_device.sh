#!/bin/bash
# One device call: circom-shaped circuits with their snarkjs keys made by snarkpipe itself
# (`synthetic --format circom --key-backend cuda`: the key's fixed-base multiplications on the
# GPU), then `bench prove --zkey --backend cuda` on each: the GPU and CPU zkey provers, per
# phase, every proof verified, the GPU's proof bytes equal to the CPU's for fixed r, s.
# snarkjs is not on the device image; its 2-core numbers are in bench/results/prove.
# Usage, in the repository root:
#   pack here:  bash bench/cuda/zkey_device.sh --pack        (→ build/zkey-dist: snarkpipe, xz, + libs)
#   run there:  device run, carry build/zkey-dist:  SIZES="16 20" bash bench/cuda/zkey_device.sh
# Writes under $OUT: env.txt, gen-2pN.json (the generator's record: times and file sizes) and
# bench-2pN.json (bench prove's) per size N, run.log.
# RUNS (GPU proofs, default 5) and CPU_RUNS (default 3; 1 at 2^24) per size.
set -u
DIST=build/zkey-dist
if [ "${1:-}" = "--pack" ]; then
  rm -rf "$DIST" && mkdir -p "$DIST/lib"
  cp build/snarkpipe "$DIST/"
  bash bench/cuda/pack_libs.sh "$DIST/lib" "$DIST"/snarkpipe* $(ls "$DIST"/test_* "$DIST"/*.so* 2>/dev/null)
  strip "$DIST/snarkpipe" && xz -T0 -6 -f "$DIST/snarkpipe"
  du -sh "$DIST"
  exit 0
fi
[ -e "$DIST/snarkpipe.xz" ] && xz -d -f "$DIST/snarkpipe.xz" && chmod +x "$DIST/snarkpipe"
OUT=${OUT:-/tmp/snarkpipe-zkey-out}
WORK=${WORK:-/tmp/snarkpipe-zkey-work}
mkdir -p "$OUT" "$WORK"
export LD_LIBRARY_PATH="$PWD/$DIST/lib:${LD_LIBRARY_PATH:-}"
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.used --format=csv
  nproc; grep -m1 "model name" /proc/cpuinfo; free -g | head -2; df -h "$WORK" | tail -1
} > "$OUT/env.txt" 2>&1
for n in ${SIZES:-16 20 24}; do
  d="$WORK/c$n"
  rm -rf "$d"
  echo "=== 2^$n: synthetic --format circom"
  "$DIST/snarkpipe" synthetic --format circom --constraints "2^$n" --seed "$n" --key-backend cuda --json --out "$d" \
    > "$OUT/gen-2p$n.json" 2>> "$OUT/run.log"
  echo "synthetic exit $?"
  cpu_runs=${CPU_RUNS:-$([ "$n" -ge 24 ] && echo 1 || echo 3)}
  echo "=== 2^$n: bench prove --zkey --backend cuda (cpu runs $cpu_runs)"
  "$DIST/snarkpipe" bench prove --zkey "$d/circuit.zkey" --wtns "$d/witness.wtns" --backend cuda --runs "${RUNS:-5}" \
    --cpu-runs "$cpu_runs" --note "snarkpipe synthetic --format circom --constraints 2^$n --seed $n --key-backend cuda" \
    --json -o "$OUT/bench-2p$n.json" > /dev/null 2>> "$OUT/run.log"
  echo "bench exit $?"
  rm -rf "$d"
done
