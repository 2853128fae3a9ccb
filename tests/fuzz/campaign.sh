#!/usr/bin/env bash
# A long fuzzing campaign (issue 27): every target, each until CAMPAIGN_RUNS executions or
# CAMPAIGN_SECONDS, whichever comes first, on CAMPAIGN_JOBS cores (nice 19). A target named as
# TARGET:N runs N libFuzzer processes at once on one corpus, each to CAMPAIGN_RUNS/N executions:
# libFuzzer's own parallel mode (each process reloads the shared corpus directory, -reload, so
# what one finds the others mutate), which lets a slow decoder reach its executions on many
# cores. The corpus is <work>/campaign-corpus/<target> (seeded from the seed corpus, kept
# across campaigns, so a campaign can go on where the last one stopped: CAMPAIGN_WORK).
# Appends one JSON line per target to CAMPAIGN_OUT: executions (summed over its processes),
# exec/s, coverage, features, corpus size, seconds, status (crash: its input in
# <work>/fuzz-artifacts/<target>/, its logs in <work>/campaign-logs/).
#
#   tests/fuzz/campaign.sh [target[:N] ...]   from the source tree, binaries in build-fuzz
#   DIR/campaign.sh [target[:N] ...]          from a pack (tests/fuzz/pack.sh DIR): binaries in
#                                             DIR/bin, libraries in DIR/lib, work in DIR/work
#   CAMPAIGN_RUNS=10000000 CAMPAIGN_SECONDS=3600 CAMPAIGN_JOBS=1 CAMPAIGN_OUT=<work>/campaign.jsonl
#   CAMPAIGN_RSS_MB=2048 CAMPAIGN_TIMEOUT=10
#   CAMPAIGN_WALL=<s>   the whole campaign's wall time: a target that starts late (its cores
#                       were busy) runs only until then, and none starts in its last minute
#
# Left out unless named: targets with an open finding (tests/fuzz/open-findings/<target>: a
# known bug they rediscover within seconds; CAMPAIGN_INCLUDE_OPEN=1 takes them in) and those in
# CAMPAIGN_EXCLUDE (default "fuzz_abi_prove fuzz_http", the end-to-end harnesses: a proof per
# execution, ~20 exec/s per process, and a real daemon over sockets, ~40 exec/s; both run in
# `make fuzz`, and here when named; the decoders under them have their own targets:
# fuzz_abi_assignment, fuzz_http_framing, fuzz_service).
# A target's options (tests/fuzz/<target>.options, "[libfuzzer]" then "key = value" lines, the
# OSS-Fuzz format) become -key=value flags: the length caps that keep the slow decoders fast.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -d "$HERE/bin" ]; then
  # A pack: everything beside this script.
  BIN=$HERE/bin
  FUZZ=$HERE
  WORK=${CAMPAIGN_WORK:-$HERE/work}
  export LD_LIBRARY_PATH=$HERE/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  # pack.sh compressed the binaries (over its size limit): unpacked once, by xz or Python's lzma.
  for z in "$BIN"/*.xz; do
    [ -e "$z" ] || break
    if command -v xz >/dev/null; then
      xz -d -T0 "$BIN"/*.xz
    else
      python3 -c 'import lzma, os, sys
for z in sys.argv[1:]:
    open(z[:-3], "wb").write(lzma.open(z).read()); os.chmod(z[:-3], 0o755); os.remove(z)' "$BIN"/*.xz
    fi
    break
  done
else
  cd "$HERE/../.."
  BUILD=${FUZZ_BUILD_DIR:-build-fuzz}
  BIN=$PWD/$BUILD/tests/fuzz
  FUZZ=$PWD/tests/fuzz
  WORK=${CAMPAIGN_WORK:-$PWD/$BUILD}
fi
RUNS=${CAMPAIGN_RUNS:-10000000}
SECS=${CAMPAIGN_SECONDS:-3600}
JOBS=${CAMPAIGN_JOBS:-1}
END=$(( $(date +%s) + ${CAMPAIGN_WALL:-1000000000} ))
OUT=${CAMPAIGN_OUT:-$WORK/campaign.jsonl}
EXCLUDE=" ${CAMPAIGN_EXCLUDE-fuzz_abi_prove fuzz_http} "

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$BIN"/fuzz_*; do
    t=$(basename "$f")
    [ -x "$f" ] || continue
    if [ -d "$FUZZ/open-findings/$t" ] && [ "${CAMPAIGN_INCLUDE_OPEN:-0}" != 1 ]; then
      echo "campaign: $t left out (open finding: open-findings/$t)"
      continue
    fi
    if [[ "$EXCLUDE" == *" $t "* ]]; then
      echo "campaign: $t left out (CAMPAIGN_EXCLUDE)"
      continue
    fi
    targets+=("$t")
  done
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$WORK/campaign-logs"

# "[libfuzzer]" section of an options file -> -key=value flags.
options_flags() {
  [ -f "$1" ] || return 0
  awk '/^\[/ {sec = $0; next}
       sec == "[libfuzzer]" && /=/ {k = $1; sub(/^[^=]*= */, ""); printf "-%s=%s\n", k, $0}' "$1"
}

