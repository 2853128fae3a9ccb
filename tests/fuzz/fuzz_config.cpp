// The engine's TOML configuration (config/snarkpipe.toml): engine::parse_config over the
// defaults of a fixed machine, and the command line's --set form (apply_override) for a
// one-line input. Rejections: ConfigError (std::runtime_error).
#include <string_view>
#include "engine/config.hpp"
#include "fuzz_common.hpp"

using namespace snarkpipe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const engine::MachineFacts machine{16, std::uint64_t(64) << 30};
  fuzz::expect_rejection_or_success([&] {
    const engine::EngineConfig c = engine::parse_config(text, machine, "fuzz.toml");
    (void)c.describe();
  });
  if (text.find('\n') == std::string_view::npos && size < 256) {
    fuzz::expect_rejection_or_success([&] {
      engine::EngineConfig c = engine::EngineConfig::defaults(machine);
      engine::apply_override(c, text, machine);
    });
    fuzz::expect_rejection_or_success([&] { (void)engine::parse_bytes(text); });
  }
  return 0;
}
