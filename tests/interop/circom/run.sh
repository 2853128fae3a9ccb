#!/usr/bin/env bash
# End to end with the circom/snarkjs toolchain (issue 4), for three circuits of different
# shapes compiled by circom2 for BLS12-381 at test time:
#   keys from snarkjs (`groth16 setup` + one `zkey contribute`), from a small snarkjs
#   ceremony (power 8) and from snarkpipe's fast test powers of tau (power 9, whose top Lagrange level the
#   2^9-row Merkle circuit uses);
#   snarkpipe's proofs (--zkey) verified by snarkjs and snarkpipe; snarkjs's proofs verified
#   by snarkpipe; a tampered proof and a tampered public input rejected by both;
#   snarkpipe's own setup and prover on the imported .r1cs, exported as snarkjs JSON and
#   verified by snarkjs; snarkpipe's vk.json export equal to snarkjs's; snarkjs's key converted
#   (`snarkpipe convert`) and the bellperson prover's proof under it accepted by snarkjs.
# Usage: run.sh SNARKPIPE INTEROP_DIR WORK_DIR   (WORK_DIR keeps the files for test_circom_files)
set -u
SNARKPIPE="$1"
INTEROP="$2"
WORK="$3"
HERE="$(cd "$(dirname "$0")" && pwd)"
BIN="$INTEROP/node_modules/.bin"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$BIN/snarkjs" ] && [ -x "$BIN/circom2" ] || fail "snarkjs/circom2 missing: run npm ci in $INTEROP"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || fail "cannot use $WORK"
snarkjs() { "$BIN/snarkjs" "$@" > "$WORK/snarkjs.log" 2>&1; }
t0=$(date +%s)

# Powers of tau: snarkjs's own ceremony (one contribution) at power 8, and snarkpipe's.
snarkjs powersoftau new bls12381 8 pot8_0.ptau || fail "powersoftau new"
snarkjs powersoftau contribute pot8_0.ptau pot8_1.ptau --name=test -e=entropy-of-the-test || fail "powersoftau contribute"
snarkjs powersoftau prepare phase2 pot8_1.ptau pot8.ptau || fail "prepare phase2"
"$SNARKPIPE" test-ptau --power 9 --seed 7 --out pot9.ptau > /dev/null 2>&1 || fail "test-ptau"
echo "powers of tau: $(( $(date +%s) - t0 )) s"

