#!/usr/bin/env bash
# The command line's file contracts: setup writes bellperson files, prove writes a 192-byte
# proof and public.json, verify exits 0 only for a valid proof, an independent verifier
# (@noble/curves) agrees, and bad inputs give errors, not crashes.
set -u
SNARKPIPE="$1"
INTEROP="$2"
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# Recorded circuits are cached here, not in the user's cache.
export SNARKPIPE_CACHE_DIR="$DIR/cache"

"$SNARKPIPE" setup --circuit merkle-sha256 --depth 1 --params "$DIR/m.params" --vk "$DIR/m.vk" || fail "setup"
"$SNARKPIPE" prove --circuit merkle-sha256 --depth 1 --seed 7 --params "$DIR/m.params" --proof "$DIR/m.proof" --public "$DIR/m.json" || fail "prove"
[ "$(stat -c %s "$DIR/m.proof")" = 192 ] || fail "proof is not 192 bytes"
grep -Eq '^\["[0-9]+","[0-9]+","[0-9]+"\]$' "$DIR/m.json" || fail "public.json is not 3 decimal strings: $(cat "$DIR/m.json")"
"$SNARKPIPE" verify --vk "$DIR/m.vk" --proof "$DIR/m.proof" --public "$DIR/m.json" || fail "valid proof rejected"
node "$INTEROP/verify_groth16.mjs" "$DIR/m.vk" "$DIR/m.proof" "$DIR/m.json" || fail "noble rejected snarkpipe's proof"
"$SNARKPIPE" inspect "$DIR/m.params" | grep -q "public inputs 3" || fail "inspect"

# Another witness's public inputs: invalid, exit 1, for both verifiers.
"$SNARKPIPE" prove --circuit merkle-sha256 --depth 1 --seed 8 --params "$DIR/m.params" --proof "$DIR/o.proof" --public "$DIR/o.json" >/dev/null 2>&1 || fail "prove seed 8"
"$SNARKPIPE" verify --vk "$DIR/m.vk" --proof "$DIR/m.proof" --public "$DIR/o.json"; [ $? = 1 ] || fail "wrong inputs accepted"
node "$INTEROP/verify_groth16.mjs" "$DIR/m.vk" "$DIR/m.proof" "$DIR/o.json" >/dev/null; [ $? = 1 ] || fail "noble accepted wrong inputs"

