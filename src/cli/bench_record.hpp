// The envelope every benchmark record in bench/results carries, and its writing: the machine
// (cpu, cpu_threads, host, memory_bytes, gpus when the NVIDIA driver lists any,
// field_multiplication), the UTC date, the commit the program was built from, the command, then
// the caller's numbers. The names are those of the records already kept; INDEX.md reads them.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace snarkpipe::cli {

// The CPU's model name from /proc/cpuinfo ("unknown" when it names none).
std::string cpu_model();

// How Fp multiplies in this build: "x86-64 MULX/ADX assembly" or "portable C++".
std::string field_multiplication();

// The machine's facts (cpu, cpu_threads, host, memory_bytes, gpus, field_multiplication).
nlohmann::json machine_info();

// The commit the program was built from: a short hash, "-dirty" added when the tree had
// uncommitted changes to tracked files, "unknown" outside a git checkout.
std::string build_commit();

// The program's own command line, as main() saw it (argv[0] without its directory), for records
// whose caller does not spell out its command.
void record_invocation(int argc, const char* const* argv);
std::string invocation();

// machine_info() with "date" (now, UTC, seconds), "commit" and "command"; the caller adds its
// numbers (usually under "results").
nlohmann::json bench_record(const std::string& command);
nlohmann::json bench_record();  // with invocation() as the command

// Writes record (indented, one trailing newline) to path through a temporary file beside it and
// a rename, so a reader (or a run cut short) sees the old record or the new one, never half of
// one. Throws std::runtime_error when it cannot.
void write_record(const nlohmann::json& record, const std::string& path);

}  // namespace snarkpipe::cli
