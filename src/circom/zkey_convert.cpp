#include "circom/zkey_convert.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <bit>

#include "circom/prover.hpp"
#include "poly/domain.hpp"

namespace snarkpipe::circom {

namespace {

using ec::G1Affine;
using ec::G1Jacobian;
using ff::Fr;
using u128 = unsigned __int128;

std::string n(std::uint64_t x) { return std::to_string(x); }

// A scalar k < r split as k = q·z² + t with t, q < 2^128 (z the BLS parameter), so that
// [k]P = [t]P + [q]·(−φ(P)) since φ(P) = [−z²]P (ec/curves.hpp): two 128-bit scalars walked
// together, about half the doublings of a 255-bit multiplication.
struct SplitScalar {
  u128 t = 0, q = 0;
};

SplitScalar split_scalar(const Fr& k) {
  const ff::Limbs<4> limbs = k.to_repr();
  auto divide = [](const ff::Limbs<4>& x, ff::Limbs<4>& quotient) {
    u128 rem = 0;
    for (int i = 3; i >= 0; --i) {
      const u128 cur = (rem << 64) | x[std::size_t(i)];
      quotient[std::size_t(i)] = std::uint64_t(cur / ec::BLS_Z_ABS);
      rem = cur % ec::BLS_Z_ABS;
    }
    return std::uint64_t(rem);
  };
  ff::Limbs<4> q1{}, q2{};
  const std::uint64_t t1 = divide(limbs, q1);
  const std::uint64_t t2 = divide(q1, q2);
  if (q2[2] != 0 || q2[3] != 0) throw std::logic_error("internal error: a scalar below r has a quotient over 2^128");
  return {u128(t2) * ec::BLS_Z_ABS + t1, (u128(q2[1]) << 64) | q2[0]};
}

G1Jacobian multiply(const G1Jacobian& p, const SplitScalar& k) {
  constexpr unsigned W = 4, WINDOWS = 128 / W;
  G1Jacobian on_p[1u << W], on_q[1u << W];
  on_p[0] = G1Jacobian::identity();
  on_p[1] = p;
  for (unsigned i = 2; i < (1u << W); ++i) on_p[i] = (i & 1) ? on_p[i - 1] + p : on_p[i / 2].dbl();
  for (unsigned i = 0; i < (1u << W); ++i) on_q[i] = -ec::endomorphism_phi(on_p[i]);
  G1Jacobian acc = G1Jacobian::identity();
  for (unsigned w = WINDOWS; w-- > 0;) {
    for (unsigned d = 0; d < W; ++d) acc = acc.dbl();
    const unsigned dt = unsigned(k.t >> (w * W)) & ((1u << W) - 1), dq = unsigned(k.q >> (w * W)) & ((1u << W) - 1);
    if (dt) acc += on_p[dt];
    if (dq) acc += on_q[dq];
  }
  return acc;
}

// One matrix of the zkey's coefficient section as per-row lists sorted by signal, duplicates
// summed and zeros dropped (how the prover's A·z and B·z see them).
struct Entry {
  std::uint32_t row, signal;
  Fr value;
};

std::vector<Entry> canonical_entries(const std::vector<ZkeyCoefficient>& coefficients, std::uint32_t matrix) {
  std::vector<Entry> e;
  for (const auto& c : coefficients)
    if (c.matrix == matrix) e.push_back({c.constraint, c.signal, c.value});
  std::stable_sort(e.begin(), e.end(),
                   [](const Entry& x, const Entry& y) { return x.row != y.row ? x.row < y.row : x.signal < y.signal; });
  std::vector<Entry> merged;
  for (const Entry& x : e) {
    if (!merged.empty() && merged.back().row == x.row && merged.back().signal == x.signal)
      merged.back().value += x.value;
    else merged.push_back(x);
  }
  std::erase_if(merged, [](const Entry& x) { return x.value.is_zero(); });
  return merged;
}

std::vector<Entry> circuit_entries(const circuit::CsrMatrix& m) {
  std::vector<Entry> e;
  e.reserve(m.nnz());
  for (std::size_t r = 0; r < m.num_rows(); ++r) {
    const auto cols = m.row_cols(r);
    const auto vals = m.row_vals(r);
    for (std::size_t i = 0; i < cols.size(); ++i) e.push_back({std::uint32_t(r), cols[i], vals[i]});
  }
  return e;
}

}  // namespace

ZkeyConvertError::ZkeyConvertError(const std::string& file, const std::string& field, const std::string& why)
    : std::runtime_error(file + ": " + field + ": " + why), file_(file), field_(field) {}

void check_zkey_matches_circuit(const Zkey& z, const CircomR1cs& circuit, const ZkeyConvertSources& names) {
  const circuit::R1cs& r1cs = circuit.r1cs;
  auto mismatch = [&](const std::string& field, const std::string& why) -> ZkeyConvertError {
    return ZkeyConvertError(names.zkey, field,
                            why + " (the circuit " + names.circuit + " is not the one this key was made for)");
  };
  if (z.num_vars != r1cs.num_columns())
    throw mismatch("nVars",
                   "the key has " + n(z.num_vars) + " signals, the circuit " + n(r1cs.num_columns()) + " wires");
  if (z.num_public != circuit.num_public())
    throw mismatch("nPublic", "the key has " + n(z.num_public) + " public signals, the circuit " +
                                  n(circuit.num_public()) + " (outputs and public inputs)");
  // snarkjs's domain: the smallest power of two that holds circom's rows and the input rows.
  const std::uint64_t rows = r1cs.num_constraints;
  const std::uint64_t domain = poly::EvaluationDomain::for_size(std::max<std::uint64_t>(rows, 2)).m();
  if (z.domain_size != domain)
    throw mismatch("domainSize", "the key's domain is " + n(z.domain_size) + ", the circuit's " + n(rows) +
                                     " rows (constraints and input rows) need " + n(domain));
  const std::uint64_t circom_rows = circuit.num_constraints;
  auto row_name = [&](std::uint32_t row) {
    return row < circom_rows ? "row " + n(row) + " (circom constraint " + n(row) + ")"
                             : "row " + n(row) + " (the input row of signal " + n(row - circom_rows) + ")";
  };
  for (std::uint32_t matrix = 0; matrix < 2; ++matrix) {
    const char* name = matrix == 0 ? "A" : "B";
    const std::vector<Entry> key = canonical_entries(z.coefficients, matrix);
    const std::vector<Entry> cir = circuit_entries(matrix == 0 ? r1cs.a : r1cs.b);
    const std::size_t common = std::min(key.size(), cir.size());
    for (std::size_t i = 0; i <= common; ++i) {
      const bool key_done = i == key.size(), cir_done = i == cir.size();
      if (key_done && cir_done) break;
      const std::string field = std::string("coefficients (") + name + ")";
      // The lower (row, signal) of the two is the term the other side lacks.
      const bool key_first = !key_done && (cir_done || key[i].row < cir[i].row ||
                                           (key[i].row == cir[i].row && key[i].signal < cir[i].signal));
      const bool cir_first = !cir_done && (key_done || cir[i].row < key[i].row ||
                                           (cir[i].row == key[i].row && cir[i].signal < key[i].signal));
      if (key_first)
        throw mismatch(field,
                       row_name(key[i].row) + ": the key has signal " + n(key[i].signal) + ", the circuit does not");
      if (cir_first)
        throw mismatch(field,
                       row_name(cir[i].row) + ": the circuit has signal " + n(cir[i].signal) + ", the key does not");
      if (key[i].value != cir[i].value)
        throw mismatch(field, row_name(key[i].row) + ", signal " + n(key[i].signal) + ": the key's coefficient is " +
                                  key[i].value.to_decimal() + ", the circuit's " + cir[i].value.to_decimal());
    }
  }
}

circuit::R1cs rows_in_bellperson_order(const circuit::R1cs& in, std::size_t m) {
  if (m < in.num_constraints || (m & (m - 1)) != 0)
    throw std::invalid_argument("rows_in_bellperson_order: bad domain size");
  const std::uint64_t perm = snarkjs_root_exponent() & (m - 1);
  // source[j]: the snarkjs row that bellperson's row j holds (none past the circuit's rows).
  constexpr std::uint64_t NONE = ~std::uint64_t(0);
  std::vector<std::uint64_t> source(m, NONE);
  for (std::uint64_t k = 0; k < in.num_constraints; ++k) source[(perm * k) & (m - 1)] = k;
  auto permute = [&](const circuit::CsrMatrix& a) {
    std::vector<std::uint64_t> row_ptr(m + 1, 0);
    for (std::size_t j = 0; j < m; ++j)
      row_ptr[j + 1] = row_ptr[j] + (source[j] == NONE ? 0 : a.row_ptr[source[j] + 1] - a.row_ptr[source[j]]);
    std::vector<std::uint32_t> col(a.nnz());
    std::vector<Fr> val(a.nnz());
    tbb::parallel_for(std::size_t(0), m, [&](std::size_t j) {
      if (source[j] == NONE) return;
      const auto cols = a.row_cols(source[j]);
      const auto vals = a.row_vals(source[j]);
      std::copy(cols.begin(), cols.end(), col.begin() + std::ptrdiff_t(row_ptr[j]));
      std::copy(vals.begin(), vals.end(), val.begin() + std::ptrdiff_t(row_ptr[j]));
    });
    circuit::CsrMatrix out;
    out.row_ptr = std::move(row_ptr);
    out.col = std::move(col);
    out.val = std::move(val);
    return out;
  };
  circuit::R1cs out;
  out.num_inputs = in.num_inputs;
  out.num_aux = in.num_aux;
  out.num_constraints = m;
  out.a = permute(in.a);
  out.b = permute(in.b);
  out.c = permute(in.c);
  // A column's entries only change rows: the densities stay.
  out.a_aux_density = in.a_aux_density;
  out.b_input_density = in.b_input_density;
  out.b_aux_density = in.b_aux_density;
  return out;
}

std::vector<G1Affine> h_query_from_zkey(std::span<const G1Affine> zkey_h, const ZkeyConvertProgress& progress) {
  const std::size_t m = zkey_h.size();
  if (m < 2 || (m & (m - 1)) != 0)
    throw std::invalid_argument("h_query_from_zkey: the H section's size is not a power of two >= 2");
  const unsigned log_m = unsigned(std::countr_zero(m));
  const std::size_t total_steps = log_m + 1;

  // Bit-reversed input order, so the stages below leave X_j = Σ_i ω'^{ij}·H_i in natural order.
  std::vector<G1Jacobian> x(m);
  tbb::parallel_for(std::size_t(0), m, [&](std::size_t i) {
    std::size_t rev = 0;
    for (unsigned b = 0; b < log_m; ++b) rev |= ((i >> b) & 1) << (log_m - 1 - b);
    x[rev] = G1Jacobian::from_affine(zkey_h[i]);
  });

  // ω'^p for p < m/2, split once: each is used by m/(2·len) butterflies of every stage of length len.
  const Fr omega = snarkjs_root_of_unity(log_m);
  std::vector<SplitScalar> twiddle(m / 2);
  constexpr std::size_t CHUNK = 1 << 10;
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, m / 2, CHUNK), [&](const auto& r) {
    Fr w = omega.pow(ff::from_u64<1>(r.begin()));
    for (std::size_t p = r.begin(); p < r.end(); ++p, w *= omega) twiddle[p] = split_scalar(w);
  });

  for (unsigned s = 1; s <= log_m; ++s) {
    const std::size_t half = std::size_t(1) << (s - 1), stride = m >> s;
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, m / 2, 64), [&](const auto& r) {
      for (std::size_t b = r.begin(); b < r.end(); ++b) {
        const std::size_t p = b & (half - 1), i = (b >> (s - 1)) * (2 * half) + p, j = i + half;
        const G1Jacobian t = p == 0 ? x[j] : multiply(x[j], twiddle[p * stride]);
        x[j] = x[i] + (-t);
        x[i] += t;
      }
    });
    if (progress) progress("h", s, total_steps);
  }

  // h_j = −2·ζ^j·X_j, j < m − 1, then affine in chunks, one inversion per chunk.
  const Fr zeta = snarkjs_root_of_unity(log_m + 1);
  const Fr minus_two = -Fr::from_u64(2);
  std::vector<G1Affine> h(m - 1);
  std::atomic<bool> vanished{false};
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, m - 1, CHUNK), [&](const auto& r) {
    Fr c = minus_two * zeta.pow(ff::from_u64<1>(r.begin()));
    std::vector<G1Jacobian> scaled(r.size());
    for (std::size_t j = r.begin(); j < r.end(); ++j, c *= zeta) {
      scaled[j - r.begin()] = multiply(x[j], split_scalar(c));
      if (scaled[j - r.begin()].is_identity()) vanished = true;
    }
    const std::vector<G1Affine> affine = ec::batch_to_affine<ec::G1Curve>(scaled);
    std::copy(affine.begin(), affine.end(), h.begin() + std::ptrdiff_t(r.begin()));
  });
  if (vanished)
    throw std::runtime_error(
        "a point of the h query is at infinity (the H section is not a ceremony's: bellperson refuses it)");
  if (progress) progress("h", total_steps, total_steps);
  return h;
}

