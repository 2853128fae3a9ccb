#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) in build-fuzz and runs each for FUZZ_SECONDS on a
# copy of its seed corpus (tests/fuzz/corpus/<target>, copied to build-fuzz/fuzz-corpus so
# runs add nothing to git), after replaying the regression inputs (tests/fuzz/regressions).
# Exits 1 when any target finds a crash, leak, timeout or out-of-memory; the inputs that do
# land in build-fuzz/fuzz-artifacts/<target>/, the logs in build-fuzz/fuzz-logs/.
#
#   tests/fuzz/run_all.sh [target ...]        (default: every target)
#   FUZZ_SECONDS=60 FUZZ_BUILD_DIR=build-fuzz FUZZ_JOBS=2 FUZZ_RSS_MB=2048 FUZZ_TIMEOUT=10
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BUILD=${FUZZ_BUILD_DIR:-build-fuzz}
SECONDS_EACH=${FUZZ_SECONDS:-60}
JOBS=${FUZZ_JOBS:-2}
RSS_MB=${FUZZ_RSS_MB:-2048}
TIMEOUT=${FUZZ_TIMEOUT:-10}
SAN="-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer"

if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_C_FLAGS="$SAN" -DCMAKE_CXX_FLAGS="$SAN" \
    -DCMAKE_CUDA_COMPILER=OFF -DSNARKPIPE_X86_ASM=OFF -DSNARKPIPE_FUZZ=ON >/dev/null
fi
start=$(date +%s)
ninja -C "$BUILD" -j "$JOBS" fuzzers
echo "fuzz: build took $(( $(date +%s) - start )) s"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$BUILD"/tests/fuzz/fuzz_*; do
    name=$(basename "$f")
    # A target with an open finding (tests/fuzz/open-findings/<target>: a known, unfixed bug it
    # rediscovers within seconds) runs only when named, or with FUZZ_INCLUDE_OPEN=1.
    if [ -d "tests/fuzz/open-findings/$name" ] && [ "${FUZZ_INCLUDE_OPEN:-0}" != 1 ]; then
      echo "fuzz: $name left out (open finding: tests/fuzz/open-findings/$name)"
      continue
    fi
    [ -x "$f" ] && targets+=("$name")
  done
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$BUILD/fuzz-logs"
# One target: its regressions, then SECONDS_EACH of fuzzing; its summary line and status go to
# fuzz-logs/<target>.summary and .status. FUZZ_JOBS targets run at once (each libFuzzer
# process uses one core), so CI's 2 cores take the 60 s per target in half the wall time.
run_one() {
  local t=$1 bin="$BUILD/tests/fuzz/$1" corpus="$BUILD/fuzz-corpus/$1" artifacts="$BUILD/fuzz-artifacts/$1"
  local log="$BUILD/fuzz-logs/$1.log" status
  mkdir -p "$corpus" "$artifacts"
  [ -d "tests/fuzz/corpus/$t" ] && cp -n "tests/fuzz/corpus/$t"/* "$corpus"/ 2>/dev/null || true
  local flags=(-rss_limit_mb="$RSS_MB" -timeout="$TIMEOUT" -artifact_prefix="$artifacts/")
  [ -f "tests/fuzz/dict/$t.dict" ] && flags+=(-dict="tests/fuzz/dict/$t.dict")
  # The regressions first: each must run clean.
  if [ -d "tests/fuzz/regressions/$t" ] && [ -n "$(ls -A "tests/fuzz/regressions/$t")" ]; then
    if ! "$bin" "${flags[@]}" "tests/fuzz/regressions/$t"/* >"$log.regressions" 2>&1; then
      echo "fuzz: $t: a regression input fails again (see $log.regressions)"
      echo FAILED > "$BUILD/fuzz-logs/$t.status"
      printf '%-22s %s\n' "$t" "REGRESSION FAILED" > "$BUILD/fuzz-logs/$t.summary"
      return
    fi
  fi
  echo "fuzz: $t for ${SECONDS_EACH} s"
  if "$bin" "${flags[@]}" -max_total_time="$SECONDS_EACH" -print_final_stats=1 "$corpus" >"$log" 2>&1; then
    status=ok
  else
    status=FAILED
    grep -E "ERROR: |SUMMARY: |Test unit written" "$log" | head -5 || true
  fi
  local execs rate last cov ft
  execs=$(grep -oE "stat::number_of_executed_units: *[0-9]+" "$log" | grep -oE "[0-9]+$" || echo "?")
  rate=$(grep -oE "exec/s: *[0-9]+" "$log" | tail -1 | grep -oE "[0-9]+$" || echo "?")
  last=$(grep -E "^#[0-9]+" "$log" | tail -1 || true)
  cov=$(echo "$last" | grep -oE "cov: [0-9]+" | grep -oE "[0-9]+" || echo "?")
  ft=$(echo "$last" | grep -oE "ft: [0-9]+" | grep -oE "[0-9]+" || echo "?")
  echo "$status" > "$BUILD/fuzz-logs/$t.status"
  printf '%-22s %-6s execs %-9s exec/s %-7s cov %-6s ft %s\n' "$t" "$status" "$execs" "$rate" "$cov" "$ft" \
    > "$BUILD/fuzz-logs/$t.summary"
}

running=0
for t in "${targets[@]}"; do
  rm -f "$BUILD/fuzz-logs/$t.status" "$BUILD/fuzz-logs/$t.summary"
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait
failed=()
summary=()
for t in "${targets[@]}"; do
  [ "$(cat "$BUILD/fuzz-logs/$t.status" 2>/dev/null)" = ok ] || failed+=("$t")
  summary+=("$(cat "$BUILD/fuzz-logs/$t.summary" 2>/dev/null || echo "$t (no result)")")
done

echo "fuzz: summary (${SECONDS_EACH} s each; logs in $BUILD/fuzz-logs)"
for s in "${summary[@]}"; do echo "  $s"; done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (inputs in $BUILD/fuzz-artifacts/)"
  exit 1
fi
echo "fuzz: no findings"