# A flipped proof byte, a truncated proof, a truncated key, garbage JSON.
cp "$DIR/m.proof" "$DIR/bad.proof"
printf '\x01' | dd of="$DIR/bad.proof" bs=1 seek=100 conv=notrunc 2>/dev/null
"$SNARKPIPE" verify --vk "$DIR/m.vk" --proof "$DIR/bad.proof" --public "$DIR/m.json"; [ $? = 1 ] || fail "flipped byte accepted"
head -c 191 "$DIR/m.proof" > "$DIR/short.proof"
"$SNARKPIPE" verify --vk "$DIR/m.vk" --proof "$DIR/short.proof" --public "$DIR/m.json"; [ $? = 1 ] || fail "short proof accepted"
head -c 1000 "$DIR/m.vk" > "$DIR/short.vk"
"$SNARKPIPE" verify --vk "$DIR/short.vk" --proof "$DIR/m.proof" --public "$DIR/m.json"; [ $? = 2 ] || fail "truncated vk not an input error"
echo '["12", "x"]' > "$DIR/bad.json"
"$SNARKPIPE" verify --vk "$DIR/m.vk" --proof "$DIR/m.proof" --public "$DIR/bad.json"; [ $? = 2 ] || fail "bad JSON not an input error"
# Deeply nested JSON (issue 27) in each of verify's inputs, both formats: a typed error and exit
# status 2 (unreadable input), never a crash (it was a stack overflow, status 139).
{ head -c 100000 /dev/zero | tr '\0' '['; head -c 100000 /dev/zero | tr '\0' ']'; } > "$DIR/deep.json"
expect_deep() {  # what, then verify's arguments
  local what="$1"; shift
  "$SNARKPIPE" verify "$@" >"$DIR/out" 2>&1; local st=$?
  [ $st = 2 ] || fail "deeply nested $what: exit status $st, not 2: $(head -c 300 "$DIR/out")"
  grep -q "deep.json: arrays and objects nest deeper than 64 levels" "$DIR/out" || fail "deeply nested $what: unclear error: $(head -c 300 "$DIR/out")"
}
expect_deep public.json --vk "$DIR/m.vk" --proof "$DIR/m.proof" --public "$DIR/deep.json"
"$SNARKPIPE" export-vk --vk "$DIR/m.vk" --format snarkjs --out "$DIR/vk.json" >/dev/null || fail "export-vk"
"$SNARKPIPE" prove --circuit merkle-sha256 --depth 1 --seed 7 --params "$DIR/m.params" --format snarkjs --proof "$DIR/proof.json" --public "$DIR/public.json" >/dev/null 2>&1 || fail "prove --format snarkjs"
"$SNARKPIPE" verify --format snarkjs "$DIR/vk.json" "$DIR/public.json" "$DIR/proof.json" >/dev/null || fail "snarkjs-format proof rejected"
expect_deep "vk.json" --format snarkjs "$DIR/deep.json" "$DIR/public.json" "$DIR/proof.json"
expect_deep "public.json (snarkjs)" --format snarkjs "$DIR/vk.json" "$DIR/deep.json" "$DIR/proof.json"
expect_deep "proof.json" --format snarkjs "$DIR/vk.json" "$DIR/public.json" "$DIR/deep.json"
head -c 5000 "$DIR/m.params" > "$DIR/short.params"
"$SNARKPIPE" prove --circuit merkle-sha256 --depth 1 --params "$DIR/short.params" --proof "$DIR/x" --public "$DIR/x.json" 2>"$DIR/err"; [ $? = 1 ] || fail "truncated params accepted"
grep -q "byte offset" "$DIR/err" || fail "truncated params error does not name the offset: $(cat "$DIR/err")"
# A key for another circuit.
"$SNARKPIPE" prove --circuit merkle-sha256 --depth 2 --params "$DIR/m.params" --proof "$DIR/x" --public "$DIR/x.json" 2>"$DIR/err"; [ $? = 1 ] || fail "foreign key accepted"
grep -q "key" "$DIR/err" || fail "foreign key error unclear: $(cat "$DIR/err")"
# The circuit cache: setup records and writes the circuit, prove loads it (a tiny porep-like
# circuit, 483K constraints, proved and verified); a damaged file is recorded again with a
# warning; --no-cache neither reads nor writes.
"$SNARKPIPE" setup --circuit porep-like --scale tiny --params "$DIR/p.params" --vk "$DIR/p.vk" >"$DIR/out" 2>&1 || fail "porep-like setup: $(cat "$DIR/out")"
grep -q "^circuit recorded in .* (cached in $DIR/cache/porep-like" "$DIR/out" || fail "setup did not cache the circuit: $(cat "$DIR/out")"
"$SNARKPIPE" prove --circuit porep-like --scale tiny --seed 3 --params "$DIR/p.params" --proof "$DIR/p.proof" --public "$DIR/p.json" >"$DIR/out" 2>&1 || fail "porep-like prove: $(cat "$DIR/out")"
grep -q "^circuit loaded from cache in" "$DIR/out" || fail "prove did not load the cached circuit: $(cat "$DIR/out")"
"$SNARKPIPE" verify --vk "$DIR/p.vk" --proof "$DIR/p.proof" --public "$DIR/p.json" >/dev/null || fail "porep-like proof rejected"
M=$(ls "$DIR"/cache/merkle-sha256_depth=1-*.snkr1cs) || fail "no cache file for merkle-sha256 depth 1"
printf '\xff' | dd of="$M" bs=1 seek=300 conv=notrunc 2>/dev/null
"$SNARKPIPE" prove --circuit merkle-sha256 --depth 1 --seed 7 --params "$DIR/m.params" --proof "$DIR/c.proof" --public "$DIR/c.json" >"$DIR/out" 2>&1 || fail "prove over a damaged cache file: $(cat "$DIR/out")"
grep -q "warning: circuit cache: .*checksum.*recording the circuit again" "$DIR/out" || fail "damaged cache file not reported: $(cat "$DIR/out")"
grep -q "^circuit recorded in .* (cached in" "$DIR/out" || fail "damaged cache file not rewritten: $(cat "$DIR/out")"
"$SNARKPIPE" verify --vk "$DIR/m.vk" --proof "$DIR/c.proof" --public "$DIR/c.json" >/dev/null || fail "proof after re-recording rejected"
"$SNARKPIPE" prove --no-cache --circuit merkle-sha256 --depth 1 --params "$DIR/m.params" --proof "$DIR/x" --public "$DIR/x.json" >"$DIR/out" 2>&1 || fail "prove --no-cache: $(cat "$DIR/out")"
grep -q "^circuit recorded in [0-9]* ms$" "$DIR/out" || fail "--no-cache used the cache: $(cat "$DIR/out")"
echo "cli round trip: ok"
