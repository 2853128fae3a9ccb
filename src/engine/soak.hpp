// The engine's soak (issue 27): proofs through engine::Engine on the CPU, with faults injected
// at random points, then the checks that the engine lost nothing, duplicated nothing, returned
// no proof that does not verify, and ended every job for the reason it was given.
//
// Faults: witness sources that throw, give an unsatisfying witness, or grow their buffer past
// the host budget; a scripted backend (a wrapper around groth16::CpuBackend, one per worker of
// several fake devices) whose start() fails, runs slow, or returns corrupted proof parts that
// self-verification must catch; one device that dies and must be taken out of service (or, with
// all_devices_die, every device, one after another: the engine must go on on its CPU fallback,
// gpu.cpu_fallback, and finish every job there); cancellations at random times; duplicate
// submissions under one idempotency key; a circuit whose partition can never fit the host
// budget; a host budget that cannot keep every circuit resident with partitions in flight
// (evictions and reloads).
//
// Its own library (snarkpipe_soak), not the engine's: a harness, run by `snarkpipe bench soak`
// (which writes the record) and by test_engine_soak, which the TSan tree builds without the CLI.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/engine.hpp"

namespace snarkpipe::engine {

struct SoakOptions {
  std::size_t proofs = 1000;                          // partition proofs requested, over jobs of 1 to 3 partitions
  std::uint64_t seed = 0;                             // of the plan and the faults; 0: fresh (reported)
  std::size_t devices = 3;                            // fake devices (CPU-backed), at least 2; the last one dies
  std::uint64_t rss_slack = std::uint64_t(64) << 20;  // RSS allowed above the start's + the host budget
  bool all_devices_die = false;                       // every fake device dies: the rest on the CPU fallback
  // Where the soak's notes go (the seed, devices taken out of service); stderr when empty.
  std::function<void(const std::string&)> log;
};

struct SoakCircuitInfo {
  std::string type;
  std::size_t constraints = 0;
  std::uint64_t key_bytes = 0;
};

// What was injected, counted as it happened.
struct SoakInjected {
  std::size_t start_calls = 0, start_failures = 0, slow_starts = 0, corrupted_proofs = 0;
  std::vector<int> dead_devices;      // by index
  std::vector<int> dead_after_calls;  // each dead device's start() calls before it died
  std::size_t dead_device_calls = 0;  // start() calls on devices after they died
  std::size_t synthesis_exceptions = 0, unsatisfying_witnesses = 0, witnesses_over_budget = 0;
  std::size_t cancellations_planned = 0, cancellations_honoured = 0, duplicate_submissions = 0;
  std::size_t oversized_requests = 0;
};

struct SoakReport {
  std::uint64_t seed = 0;
  bool all_devices_die = false;
  double seconds = 0;
  std::vector<SoakCircuitInfo> circuits;
  SoakInjected injected;
  EngineStats engine;  // once every job was final (devices: by slot, the CPU fallback last)
  // The jobs' outcomes, each checked against what was done to it.
  std::size_t jobs = 0, done = 0, failed = 0, cancelled = 0;
  std::size_t proofs_verified_again = 0, invalid_proofs = 0, wrong_cause = 0;
  std::size_t corrupted_proofs_of_done_jobs = 0;
  std::map<std::string, std::size_t> failure_causes;  // "bad witness", "device failures", ...
  std::size_t lost_jobs = 0, duplicated_jobs = 0, oversized_refused_with_cause = 0;
  // The CPU fallback: started (and said so in the log), and the partitions it proved.
  bool cpu_fallback_started = false, cpu_fallback_logged = false;
  std::size_t cpu_fallback_partitions = 0;
  std::uint64_t rss_before = 0, rss_max = 0, rss_limit = 0;
  bool rss_checked = false;  // not under a sanitizer, whose allocator keeps freed memory
  std::size_t threads_at_start = 0, threads_at_end = 0;
  std::vector<std::string> problems;  // every failed check, in words; empty: the soak passed
  bool ok() const { return problems.empty(); }
};

// Runs the soak; throws std::invalid_argument for fewer than 2 devices. Meant to own the
// process while it runs: it counts the process's threads at its start and end, and joins
// oneTBB's workers at the end.
SoakReport run_soak(const SoakOptions& options);

}  // namespace snarkpipe::engine
