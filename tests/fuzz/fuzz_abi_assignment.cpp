// The supraseal-c2 ABI's caller-supplied batch (ffi::prove_batch, what generate_groth16_proofs_c
// runs): one or two bellperson Assignments whose sizes, popcounts, densities, a/b/c evaluations, inputs,
// aux values, null pointers and r/s the input chooses, against a small key loaded through the
// ABI's own create_SRS path. Every buffer is as long as its declared size, so any read past
// one is the adapter's. A batch either fails with an AbiError or gives proofs, which the
// adapter verified before returning them. Anything else escapes and is a finding.
//
// Input layout (FuzzedDataProvider): all zero bytes keep the valid assignment as it is.
//
// Two targets from this file (issue 27: a proof costs ~a second under ASan, so proving every
// batch held this target at 2 exec/s):
//   fuzz_abi_assignment  the checks only: after the fuzzed circuits the batch gets one more, a
//                        sentinel with no inputs, which every batch check rejects. prove_batch
//                        checks every circuit before it proves any, so each fuzzed circuit goes
//                        through all the checks and nothing is proved. In the 10 M campaign.
//   fuzz_abi_prove       (FUZZ_ABI_PROVE) the batch as it is: the checks, the proofs, their
//                        verification and the diagnosis of a proof that does not verify. In
//                        `make fuzz` (run_all.sh), left out of the campaign (campaign.sh).
#include <fuzzer/FuzzedDataProvider.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "circuit/recording_cs.hpp"
#include "circuit/spmv.hpp"
#include "engine/witness.hpp"
#include "ffi/adapter.hpp"
#include "gadgets/synthetic.hpp"
#include "groth16/params_file.hpp"
#include "groth16/setup.hpp"

using namespace snarkpipe;

namespace {

struct Valid {
  std::vector<std::uint64_t> a_aux, b_inp, b_aux;
  std::size_t a_aux_pop = 0, b_inp_pop = 0, b_aux_pop = 0, num_inputs = 0, num_aux = 0;
  std::vector<fr_t> a, b, c, inputs, aux;
  SRS srs{nullptr};
};

template <class T>
std::vector<fr_t> as_fr_t(const std::vector<T>& v) {
  std::vector<fr_t> out(v.size());
  std::memcpy(out.data(), v.data(), v.size() * sizeof(fr_t));
  return out;
}

const Valid& valid() {
  static const Valid v = [] {
    Valid x;
    gadgets::SyntheticCircuit shape(24, 2, 7);
    circuit::RecordingConstraintSystem cs;
    shape.synthesize(cs);
    const circuit::R1cs r1cs = cs.finish();
    const groth16::ProvingKey pk = groth16::setup(r1cs);
    char path[] = "/tmp/fuzz_abi_assignment-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) std::abort();
    ::close(fd);
    groth16::write_params(path, pk);
    x.srs.ptr = ffi::load_srs(path, false);
    ::unlink(path);
    groth16::Witness w;
    engine::synthesize_into(shape, w);
    const circuit::Evaluations abc = circuit::evaluate(r1cs, w.inputs, w.aux);
    x.a_aux.assign(r1cs.a_aux_density.words().begin(), r1cs.a_aux_density.words().end());
    x.b_inp.assign(r1cs.b_input_density.words().begin(), r1cs.b_input_density.words().end());
    x.b_aux.assign(r1cs.b_aux_density.words().begin(), r1cs.b_aux_density.words().end());
    x.a_aux_pop = r1cs.a_aux_density.count();
    x.b_inp_pop = r1cs.b_input_density.count();
    x.b_aux_pop = r1cs.b_aux_density.count();
    x.num_inputs = r1cs.num_inputs;
    x.num_aux = r1cs.num_aux;
    x.a = as_fr_t(abc.a);
    x.b = as_fr_t(abc.b);
    x.c = as_fr_t(abc.c);
    x.inputs = as_fr_t(w.inputs);
    x.aux = as_fr_t(w.aux);
    return x;
  }();
  return v;
}

// One circuit's buffers, each as long as the size the Assignment declares for it.
struct Owned {
  std::vector<std::uint64_t> a_aux, b_inp, b_aux;
  std::vector<fr_t> a, b, c, inputs, aux;
};

std::size_t size_choice(FuzzedDataProvider& in, std::size_t valid) {
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      return valid;
    case 1:
      return valid ? valid - 1 : 0;
    case 2:
      return valid + 1;
    default:
      return in.ConsumeIntegralInRange<std::size_t>(0, 2 * valid + 70);
  }
}

