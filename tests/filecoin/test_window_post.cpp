// WindowPoSt public inputs and verification against a real 2 KiB proof made by rust-fil-proofs
// (polka-storage's test vector, data/polka-storage-post-2kib/): one sector (77) in a
// partition of two, so its 11 inputs appear twice (IC = 23).
#include <gtest/gtest.h>

#include "filecoin/commitment.hpp"
#include "filecoin/verifying_key.hpp"
#include "filecoin/window_post.hpp"

using namespace snarkpipe;
using namespace snarkpipe::filecoin;

namespace {

const std::string POST = std::string(SNARKPIPE_FILECOIN_DATA) + "/polka-storage-post-2kib/";

WindowPostInputs vector_inputs() {
  WindowPostInputs in;
  in.sector_size = 2048;
  in.api_version = ApiVersion::V1_2_0;
  in.randomness.fill(1);
  in.sectors = {{77, parse_bytes32_hex("4afb35f82a95a10187a913bc14520d9a1d173328265b301b5dcf440ef2583950", "comm_r")}};
  return in;
}

const groth16::PreparedVerifyingKey& vector_pvk() {
  static const auto pvk = groth16::PreparedVerifyingKey::from(load_verifying_key(POST + "vk.hex"));
  return pvk;
}

}  // namespace

TEST(WindowPost2KiB, ProofVerifies) {
  const std::vector<std::uint8_t> proof = read_bytes_or_hex(POST + "proof.hex");
  const PostCheck c = verify_window_post(vector_inputs(), proof, vector_pvk());
  EXPECT_TRUE(c.valid) << c.reason;
  EXPECT_EQ(c.partitions, 1u);
  EXPECT_EQ(c.inputs_per_partition, 22u);

  const auto inputs = window_post_public_inputs(vector_inputs());
  ASSERT_EQ(inputs.size(), 1u);
  for (int i = 0; i < 11; ++i) EXPECT_EQ(inputs[0][i], inputs[0][11 + i]);  // the padding repeats sector 77
}

TEST(WindowPost2KiB, EveryInputMatters) {
  const std::vector<std::uint8_t> proof = read_bytes_or_hex(POST + "proof.hex");
  WindowPostInputs in = vector_inputs();
  in.randomness[0] = 2;
  EXPECT_FALSE(verify_window_post(in, proof, vector_pvk()).valid);
  in = vector_inputs();
  in.sectors[0].sector_id = 78;
  EXPECT_FALSE(verify_window_post(in, proof, vector_pvk()).valid);
  in = vector_inputs();
  in.sectors[0].comm_r[0] ^= 1;
  EXPECT_FALSE(verify_window_post(in, proof, vector_pvk()).valid);
  in = vector_inputs();
  in.api_version = ApiVersion::V1_0_0;  // the challenge index counts sectors before 1.2.0
  EXPECT_EQ(window_post_public_inputs(in), window_post_public_inputs(vector_inputs()));  // sector index 0: the same
  in.sectors.push_back({76, in.sectors[0].comm_r});  // sector 77 is now second: its challenges move
  const auto v10 = window_post_public_inputs(in);
  in.api_version = ApiVersion::V1_2_0;
  EXPECT_NE(window_post_public_inputs(in), v10);
  EXPECT_FALSE(verify_window_post(in, proof, vector_pvk()).valid);
}

TEST(WindowPost, PartitionsAndErrors) {
  WindowPostInputs in = vector_inputs();
  for (std::uint64_t id = 100; id < 105; ++id) in.sectors.push_back({id, in.sectors[0].comm_r});
  EXPECT_EQ(window_post_public_inputs(in).size(), 3u);  // 6 sectors, 2 per partition
  in.sectors.push_back({100, in.sectors[0].comm_r});
  EXPECT_THROW(window_post_public_inputs(in), SealInputError);
  in = vector_inputs();
  in.randomness.fill(0xff);
  EXPECT_THROW(window_post_public_inputs(in), SealInputError);
  in = vector_inputs();
  in.sector_size = 4096;
  EXPECT_THROW(window_post_public_inputs(in), SealInputError);
  EXPECT_EQ(window_post_sector_count(32ull << 30), 2349u);
  EXPECT_EQ(find_registered_window_post_proof("StackedDrgWindow32GiBV1_2")->id, 13u);
  const std::vector<std::uint8_t> two(384, 0);
  EXPECT_THROW(verify_window_post(vector_inputs(), two, vector_pvk()), SealInputError);
}
