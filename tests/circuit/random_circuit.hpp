// A random circuit for the circuit-layer tests, replayable from its seed: every synthesis
// makes the same choices, so the test, recording and witness systems see the same circuit.
// It mixes products, linear relations (with duplicate terms and cancelling coefficients),
// booleans, inputs allocated between aux variables, ONE in B, and nested namespaces.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "circuit/constraint_system.hpp"
#include "ff/random.hpp"

namespace snarkpipe::circuit::test_support {

class RandomCircuit : public Circuit {
 public:
  // A product constraint `x · y = z` whose output z is allocated right before it: changing
  // z makes exactly this constraint the first to fail.
  struct Product {
    std::string z_path;
    std::string constraint_path;
    std::uint64_t constraint_index;
  };

  RandomCircuit(std::uint64_t seed, int steps) : seed_(seed), steps_(steps) {}

  void synthesize(ConstraintSystem& cs) const override {
    ff::SeededRng rng(seed_);
    products_.clear();
    constraints_ = 0;
    std::vector<std::pair<Variable, Fr>> pool{{Variable::one(), Fr::one()}};
    std::vector<std::string> ns;
    int depth = 0;
    const auto pick = [&]() -> const std::pair<Variable, Fr>& { return pool[rng.next_u64() % pool.size()]; };
    const auto path = [&](const std::string& name) {
      std::string p;
      for (const auto& n : ns) p += n + "/";
      return p + name;
    };
    const auto value = [](Fr v) { return [v] { return v; }; };
    const auto random_coeff = [&]() {
      switch (rng.next_u64() % 4) {
        case 0:
          return Fr::one();
        case 1:
          return -Fr::one();
        case 2:
          return Fr::from_u64(rng.next_u64() % 5);  // sometimes 0
        default:
          return Fr::random(rng);
      }
    };
    // A linear combination of pool variables and its value, with duplicates and a term that
    // cancels out now and then.
    const auto random_lc = [&](LinearCombination& lc, Fr& v) {
      const int terms = 1 + static_cast<int>(rng.next_u64() % 6);
      for (int t = 0; t < terms; ++t) {
        const auto& [var, x] = pick();
        const Fr c = random_coeff();
        lc.add(c, var);
        v += c * x;
        if (rng.next_u64() % 5 == 0) {  // the same variable again
          const Fr d = random_coeff();
          lc.add(d, var);
          v += d * x;
        }
        if (rng.next_u64() % 7 == 0) {  // cancels: + e·var - e·var
          const Fr e = Fr::random(rng);
          lc.add(e, var);
          lc.add(-e, var);
        }
      }
    };
    const auto enforce = [&](const std::string& name, const LinearCombination& a, const LinearCombination& b,
                             const LinearCombination& c) {
      cs.enforce(name, a, b, c);
      ++constraints_;
    };

    for (int i = 0; i < 3; ++i) {
      const Fr x = Fr::random(rng);
      pool.emplace_back(cs.alloc_input("public " + std::to_string(i), value(x)), x);
    }
    for (int step = 0; step < steps_; ++step) {
      const std::string k = std::to_string(step);
      const std::uint64_t choice = rng.next_u64() % 100;
      if (choice < 5 && depth < 4) {
        ns.push_back("block " + k);
        cs.push_namespace(ns.back());
        ++depth;
      } else if (choice < 10 && depth > 0) {
        ns.pop_back();
        cs.pop_namespace();
        --depth;
      } else if (choice < 13) {
        const Fr x = Fr::random(rng);
        pool.emplace_back(cs.alloc_input("input " + k, value(x)), x);
      } else if (choice < 25) {
        const Fr x = Fr::random(rng);
        pool.emplace_back(cs.alloc("free " + k, value(x)), x);
      } else if (choice < 50) {
        const auto [x, xv] = pick();
        const auto [y, yv] = pick();
        const Fr zv = xv * yv;
        const Variable z = cs.alloc("z " + k, value(zv));
        products_.push_back({path("z " + k), path("mul " + k), constraints_});
        enforce("mul " + k, x, y, z);
        pool.emplace_back(z, zv);
      } else if (choice < 75) {
        LinearCombination lc;
        Fr v = Fr::zero();
        random_lc(lc, v);
        const Variable w = cs.alloc("w " + k, value(v));
        if (rng.next_u64() % 2) {
          enforce("lin " + k, lc, Variable::one(), w);
        } else {
          enforce("lin " + k, Variable::one(), lc, w);
        }
        pool.emplace_back(w, v);
      } else if (choice < 85) {
        const Fr bv = Fr::from_u64(rng.next_u64() % 2);
        const Variable b = cs.alloc("bit " + k, value(bv));
        enforce("boolean " + k, b, LinearCombination::constant(Fr::one()) - b, LinearCombination::zero());
        pool.emplace_back(b, bv);
      } else {
        LinearCombination l1, l2, l3;
        Fr v1 = Fr::zero(), v2 = Fr::zero(), v3 = Fr::zero();
        random_lc(l1, v1);
        random_lc(l2, v2);
        random_lc(l3, v3);
        // (l1)·(l2) = l3 + w, with w = v1·v2 - v3.
        const Fr wv = v1 * v2 - v3;
        const Variable w = cs.alloc("prod " + k, value(wv));
        enforce("quad " + k, l1, l2, l3 + LinearCombination(w));
        pool.emplace_back(w, wv);
      }
    }
    while (depth-- > 0) cs.pop_namespace();
  }

  const std::vector<Product>& products() const { return products_; }
  std::uint64_t num_constraints() const { return constraints_; }

 private:
  std::uint64_t seed_;
  int steps_;
  mutable std::vector<Product> products_;
  mutable std::uint64_t constraints_ = 0;
};

}  // namespace snarkpipe::circuit::test_support
