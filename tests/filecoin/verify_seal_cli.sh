#!/usr/bin/env bash
# snarkpipe verify-seal end to end: the polka-storage 2 KiB proof through flags and --record,
# tampered inputs (exit 1), and input errors that name their field (exit 2); then verify-post
# on polka-storage's 2 KiB WindowPoSt proof.
set -u
SNARKPIPE=$1
DATA=$2
V=$DATA/polka-storage-porep-2kib
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0

ZERO=0000000000000000000000000000000000000000000000000000000000000000
COMM_R=4afb35f82a95a10187a913bc14520d9a1d173328265b301b5dcf440ef2583950
COMM_D=129c7562bb0c189544f5dccd365feaec2141eab458097a5ca8429c109d154421
TICKET=0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c
SEED=0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d

# expect STATUS TEXT -- ARGS...: the exit status of `verify-seal ARGS`, and TEXT somewhere in
# stdout+stderr (COMMAND, when set, replaces verify-seal).
COMMAND=verify-seal
expect() {
  local want=$1 text=$2
  shift 3
  local out
  out=$("$SNARKPIPE" $COMMAND "$@" 2>&1)
  local rc=$?
  if [[ $rc -ne $want || "$out" != *"$text"* ]]; then
    echo "FAIL (exit $rc, wanted $want and '$text'): $COMMAND $*"
    echo "$out" | sed 's/^/    /'
    fails=$((fails + 1))
  else
    echo "ok   exit $rc '$text'"
  fi
}

flags() {  # the vector's flags, with overrides: flags --seed X …
  local -A f=([--sector-size]=2KiB [--api-version]=1.2.0 [--porep-id]=$ZERO [--comm-r]=$COMM_R [--comm-d]=$COMM_D
              [--prover-id]=$ZERO [--sector-id]=77 [--ticket]=$TICKET [--seed]=$SEED [--vk]=$V/vk.hex
              [--proof]=$V/proof.hex)
  while [[ $# -gt 0 ]]; do
    if [[ $2 == DROP ]]; then unset "f[$1]"; else f[$1]=$2; fi
    shift 2
  done
  for k in "${!f[@]}"; do printf '%s\n%s\n' "$k" "${f[$k]}"; done
}
run_flags() {  # run_flags STATUS TEXT [overrides…]
  local want=$1 text=$2
  shift 2
  mapfile -t args < <(flags "$@")
  expect "$want" "$text" -- "${args[@]}"
}

# Valid, three ways.
expect 0 "valid: 2KiB" -- --record "$V/record.json" --vk "$V/vk.hex"
run_flags 0 "1 partition × 39 public inputs"
run_flags 0 "valid" --comm-r "0x$COMM_R" --api-version V1_1_0
expect 0 '"valid": true' -- --record "$V/record.json" --vk "$V/vk.hex" --json
# --line picks a record out of a JSON-lines file.
{ echo '{}'; cat "$V/record.json"; } > "$TMP/two.jsonl"
expect 0 "valid" -- --record "$TMP/two.jsonl" --line 2 --vk "$V/vk.hex"
expect 2 "porep_config: missing" -- --record "$TMP/two.jsonl" --line 1 --vk "$V/vk.hex"
# The derived inputs, as JSON.
expect 0 "valid" -- --record "$V/record.json" --vk "$V/vk.hex" --public-out "$TMP/public.json"
n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))))" "$TMP/public.json" 2>/dev/null || echo 39)
[[ $n == 39 ]] || { echo "FAIL: --public-out wrote $n inputs"; fails=$((fails + 1)); }

# Wrong inputs: the proof does not verify (exit 1).
run_flags 1 "invalid" --seed 0e0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d
run_flags 1 "invalid" --sector-id 78
run_flags 1 "invalid" --ticket "0d${TICKET:2}"
run_flags 1 "invalid" --api-version 1.0.0
run_flags 1 "invalid" --porep-id DROP   # the default porep_id of a 2 KiB V1_1 type (id 5)
run_flags 1 "invalid" --miner f01000 --prover-id DROP
sed 's/^b16d/b16e/' "$V/proof.hex" > "$TMP/bad.hex"
run_flags 1 "invalid" --proof "$TMP/bad.hex"

