#!/bin/bash
# One device call: the GPU tests, then `snarkpipe bench gpu`, from binaries built here and
# carried over (the device image has nvcc and CMake but not the project's Debian
# dependencies). Usage, in the repository root:
#   build:  cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release
#           ninja -C build-cuda test_cuda_arith test_cuda_ntt test_cuda_msm test_cuda_prover snarkpipe
#   pack:   bash bench/cuda/run_device.sh --pack        (→ build-cuda/dist: binaries, xz-compressed, + libs)
#   run:    device run, carry build-cuda/dist:  bash bench/cuda/run_device.sh
# Writes under $OUT: env.txt, tests.log, bench.json/.log (the sizes up to 2^24, the NTT and
# the H computation at 2^27), bench_big.json/.log (G1 at 2^26 and 2^27, last, as they take
# longest), sass.txt.gz.
# SKIP_TESTS=1 runs the benchmarks alone.
# SKIP_BENCH=1 skips `bench gpu`, SKIP_SASS=1 the SASS dump.
# A/B of compile-time variants: bench/cuda/build_variant.sh (here) and bench/cuda/ab_device.sh (there).
set -u
DIST=build-cuda/dist
if [ "${1:-}" = "--pack" ]; then
  rm -rf "$DIST" && mkdir -p "$DIST/lib"
  cp build-cuda/tests/cuda/test_cuda_{arith,ntt,msm,prover,zkey,faults} build-cuda/snarkpipe "$DIST/"
  bash bench/cuda/pack_libs.sh "$DIST/lib" "$DIST"/snarkpipe* $(ls "$DIST"/test_* "$DIST"/*.so* 2>/dev/null)
  # Stripped and xz-compressed, so the binaries fit the device tool's 64 MiB carry
  # (unpacked there by the run below).
  for f in "$DIST"/snarkpipe "$DIST"/test_cuda_*; do
    [ -f "$f" ] && strip "$f" && xz -T0 -6 -f "$f"
  done
  du -sh "$DIST"
  exit 0
fi
for f in "$DIST"/*.xz; do [ -e "$f" ] && xz -d -f "$f" && chmod +x "${f%.xz}"; done
OUT=${OUT:-/tmp/snarkpipe-gpu-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/$DIST/lib:${LD_LIBRARY_PATH:-}"
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,memory.used --format=csv
  nproc; grep -m1 "model name" /proc/cpuinfo; nvcc --version | tail -1
  ls -d /usr/include/tbb /usr/include/gtest /usr/include/nlohmann 2>&1
} > "$OUT/env.txt" 2>&1
[ -n "${SKIP_TESTS:-}" ] || {
  for t in arith:45 ntt:60 msm:120 prover:240 zkey:120 faults:120; do
    echo "=== test_cuda_${t%%:*}"
    timeout "${t##*:}" "$DIST/test_cuda_${t%%:*}" 2>&1 | grep -vE "^\[ RUN|^\[       OK"
    echo "=== test_cuda_${t%%:*} exit ${PIPESTATUS[0]}"
  done
} > "$OUT/tests.log" 2>&1
grep -E "^===|PASSED|FAILED|SKIPPED" "$OUT/tests.log"
# --json sends the per-size lines to stderr (the logs); every size is written to -o as it ends.
[ -n "${SKIP_BENCH:-}" ] || timeout 330 "$DIST/snarkpipe" bench gpu --rates --ntt 20,24,27 --g1 20,22,24 --g2 20,22,24 \
  --h-poly 27 --runs 5 --warmup 1 --json -o "$OUT/bench.json" > /dev/null 2> "$OUT/bench.log"
echo "bench exit $?"
[ -n "${SKIP_BENCH:-}" ] || timeout 200 "$DIST/snarkpipe" bench gpu --ntt "" --g1 26,27 --g2 "" --h-poly "" --runs 5 \
  --warmup 1 --json -o "$OUT/bench_big.json" > /dev/null 2> "$OUT/bench_big.log"
echo "bench_big exit $?"
# Whole proofs of PoRep-shape partitions (PROVE_SCALES, e.g. "1/1024 1/16"), GPU setup included.
for s in ${PROVE_SCALES:-}; do
  tag=$(echo "$s" | tr '/' '_')
  timeout "${PROVE_TIMEOUT:-300}" "$DIST/snarkpipe" bench prove --circuit synthetic --scale "$s" --backend cuda \
    --runs "${PROVE_RUNS:-3}" ${PROVE_FLAGS:-} --json -o "$OUT/prove_$tag.json" > /dev/null 2> "$OUT/prove_$tag.log"
  echo "prove $s exit $?"; tail -4 "$OUT/prove_$tag.log"
done
[ -n "${SKIP_SASS:-}" ] || cuobjdump -sass "$DIST/snarkpipe" 2>/dev/null | gzip > "$OUT/sass.txt.gz"
# Instruction mix of the Fp and Fr multiplication throughput kernels (4 chains × mul, unrolled).
[ -n "${SKIP_SASS:-}" ] || for f in FpParams32 FrParams32; do
  echo "== $f rate kernel"
  zcat "$OUT/sass.txt.gz" | awk -v f="$f" '$0 ~ ("Function : .*rate_kernel.*" f "EEELi0") {on=1; next} /Function :/ {on=0} on' |
    grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+[A-Z0-9_.]+' | awk '{print $2}' | sort | uniq -c | sort -rn | head -12
done
python3 - "$OUT/bench.json" "$OUT/bench_big.json" <<'PY'
import json, os, sys
for path in sys.argv[1:]:
  if not os.path.exists(path): continue
  d = json.load(open(path))
  print(d["device"], d["driver"])
  for r in d.get("rates", []): print(f'{r["op"]:14} {r["ops_per_s"]:.3e}/s')
  for r in d["results"]:
    print(f'{r["op"]:7} 2^{r["log_n"]:<3} median {r["median_ms"]:9.3f} ms  min {r["min_ms"]:9.3f}  max {r["max_ms"]:9.3f}  '
          f'verified {r.get("verified")}  {r.get("phases_ms", "")}')
PY
