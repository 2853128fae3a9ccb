#!/usr/bin/env bash
# bellperson's call sequence from Rust, over the real libraries: snarkpipe writes a circuit
# (.snkr1cs), three witnesses (.wtns) and a key (.params); rust/abi-check (std only, built with
# cargo --offline against rust/supraseal-c2) evaluates a, b, c and the densities itself, as
# bellperson's ProvingAssignment does, proves through both ABIs (batches of 1 and 3; with cuzk
# also start/finish from two threads sharing a GPU mutex), and writes compressed proofs. Each
# proof must verify with snarkpipe and with @noble/curves (tests/interop/verify_groth16.mjs).
# Usage: rust_abi.sh SNARKPIPE LIB_DIR SOURCE_DIR BUILD_DIR
set -euo pipefail
SNARKPIPE=$(realpath "$1") LIB_DIR=$(realpath "$2") SRC=$(realpath "$3") BUILD=$(realpath "$4")
fail() { echo "FAIL: $*"; exit 1; }
command -v cargo >/dev/null || fail "cargo is not installed (the machine image provides it)"
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
CIRCUIT=(--circuit merkle-sha256 --depth 1)
"$SNARKPIPE" export-circuit "${CIRCUIT[@]}" --no-cache --r1cs "$DIR/circuit.snkr1cs" >/dev/null
for k in 0 1 2; do
  "$SNARKPIPE" export-circuit "${CIRCUIT[@]}" --seed $((k + 11)) --wtns "$DIR/witness-$k.wtns" \
    --public "$DIR/public-$k.json" >/dev/null
done
cmp -s "$DIR/public-0.json" "$DIR/public-1.json" && fail "the witnesses' public inputs should differ"
"$SNARKPIPE" setup "${CIRCUIT[@]}" --no-cache --params "$DIR/key.params" --vk "$DIR/key.vk" >/dev/null
proofs=0
for abi in supraseal cuzk; do
  features=(); [ $abi = cuzk ] && features=(--features cuzk)
  SNARKPIPE_LIB_DIR=$LIB_DIR cargo build --offline --quiet --release --manifest-path "$SRC/rust/abi-check/Cargo.toml" \
    "${features[@]}" --target-dir "$BUILD/rust-$abi"
  "$BUILD/rust-$abi/release/snarkpipe-abi-check" "$DIR" > "$DIR/$abi.list" || fail "abi-check ($abi) failed"
  while read -r proof k; do
    "$SNARKPIPE" verify --vk "$DIR/key.vk" --proof "$proof" --public "$DIR/public-$k.json" >/dev/null ||
      fail "snarkpipe rejected $proof"
    node "$SRC/tests/interop/verify_groth16.mjs" "$DIR/key.vk" "$proof" "$DIR/public-$k.json" >/dev/null ||
      fail "noble rejected $proof"
    proofs=$((proofs + 1))
  done < "$DIR/$abi.list"
done
[ "$proofs" -eq 10 ] || fail "expected 10 proofs (4 upstream, 6 cuzk), got $proofs"
# A proof checked against another witness's inputs must fail (the checks above are real).
first=$(head -1 "$DIR/supraseal.list" | cut -d' ' -f1)
if node "$SRC/tests/interop/verify_groth16.mjs" "$DIR/key.vk" "$first" "$DIR/public-1.json" >/dev/null; then
  fail "noble accepted a proof with the wrong inputs"
fi
echo "ok: $proofs proofs from Rust through both ABIs verified by snarkpipe and noble"
