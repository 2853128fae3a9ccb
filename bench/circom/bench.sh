#!/usr/bin/env bash
# snarkpipe's --zkey prover against `snarkjs groth16 prove` on the same files (issue 4).
# For each LOG in the list: a circom multiplication chain with 2^LOG - 3 constraints (so the
# QAP, public-input rows included, fills a 2^LOG domain exactly; every signal is in A and B),
# compiled by circom2 for BLS12-381, keys from `snarkjs groth16 setup` on snarkpipe's test
# powers of tau (snarkjs's ceremony is far too slow at these sizes), the witness from
# `snarkjs wtns calculate`; then `snarkpipe bench prove --snarkjs ...` writes one JSON record
# per size into OUT_DIR.
# Usage: bench/circom/bench.sh BUILD_DIR OUT_DIR LOG...     e.g. bench/circom/bench.sh build bench/results/prove 14 16
set -eu
BUILD="$(cd "$1" && pwd)"
OUT="$(mkdir -p "$2" && cd "$2" && pwd)"
shift 2
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="$ROOT/tests/interop/node_modules/.bin"
SP="$BUILD/snarkpipe"
WORK="${BENCH_WORK:-$BUILD/bench-circom}"
mkdir -p "$WORK"
for LOG in "$@"; do
  N=$(( (1 << LOG) - 3 ))
  D="$WORK/mulchain-$LOG"
  mkdir -p "$D" && cd "$D"
  if [ ! -f k.zkey ] || [ ! -f w.wtns ]; then
    cp "$ROOT/tests/interop/circom/mulchain.circom" .
    printf 'pragma circom 2.0.0;\ninclude "mulchain.circom";\ncomponent main {public [x]} = MulChain(%d);\n' "$N" > main.circom
    echo "2^$LOG: compiling ($N constraints)"
    "$BIN/circom2" main.circom --r1cs --wasm --prime bls12381 -o . > circom.log
    echo '{"x": "3", "y": "11"}' > input.json
    "$BIN/snarkjs" wtns calculate main_js/main.wasm input.json w.wtns
    echo "2^$LOG: test powers of tau"
    "$SP" test-ptau --power "$LOG" --out pot.ptau > /dev/null 2>&1
    echo "2^$LOG: snarkjs groth16 setup"
    /usr/bin/time -f "  snarkjs groth16 setup: %e s" "$BIN/snarkjs" groth16 setup main.r1cs pot.ptau k.zkey > setup.log
    rm -f pot.ptau
  fi
  echo "2^$LOG: load average $(cut -d' ' -f1-3 /proc/loadavg)"
  "$SP" bench prove --zkey k.zkey --wtns w.wtns --runs 5 --snarkjs "$BIN/snarkjs" --snarkjs-runs 3 \
    --note "bench/circom/bench.sh $LOG: circom MulChain($N) (tests/interop/circom/mulchain.circom), circom2 --prime bls12381, snarkjs groth16 setup on snarkpipe test-ptau --power $LOG, witness from snarkjs wtns calculate; snarkjs 0.7.6 / circom2 0.2.23" \
    --out "$OUT/circom-prove-log$LOG-$(date -u +%Y-%m-%d).json"
done