# circuit NAME PTAU MAIN-LINE INPUT-ARGS...
circuit() {
  local name="$1" ptau="$2" main="$3"
  shift 3
  local d="$WORK/$name"
  mkdir -p "$d" && cd "$d" || fail "$name: mkdir"
  # circom2 (WebAssembly) sees only the working directory: the templates are copied in.
  cp "$HERE/$name.circom" . || fail "$name: copy templates"
  printf 'pragma circom 2.0.0;\ninclude "%s.circom";\n%s\n' "$name" "$main" > main.circom
  "$BIN/circom2" main.circom --r1cs --wasm --prime bls12381 -o . > circom.log 2>&1 || fail "$name: circom2 ($(tail -3 circom.log))"
  node "$HERE/inputs.mjs" "$name" "$@" > input.json || fail "$name: inputs"
  snarkjs wtns calculate main_js/main.wasm input.json w.wtns || fail "$name: wtns calculate"
  snarkjs groth16 setup main.r1cs "$WORK/$ptau" k0.zkey && [ -s k0.zkey ] || fail "$name: groth16 setup ($(grep -i error "$WORK/snarkjs.log"))"
  snarkjs zkey contribute k0.zkey k.zkey --name=test -e=more-entropy || fail "$name: zkey contribute"
  snarkjs zkey export verificationkey k.zkey vk.json || fail "$name: export verificationkey"
  "$SNARKPIPE" inspect --validate k.zkey > /dev/null || fail "$name: inspect zkey"

  # snarkpipe proves from snarkjs's key; snarkjs and snarkpipe verify.
  "$SNARKPIPE" prove --zkey k.zkey --wtns w.wtns --proof sp_proof.json --public sp_public.json > prove.log 2>&1 ||
    fail "$name: snarkpipe prove --zkey: $(cat prove.log)"
  snarkjs groth16 verify vk.json sp_public.json sp_proof.json || fail "$name: snarkjs rejected snarkpipe's proof"
  "$SNARKPIPE" verify --format snarkjs vk.json sp_public.json sp_proof.json > /dev/null || fail "$name: snarkpipe rejected its proof"

  # snarkjs proves; snarkpipe verifies; the public signals agree.
  # The forms snarkjs and rapidsnark users type: positional prove, verify without --format.
  "$SNARKPIPE" prove k.zkey w.wtns pos_proof.json pos_public.json > prove.log 2>&1 ||
    fail "$name: snarkpipe prove KEY WTNS PROOF PUBLIC: $(cat prove.log)"
  snarkjs groth16 verify vk.json pos_public.json pos_proof.json || fail "$name: snarkjs rejected the positional form's proof"
  "$SNARKPIPE" verify vk.json pos_public.json pos_proof.json > /dev/null || fail "$name: verify without --format (vk.json)"
  # On the GPU where there is one (snarkjs must accept its proof); without one, a clear refusal.
  if "$SNARKPIPE" prove --zkey k.zkey --wtns w.wtns --backend cuda --proof x.json --public y.json 2> err.txt; then
    snarkjs groth16 verify vk.json y.json x.json || fail "$name: snarkjs rejected the GPU zkey prover's proof"
  else
    grep -q -- "--backend cuda: " err.txt || fail "$name: --backend cuda with a zkey and no GPU: $(cat err.txt)"
  fi
  "$SNARKPIPE" prove --zkey k.zkey --wtns w.wtns --backend bogus --proof x.json --public y.json 2> err.txt
  [ $? != 0 ] || fail "$name: --backend bogus accepted"
  snarkjs groth16 prove k.zkey w.wtns sj_proof.json sj_public.json || fail "$name: snarkjs prove"
  "$SNARKPIPE" verify --format snarkjs vk.json sj_public.json sj_proof.json > /dev/null || fail "$name: snarkpipe rejected snarkjs's proof"
  # snarkjs's key converted to bellperson's (the ceremony kept): the bellperson prover's proof
  # under it is accepted by snarkjs under the original vk.json.
  "$SNARKPIPE" convert --zkey k.zkey --circom-r1cs main.r1cs --params cv.params --vk cv.vk --r1cs cv.snkr1cs \
    --wtns w.wtns --vk-json vk.json > convert.log 2>&1 || fail "$name: convert ($(tail -2 convert.log))"
  "$SNARKPIPE" prove --params cv.params --r1cs cv.snkr1cs --wtns w.wtns --backend cpu --format snarkjs \
    --proof cv_proof.json --public cv_public.json > prove.log 2>&1 || fail "$name: prove with the converted key ($(tail -2 prove.log))"
  snarkjs groth16 verify vk.json cv_public.json cv_proof.json || fail "$name: snarkjs rejected the converted key's proof"
  node -e 'const [a, b] = process.argv.slice(1).map(f => JSON.stringify(JSON.parse(require("fs").readFileSync(f))));
           process.exit(a === b ? 0 : 1)' sp_public.json sj_public.json || fail "$name: public signals differ"

  # Tampered: a public signal + 1, and a proof with A and C swapped; both verifiers reject.
  node -e 'const fs = require("fs"); const p = JSON.parse(fs.readFileSync("sj_public.json"));
           p[0] = (BigInt(p[0]) + 1n).toString(); fs.writeFileSync("bad_public.json", JSON.stringify(p));
           const q = JSON.parse(fs.readFileSync("sp_proof.json")); [q.pi_a, q.pi_c] = [q.pi_c, q.pi_a];
           fs.writeFileSync("bad_proof.json", JSON.stringify(q));' || fail "$name: tamper"
  snarkjs groth16 verify vk.json bad_public.json sp_proof.json && fail "$name: snarkjs accepted a wrong public input"
  "$SNARKPIPE" verify --format snarkjs vk.json bad_public.json sp_proof.json > /dev/null; [ $? = 1 ] || fail "$name: snarkpipe accepted a wrong public input"
  snarkjs groth16 verify vk.json sj_public.json bad_proof.json && fail "$name: snarkjs accepted a tampered proof"
  "$SNARKPIPE" verify --format snarkjs vk.json sj_public.json bad_proof.json > /dev/null; [ $? = 1 ] || fail "$name: snarkpipe accepted a tampered proof"

  # snarkpipe's vk.json export from the .zkey is snarkjs's, field for field.
  "$SNARKPIPE" export-vk --zkey k.zkey --out sp_vk.json > /dev/null || fail "$name: export-vk --zkey"
  node -e 'const [a, b] = process.argv.slice(1).map(f => JSON.parse(require("fs").readFileSync(f)));
           for (const k of Object.keys(a)) if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) { console.log(k); process.exit(1); }' \
    vk.json sp_vk.json || fail "$name: exported vk.json differs from snarkjs's"

  # snarkpipe's own pipeline on the circom circuit (bellperson keys), checked by snarkjs.
  "$SNARKPIPE" import-r1cs main.r1cs main.snkr1cs > /dev/null 2>&1 || fail "$name: import-r1cs"
  "$SNARKPIPE" setup --r1cs main.snkr1cs --params own.params --vk own.vk > /dev/null 2>&1 || fail "$name: setup --r1cs"
  "$SNARKPIPE" prove --r1cs main.snkr1cs --wtns w.wtns --params own.params --format snarkjs --proof own_proof.json \
    --public own_public.json > /dev/null 2>&1 || fail "$name: prove --r1cs --wtns"
  "$SNARKPIPE" export-vk --vk own.vk --format snarkjs --out own_vk.json > /dev/null || fail "$name: export-vk --vk"
  snarkjs groth16 verify own_vk.json own_public.json own_proof.json || fail "$name: snarkjs rejected snarkpipe's own-key proof"
  snarkjs groth16 verify own_vk.json bad_public.json own_proof.json && fail "$name: snarkjs accepted a wrong input (own key)"
  echo "$name: ok ($(grep -o '^prover: [0-9]* ms' prove.log))"
  cd "$WORK"
}

