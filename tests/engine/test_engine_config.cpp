// The configuration: machine defaults, the TOML file (every key of the example in config/),
// "auto", overrides, and errors that name the key and line.
#include <gtest/gtest.h>

#include "base/sizes.hpp"
#include "engine/config.hpp"
#include "engine/memory_budget.hpp"

using namespace snarkpipe::engine;

namespace {
constexpr std::uint64_t GiB = std::uint64_t(1) << 30;
const MachineFacts machine{16, 64 * GiB};
}  // namespace

TEST(EngineConfig, DefaultsComeFromTheMachine) {
  const EngineConfig c = EngineConfig::defaults(machine);
  EXPECT_EQ(c.synthesis_workers, 8u);
  EXPECT_EQ(c.finalizer_workers, 4u);
  EXPECT_EQ(c.host_budget, 64 * GiB - std::uint64_t(6.4 * GiB));
  EXPECT_EQ(EngineConfig::defaults(MachineFacts{2, 4 * GiB}).host_budget, 2 * GiB);  // margin at most half
  EXPECT_EQ(c.device_budget_for(141 * GiB), 141 * GiB - std::uint64_t(141 * GiB / 20));
  EXPECT_EQ(c.device_budget_for(0), MemoryBudget::UNLIMITED);
  const MachineFacts here = MachineFacts::detect();
  EXPECT_GE(here.cores, 1u);
  EXPECT_GT(here.ram, 0u);
}

TEST(EngineConfig, ParsesEveryKey) {
  const EngineConfig c = parse_config(R"(
[engine]
backend = "cpu"
timeline = false
[synthesis]
workers = 5
check_witness = false
lookahead = 6
[gpus]
devices = [1, 0]
[gpu]
workers_per_device = 3
max_retries = 4
failures_before_out_of_service = 7
[finalizer]
workers = 2
[memory]
budget = "48GiB"
device_budget = "100 GiB"
device_margin = 1073741824
)",
                                      machine);
  EXPECT_FALSE(c.timeline);
  EXPECT_EQ(c.synthesis_workers, 5u);
  EXPECT_FALSE(c.check_witness);
  EXPECT_EQ(c.lookahead, 6u);
  EXPECT_EQ(c.devices, (std::vector<int>{1, 0}));
  EXPECT_EQ(c.workers_per_device, 3u);
  EXPECT_EQ(c.max_retries, 4u);
  EXPECT_EQ(c.device_failure_limit, 7u);
  EXPECT_EQ(c.finalizer_workers, 2u);
  EXPECT_EQ(c.host_budget, 48 * GiB);
  EXPECT_EQ(c.device_budget, 100 * GiB);
  EXPECT_EQ(c.device_margin, GiB);
  EXPECT_EQ(c.device_budget_for(80 * GiB), 80 * GiB);  // never more than the device has
}

TEST(EngineConfig, AutoAndMargins) {
  const EngineConfig c =
      parse_config("[synthesis]\nworkers = \"auto\"\n[memory]\nbudget = \"auto\"\nmargin = \"4GiB\"\n", machine);
  EXPECT_EQ(c.synthesis_workers, 8u);
  EXPECT_EQ(c.host_budget, 60 * GiB);
  EXPECT_EQ(parse_config("[memory]\nmargin = \"10GiB\"\n", machine).host_budget, 54 * GiB);
  EXPECT_EQ(parse_config("[gpus]\ndevices = \"all\"\n", machine).devices, std::vector<int>{});
}

TEST(EngineConfig, OverridesApplyOverTheFile) {
  EngineConfig c = parse_config("[synthesis]\nworkers = 5\n[memory]\nbudget = \"8GiB\"\n", machine);
  apply_override(c, "synthesis.workers=3", machine);
  apply_override(c, "memory.budget = 2GiB", machine);
  apply_override(c, "gpus.devices=[2]", machine);
  apply_override(c, "engine.backend=cuda", machine);
  apply_override(c, "synthesis.check_witness=false", machine);
  EXPECT_EQ(c.synthesis_workers, 3u);
  EXPECT_EQ(c.host_budget, 2 * GiB);
  EXPECT_EQ(c.devices, std::vector<int>{2});
  EXPECT_EQ(c.backend, "cuda");
  EXPECT_FALSE(c.check_witness);
  apply_override(c, "synthesis.workers=auto", machine);
  EXPECT_EQ(c.synthesis_workers, 8u);
  EXPECT_THROW(apply_override(c, "workers=3", machine), ConfigError);
  EXPECT_THROW(apply_override(c, "synthesis.wrokers=3", machine), ConfigError);
}

TEST(EngineConfig, ErrorsNameTheKeyAndLine) {
  auto error = [](const std::string& text) {
    try {
      parse_config(text, machine, "test.toml");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("[synthesis]\nworkers = 2\nwrokers = 3\n"), "test.toml:3: unknown key 'synthesis.wrokers'");
  EXPECT_EQ(error("[gpu]\nworkers_per_device = -1\n"),
            "test.toml:2: gpu.workers_per_device must be a whole number or \"auto\"");
  EXPECT_EQ(error("[gpu]\nworkers_per_device = 0\n"), "test.toml: gpu.workers_per_device must be in 1..64");
  EXPECT_EQ(error("\n[memory]\nbudget = \"lots\"\n"),
            "test.toml:3: memory.budget: bad size 'lots': expected bytes like 4096, 512MiB or 1.5GiB");
  EXPECT_EQ(error("[gpus]\ndevices = 3\n"),
            "test.toml:2: gpus.devices must be \"all\" or a list of device numbers like [0, 1]");
  EXPECT_EQ(error("[sythesis]\n"), "test.toml:1: unknown section or key 'sythesis'");
  EXPECT_NE(error("[synthesis\n").find("test.toml:1:"), std::string::npos);
  EXPECT_EQ(error("[memory]\nmargin = \"64GiB\"\n"),
            "test.toml:2: memory.margin (64.00 GiB) leaves nothing of 64.00 GiB");
}

TEST(EngineConfig, Sizes) {
  EXPECT_EQ(parse_bytes("4096"), 4096u);
  EXPECT_EQ(parse_bytes("512MiB"), 512u << 20);
  EXPECT_EQ(parse_bytes("1.5 GiB"), 3 * GiB / 2);
  EXPECT_EQ(parse_bytes("48G"), 48 * GiB);
  EXPECT_EQ(parse_bytes("2GB"), 2000000000u);
  EXPECT_THROW(parse_bytes("12 parsecs"), ConfigError);
  EXPECT_THROW(parse_bytes("-1"), ConfigError);
  EXPECT_EQ(format_bytes(3 * GiB / 2), "1.50 GiB");
  // Counts (base/sizes.hpp), the CLI's --constraints and friends.
  EXPECT_EQ(snarkpipe::base::parse_count("4096"), 4096u);
  EXPECT_EQ(snarkpipe::base::parse_count("2^27"), std::uint64_t(1) << 27);
  for (const char* bad : {"", "2^41", "2^", "2^3x", "-1", "+5", "12k", "0x10"})
    EXPECT_THROW(snarkpipe::base::parse_count(bad), std::invalid_argument) << bad;
}

TEST(EngineConfig, TheExampleFileParses) {
  const EngineConfig c = load_config(SNARKPIPE_CONFIG_DIR "/snarkpipe.toml", machine);
  EXPECT_NO_THROW(c.validate());
  EXPECT_EQ(c.backend, "auto");
  EXPECT_THROW(load_config("/nonexistent/snarkpipe.toml", machine), ConfigError);
}
