#include "circom/r1cs.hpp"

#include "circom/r1cs_build.hpp"

#include <algorithm>

namespace snarkpipe::circom {

namespace {

using circuit::CsrMatrix;
using ff::Fr;

constexpr std::uint32_t HEADER = 1, CONSTRAINTS = 2, WIRE_MAP = 3, CUSTOM_GATES_LIST = 4, CUSTOM_GATES_USES = 5;

struct Term {
  std::uint32_t wire;
  Fr coeff;
};

// Reads one linear combination and appends it to `m` as a CSR row (sorted, merged, no zeros).
void read_row(SectionReader& rd, std::uint32_t num_wires, CsrMatrix& m, std::vector<Term>& scratch, const char* matrix,
              std::uint32_t constraint) {
  const std::uint64_t at = rd.offset();
  const std::uint32_t n = rd.u32();
  if (std::uint64_t(n) * 36 > rd.remaining())
    rd.fail(at, std::string("constraint ") + std::to_string(constraint) + " " + matrix + " claims " +
                    std::to_string(n) + " terms (36 bytes each), past the end of the section (" +
                    std::to_string(rd.remaining()) + " bytes left)");
  scratch.clear();
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint64_t term_at = rd.offset();
    const std::uint32_t wire = rd.u32();
    if (wire >= num_wires)
      rd.fail(term_at, std::string("constraint ") + std::to_string(constraint) + " " + matrix + ": wire " +
                           std::to_string(wire) + " is not below nWires = " + std::to_string(num_wires));
    Fr c;
    if (!fr_from_le(rd.bytes(32), c))
      rd.fail(term_at + 4, std::string("constraint ") + std::to_string(constraint) + " " + matrix +
                               ": a coefficient is not below the field prime");
    scratch.push_back({wire, c});
  }
  std::sort(scratch.begin(), scratch.end(), [](const Term& a, const Term& b) { return a.wire < b.wire; });
  for (std::size_t i = 0; i < scratch.size();) {
    Fr sum = scratch[i].coeff;
    std::size_t j = i + 1;
    for (; j < scratch.size() && scratch[j].wire == scratch[i].wire; ++j) sum += scratch[j].coeff;
    if (!sum.is_zero()) {
      m.col.push_back(scratch[i].wire);
      m.val.push_back(sum);
    }
    i = j;
  }
  m.row_ptr.push_back(m.col.size());
}

}  // namespace

void append_input_rows(circuit::R1cs& r) {
  const std::uint64_t circom_rows = r.a.num_rows();
  for (std::uint64_t i = 0; i < r.num_inputs; ++i) {
    r.a.col.push_back(std::uint32_t(i));
    r.a.val.push_back(Fr::one());
    r.a.row_ptr.push_back(r.a.col.size());
    r.b.row_ptr.push_back(r.b.col.size());
    r.c.row_ptr.push_back(r.c.col.size());
  }
  r.num_constraints = circom_rows + r.num_inputs;
  r.a_aux_density = circuit::DensityBitmap(r.num_aux);
  r.b_input_density = circuit::DensityBitmap(r.num_inputs);
  r.b_aux_density = circuit::DensityBitmap(r.num_aux);
  for (std::uint32_t c : r.a.col)
    if (c >= r.num_inputs) r.a_aux_density.set(c - r.num_inputs);
  for (std::uint32_t c : r.b.col) {
    if (c < r.num_inputs) r.b_input_density.set(c);
    else r.b_aux_density.set(c - r.num_inputs);
  }
}

