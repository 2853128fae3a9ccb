#!/usr/bin/env bash
# `make test-sanitize` (issue 27): the CPU test suite under ASan + UBSan (build-asan), then the
# engine and service test programs under TSan (build-tsan), the engine's soak among them
# (test_engine_soak); clang, the portable field code (SNARKPIPE_X86_ASM=OFF: instrumented code
# cannot give the inline asm its registers), no CUDA.
# Any sanitizer report fails its test (halt_on_error, -fno-sanitize-recover).
#
#   tests/sanitize/run.sh [asan|tsan|all]     (default: all)
#   SANITIZE_JOBS=2 ASAN_BUILD_DIR=build-asan TSAN_BUILD_DIR=build-tsan
#
# The ASan run is the test programs' cases (every ctest name with a dot, Suite.Case): 2 cores
# and CI's 90 minutes do not hold the instrumented CLI (a quarter of the build) and the script
# tests that drive it, node or cargo (cli_roundtrip, cli_serve_limits, engine_soak (the soak's
# core runs without the CLI as test_engine_soak, here and under TSan),
# filecoin_verify_seal_cli, circom_interop, service_daemon_process, ffi_*), nor the CircomFiles
# cases, which read circom_interop's files (a clean clone has none). SANITIZE_CLI=1
# builds the CLI too and runs those as well, but for ffi_rust_abi, ffi_install, ffi_exports
# (they load the library into programs that are not instrumented, or inspect installed files).
# ASan keeps 64 MiB of freed memory in quarantine, not 256: the daemon's tests bound its RSS.
# GPU tests (label gpu) need a device.
# Left out of the TSan run (TSAN_EXCLUDE), besides the script tests and the cluster's daemon
# tests (Cluster.*: `snarkpipe serve` hosts, the CLI, which the TSan tree does not build): the daemon tests that wait a
# fixed time for proofs (wait_done's 30 s): under TSan's slowdown on 2 cores their jobs do not
# finish in time, with no report (measured: 65-250 s, then a timeout failure); and the events
# test, whose six partitions of 12,000 constraints (each must outlast the stream's 100 ms poll)
# ran past 4 minutes under TSan, with no report.
set -euo pipefail
cd "$(dirname "$0")/../.."
JOBS=${SANITIZE_JOBS:-2}
WHICH=${1:-all}
TSAN_EXCLUDE=${TSAN_EXCLUDE:-'^Cluster\.|^[a-z0-9_]+$|^DaemonTest.CancelsQueuedAndRunningJobs$|^DaemonTest.EventsReportProgressThenTheFinishedJob$|^DaemonRestart\.|^DaemonAccess.TokensAreCheckedAndLimitsHold$'}
if [ "${SANITIZE_CLI:-0}" = 1 ]; then
  ASAN_EXCLUDE='^ffi_(rust_abi|install|exports)$' ASAN_CLI=snarkpipe
else
  # CircomFiles.* read the files circom_interop (a script test: the CLI, node, snarkjs) makes.
  # Cluster.* start `snarkpipe serve` hosts (the CLI).
  ASAN_EXCLUDE='^[a-z0-9_]+$|^CircomFiles\.|^Cluster\.' ASAN_CLI=
fi
# The sanitizer runtimes as shared libraries (-shared-libsan): the Filecoin ABI's .so links with
# --no-undefined, which the static runtime (linked into executables only) cannot satisfy.
RTDIR=$(dirname "$(clang -print-file-name=libclang_rt.asan-x86_64.so)")
COMMON=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2
        -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CUDA_COMPILER=OFF -DSNARKPIPE_X86_ASM=OFF)

configure() {  # dir, compile flags, link flags
  if [ ! -f "$1/build.ninja" ] || ! grep -q -- "$3" "$1/CMakeCache.txt"; then
    cmake -S . -B "$1" "${COMMON[@]}" -DCMAKE_C_FLAGS="$2" -DCMAKE_CXX_FLAGS="$2" \
      -DCMAKE_EXE_LINKER_FLAGS="$3" -DCMAKE_SHARED_LINKER_FLAGS="$3" >/dev/null
  fi
}

run_asan() {
  local B=${ASAN_BUILD_DIR:-build-asan} start=$(date +%s)
  configure "$B" "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -gline-tables-only" \
    "-fsanitize=address,undefined -shared-libsan -Wl,-rpath,$RTDIR"
  # Every test program and the ABI's libraries (test_supraseal_abi loads them); not the benchmarks.
  local targets
  targets=$(ninja -C "$B" -t targets all | sed -n 's/^\(test_[a-z0-9_]*\): phony$/\1/p' | sort -u)
  ninja -C "$B" -j "$JOBS" -k 0 $ASAN_CLI snarkpipe_supraseal snarkpipe_cuzk $targets
  echo "sanitize: asan build took $(( $(date +%s) - start )) s"
  start=$(date +%s)
  # detect_leaks: every test program ends with nothing allocated and unreachable.
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:quarantine_size_mb=64 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$B" -j "$JOBS" -LE gpu -E "$ASAN_EXCLUDE" --output-on-failure --timeout 1500
  echo "sanitize: asan tests took $(( $(date +%s) - start )) s"
}

run_tsan() {
  local B=${TSAN_BUILD_DIR:-build-tsan} start=$(date +%s)
  configure "$B" "-fsanitize=thread -fno-omit-frame-pointer -gline-tables-only" "-fsanitize=thread"
  # The test programs only: the command-line tests (the daemon's limits, ...) need the whole
  # CLI, which would double the build. The engine's soak runs here as test_engine_soak (the
  # soak's library without the CLI: 40 proofs a case, one dead device, then every device dead
  # and the CPU fallback; 31 s and 41 s side by side on the 2-core VM. Under TSan the soak runs
  # oneTBB without workers: their hand-offs, invisible to TSan, were suppressed reports costing
  # 93% of the time, src/engine/soak.cpp).
  ninja -C "$B" -j "$JOBS" -k 0 test_engine test_engine_parts test_engine_config test_engine_soak test_service test_http_gate
  echo "sanitize: tsan build took $(( $(date +%s) - start )) s"
  start=$(date +%s)
  TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/tests/sanitize/tsan.supp" \
    ctest --test-dir "$B" -j "$JOBS" -L 'engine|service' -LE gpu -E "$TSAN_EXCLUDE" --output-on-failure --timeout 1500
  echo "sanitize: tsan tests took $(( $(date +%s) - start )) s"
}

case "$WHICH" in
  asan) run_asan ;;
  tsan) run_tsan ;;
  all) run_asan; run_tsan ;;
  *) echo "usage: $0 [asan|tsan|all]" >&2; exit 2 ;;
esac
