#!/usr/bin/env bash
# Regenerates the seed corpus (tests/fuzz/corpus/<target>/) from files the project writes:
# snarkpipe's own setup / prove / export-circuit / export-vk on a tiny synthetic circuit, and
# circom2 + snarkjs (tests/interop/node_modules, `npm ci` there) on a 3-step MulChain for the
# circom .r1cs, .wtns and .zkey seeds, proved and exported again by snarkpipe. The keys come
# from fresh randomness, so the bytes differ from run to run; the shapes do not.
#
#   tests/fuzz/make_corpus.sh [SNARKPIPE]     (default: build/snarkpipe, the release build)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
SP=$(realpath "${1:-build/snarkpipe}")
BIN=$ROOT/tests/interop/node_modules/.bin
OUT=$ROOT/tests/fuzz/corpus
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
run() { "$@" > "$WORK/log" 2>&1 || { cat "$WORK/log"; echo "make_corpus: failed: $*"; exit 1; }; }
rm -rf "$OUT"
for t in g1 g2 proof params vk snkr1cs circom_r1cs wtns zkey snarkjs_vk snarkjs_proof snarkjs_public config service http http_framing \
         seal_record filecoin_vk filecoin_ids abi_params abi_assignment; do
  mkdir -p "$OUT/fuzz_$t"
done

# snarkpipe's own formats, from a synthetic circuit of 8 constraints and 2 public inputs.
C=(--circuit synthetic --constraints 8 --inputs 2 --no-cache)
run "$SP" setup "${C[@]}" --params s.params --vk s.vk
run "$SP" prove "${C[@]}" --backend cpu --params s.params --proof s.proof --public s.json
run "$SP" export-circuit "${C[@]}" --r1cs s.snkr1cs --wtns s.wtns --public s_public.json
run "$SP" export-vk --vk s.vk --out s_vk.json
cp s.params "$OUT/fuzz_params/synthetic8.params"
cp s.vk "$OUT/fuzz_params/synthetic8.vk"         # a .vk is a .params cut short
cp s.vk "$OUT/fuzz_vk/synthetic8.vk"
cp s.proof "$OUT/fuzz_proof/synthetic8.proof"
cat s.proof s.proof > "$OUT/fuzz_proof/two_partitions.proof"
cp s.snkr1cs "$OUT/fuzz_snkr1cs/synthetic8.snkr1cs"
cp s.wtns "$OUT/fuzz_wtns/synthetic8.wtns"

# Points cut out of those files: G1 compressed (proof A) and uncompressed (vk alpha_g1), G2
# compressed (proof B) and uncompressed (vk beta_g2), and the point at infinity each way.
cut() { dd if="$1" of="$2" bs=1 skip="$3" count="$4" status=none; }
cut s.proof "$OUT/fuzz_g1/proof_a.compressed" 0 48
cut s.proof "$OUT/fuzz_g1/proof_c.compressed" 144 48
cut s.vk "$OUT/fuzz_g1/vk_alpha.uncompressed" 0 96
cut s.proof "$OUT/fuzz_g2/proof_b.compressed" 48 96
cut s.vk "$OUT/fuzz_g2/vk_beta.uncompressed" 192 192
inf() { { printf "\\x$2"; head -c $(( $3 - 1 )) /dev/zero; } > "$1"; }
inf "$OUT/fuzz_g1/infinity.compressed" c0 48
inf "$OUT/fuzz_g1/infinity.uncompressed" 40 96
inf "$OUT/fuzz_g2/infinity.compressed" c0 96
inf "$OUT/fuzz_g2/infinity.uncompressed" 40 192

# circom / snarkjs: MulChain(3) for BLS12-381, keys from snarkpipe's test powers of tau.
if [ -x "$BIN/circom2" ] && [ -x "$BIN/snarkjs" ]; then
  cp "$ROOT/tests/interop/circom/mulchain.circom" .
  printf 'pragma circom 2.0.0;\ninclude "mulchain.circom";\ncomponent main {public [x]} = MulChain(3);\n' > main.circom
  echo '{"x": "3", "y": "11"}' > input.json
  run "$BIN/circom2" main.circom --r1cs --wasm --prime bls12381 -o .
  run "$BIN/snarkjs" wtns calculate main_js/main.wasm input.json w.wtns
  run "$SP" test-ptau --power 3 --seed 7 --out pot3.ptau
  run "$BIN/snarkjs" groth16 setup main.r1cs pot3.ptau k.zkey
  run "$SP" prove --zkey k.zkey --wtns w.wtns --proof proof.json --public public.json
  run "$SP" export-vk --zkey k.zkey --out vk.json
  cp main.r1cs "$OUT/fuzz_circom_r1cs/mulchain3.r1cs"
  cp w.wtns "$OUT/fuzz_wtns/mulchain3.wtns"
  cp k.zkey "$OUT/fuzz_zkey/mulchain3.zkey"
  cp vk.json "$OUT/fuzz_snarkjs_vk/mulchain3_vk.json"
  cp proof.json "$OUT/fuzz_snarkjs_proof/mulchain3_proof.json"
  cp public.json "$OUT/fuzz_snarkjs_public/mulchain3_public.json"
