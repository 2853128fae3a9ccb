#include "engine/backend_factory.hpp"

#include "engine/job.hpp"

namespace snarkpipe::engine {

MemoryNeeds CpuBackendProvider::needs(const CircuitKeys& keys) const {
  const std::uint64_t m = keys.pk.domain_size();
  // a, b, c and the H coefficients (4·m), plus the MSM scalar copies (~ one per column).
  return MemoryNeeds{(4 * m + keys.r1cs.num_columns()) * sizeof(ff::Fr), 0, 0};
}

std::vector<std::string> backend_kinds() { return {"cpu"}; }

std::unique_ptr<BackendProvider> make_backend_provider(std::string_view kind) {
  if (kind == "cpu") return std::make_unique<CpuBackendProvider>();
  std::string known;
  for (const auto& k : backend_kinds()) known += (known.empty() ? "" : ", ") + k;
  throw EngineError("unknown backend '" + std::string(kind) + "' (this build has: " + known + ")");
}

}  // namespace snarkpipe::engine