circuit mulchain pot8.ptau 'component main {public [x]} = MulChain(100);'
circuit manypublic pot8.ptau 'component main {public [x]} = ManyPublic(40);' 40
circuit merkle pot9.ptau 'component main {public [root]} = MerklePath(5, 16);' 5 16 21
# Bad inputs through the command line: errors that name the section and offset, exit 1.
cd "$WORK/mulchain"
head -c 3000 k.zkey > short.zkey
"$SNARKPIPE" prove --zkey short.zkey --wtns w.wtns --proof x.json --public y.json 2> err.txt; [ $? = 1 ] || fail "truncated zkey accepted"
grep -q "section .* at byte offset [0-9]*" err.txt || fail "truncated zkey: unclear error: $(cat err.txt)"
"$SNARKPIPE" prove --zkey k.zkey --wtns "$WORK/merkle/w.wtns" --proof x.json --public y.json 2> err.txt; [ $? = 1 ] || fail "foreign witness accepted"
grep -q "witness" err.txt || fail "foreign witness: unclear error: $(cat err.txt)"
# The same circuit compiled for circom's default curve (BN254): refused by name.
mkdir -p bn && cp mulchain.circom main.circom bn/ && cd bn
"$BIN/circom2" main.circom --r1cs -o . > circom.log 2>&1 || fail "circom2 (bn128)"
"$SNARKPIPE" import-r1cs main.r1cs x.snkr1cs 2> err.txt; [ $? = 1 ] || fail "bn128 r1cs accepted"
grep -q "curve not supported.*BN254" err.txt || fail "bn128 r1cs: unclear error: $(cat err.txt)"
echo "bad inputs: ok"

echo "circom interop: ok ($(( $(date +%s) - t0 )) s)"