else
  echo "make_corpus: circom2/snarkjs missing (npm ci in tests/interop): no circom .r1cs or .zkey seeds" >&2
fi
cp s_vk.json "$OUT/fuzz_snarkjs_vk/synthetic8_vk.json"
cp s_public.json "$OUT/fuzz_snarkjs_public/synthetic8_public.json"
echo '[]' > "$OUT/fuzz_snarkjs_public/empty.json"

# The configuration: the documented file, and small ones.
cp "$ROOT/config/snarkpipe.toml" "$OUT/fuzz_config/snarkpipe.toml"
printf '[engine]\nbackend = "cpu"\n[synthesis]\nworkers = "auto"\nlookahead = 4\n[memory]\nbudget = "1.5GiB"\nmargin = "auto"\n' > "$OUT/fuzz_config/small.toml"
printf 'memory.device_budget=512 MiB' > "$OUT/fuzz_config/override.txt"

# The daemon's requests: the first byte picks the route (0 register, 1 submit, 2 job, 3 cancel, 4 circuit info).
printf '\x00{"type": "c"}' > "$OUT/fuzz_service/register.bin"
printf '\x00{"type": "synthetic", "constraints": "2^10", "inputs": 2, "seed": 7}' > "$OUT/fuzz_service/register_other.bin"
printf '\x01{"circuit": "c", "partitions": 3, "priority": "HIGH", "idempotency_key": "k1", "seed": 5}' > "$OUT/fuzz_service/submit.bin"
printf '\x01{"circuit": "c"}' > "$OUT/fuzz_service/submit_min.bin"
printf '\x021' > "$OUT/fuzz_service/job.bin"
printf '\x0318446744073709551615' > "$OUT/fuzz_service/cancel.bin"
printf '\x04c' > "$OUT/fuzz_service/circuit_info.bin"

