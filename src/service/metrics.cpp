// GET /metrics: the status in Prometheus' text format (version 0.0.4).
#include <sstream>

#include "service/service.hpp"

namespace snarkpipe::service {

namespace {

// A label value with \, " and newlines escaped, as the format requires.
std::string label(const std::string& v) {
  std::string s;
  for (char c : v) {
    if (c == '\n') {
      s += "\\n";
      continue;
    }
    if (c == '\\' || c == '"') s.push_back('\\');
    s.push_back(c);
  }
  return s;
}

class Writer {
 public:
  void family(const char* name, const char* type, const char* help) {
    out_ << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n';
  }
  void sample(const std::string& name_and_labels, std::uint64_t value) {
    out_ << name_and_labels << ' ' << value << '\n';
  }
  std::string text() const { return out_.str(); }

 private:
  std::ostringstream out_;
};

}  // namespace

std::string Service::metrics_text() const {
  const nlohmann::json s = status();
  Writer w;
  w.family("snarkpipe_proofs_total", "counter", "Partition proofs proved and verified.");
  w.sample("snarkpipe_proofs_total", s["proofs"]["partitions_proved"].get<std::uint64_t>());
  w.family("snarkpipe_partitions_retried_total", "counter", "Partitions retried after a device error.");
  w.sample("snarkpipe_partitions_retried_total", s["proofs"]["partitions_retried"].get<std::uint64_t>());
  w.family("snarkpipe_verification_failures_total", "counter", "Proofs that did not verify (and were retried).");
  w.sample("snarkpipe_verification_failures_total", s["proofs"]["verification_failures"].get<std::uint64_t>());
  w.family("snarkpipe_jobs", "gauge", "Jobs submitted through the API, by state.");
  for (const auto& [state, n] : s["jobs"].items())
    w.sample("snarkpipe_jobs{state=\"" + label(state) + "\"}", n.get<std::uint64_t>());
  w.family("snarkpipe_partitions_queued", "gauge", "Partitions of jobs not started yet.");
  w.sample("snarkpipe_partitions_queued", s["partitions_queued"].get<std::uint64_t>());
  w.family("snarkpipe_host_memory_bytes", "gauge", "Host memory budget, reserved now, and the peak reserved.");
  for (const char* kind : {"budget", "used", "peak"})
    w.sample(std::string("snarkpipe_host_memory_bytes{kind=\"") + kind + "\"}",
             s["memory"][std::string("host_") + kind].get<std::uint64_t>());
  w.family("snarkpipe_device_in_service", "gauge", "1 while the device takes partitions, 0 once taken out of service.");
  for (const auto& d : s["devices"])
    w.sample("snarkpipe_device_in_service{device=\"" + std::to_string(d["index"].get<int>()) + "\",name=\"" +
                 label(d["name"].get<std::string>()) + "\"}",
             d["in_service"].get<bool>() ? 1 : 0);
  w.family("snarkpipe_device_proofs_total", "counter", "Partitions each device proved.");
  for (const auto& d : s["devices"])
    w.sample("snarkpipe_device_proofs_total{device=\"" + std::to_string(d["index"].get<int>()) + "\"}",
             d["partitions_proved"].get<std::uint64_t>());
  w.family("snarkpipe_device_failures_total", "counter", "Device errors of each device.");
  for (const auto& d : s["devices"])
    w.sample("snarkpipe_device_failures_total{device=\"" + std::to_string(d["index"].get<int>()) + "\"}",
             d["failures"].get<std::uint64_t>());
  w.family("snarkpipe_device_memory_peak_bytes", "gauge", "Peak device memory reserved (0 without device memory).");
  for (const auto& d : s["devices"])
    w.sample("snarkpipe_device_memory_peak_bytes{device=\"" + std::to_string(d["index"].get<int>()) + "\"}",
             d["memory_peak"].get<std::uint64_t>());
  return w.text();
}

}  // namespace snarkpipe::service
