#include "cli/bench_record.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "ff/fields.hpp"
#include "snarkpipe_build_commit.hpp"

namespace snarkpipe::cli {

namespace {

std::string recorded_invocation = "snarkpipe";

// A command's output, trailing newlines cut; empty when it cannot run.
std::string output_of(const char* command) {
  std::string out;
  if (std::FILE* p = popen(command, "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

std::uint64_t memory_total_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  while (in >> key >> kib)
    if (key == "MemTotal:") return kib * 1024;
    else in.ignore(256, '\n');
  return 0;
}

// The GPUs nvidia-smi lists (none without the driver); the program itself may see fewer.
nlohmann::json gpus() {
  nlohmann::json out = nlohmann::json::array();
  std::istringstream lines(
      output_of("nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader,nounits 2>/dev/null"));
  for (std::string line; std::getline(lines, line);) {
    const auto a = line.find(", "), b = line.rfind(", ");
    if (a == std::string::npos || a == b) continue;
    const std::string mib = line.substr(a + 2, b - a - 2);
    if (mib.empty() || mib.find_first_not_of("0123456789") != std::string::npos) continue;
    out.push_back(
        {{"name", line.substr(0, a)}, {"memory_bytes", std::stoull(mib) << 20}, {"driver", line.substr(b + 2)}});
  }
  return out;
}

// An argument as a shell would need it typed.
std::string shell_word(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,:/^@%") ==
                        std::string::npos)
    return s;
  std::string q = "'";
  for (const char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return date;
}

}  // namespace

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0)
      if (const auto pos = line.find(':'); pos != std::string::npos && pos + 2 <= line.size())
        return line.substr(pos + 2);
  return "unknown";
}

std::string field_multiplication() { return ff::Fp::uses_asm() ? "x86-64 MULX/ADX assembly" : "portable C++"; }

nlohmann::json machine_info() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  nlohmann::json m = {{"cpu", cpu_model()},
                      {"cpu_threads", std::thread::hardware_concurrency()},
                      {"host", host},
                      {"memory_bytes", memory_total_bytes()},
                      {"field_multiplication", field_multiplication()}};
  if (nlohmann::json g = gpus(); !g.empty()) m["gpus"] = std::move(g);
  return m;
}

std::string build_commit() { return SNARKPIPE_BUILD_COMMIT; }

void record_invocation(int argc, const char* const* argv) {
  recorded_invocation = argc > 0 ? std::filesystem::path(argv[0]).filename().string() : "snarkpipe";
  for (int i = 1; i < argc; ++i) recorded_invocation.append(1, ' ').append(shell_word(argv[i]));
}

std::string invocation() { return recorded_invocation; }

nlohmann::json bench_record(const std::string& command) {
  nlohmann::json rec = machine_info();
  rec["date"] = utc_now();
  rec["commit"] = build_commit();
  rec["command"] = command;
  return rec;
}

nlohmann::json bench_record() { return bench_record(invocation()); }

void write_record(const nlohmann::json& record, const std::string& path) {
  // A path that is not a regular file (/dev/null, a pipe, /dev/stdout) is written to as it is:
  // a rename over it would replace the device with a file.
  std::error_code not_there;
  const auto kind = std::filesystem::status(path, not_there).type();
  if (kind != std::filesystem::file_type::regular && kind != std::filesystem::file_type::not_found) {
    std::ofstream direct(path);
    direct << record.dump(2) << "\n";
    direct.close();
    if (!direct) throw std::runtime_error("cannot write " + path);
    return;
  }
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  std::ofstream f(tmp);
  f << record.dump(2) << "\n";
  f.close();
  std::error_code ec;
  if (f) std::filesystem::rename(tmp, path, ec);
  if (!f || ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw std::runtime_error("cannot write " + path + (ec ? ": " + ec.message() : ""));
  }
}

}  // namespace snarkpipe::cli
