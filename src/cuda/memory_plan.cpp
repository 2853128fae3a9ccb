#include "cuda/memory_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <tuple>

#include "circuit/coefficient_codes.hpp"
#include "circuit/synthetic_shape.hpp"
#include "cuda/msm.hpp"
#include "poly/domain.hpp"

namespace snarkpipe::cuda {

namespace {

constexpr std::size_t FR = 32, G1 = sizeof(ec::G1Affine), G2 = sizeof(ec::G2Affine);
constexpr std::size_t RUNTIME_HEADROOM = std::size_t(1) << 30;
constexpr std::size_t LARGEST_PIECE = std::size_t(1) << 25, SMALLEST_PIECE = std::size_t(1) << 20;
// Below this the second streamer's MSMs are bound by their own arithmetic, and after the H
// MSM is better: at 16 GiB with 2^21 pieces they took 2.29 s beside a 1.14 s H MSM, a 3.28 s
// proof against 2.86 s serial (bench/results/prove/tiers-full-h200-2026-12-02-*.json).
constexpr std::size_t SMALLEST_TAIL_PIECE = std::size_t(1) << 22;
// Key pieces this large stream the H MSM at nearly its resident speed (977 against 950 ms at
// 2^23, full shape); larger ones only take memory the L, A, B MSMs could use.
constexpr std::size_t GOOD_PIECE = std::size_t(1) << 23;

// Bytes of the temporaries one GpuMsm pass over n scalars and `windows` windows of c bits
// takes from its pool (msm_impl.cuh: keys and values twice, pieces, one level, buckets).
std::size_t msm_temp_bytes(std::size_t n, std::size_t point_bytes, unsigned c, std::size_t windows) {
  const std::size_t B = windows << (c - 1), total = n * windows;
  const std::size_t pieces = total / 128 + B + 1;
  return total * 16 + pieces * point_bytes + (pieces / 8 + 2 * (B + 1)) * point_bytes + B * point_bytes + B * 32 +
         (std::size_t(64) << 20);
}

// One MSM over n scalars in a single pass at its own window (G1 XYZZ buckets: 2·96 bytes).
std::size_t one_pass_temp_bytes(std::size_t n, std::size_t point_bytes) {
  const unsigned c = msm_window_bits(std::max<std::size_t>(n, 1));
  return msm_temp_bytes(n, point_bytes, c, windows_for(c));
}

// The H MSM with its bases resident: passes of at most as many sorted entries as a 2^26
// MSM has at its own window (prover.cu's h_msm_config).
std::size_t h_msm_temp_bytes(std::size_t m) {
  const std::size_t piece = std::min(m, MSM_PIECE);
  const std::size_t max_entries = piece * windows_for(msm_window_bits(piece));
  const unsigned c = msm_window_bits(m);
  const std::size_t windows = windows_for(c);
  const std::size_t per_pass = std::clamp<std::size_t>(max_entries / std::max<std::size_t>(m, 1), 1, windows);
  return msm_temp_bytes(m, 2 * G1, c, per_pass);
}

// The L, A and B MSMs' pool beside the H chain: the 0/1 split of the longest query (flags and
// two index lists), one chunk of full scalars and its MSM's temporaries (G2, the larger).
std::size_t tail_temp_bytes(std::size_t longest_query) {
  const unsigned c = msm_window_bits(SPLIT_CHUNK);
  return 10 * longest_query + FR * SPLIT_CHUNK + msm_temp_bytes(SPLIT_CHUNK, 4 * G1, c, windows_for(c));
}

// With a streamed key: the MSM of one piece (G1 pieces; a G2 piece holds half the points in
// the same bytes and its buckets are twice as large: the same bound), its 0/1 split (read
// through the query's columns: no gathered copy) and its full scalars.
std::size_t streamed_temp_bytes(std::size_t piece) {
  return one_pass_temp_bytes(piece, 2 * G1) + 10 * piece + FR * piece;
}

std::size_t gib_tenths(std::size_t bytes) { return (bytes * 10 + (std::size_t(1) << 29)) >> 30; }

const char* place_name(Place p) {
  return p == Place::device ? "on the GPU" : p == Place::pinned_host ? "pinned host" : "host";
}

}  // namespace

std::size_t setup_device_bytes() {
  constexpr std::size_t batch = std::size_t(1) << 22, table_entries = 22 * 4095;  // fixed_base.cu
  const std::size_t g1 = table_entries * G1 + batch * (FR + 4 * 48 + G1);
  const std::size_t g2 = table_entries * G2 + batch * (FR + 4 * 96 + G2);
  return g1 + g2 + (std::size_t(64) << 20);
}

std::string format_gib(std::size_t bytes) {
  const std::size_t t = gib_tenths(bytes);
  return std::to_string(t / 10) + "." + std::to_string(t % 10) + " GiB";
}

const char* to_string(MemoryTier tier) {
  switch (tier) {
    case MemoryTier::resident:
      return "resident";
    case MemoryTier::key_streamed:
      return "key streamed";
    case MemoryTier::circuit_streamed:
      return "circuit streamed";
    case MemoryTier::bounded_h:
      return "bounded H";
  }
  return "?";
}

std::size_t ProofShape::domain() const {
  return poly::EvaluationDomain::for_size(std::max<std::size_t>(constraints, 1)).m();
}

std::size_t ProofShape::key_bytes() const { return (h_points + l_points + a_points + b_points) * G1 + b_points * G2; }

std::size_t device_circuit_bytes(const circuit::R1cs& r1cs) {
  std::size_t bytes = 0;
  for (const auto* mat : {&r1cs.a, &r1cs.b, &r1cs.c})
    bytes += mat->row_ptr.size() * 8 + mat->nnz() * (4 + 4) + circuit::count_other_coefficients(mat->val) * FR;
  return bytes;
}

ProofShape ProofShape::of(const groth16::ProvingKey& pk, const circuit::R1cs& r1cs) {
  return of(pk, r1cs, device_circuit_bytes(r1cs));
}

ProofShape ProofShape::of(const groth16::ProvingKey& pk, const circuit::R1cs& r1cs, std::size_t circuit_bytes) {
  ProofShape s;
  s.constraints = r1cs.num_constraints;
  s.inputs = r1cs.num_inputs;
  s.aux = r1cs.num_aux;
  s.h_points = pk.h.size();
  s.l_points = pk.l.size();
  s.a_points = pk.a.size();
  s.b_points = pk.b_g1.size();
  s.circuit_bytes = circuit_bytes;
  return s;
}

ProofShape ProofShape::of(const groth16::ProvingKey& pk, const groth16::EvaluatedAssignment& ea) {
  ProofShape s;
  s.constraints = ea.num_constraints();
  s.inputs = ea.inputs.size();
  s.aux = ea.aux.size();
  s.h_points = pk.h.size();
  s.l_points = pk.l.size();
  s.a_points = pk.a.size();
  s.b_points = pk.b_g1.size();
  s.evaluated = true;
  return s;
}

ProofShape ProofShape::porep_partition(double scale) {
  // The partition's shape as circuit::SyntheticShape keeps it (REFERENCE.md §5), counted the
  // way its generator rounds; the B query also holds one input (ONE).
  const circuit::SyntheticShape shape = circuit::SyntheticShape{}.scaled(scale);
  auto count = [](double fraction, std::uint64_t n) { return std::size_t(std::llround(fraction * double(n))); };
  ProofShape s;
  s.inputs = shape.num_inputs;
  s.constraints = shape.num_constraints;
  s.aux = shape.num_aux;
  s.h_points = s.domain() - 1;
  s.l_points = s.aux;
  s.a_points = s.inputs + count(shape.a_aux_density, shape.num_aux);
  s.b_points = 1 + count(shape.b_aux_density, shape.num_aux);
  const std::size_t nnz = count(shape.a_per_row, shape.num_constraints) +
                          count(shape.b_per_row, shape.num_constraints) + count(shape.c_per_row, shape.num_constraints);
  s.circuit_bytes = 3 * (s.constraints + 1) * 8 + nnz * 8;  // row pointers, column + code (few "other" values)
  return s;
}

MemoryPlan plan_for_tier(const ProofShape& s, MemoryTier tier, std::size_t piece_points, bool abc_from_host,
                         std::size_t tail_piece_points) {
  MemoryPlan p;
  p.tier = tier;
  const std::size_t m = s.domain(), columns = s.inputs + s.aux;
  const std::size_t longest = std::max({s.aux, s.a_points, s.b_points});
  const bool key_resident = tier == MemoryTier::resident;
  const bool bounded = tier == MemoryTier::bounded_h;
  const bool circuit_resident = !s.evaluated && (tier == MemoryTier::resident || tier == MemoryTier::key_streamed);
  p.abc_from_host = bounded && !s.evaluated && abc_from_host;
  p.streams_circuit = !s.evaluated && (tier == MemoryTier::circuit_streamed || (bounded && !p.abc_from_host));
  p.piece_points = key_resident ? 0 : (piece_points ? piece_points : LARGEST_PIECE);
  // Beside the H MSM z must be on the device: not in tier 4's a/b/c-from-host variant (nor
  // for an evaluated assignment in tier 4, whose z comes after H as well).
  const bool z_late = bounded && (p.abc_from_host || s.evaluated);
  p.tail_piece_points = key_resident || z_late ? 0 : std::min(tail_piece_points, p.piece_points);
  const std::size_t T = p.tail_piece_points;
  auto add = [&](std::string what, Place where, std::size_t bytes, bool phase = false) {
    p.items.push_back({std::move(what), where, bytes, phase});
  };
  // A streamed matrix's piece buffers (row pointers, columns and codes), never more than the circuit.
  const std::size_t csr_piece = std::min(CSR_PIECE_NNZ * 8 + (CSR_PIECE_ROWS + 1) * 8, s.circuit_bytes);
  // The L, A, B MSMs beside the H MSM: the second streamer's two pieces and its MSM's
  // temporaries, made for the MSM phase and given back after it (prover.cu).
  const std::size_t tail_bytes = T ? 2 * T * G1 + streamed_temp_bytes(T) : 0;
  const std::string beside = "the L, A, B MSMs beside it (a second streamer, 2 × " + std::to_string(T) + " G1 points)";

  add("proving key", key_resident ? Place::device : Place::pinned_host, s.key_bytes());
  if (!key_resident)
    add("key pieces (2 × " + std::to_string(p.piece_points) + " G1 points)", Place::device, 2 * p.piece_points * G1);
  if (!s.evaluated) {
    add("recorded circuit",
        circuit_resident    ? Place::device
        : p.streams_circuit ? Place::pinned_host
                            : Place::host,
        s.circuit_bytes);
    if (p.streams_circuit) add("circuit pieces", Place::device, csr_piece);
  }
  add("query columns", Place::device, (s.a_points + s.b_points) * 4);
  // The driver's own: local memory for the kernels' spills, grown at a launch for every thread
  // the device can hold (launches failed with "out of memory" with 0.4 GiB left: H200, full
  // shape at 16 GiB free, and 1/16 at 2 GiB; bench/results/prove/tiers-*-2026-12-02.json).
  add("CUDA runtime headroom", Place::device, RUNTIME_HEADROOM);
  if (!bounded && !T) {
    add("witness z", Place::device, columns * FR);
    add("a, b, c", Place::device, 3 * m * FR);
    // Tier 3 transforms with compact twiddles (two small tables): only the scratch vector.
    add(tier == MemoryTier::circuit_streamed ? "NTT scratch" : "NTT tables and scratch", Place::device,
        (tier == MemoryTier::circuit_streamed ? 1 : 3) * m * FR);
    if (key_resident) {
      add("H MSM temporaries", Place::device, h_msm_temp_bytes(m));
      add("L, A, B MSM temporaries (second stream)", Place::device, tail_temp_bytes(longest));
    } else {
      add("MSM temporaries (one piece at a time)", Place::device, streamed_temp_bytes(p.piece_points));
    }
  } else if (!bounded) {
    // Two phases (prover.cu gives the H phase's blocks back before the MSMs start): H with
    // a, b, c and the NTT's scratch, then the H MSM over h with the L, A, B MSMs beside it.
    add("witness z", Place::device, columns * FR);
    if (tier == MemoryTier::key_streamed) add("NTT tables", Place::device, 2 * m * FR);
    add("H phase: a, b, c and the NTT scratch", Place::device, 4 * m * FR, true);
    add("MSM phase: h, the H MSM's piece, " + beside, Place::device,
        m * FR + one_pass_temp_bytes(p.piece_points, 2 * G1) + tail_bytes, true);
  } else {
    // One phase at a time (src/cuda/prover.cu, bounded_quotient): H with one full-size
    // vector and the NTT's scratch (compact twiddles), a second vector staged in pinned host
    // memory; then the H MSM over that vector; then the L, A, B MSMs (or those beside the H
    // MSM). z stays on the device throughout when the circuit streams (its SpMV reads z);
    // otherwise it comes after H.
    const std::size_t stage_piece = std::min(m, H_STAGE_PIECE) * FR;
    if (p.streams_circuit) add("witness z", Place::device, columns * FR);
    add("H phase: one vector, NTT scratch and tables, a staging piece", Place::device,
        2 * m * FR + stage_piece + (std::size_t(1) << 20), true);
    if (T) {
      add("MSM phase: h, the H MSM's piece, " + beside, Place::device,
          m * FR + one_pass_temp_bytes(p.piece_points, 2 * G1) + tail_bytes, true);
    } else {
      add("H MSM phase: h and the piece's MSM", Place::device, m * FR + one_pass_temp_bytes(p.piece_points, 2 * G1),
          true);
      add(p.streams_circuit ? "L, A, B phase: the piece's MSM" : "L, A, B phase: z and the piece's MSM", Place::device,
          (p.streams_circuit ? 0 : columns * FR) + streamed_temp_bytes(p.piece_points), true);
    }
    add("one vector staged for H", Place::pinned_host, m * FR);
    if (p.abc_from_host) add("a, b, c (evaluated on the host)", Place::pinned_host, 3 * s.constraints * FR);
  }
  {
    std::size_t fixed = 0, phase = 0;
    for (const auto& it : p.items) {
      if (it.where != Place::device) continue;
      if (it.phase) phase = std::max(phase, it.bytes);
      else fixed += it.bytes;
    }
    p.device_bytes = fixed + phase;
  }

  // Host → device per partition: the witness (an upper bound: a packed witness is ~1/10),
  // the key when it streams, the circuit when it streams, a, b, c when they come evaluated
  // (the caller's, or the host's), and for bounded H the staged vector's two return trips.
  p.bus_bytes_per_partition = columns * FR;
  if (!key_resident) p.bus_bytes_per_partition += s.key_bytes();
  if (p.streams_circuit) p.bus_bytes_per_partition += s.circuit_bytes;
  if (s.evaluated || p.abc_from_host) p.bus_bytes_per_partition += 3 * s.constraints * FR;
  if (bounded) p.bus_bytes_per_partition += 2 * m * FR;
  return p;
}

MemoryPlan plan_device_memory(const PlanRequest& r) {
  const std::size_t available = r.budget ? std::min(r.budget, r.device_free) : r.device_free;
  std::vector<MemoryTier> tiers;
  if (r.choice != TierChoice::key_on_host) tiers.push_back(MemoryTier::resident);
  if (r.choice != TierChoice::key_on_device) {
    tiers.push_back(MemoryTier::key_streamed);
    if (!r.shape.evaluated) tiers.push_back(MemoryTier::circuit_streamed);
    tiers.push_back(MemoryTier::bounded_h);
  }
  std::vector<std::size_t> pieces;
  if (r.piece_points) pieces.push_back(r.piece_points);
  else
    for (std::size_t p = LARGEST_PIECE; p >= SMALLEST_PIECE; p /= 2) pieces.push_back(p);
  MemoryPlan smallest;
  bool have_smallest = false;
  if (r.only_tier) std::erase_if(tiers, [&](MemoryTier t) { return int(t) != r.only_tier; });
  if (tiers.empty())
    throw MemoryPlanError("memory tier " + std::to_string(r.only_tier) +
                          " is not allowed here (tier 1 keeps the key in "
                          "GPU memory, tiers 2-4 in host memory; tier 3 needs a recorded circuit)");
  for (const MemoryTier tier : tiers) {
    // Tier 4 streams the circuit (z stays on the device) or, in less memory, has the host
    // evaluate a, b, c (z after H); an evaluated assignment has its a, b, c already.
    const bool variants = tier == MemoryTier::bounded_h && !r.shape.evaluated;
    for (const bool host_abc : variants ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
      // Of the piece sizes that fit, the best: the H MSM's pieces up to GOOD_PIECE first (it
      // is bound by arithmetic, and smaller pieces cost it more passes: 2^21 pieces took 17 %
      // longer than 2^23 at 24 GiB), then the L, A, B MSMs beside it with pieces as large as
      // possible (down to SMALLEST_TAIL_PIECE; with the key streamed the bus bounds them, so
      // beside the H MSM they cost little), then after it; then larger pieces.
      std::optional<MemoryPlan> best;
      auto score = [](const MemoryPlan& p) {
        return std::tuple(std::min(p.piece_points, GOOD_PIECE), p.tail_piece_points, p.piece_points);
      };
      for (const std::size_t piece : pieces) {
        std::vector<std::size_t> tails;
        if (tier != MemoryTier::resident && r.concurrent_msms)
          for (std::size_t t = piece; t >= std::min(piece, SMALLEST_TAIL_PIECE); t /= 2) tails.push_back(t);
        tails.push_back(0);
        for (const std::size_t tail : tails) {
          MemoryPlan p = plan_for_tier(r.shape, tier, piece, host_abc, tail);
          if (tail && !p.tail_piece_points) continue;  // this variant has no MSMs beside H's
          p.available_bytes = available;
          p.device_name = r.device_name;
          if (p.device_bytes <= available) {
            if (!best || score(p) > score(*best)) best = std::move(p);
          } else if (!have_smallest || p.device_bytes < smallest.device_bytes) {
            smallest = std::move(p), have_smallest = true;
          }
        }
        if (tier == MemoryTier::resident) break;  // no pieces to shrink
      }
      if (best) return *best;
    }
  }
  std::string why =
      r.device_name + " has " + format_gib(r.device_free) + " free" +
      (r.budget && r.budget < r.device_free ? " (memory.device_budget " + format_gib(r.budget) + ")" : "") +
      "; the smallest plan allowed, tier " + std::to_string(int(smallest.tier)) + " (" + to_string(smallest.tier) +
      "), needs " + format_gib(smallest.device_bytes);
  if (r.choice == TierChoice::key_on_device)
    why += " (try --srs-residency host or auto: the key streams from host memory)";
  else why += ": use a GPU with more free memory, free some of this one's, or the CPU backend (--backend cpu)";
  throw MemoryPlanError(why);
}

std::string MemoryPlan::summary() const {
  std::string s = "tier " + std::to_string(int(tier)) + " of 4 (" + to_string(tier) +
                  (tier != MemoryTier::bounded_h ? ""
                   : abc_from_host               ? ", a/b/c from the host"
                   : streams_circuit             ? ", circuit streamed"
                                                 : "") +
                  (tail_piece_points ? ", L/A/B beside the H MSM" : "") + "): " + format_gib(device_bytes) + " planned";
  if (available_bytes) s += " of " + format_gib(available_bytes) + " free";
  if (!device_name.empty()) s += " on " + device_name;
  return s;
}

std::string MemoryPlan::describe() const {
  std::string s = summary() + "\n";
  for (const Place where : {Place::device, Place::pinned_host, Place::host}) {
    std::string line;
    for (const auto& it : items)
      if (it.where == where) line += (line.empty() ? "" : ", ") + it.what + " " + format_gib(it.bytes);
    if (!line.empty()) s += std::string("  ") + place_name(where) + ": " + line + "\n";
  }
  char bus[160];
  std::snprintf(bus, sizeof bus, "  host to GPU per partition: %s (about %.2f s at 50 GB/s)\n",
                format_gib(bus_bytes_per_partition).c_str(), double(bus_bytes_per_partition) / 50e9);
  return s + bus;
}

}  // namespace snarkpipe::cuda
