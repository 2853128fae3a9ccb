#!/usr/bin/env bash
# `snarkpipe serve` refuses registrations over its size limit before the work (synthetic's
# constraints, porep-like's challenge data) or as the recording passes the limit (a circuit
# whose size only recording tells), answers 400 with the reason, keeps serving, and stops on
# SIGTERM. HTTP through node's fetch (node is a test peer already).
set -u
SNARKPIPE="$1"
DIR=$(mktemp -d)
PID=""
trap '[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null; rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; cat "$DIR/serve.log" 2>/dev/null | tail -20; exit 1; }
command -v node >/dev/null || fail "node is not installed (make deps installs it)"

"$SNARKPIPE" serve --listen 127.0.0.1:0 --backend cpu --max-constraints 2^12 2> "$DIR/serve.log" &
PID=$!
PORT=""
for _ in $(seq 100); do
  PORT=$(sed -n 's|.*daemon on http://127.0.0.1:\([0-9]*\).*|\1|p' "$DIR/serve.log" | head -1)
  [ -n "$PORT" ] && break
  sleep 0.1
done
[ -n "$PORT" ] || fail "the daemon did not say its port"

# post BODY -> prints "STATUS BODY"; fails the test past 10 s (a refusal must be quick).
post() {
  node -e '
    const ctl = AbortSignal.timeout(10000);
    fetch(process.argv[1], {method: "POST", body: process.argv[2], signal: ctl})
      .then(async r => console.log(r.status, await r.text()))
      .catch(e => { console.log("ERR", e.message); process.exit(1); });' "http://127.0.0.1:$PORT/v1/circuits" "$1"
}
expect() {  # expect STATUS SUBSTRING BODY
  local out
  out=$(post "$3") || fail "no answer within 10 s to $3: $out"
  case "$out" in "$1 "*"$2"*) ;; *) fail "$3 answered '$out', wanted $1 with '$2'" ;; esac
}
expect 400 "over this daemon's limit" '{"type": "synthetic", "constraints": "2^20"}'
expect 400 "8 full partitions" '{"type": "porep-like", "scale": "tiny", "challenges": 1000000000000, "log2_nodes": 42}'
expect 400 "more than 4096 constraints" '{"type": "sha256-preimage", "blocks": 1}'
expect 200 '"created":true' '{"type": "synthetic", "constraints": "2^10"}'

kill -TERM "$PID"
for _ in $(seq 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$PID" 2>/dev/null && fail "the daemon did not stop within 10 s of SIGTERM"
wait "$PID"; rc=$?
PID=""
[ "$rc" = 0 ] || fail "the daemon exited $rc after SIGTERM"
echo "ok: registrations over the limit refused (400), one under it registered, SIGTERM stopped the daemon"