# One libFuzzer process of a target: worker $2 of $3, to $RUNS/$3 executions, on the shared
# corpus. Its log is campaign-logs/<target>.<worker>.log, its status beside it.
run_worker() {
  local t=$1 w=$2 n=$3 corpus="$WORK/campaign-corpus/$1" artifacts="$WORK/fuzz-artifacts/$1"
  local log="$WORK/campaign-logs/$t.$w.log"
  local secs=$SECS left=$(( END - $(date +%s) ))
  [ "$left" -lt "$secs" ] && secs=$left
  local flags=(-rss_limit_mb="${CAMPAIGN_RSS_MB:-2048}" -timeout="${CAMPAIGN_TIMEOUT:-10}" -artifact_prefix="$artifacts/"
               -runs="$(( (RUNS + n - 1) / n ))" -max_total_time="$secs" -print_final_stats=1 -seed="$((RANDOM * 32768 + RANDOM + w))")
  [ -f "$FUZZ/dict/$t.dict" ] && flags+=(-dict="$FUZZ/dict/$t.dict")
  mapfile -t -O ${#flags[@]} flags < <(options_flags "$FUZZ/$t.options")
  local status=ok
  nice -n 19 "$BIN/$t" "${flags[@]}" "$corpus" >"$log" 2>&1 || status=crash
  echo "$status" > "$WORK/campaign-logs/$t.$w.status"
}

# A target's JSON line, from its workers' logs: executions summed, exec/s their sum, coverage
# and features the largest any worker reached.
summarize() {
  local t=$1 n=$2 secs=$3 status=ok execs=0 rate=0 cov=0 ft=0 w log e r last c f files
  for ((w = 0; w < n; w++)); do
    log="$WORK/campaign-logs/$t.$w.log"
    [ "$(cat "$WORK/campaign-logs/$t.$w.status" 2>/dev/null)" = ok ] || status=crash
    e=$(grep -oE "stat::number_of_executed_units: *[0-9]+" "$log" | grep -oE "[0-9]+$" || echo 0)
    r=$(grep -oE "stat::average_exec_per_sec: *[0-9]+" "$log" | grep -oE "[0-9]+$" || echo 0)
    last=$(grep -E "^#[0-9]+" "$log" | tail -1 || true)
    c=$(echo "$last" | grep -oE "cov: [0-9]+" | grep -oE "[0-9]+" || echo 0)
    f=$(echo "$last" | grep -oE "ft: [0-9]+" | grep -oE "[0-9]+" || echo 0)
    execs=$((execs + ${e:-0})); rate=$((rate + ${r:-0}))
    [ "${c:-0}" -gt "$cov" ] && cov=$c
    [ "${f:-0}" -gt "$ft" ] && ft=$f
  done
  files=$(ls "$WORK/campaign-corpus/$t" | wc -l)
  echo "$status" > "$WORK/campaign-logs/$t.status"
  # One short line per write: appends from parallel jobs do not interleave.
  printf '{"target": "%s", "status": "%s", "executions": %s, "exec_per_s": %s, "processes": %s, "seconds": %s, "cov": %s, "ft": %s, "corpus_files": %s, "date": "%s"}\n' \
    "$t" "$status" "$execs" "$rate" "$n" "$secs" "$cov" "$ft" "$files" "$(date -u +%FT%TZ)" | tee -a "$OUT"
}

# One target, start to JSON line: its N workers at once.
run_target() {
  local t=$1 n=$2 start w
  mkdir -p "$WORK/campaign-corpus/$t" "$WORK/fuzz-artifacts/$t"
  [ -d "$FUZZ/corpus/$t" ] && cp -n "$FUZZ/corpus/$t"/* "$WORK/campaign-corpus/$t"/ 2>/dev/null || true
  start=$(date +%s)
  for ((w = 0; w < n; w++)); do run_worker "$t" "$w" "$n" & done
  wait
  summarize "$t" "$n" "$(( $(date +%s) - start ))"
}

echo "campaign: ${#targets[@]} targets on $JOBS cores, each to $RUNS runs or $SECS s; lines to $OUT"
# Targets start in the order named while their processes fit in CAMPAIGN_JOBS cores (one that
# asks for more than all of them gets them all).
busy=0
declare -A cores_of
names=()
for spec in "${targets[@]}"; do
  t=${spec%%:*}
  n=1
  [[ "$spec" == *:* ]] && n=${spec#*:}
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "campaign: $spec: N must be a positive number of processes" >&2; exit 2; }
  [ -x "$BIN/$t" ] || { echo "campaign: $t is not built ($BIN/$t)" >&2; exit 2; }
  [ "$n" -gt "$JOBS" ] && n=$JOBS
  while [ $((busy + n)) -gt "$JOBS" ]; do
    wait -n || true
    busy=0
    for d in "${names[@]}"; do [ -f "$WORK/campaign-logs/$d.status" ] || busy=$((busy + ${cores_of[$d]})); done
  done
  if [ $(( END - $(date +%s) )) -lt 60 ]; then
    echo "campaign: $t not started: less than a minute of CAMPAIGN_WALL is left"
    continue
  fi
  cores_of[$t]=$n
  names+=("$t")
  rm -f "$WORK/campaign-logs/$t".*status
  run_target "$t" "$n" &
  busy=$((busy + n))
done
wait
crashed=()
for t in "${names[@]}"; do
  [ "$(cat "$WORK/campaign-logs/$t.status" 2>/dev/null)" = ok ] || crashed+=("$t")
done
if [ ${#crashed[@]} -gt 0 ]; then
  echo "campaign: CRASHED: ${crashed[*]} (inputs in $WORK/fuzz-artifacts/, logs in $WORK/campaign-logs/)"
  exit 1
fi
echo "campaign: no crashes"
