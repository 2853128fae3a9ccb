#!/usr/bin/env bash
# A long fuzzing campaign (issue 27): every target in turn (one process at a time, nice 19),
# each until CAMPAIGN_RUNS executions or CAMPAIGN_SECONDS, whichever comes first, on its
# corpus in build-fuzz/campaign-corpus/<target> (seeded from tests/fuzz/corpus, kept across
# campaigns). Appends one JSON line per target to CAMPAIGN_OUT: executions, coverage,
# features, corpus size, seconds, crashes (their inputs in build-fuzz/fuzz-artifacts/).
#
#   tests/fuzz/campaign.sh [target ...]
#   CAMPAIGN_RUNS=10000000 CAMPAIGN_SECONDS=3600 CAMPAIGN_OUT=build-fuzz/campaign.jsonl
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${FUZZ_BUILD_DIR:-build-fuzz}
RUNS=${CAMPAIGN_RUNS:-10000000}
SECS=${CAMPAIGN_SECONDS:-3600}
OUT=${CAMPAIGN_OUT:-$BUILD/campaign.jsonl}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$BUILD"/tests/fuzz/fuzz_*; do [ -x "$f" ] && targets+=("$(basename "$f")"); done
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$BUILD/campaign-logs"
for t in "${targets[@]}"; do
  corpus="$BUILD/campaign-corpus/$t"
  artifacts="$BUILD/fuzz-artifacts/$t"
  log="$BUILD/campaign-logs/$t.log"
  mkdir -p "$corpus" "$artifacts"
  [ -d "tests/fuzz/corpus/$t" ] && cp -n "tests/fuzz/corpus/$t"/* "$corpus"/ 2>/dev/null || true
  flags=(-rss_limit_mb=2048 -timeout=10 -artifact_prefix="$artifacts/" -runs="$RUNS" -max_total_time="$SECS"
         -print_final_stats=1)
  [ -f "tests/fuzz/dict/$t.dict" ] && flags+=(-dict="tests/fuzz/dict/$t.dict")
  start=$(date +%s)
  status=ok
  nice -n 19 "$BUILD/tests/fuzz/$t" "${flags[@]}" "$corpus" >"$log" 2>&1 || status=crash
  secs=$(( $(date +%s) - start ))
  execs=$(grep -oE "stat::number_of_executed_units: *[0-9]+" "$log" | grep -oE "[0-9]+$" || echo 0)
  last=$(grep -E "^#[0-9]+" "$log" | tail -1 || true)
  cov=$(echo "$last" | grep -oE "cov: [0-9]+" | grep -oE "[0-9]+" || echo 0)
  ft=$(echo "$last" | grep -oE "ft: [0-9]+" | grep -oE "[0-9]+" || echo 0)
  files=$(ls "$corpus" | wc -l)
  printf '{"target": "%s", "status": "%s", "executions": %s, "seconds": %s, "cov": %s, "ft": %s, "corpus_files": %s, "date": "%s"}\n' \
    "$t" "$status" "${execs:-0}" "$secs" "${cov:-0}" "${ft:-0}" "$files" "$(date -u +%FT%TZ)" | tee -a "$OUT"
done