ConvertedZkey convert_zkey(Zkey&& z, const CircomR1cs& circuit, const ZkeyConvertSources& names,
                           const ZkeyConvertProgress& progress) {
  auto phase = [&](std::string_view p) {
    if (progress) progress(p, 0, 1);
  };
  phase("check");
  check_zkey_matches_circuit(z, circuit, names);
  const circuit::R1cs& r1cs = circuit.r1cs;
  const std::size_t nin = r1cs.num_inputs, naux = r1cs.num_aux;

  phase("queries");
  ConvertedZkey out;
  groth16::ProvingKey& pk = out.pk;
  pk.vk = std::move(z.vk);
  // A signal's point exists exactly where the circuit's density says it is used; a point at
  // infinity where it is used means τ is a root of u_i or v_i (probability ~m/r), one where it
  // is not means the zkey is not this circuit's.
  auto pick = [&](const auto& points, const char* section, auto used) {
    using Point = std::decay_t<decltype(points[0])>;
    std::vector<Point> kept;
    for (std::size_t i = 0; i < nin + naux; ++i) {
      const bool in_circuit = used(i);
      if (points[i].is_identity() == !in_circuit) {
        if (in_circuit) kept.push_back(points[i]);
        continue;
      }
      if (in_circuit)
        throw ZkeyConvertError(names.zkey, section,
                               "signal " + n(i) +
                                   " is used by the circuit but its point is at infinity (the "
                                   "ceremony's tau is a root of its polynomial; bellperson's format "
                                   "cannot hold this key)");
      throw ZkeyConvertError(names.zkey, section,
                             "signal " + n(i) + " has a point but the circuit " + names.circuit +
                                 " does not use it in that matrix (not the circuit this key was made for)");
    }
    return kept;
  };
  pk.a = pick(z.a, "A", [&](std::size_t i) { return i < nin || r1cs.a_aux_density.test(i - nin); });
  auto in_b = [&](std::size_t i) { return i < nin ? r1cs.b_input_density.test(i) : r1cs.b_aux_density.test(i - nin); };
  pk.b_g1 = pick(z.b1, "B1", in_b);
  pk.b_g2 = pick(z.b2, "B2", in_b);
  std::vector<G1Affine>().swap(z.a);
  std::vector<G1Affine>().swap(z.b1);
  std::vector<ec::G2Affine>().swap(z.b2);
  for (std::size_t j = 0; j < z.c.size(); ++j)
    if (z.c[j].is_identity())
      throw ZkeyConvertError(names.zkey, "C",
                             "private signal " + n(nin + j) +
                                 " is in no constraint, so its L point is at infinity, which bellperson's "
                                 "format refuses (compile the circuit with circom's simplification, --O1 or --O2)");
  pk.l = std::move(z.c);

  phase("rows");
  out.r1cs = rows_in_bellperson_order(r1cs, z.domain_size);

  pk.h = h_query_from_zkey(z.h, progress);
  return out;
}

}  // namespace snarkpipe::circom
