// snarkpipe bench soak (issue 27): the engine's soak (engine/soak.hpp: proofs through
// engine::Engine on the CPU with faults injected, then the checks that nothing was lost,
// duplicated or wrongly proved), its options, and its record. test_engine_soak runs the same
// soak without the CLI, under TSan too (tests/sanitize/run.sh).
#include <cstdio>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/bench_record.hpp"
#include "cli/command.hpp"
#include "engine/config.hpp"
#include "engine/memory_budget.hpp"
#include "engine/soak.hpp"

namespace snarkpipe::cli {

namespace {

struct SoakArgs {
  std::size_t proofs = 1000;
  std::uint64_t seed = 0;
  std::size_t devices = 3;
  std::string rss_slack = "64 MiB";
  bool all_devices_die = false;
  bool json = false;
  std::string out;
};

nlohmann::json record_of(const engine::SoakReport& r, const SoakArgs& a) {
  nlohmann::json record = bench_record("snarkpipe bench soak --proofs " + std::to_string(a.proofs) + " --devices " +
                                       std::to_string(a.devices) + " --seed " + std::to_string(r.seed) +
                                       (r.all_devices_die ? " --all-devices-die" : ""));
  record["seed"] = std::to_string(r.seed);
  record["seconds"] = r.seconds;
  record["circuits"] = nlohmann::json::array();
  for (const auto& c : r.circuits)
    record["circuits"].push_back({{"type", c.type}, {"constraints", c.constraints}, {"key_bytes", c.key_bytes}});
  const engine::SoakInjected& in = r.injected;
  record["injected"] = {{"start_calls", in.start_calls},
                        {"start_failures", in.start_failures},
                        {"slow_starts", in.slow_starts},
                        {"corrupted_proofs", in.corrupted_proofs},
                        {"all_devices_die", r.all_devices_die},
                        {"dead_devices", in.dead_devices},
                        {"dead_after_calls", in.dead_after_calls},
                        {"dead_device_calls", in.dead_device_calls},
                        {"synthesis_exceptions", in.synthesis_exceptions},
                        {"unsatisfying_witnesses", in.unsatisfying_witnesses},
                        {"witnesses_over_budget", in.witnesses_over_budget},
                        {"cancellations_planned", in.cancellations_planned},
                        {"cancellations_honoured", in.cancellations_honoured},
                        {"duplicate_submissions", in.duplicate_submissions},
                        {"oversized_requests", in.oversized_requests}};
  const engine::EngineStats& s = r.engine;
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : s.devices)
    devices.push_back({{"device", d.index},
                       {"name", d.name},
                       {"in_service", d.in_service},
                       {"reason", d.out_of_service_reason},
                       {"partitions_proved", d.partitions_proved},
                       {"failures", d.failures}});
  record["results"] = {{"host_budget", s.host_budget},
                       {"host_peak", s.host_peak},
                       {"host_used_at_end", s.host_used},
                       {"resident_bytes_at_end", s.resident_bytes},
                       {"buffers_created", s.buffers_created},
                       {"buffers_reused", s.buffers_reused},
                       {"buffers_idle", s.buffers_idle},
                       {"buffers_in_use", s.buffers_in_use},
                       {"partitions_proved", s.partitions_proved},
                       {"partitions_retried", s.partitions_retried},
                       {"verification_failures", s.verification_failures},
                       {"corrupted_proofs_of_done_jobs", r.corrupted_proofs_of_done_jobs},
                       {"jobs", r.jobs},
                       {"done", r.done},
                       {"failed", r.failed},
                       {"cancelled", r.cancelled},
                       {"proofs_verified_again", r.proofs_verified_again},
                       {"invalid_proofs", r.invalid_proofs},
                       {"wrong_cause", r.wrong_cause},
                       {"failure_causes", r.failure_causes},
                       {"proofs_requested", a.proofs},
                       {"devices", devices},
                       // The CPU the engine went on proving on once no device was left.
                       {"cpu_fallback",
                        {{"started", r.cpu_fallback_started},
                         {"logged", r.cpu_fallback_logged},
                         {"partitions_proved", r.cpu_fallback_partitions}}},
                       {"lost_jobs", r.lost_jobs},
                       {"duplicated_jobs", r.duplicated_jobs},
                       {"oversized_refused_with_cause", r.oversized_refused_with_cause},
                       {"rss_before", r.rss_before},
                       {"rss_max", r.rss_max},
                       {"rss_limit", r.rss_limit},
                       {"rss_checked", r.rss_checked},
                       {"threads_at_start", r.threads_at_start},
                       {"threads_at_end", r.threads_at_end}};
  record["problems"] = r.problems;
  record["ok"] = r.ok();
  return record;
}

int run_soak(SoakArgs& a, const CLI::App&) {
  if (a.devices < 2) throw CLI::ValidationError("--devices", "at least 2 (one of them dies)");
  engine::SoakOptions o;
  o.proofs = a.proofs;
  o.seed = a.seed;
  o.devices = a.devices;
  o.rss_slack = engine::parse_bytes(a.rss_slack);
  o.all_devices_die = a.all_devices_die;
  const engine::SoakReport r = engine::run_soak(o);
  const nlohmann::json record = record_of(r, a);
  if (a.json) std::cout << record.dump(2) << "\n";
  else
    std::printf(
        "soak: %zu jobs (%zu proofs): %zu done, %zu failed, %zu cancelled; %zu proofs verified again, %zu invalid; "
        "%zu start failures, %zu corrupted, %zu synthesis faults injected; %zu partitions on the CPU fallback; "
        "%.1f s\n",
        r.jobs, a.proofs, r.done, r.failed, r.cancelled, r.proofs_verified_again, r.invalid_proofs,
        r.injected.start_failures, r.injected.corrupted_proofs,
        r.injected.synthesis_exceptions + r.injected.unsatisfying_witnesses + r.injected.witnesses_over_budget,
        r.cpu_fallback_partitions, r.seconds);
  if (!a.out.empty()) try {
      write_record(record, a.out);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "soak: %s\n", e.what());
    }
  for (const auto& p : r.problems) std::fprintf(stderr, "soak: FAILED: %s\n", p.c_str());
  return r.ok() ? 0 : 1;
}

}  // namespace

std::vector<Command> register_soak_commands(CLI::App& app) {
  CLI::App* bench = app.get_subcommand("bench");
  auto o = std::make_shared<SoakArgs>();
  auto* c =
      bench->add_subcommand("soak", "Proofs through the engine with faults injected; checks nothing is lost or wrong");
  c->footer("Example: snarkpipe bench soak --proofs 1000 --json --out bench/results/soak/soak-DATE.json");
  c->add_option("--proofs", o->proofs, "Partition proofs to request, over jobs of 1 to 3 partitions")
      ->capture_default_str();
  c->add_option("--seed", o->seed, "Seed of the plan and the faults (0: fresh, printed)")->capture_default_str();
  c->add_option("--devices", o->devices, "Fake devices (CPU-backed); the last one dies during the run")
      ->capture_default_str();
  c->add_flag("--all-devices-die", o->all_devices_die,
              "Every fake device dies, one after another: the engine must finish the jobs on its CPU fallback");
  c->add_option("--rss-slack", o->rss_slack,
                "RSS allowed above the start's plus the host budget (thread stacks, allocator)")
      ->capture_default_str();
  c->add_flag("--json", o->json, "Print the JSON record");
  c->add_option("-o,--out", o->out, "Also write the JSON record to this file");
  return {make_command(c, o, run_soak)};
}

}  // namespace snarkpipe::cli
