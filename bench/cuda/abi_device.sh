#!/bin/bash
# The Filecoin ABI on the GPU machine, in one device call: the GPU tests of the evaluated path
# and of both libraries, bellperson's Rust call sequence (rust/abi-check) over them, then
# `snarkpipe bench abi` (and, with ANCHOR=1, supraseal-c2 beside it: ../shared/anchors).
#   pack, here:   ninja -C build snarkpipe test_cuda_prover test_cuda_ntt test_cuda_zkey test_supraseal_abi snarkpipe_supraseal snarkpipe_cuzk
#                 (and the two rust/abi-check builds of tests/ffi/rust_abi.sh), then
#                 bash bench/cuda/abi_device.sh --pack          (→ build/abi-dist)
#   run, there:   carry build/abi-dist [.anchors];  SCALES='1/16' bash bench/cuda/abi_device.sh
# Knobs: SCALES (bench abi scales, default 1/16), RUNS (3), BATCH (10), RESIDENCIES ('auto host'),
# SKIP_TESTS=1, ANCHOR=1 (+ ANCHOR_SUPRASEAL_SHAPES, default full), KEYDIR (where keys are written).
set -u
DIST=build/abi-dist
# --pack-cli: the snarkpipe binary and its libraries only (tiers_device.sh, memory_device.sh).
if [ "${1:-}" = "--pack" ] || [ "${1:-}" = "--pack-cli" ]; then
  rm -rf "$DIST" && mkdir -p "$DIST/lib"
  cp build/snarkpipe "$DIST/"
  if [ "$1" = "--pack" ]; then
    cp build/tests/cuda/test_cuda_prover build/tests/cuda/test_cuda_ntt build/tests/cuda/test_cuda_zkey \
      build/tests/ffi/test_supraseal_abi "$DIST/"
    cp build/rust-supraseal/release/snarkpipe-abi-check "$DIST/abi-check-supraseal"
    cp build/rust-cuzk/release/snarkpipe-abi-check "$DIST/abi-check-cuzk"
    for abi in supraseal cuzk; do cp -L build/src/ffi/libsnarkpipe_$abi.so "$DIST/lib/libsnarkpipe_$abi.so.0"; done
  fi
  bash bench/cuda/pack_libs.sh "$DIST/lib" "$DIST"/snarkpipe* $(ls "$DIST"/test_* "$DIST"/abi-check-* "$DIST"/lib/libsnarkpipe_* 2>/dev/null)
  strip "$DIST"/snarkpipe "$DIST"/test_* "$DIST"/abi-check-* "$DIST"/lib/libsnarkpipe_* 2>/dev/null
  xz -T0 -6 -f "$DIST"/snarkpipe "$DIST"/test_* 2>/dev/null
  du -sh "$DIST"
  exit 0
fi
T0=${T0:-$(date +%s)}  # the call's start: the anchor gets what is left of CALL_LIMIT (590 s)
for f in "$DIST"/*.xz; do [ -e "$f" ] && xz -d -f "$f" && chmod +x "${f%.xz}"; done
OUT=${OUT:-/tmp/snarkpipe-abi-out}
mkdir -p "$OUT"
L="$PWD/$DIST/lib"
export LD_LIBRARY_PATH="$L:${LD_LIBRARY_PATH:-}"
cp "$L/libsnarkpipe_supraseal.so.0" "$L/libsnarkpipe_supraseal.so"
export SNARKPIPE_SUPRASEAL_LIB="$L/libsnarkpipe_supraseal.so.0" SNARKPIPE_CUZK_LIB="$L/libsnarkpipe_cuzk.so.0"
SP="$DIST/snarkpipe"
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv
  nproc; free -g | head -2; df -h . /tmp /dev/shm | sed 1d; git log -1 --format=%h 2>/dev/null; } > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
if [ -z "${SKIP_TESTS:-}" ]; then
  {
    echo "=== test_cuda_ntt"; timeout 200 "$DIST/test_cuda_ntt" 2>&1 | grep -vE "^\[ RUN|^\[       OK"
    echo "=== test_cuda_prover"; timeout 300 "$DIST/test_cuda_prover" 2>&1 | grep -vE "^\[ RUN|^\[       OK"
    echo "=== test_cuda_zkey"; timeout 200 "$DIST/test_cuda_zkey" 2>&1 | grep -vE "^\[ RUN|^\[       OK"
    echo "=== test_supraseal_abi (GPU)"; timeout 300 "$DIST/test_supraseal_abi" 2>&1 | grep -vE "^\[ RUN|^\[       OK"
    echo "=== rust abi-check over both libraries (GPU)"
    D=$(mktemp -d); C=(--circuit merkle-sha256 --depth 1)
    "$SP" export-circuit "${C[@]}" --no-cache --r1cs "$D/circuit.snkr1cs" >/dev/null
    for k in 0 1 2; do "$SP" export-circuit "${C[@]}" --seed $((k + 11)) --wtns "$D/witness-$k.wtns" --public "$D/public-$k.json" >/dev/null; done
    "$SP" setup "${C[@]}" --no-cache --params "$D/key.params" --vk "$D/key.vk" >/dev/null
    n=0; bad=0
    for abi in supraseal cuzk; do
      "$DIST/abi-check-$abi" "$D" > "$D/$abi.list" || { echo "abi-check $abi FAILED"; bad=1; }
      while read -r proof k; do
        if "$SP" verify --vk "$D/key.vk" --proof "$proof" --public "$D/public-$k.json" >/dev/null; then n=$((n + 1)); else bad=1; echo "REJECTED $proof"; fi
      done < "$D/$abi.list"
    done
    echo "rust abi-check: $n proofs verified, failures: $bad"
  } > "$OUT/tests.log" 2>&1
  grep -E "^===|PASSED|FAILED|SKIPPED|rust abi-check|REJECTED" "$OUT/tests.log"
fi
KEYDIR=${KEYDIR:-$PWD/build/keys}
mkdir -p "$KEYDIR"
for scale in ${SCALES:-1/16}; do
  tag=$(echo "$scale" | tr '/' '_')
  for res in ${RESIDENCIES:-auto host}; do
    echo "=== bench abi --scale $scale, SNARKPIPE_SRS_RESIDENCY=$res"
    SNARKPIPE_SRS_RESIDENCY=$res timeout "${ABI_TIMEOUT:-560}" "$SP" bench abi --scale "$scale" --params "$KEYDIR/synthetic-$tag.params" \
      --runs "${RUNS:-3}" --batch "${BATCH:-10}" --json -o "$OUT/abi-$tag-$res.json" > /dev/null 2> "$OUT/abi-$tag-$res.log"
    echo "exit $?"; grep -E "call|create_SRS|setup|error" "$OUT/abi-$tag-$res.log" | tail -12
  done
done
if [ -n "${ANCHOR:-}" ] && [ -d .anchors ]; then
  echo "=== supraseal-c2 (Curio's fork) beside it"
  export ANCHOR_DEADLINE_S=$(( ${CALL_LIMIT:-590} - ($(date +%s) - T0) ))
  ANCHOR_SPPARK=0 ANCHOR_SUPRASEAL=1 ANCHOR_SUPRASEAL_SHAPES=${ANCHOR_SUPRASEAL_SHAPES:-full} OUT="$OUT/anchor" \
    bash .anchors/run.sh > /dev/null 2>&1
  tail -5 "$OUT/anchor/supraseal.csv" 2>/dev/null
fi
ls -la "$OUT"
