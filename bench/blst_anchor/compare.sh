#!/bin/bash
# Measures REFERENCE.md §7's CPU anchors for blst and snarkpipe on this machine, in one
# harness (compare.cpp), and prints its JSON. blst comes from the npm package
# @chainsafe/blst (pinned below), which ships blst's source; it is built here with blst's own
# build.sh and used for measuring only. Needs `make` (or cmake --build build) done first, for
# snarkpipe's Release libraries in build/. Usage, in the repository root:
#   bash bench/blst_anchor/compare.sh [> bench/results/anchors/blst-anchor-DATE.json]
set -euo pipefail
BLST_NPM=@chainsafe/blst@0.2.11
work=build/blst-anchor
mkdir -p "$work"
if [ ! -f "$work/package/blst/libblst.a" ]; then
  (cd "$work" && npm pack --silent "$BLST_NPM" > /dev/null && tar xzf chainsafe-blst-*.tgz)
  # blst's own script and flags (-O; -D__ADX__, i.e. mulx_mont_384, on ADX machines). Its
  # Fp product is assembly either way; -O3 -march=native moves none of the numbers (measured).
  (cd "$work/package/blst" && sh build.sh > /dev/null 2>&1)
fi
g++ -O3 -std=c++20 -mbmi2 -madx -DSNARKPIPE_HAVE_ASM=1 -I src -I "$work/package/blst/bindings" \
  -o "$work/compare" bench/blst_anchor/compare.cpp build/src/pairing/libsnarkpipe_pairing.a \
  build/src/ec/libsnarkpipe_ec.a build/src/ff/libsnarkpipe_ff.a "$work/package/blst/libblst.a"
result=$("$work/compare")
python3 - "$result" "$BLST_NPM" <<'PY'
import json, os, subprocess, sys, datetime
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
out = {"command": "bash bench/blst_anchor/compare.sh",
       "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
       "machine": {"cpu": cpu, "threads": os.cpu_count(), "load_1min": os.getloadavg()[0]},
       "blst": sys.argv[2] + " (blst " + open("build/blst-anchor/package/blst/bindings/rust/Cargo.toml").read().split('version = "')[1].split('"')[0] + "), built by its build.sh",
       "method": "one binary; dependent chains (x = x*a), G1 Jacobian additions x += g, pairings of the generators; median of 9 timings after calibrating to ~0.3 s each (cli/timing.hpp, as bench cpu)",
       **json.loads(sys.argv[1])}
print(json.dumps(out, indent=1))
PY