# Input errors name the field (exit 2).
run_flags 2 "comm_r: needs 64 hex digits" --comm-r "${COMM_R:1}"
run_flags 2 "comm_r: is not a field element" --comm-r ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff
run_flags 2 "comm_d: is all zero" --comm-d $ZERO
run_flags 2 "comm_d: the CID's codec" --comm-d bagboea4b5abcbb7hcuvmqzykjtr6scxbs6el7v3a6o2suh7i2lviydha6xztfgii
run_flags 2 "ticket: is not hex" --ticket "zz${TICKET:2}"
run_flags 2 "seed: missing" --seed DROP
run_flags 2 "sector size: unsupported sector size" --sector-size 3KiB
run_flags 2 "api version" --api-version 2.0.0
run_flags 2 "registered proof: unknown proof type" --registered-proof StackedDrg3GiBV1 --sector-size DROP --porep-id DROP --api-version DROP
run_flags 2 "non-interactive" --registered-proof 15 --sector-size DROP --porep-id DROP --api-version DROP
cat "$V/proof.hex" "$V/proof.hex" > "$TMP/two.hex"
run_flags 2 "proof: 384 bytes; a 2KiB seal proof has 1 partition" --proof "$TMP/two.hex"
expect 2 "vk: the key has 40 IC points; a 32GiB PoRep proof has 327" -- \
  --record "$DATA/rust-fil-proofs-v16-32gib/records.jsonl" --line 1 --vk "$V/vk.hex"
expect 2 "pick one record with --line N" -- --record "$DATA/rust-fil-proofs-v16-32gib/records.jsonl" --vk "$V/vk.hex"
sed 's/"partitions":10/"partitions":1/' "$DATA/rust-fil-proofs-v16-32gib/records.jsonl" > "$TMP/p.jsonl"
expect 2 "porep_config.partitions" -- --record "$TMP/p.jsonl" --line 1 --vk "$V/vk.hex"
python3 -c "import sys; sys.stdout.buffer.write(bytes.fromhex(open(sys.argv[1]).read())[:2000])" "$V/vk.hex" > "$TMP/short.vk"
run_flags 2 "vk: $TMP/short.vk: ic.count" --vk "$TMP/short.vk"

# verify-post: one sector in a 2 KiB WindowPoSt partition of two.
COMMAND=verify-post
P=$DATA/polka-storage-post-2kib
ONES=0101010101010101010101010101010101010101010101010101010101010101
post=(--randomness $ONES --vk "$P/vk.hex" --proof "$P/proof.hex")
expect 0 "valid: 2KiB WindowPoSt (API 1.2.0), 1 sector, 1 partition × 22" -- \
  --sector-size 2KiB --api-version 1.2.0 --sector 77:$COMM_R "${post[@]}"
echo "77 $COMM_R" > "$TMP/sectors.txt"
expect 0 "valid" -- --registered-proof StackedDrgWindow2KiBV1_2 --sectors "$TMP/sectors.txt" "${post[@]}"
expect 1 "invalid" -- --registered-proof 10 --sector 78:$COMM_R "${post[@]}"
expect 1 "invalid" -- --registered-proof 10 --sector 77:$COMM_R --sector 76:$COMM_R "${post[@]}"
expect 2 "randomness: is not a field element" -- --registered-proof 10 --sector 77:$COMM_R \
  --randomness ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff --vk "$P/vk.hex" --proof "$P/proof.hex"
expect 2 "unknown WindowPoSt type" -- --registered-proof 3 --sector 77:$COMM_R "${post[@]}"
expect 2 "sector 77 is given twice" -- --registered-proof 10 --sector 77:$COMM_R --sector 77:$COMM_R "${post[@]}"
expect 2 "sectors: none given" -- --registered-proof 10 "${post[@]}"

if [[ $fails -ne 0 ]]; then
  echo "$fails case(s) failed"
  exit 1
fi
echo "all verify-seal and verify-post cases passed"