CircomR1cs read_circom_r1cs(const std::string& path) {
  const BinFile f(path, "r1cs", 1,
                  {{HEADER, "header"},
                   {CONSTRAINTS, "constraints"},
                   {WIRE_MAP, "wire-to-label map"},
                   {CUSTOM_GATES_LIST, "custom gates list"},
                   {CUSTOM_GATES_USES, "custom gates uses"}});
  CircomR1cs out;

  {
    SectionReader rd = f.reader(HEADER);
    const std::uint64_t n8_at = rd.offset();
    const std::uint32_t n8 = rd.u32();
    if (n8 == 0 || n8 > 64) rd.fail(n8_at, "field size n8 = " + std::to_string(n8) + " bytes is not plausible");
    const std::uint64_t prime_at = rd.offset();
    expect_scalar_prime(rd, prime_at, rd.bytes(n8));
    const std::uint64_t wires_at = rd.offset();
    out.num_wires = rd.u32();
    out.num_public_outputs = rd.u32();
    out.num_public_inputs = rd.u32();
    out.num_private_inputs = rd.u32();
    out.num_labels = rd.u64();
    out.num_constraints = rd.u32();
    rd.expect_end();
    const std::uint64_t needed =
        1 + std::uint64_t(out.num_public_outputs) + out.num_public_inputs + out.num_private_inputs;
    if (out.num_wires < needed)
      rd.fail(wires_at, "nWires = " + std::to_string(out.num_wires) +
                            " is fewer than ONE + outputs + inputs = " + std::to_string(needed));
    // What is built per wire (an input row for each public one, density bits for the rest)
    // must be paid for by the file, before it is built: by the wire-to-label map's 8 bytes a
    // wire (checked below), or without a map by at least a byte per wire. Else a small file
    // that claims 2^32 wires would take gigabytes and minutes to refuse.
    const std::uint64_t file_bytes = f.bytes().size();
    if (!f.find(WIRE_MAP) && out.num_wires > file_bytes)
      rd.fail(wires_at, "nWires = " + std::to_string(out.num_wires) + " (public: " + std::to_string(out.num_public()) +
                            ") is more wires than a " + std::to_string(file_bytes) +
                            "-byte file without a wire-to-label map can describe (at most one wire per byte)");
  }
  if (const Section* s = f.find(WIRE_MAP)) {
    SectionReader rd(f, *s);
    if (s->size != std::uint64_t(out.num_wires) * 8)
      rd.fail(s->offset, "the map has " + std::to_string(s->size) +
                             " bytes; nWires = " + std::to_string(out.num_wires) + " needs " +
                             std::to_string(std::uint64_t(out.num_wires) * 8));
    out.wire_to_label.resize(out.num_wires);
    for (auto& l : out.wire_to_label) {
      const std::uint64_t at = rd.offset();
      l = rd.u64();
      if (l >= out.num_labels)
        rd.fail(at, "label " + std::to_string(l) + " is not below nLabels = " + std::to_string(out.num_labels));
    }
  }
  for (std::uint32_t t : {CUSTOM_GATES_LIST, CUSTOM_GATES_USES}) {
    if (const Section* s = f.find(t); s && s->size > 4)
      f.fail(t, s->offset, "custom gates (circom's PLONK extension) cannot be proved with Groth16");
  }

  const std::uint64_t num_inputs = 1 + std::uint64_t(out.num_public());
  circuit::R1cs& r = out.r1cs;
  r.num_inputs = num_inputs;
  r.num_aux = out.num_wires - num_inputs;
  {
    SectionReader rd = f.reader(CONSTRAINTS);
    // Each constraint needs at least 12 bytes (three term counts).
    if (std::uint64_t(out.num_constraints) * 12 > rd.remaining())
      rd.fail(rd.offset(), "nConstraints = " + std::to_string(out.num_constraints) +
                               " needs at least 12 bytes each but the section has " + std::to_string(rd.remaining()));
    for (CsrMatrix* m : {&r.a, &r.b, &r.c}) {
      m->row_ptr.reserve(std::uint64_t(out.num_constraints) + num_inputs + 1);
      m->row_ptr.push_back(0);
    }
    std::vector<Term> scratch;
    for (std::uint32_t k = 0; k < out.num_constraints; ++k) {
      read_row(rd, out.num_wires, r.a, scratch, "A", k);
      read_row(rd, out.num_wires, r.b, scratch, "B", k);
      read_row(rd, out.num_wires, r.c, scratch, "C", k);
    }
    rd.expect_end();
  }
  append_input_rows(r);

  if (const auto d = circuit::find_defect(r))
    throw std::logic_error("internal error: the converted circuit breaks an invariant: " + d->problem);
  return out;
}

}  // namespace snarkpipe::circom
