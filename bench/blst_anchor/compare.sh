#!/bin/bash
# Measures REFERENCE.md §7's CPU anchors for blst and snarkpipe on this machine, in one
# harness (compare.cpp), and writes its record (stdout, or --out FILE). blst comes from the npm package
# @chainsafe/blst (pinned below), which ships blst's source; it is built here with blst's own
# build.sh and used for measuring only. Needs `make` (or cmake --build build) done first, for
# snarkpipe's Release libraries in build/. Usage, in the repository root:
#   bash bench/blst_anchor/compare.sh [--out bench/results/anchors/blst-anchor-DATE.json]
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
blst_version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$work/package/blst/bindings/rust/Cargo.toml" | head -1)
# The record (machine, date, commit, numbers) comes from the benchmarks' writer (cli/bench_record.hpp).
g++ -O3 -std=c++20 -mbmi2 -madx -DSNARKPIPE_HAVE_ASM=1 -I src -I "$work/package/blst/bindings" \
  -o "$work/compare" bench/blst_anchor/compare.cpp build/src/cli/libsnarkpipe_bench_record.a \
  build/src/pairing/libsnarkpipe_pairing.a build/src/ec/libsnarkpipe_ec.a build/src/ff/libsnarkpipe_ff.a \
  "$work/package/blst/libblst.a"
"$work/compare" --blst "$BLST_NPM (blst $blst_version)" "$@"
