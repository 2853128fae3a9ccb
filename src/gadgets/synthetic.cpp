#include "gadgets/synthetic.hpp"

#include "ff/random.hpp"

namespace snarkpipe::gadgets {

using circuit::LinearCombination;
using circuit::Variable;
using ff::Fr;

void SyntheticCircuit::synthesize(circuit::ConstraintSystem& cs) const {
  // The structure (which variables, which coefficients) comes from `shape`; the values from
  // their own stream, so recording (no values) and proving see the same constraints.
  ff::SeededRng shape(seed_), values(seed_ ^ 0x5eed5eed5eed5eedULL);
  struct Known {
    Variable v;
    Fr value;
  };
  std::vector<Known> vars{{Variable::one(), Fr::one()}};
  vars.reserve(inputs_ + constraints_ + 1);
  auto pick = [&] { return vars[shape.next_u64() % vars.size()]; };
  for (std::size_t i = 0; i < inputs_; ++i) {
    const Fr x = (i % 3 == 0) ? Fr::from_u64(i & 1) : Fr::random(values);
    vars.push_back({cs.alloc_input("input", [x] { return x; }), x});
  }
  const LinearCombination one = LinearCombination::constant(Fr::one());
  for (std::size_t k = 0; k < constraints_; ++k) {
    const std::uint64_t kind = shape.next_u64() % 4;
    if (kind == 0) {
      // A boolean: b·(1 − b) = 0.
      const Fr b = Fr::from_u64(values.next_u64() & 1);
      const Variable v = cs.alloc("bit", [b] { return b; });
      LinearCombination one_minus = one;
      one_minus -= v;
      cs.enforce("boolean", v, one_minus, LinearCombination::zero());
      vars.push_back({v, b});
      continue;
    }
    // z = (c1·x + c2·y)·(c3·u + c4), or the linear z = c1·x + c2·y when kind == 3 (B = ONE).
    const Known x = pick(), y = pick(), u = pick();
    const Fr c1 = Fr::random(shape), c2 = Fr::from_u64(shape.next_u64() % 5), c3 = Fr::random(shape),
             c4 = Fr::from_u64(shape.next_u64() % 3);
    LinearCombination a;
    a.add(c1, x.v).add(c2, y.v);
    LinearCombination b = one;
    Fr bv = Fr::one();
    if (kind != 3) {
      b = LinearCombination{};
      b.add(c3, u.v).add(c4, Variable::one());
      bv = c3 * u.value + c4;
    }
    const Fr z = (c1 * x.value + c2 * y.value) * bv;
    const Variable zv = cs.alloc("z", [z] { return z; });
    cs.enforce("product", a, b, zv);
    vars.push_back({zv, z});
  }
}

}  // namespace snarkpipe::gadgets
