#include "circom/zkey_witness.hpp"

#include "circom/binfile.hpp"
#include "circom/wtns.hpp"

namespace snarkpipe::circom {

std::vector<ff::Fr> read_wtns_for_zkey(const std::string& wtns_path, const std::string& zkey_path,
                                       std::uint32_t zkey_num_vars) {
  std::vector<ff::Fr> values = read_wtns(wtns_path);
  if (values.size() == zkey_num_vars) return values;
  // Only on this error path: the header again, for the offset of nWitness (after n8 and the prime).
  const BinFile f(wtns_path, "wtns", 2, {{1, "header"}, {2, "witness"}});
  SectionReader rd = f.reader(1);
  const std::uint32_t n8 = rd.u32();
  rd.bytes(n8);
  rd.fail(rd.offset(),
          "nWitness = " + std::to_string(values.size()) + ", but " + zkey_path +
              " is for nVars = " + std::to_string(zkey_num_vars) +
              " signals (its Groth16 header): a witness for another circuit, or a key for another build of it");
}

}  // namespace snarkpipe::circom