# The daemon's HTTP framing (fuzz_http): the requests snarkpipe's client sends, recorded, then
# framings the client does not use (chunked, pipelined) and, through fuzz_http's repeat escape
# (FF FE k L <L bytes>: the L bytes 2^k times), bodies, header lists and URIs over the limits.
H=$OUT/fuzz_http
python3 "$ROOT/tests/fuzz/record_requests.py" "$WORK/http" 18777 & RECORDER=$!
mkdir -p "$WORK/http"; sleep 0.5
S=(--server http://127.0.0.1:18777)
"$SP" jobs "${S[@]}" --token t0k3n >/dev/null 2>&1 || true
"$SP" cancel "${S[@]}" 12 >/dev/null 2>&1 || true
printf 'abcdefgh' > w.bin
"$SP" submit "${S[@]}" --circuit c --packed w.bin --partitions 1 --priority high --idempotency-key k1 --timeout 1 \
  >/dev/null 2>&1 || true
"$SP" register "${S[@]}" --name c2 --params w.bin --r1cs w.bin >/dev/null 2>&1 || true
"$SP" register "${S[@]}" --name c3 --params w.bin --r1cs w.bin --upload >/dev/null 2>&1 || true
kill "$RECORDER"
for f in "$WORK"/http/*.http; do sed 's/Host: 127.0.0.1:18777/Host: 127.0.0.1/' "$f" > "$H/client_$(basename "$f")"; done
printf 'GET /v1/status HTTP/1.1\r\nHost: h\r\n\r\n' > "$H/status.http"
printf 'GET /v1/jobs/1/wait?timeout_s=1 HTTP/1.1\r\nHost: h\r\n\r\nGET /v1/jobs/1/events HTTP/1.1\r\n\r\n' > "$H/pipelined.http"
printf 'POST /v1/circuits HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{"ty\r\n9\r\npe": "c"}\r\n0\r\n\r\n' > "$H/chunked_json.http"
printf 'POST /v1/jobs HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 17\r\n\r\n{"circuit": "c"}\n' > "$H/submit_json.http"
printf 'PUT /v1/circuits/c4/files/params HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n8\r\nabcdefgh\r\n0\r\n\r\n' > "$H/upload_chunked.http"
printf 'POST /v1/circuits HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n\xff\xfe\x10\x0a4000\r\n\xff\xfe\x0e\x04xxxx\r\n0\r\n\r\n' > "$H/json_chunked_over_limit.http"
printf 'GET /v1/status HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n\xff\xfe\x11\x0e8\r\nabcdefgh\r\n0\r\n\r\n' > "$H/body_on_get.http"
printf 'GET /v1/status HTTP/1.1\r\n\xff\xfe\x12\x0bX-Pad: abc\r\n\r\n' > "$H/many_headers.http"
printf 'GET /v1/circuits/\xff\xfe\x0c\x01a HTTP/1.1\r\n\r\n' > "$H/long_uri.http"
printf 'GET /no/\xff\xfe\x08\x01b HTTP/1.1\r\n\r\n' > "$H/unrouted.http"
# fuzz_http_framing: the same requests with a first byte that seeds the cuts (the repeat
# escapes are plain bytes there).
for f in "$H"/*.http; do { printf '\x00'; cat "$f"; } > "$OUT/fuzz_http_framing/$(basename "$f")"; done

# Filecoin (src/filecoin): real seal records and verifying keys from tests/filecoin/data, the
# sealed CID of the real 32 GiB sector in ../shared/vectors/filecoin (when there), small strings.
FC=$ROOT/tests/filecoin/data
n=0
while IFS= read -r line; do
  n=$((n + 1)); printf '%s' "$line" > "$OUT/fuzz_seal_record/rust-fil-proofs-v16-$n.json"
done < "$FC/rust-fil-proofs-v16-32gib/records.jsonl"
cp "$FC/polka-storage-porep-2kib/record.json" "$OUT/fuzz_seal_record/polka-porep-2kib.json"
for k in porep post; do
  cp "$FC/polka-storage-$k-2kib/vk.hex" "$OUT/fuzz_filecoin_vk/polka-$k-2kib.vk.hex"
  tr -d ' \n' < "$FC/polka-storage-$k-2kib/vk.hex" | xxd -r -p > "$OUT/fuzz_filecoin_vk/polka-$k-2kib.vk"
done
# The PoSt key cut to its first two IC points (ic.count 2): a compressed key under the target's
# max_len (fuzz_filecoin_vk.options), binary and hex.
python3 - "$OUT/fuzz_filecoin_vk/polka-post-2kib.vk" "$OUT/fuzz_filecoin_vk/polka-post-2kib-2ic.vk" <<'PY'
import sys
key = open(sys.argv[1], "rb").read()
cut = key[:432] + (2).to_bytes(4, "big") + key[436:436 + 2 * 48]
open(sys.argv[2], "wb").write(cut)
open(sys.argv[2] + ".hex", "w").write(cut.hex() + "\n")
PY
cp s.vk "$OUT/fuzz_filecoin_vk/synthetic8.vk"
VEC=$ROOT/../shared/vectors/filecoin
if [ -f "$VEC/postpub.json" ]; then
  grep -o 'bag[a-z2-7]*' "$VEC/postpub.json" | head -1 | tr -d '\n' > "$OUT/fuzz_filecoin_ids/sealed_cid_32gib.txt"
fi
printf 'baga6ea4seaqao7s73y24kcutaosvacpdjgfe5pw76ooefnyqw4ynr3d2y6x2mpq' > "$OUT/fuzz_filecoin_ids/unsealed_cid.txt"
printf '0x%s' "$(head -c 32 /dev/zero | xxd -p -c 64)" > "$OUT/fuzz_filecoin_ids/hex32.txt"
printf 'f01000' > "$OUT/fuzz_filecoin_ids/actor.txt"
printf 'StackedDrgWindow32GiBV1_2' > "$OUT/fuzz_filecoin_ids/post_proof.txt"
printf '32GiB' > "$OUT/fuzz_filecoin_ids/sector_size.txt"
printf 'V1_2_0' > "$OUT/fuzz_filecoin_ids/api_version.txt"

# The supraseal-c2 ABI (src/ffi): the key as a caller's .params, and batches (zero bytes keep
# the fuzz target's valid assignment; the others change a size, a value, a pointer).
cp s.params "$OUT/fuzz_abi_params/synthetic8.params"
head -c 64 /dev/zero > "$OUT/fuzz_abi_assignment/valid.bin"
{ head -c 63 /dev/zero; printf '\x01'; } > "$OUT/fuzz_abi_assignment/two_circuits.bin"
{ printf '\x01\x02\x03\x04'; head -c 60 /dev/zero; } > "$OUT/fuzz_abi_assignment/randomizers.bin"
{ head -c 40 /dev/zero; printf '\x03\x01\x00\x00\x07\x02\x00\x01'; head -c 16 /dev/zero; } > "$OUT/fuzz_abi_assignment/sizes.bin"

du -sh "$OUT"/* | sed "s|$OUT/||"