template <class T>
void fit(std::vector<T>& v, std::size_t n) {
  v.resize(n);
}

fr_t raw_fr(FuzzedDataProvider& in) {
  fr_t f{};
  for (auto& limb : f.l) limb = in.ConsumeIntegral<std::uint64_t>();
  return f;
}

template <class T>
const T* maybe_null(FuzzedDataProvider& in, const std::vector<T>& v) {
  return in.ConsumeIntegralInRange<int>(0, 15) == 15 ? nullptr : v.data();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Valid& v = valid();
  FuzzedDataProvider in(data, size);
  // One or two circuits: a batch proves each (about a second under ASan), and a batch of two
  // already has a second circuit to disagree with the first.
  const std::size_t n = in.ConsumeIntegralInRange<std::size_t>(1, 2);
  std::vector<Owned> owned(n);
  std::vector<Assignment> batch(n);
  std::vector<fr_t> r(n), s(n);
  for (std::size_t i = 0; i < n; ++i) {
    Owned& o = owned[i];
    Assignment& a = batch[i];
    o = {v.a_aux, v.b_inp, v.b_aux, v.a, v.b, v.c, v.inputs, v.aux};
    a.a_aux_bit_len = size_choice(in, v.num_aux);
    a.b_inp_bit_len = size_choice(in, v.num_inputs);
    a.b_aux_bit_len = size_choice(in, v.num_aux);
    a.a_aux_popcount = size_choice(in, v.a_aux_pop);
    a.b_inp_popcount = size_choice(in, v.b_inp_pop);
    a.b_aux_popcount = size_choice(in, v.b_aux_pop);
    a.abc_size = size_choice(in, v.a.size());
    a.inp_assignment_size = size_choice(in, v.num_inputs);
    a.aux_assignment_size = size_choice(in, v.num_aux);
    fit(o.a_aux, (a.a_aux_bit_len + 63) / 64);
    fit(o.b_inp, (a.b_inp_bit_len + 63) / 64);
    fit(o.b_aux, (a.b_aux_bit_len + 63) / 64);
    fit(o.a, a.abc_size);
    fit(o.b, a.abc_size);
    fit(o.c, a.abc_size);
    fit(o.inputs, a.inp_assignment_size);
    fit(o.aux, a.aux_assignment_size);
    // Values overwritten: density words, evaluations, assignment values (raw limbs, so also
    // values at or above the modulus).
    for (int k = in.ConsumeIntegralInRange<int>(0, 6); k > 0; --k) {
      const int which = in.ConsumeIntegralInRange<int>(0, 7);
      std::vector<std::uint64_t>* words[] = {&o.a_aux, &o.b_inp, &o.b_aux};
      std::vector<fr_t>* values[] = {&o.a, &o.b, &o.c, &o.inputs, &o.aux};
      if (which < 3) {
        auto& w = *words[which];
        if (!w.empty())
          w[in.ConsumeIntegralInRange<std::size_t>(0, w.size() - 1)] ^= in.ConsumeIntegral<std::uint64_t>();
      } else {
        auto& x = *values[which - 3];
        if (!x.empty()) x[in.ConsumeIntegralInRange<std::size_t>(0, x.size() - 1)] = raw_fr(in);
      }
    }
    a.a_aux_density = maybe_null(in, o.a_aux);
    a.b_inp_density = maybe_null(in, o.b_inp);
    a.b_aux_density = maybe_null(in, o.b_aux);
    a.a = maybe_null(in, o.a);
    a.b = maybe_null(in, o.b);
    a.c = maybe_null(in, o.c);
    a.inp_assignment_data = maybe_null(in, o.inputs);
    a.aux_assignment_data = maybe_null(in, o.aux);
    r[i] = raw_fr(in);
    s[i] = raw_fr(in);
  }
#ifdef FUZZ_ABI_PROVE
  try {
    const auto pending = ffi::prove_batch(batch.data(), n, r.data(), s.data(), v.srs, {});
    std::vector<groth16_proof> out(n);
    ffi::write_proofs(*pending, out.data());
  } catch (const ffi::AbiError&) {}
#else
  // The sentinel: all sizes zero, so no inputs (input 0 must be ONE): a shape mismatch.
  batch.emplace_back();
  r.emplace_back();
  s.emplace_back();
  bool rejected = false;
  try {
    (void)ffi::prove_batch(batch.data(), batch.size(), r.data(), s.data(), v.srs, {});
  } catch (const ffi::AbiError&) {
    rejected = true;
  }
  if (!rejected) __builtin_trap();  // a batch with a circuit of no inputs was proved
#endif
  return 0;
}
