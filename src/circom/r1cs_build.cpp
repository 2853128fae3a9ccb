#include "circom/r1cs_build.hpp"

#include <fstream>
#include <stdexcept>

namespace snarkpipe::circom {

namespace {

class LittleEndianFile {
 public:
  explicit LittleEndianFile(const std::string& path) : path_(path), out_(path, std::ios::binary | std::ios::trunc) {
    if (!out_) throw std::runtime_error("cannot create " + path);
    buf_.reserve(BUFFER);
  }
  void u32(std::uint32_t v) { put(v, 4); }
  void u64(std::uint64_t v) { put(v, 8); }
  void bytes(const std::uint8_t* b, std::size_t n) {
    buf_.insert(buf_.end(), b, b + n);
    if (buf_.size() >= BUFFER) flush();
  }
  void close() {
    flush();
    out_.close();
    if (!out_) throw std::runtime_error("cannot write " + path_ + " (disk full?)");
  }

 private:
  static constexpr std::size_t BUFFER = std::size_t(1) << 22;
  void put(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) buf_.push_back(std::uint8_t(v >> (8 * i)));
    if (buf_.size() >= BUFFER) flush();
  }
  void flush() {
    out_.write(reinterpret_cast<const char*>(buf_.data()), std::streamsize(buf_.size()));
    if (!out_) throw std::runtime_error("cannot write " + path_ + " (disk full?)");
    buf_.clear();
  }
  std::string path_;
  std::ofstream out_;
  std::vector<std::uint8_t> buf_;
};

}  // namespace

void write_circom_r1cs(const std::string& path, const CircomR1cs& c) {
  const circuit::R1cs& r = c.r1cs;
  const std::uint64_t rows = c.num_constraints;
  if (r.a.num_rows() < rows || r.b.num_rows() < rows || r.c.num_rows() < rows)
    throw std::invalid_argument("write_circom_r1cs: the matrices have fewer rows than nConstraints");
  if (!c.wire_to_label.empty() && c.wire_to_label.size() != c.num_wires)
    throw std::invalid_argument("write_circom_r1cs: the wire-to-label map does not have one label per wire");
  std::uint64_t terms = 0;
  for (const circuit::CsrMatrix* m : {&r.a, &r.b, &r.c}) terms += m->row_ptr[rows];

  LittleEndianFile f(path);
  f.bytes(reinterpret_cast<const std::uint8_t*>("r1cs"), 4);
  f.u32(1);  // version
  f.u32(3);  // sections: header, constraints, wire-to-label map

  f.u32(1);
  f.u64(4 + 32 + 4 * 4 + 8 + 4);
  f.u32(32);
  std::uint8_t prime[32];
  for (std::size_t i = 0; i < 32; ++i) prime[i] = std::uint8_t(ff::FrParams::modulus[i / 8] >> (8 * (i % 8)));
  f.bytes(prime, 32);
  f.u32(c.num_wires);
  f.u32(c.num_public_outputs);
  f.u32(c.num_public_inputs);
  f.u32(c.num_private_inputs);
  f.u64(c.num_labels);
  f.u32(c.num_constraints);

  f.u32(2);
  f.u64(12 * rows + 36 * terms);
  std::uint8_t coeff[32];
  for (std::uint64_t k = 0; k < rows; ++k) {
    for (const circuit::CsrMatrix* m : {&r.a, &r.b, &r.c}) {
      const auto cols = m->row_cols(k);
      const auto vals = m->row_vals(k);
      f.u32(std::uint32_t(cols.size()));
      for (std::size_t e = 0; e < cols.size(); ++e) {
        f.u32(cols[e]);
        vals[e].to_bytes_le(coeff);
        f.bytes(coeff, 32);
      }
    }
  }

  f.u32(3);
  f.u64(8 * std::uint64_t(c.num_wires));
  for (std::uint64_t w = 0; w < c.num_wires; ++w) f.u64(c.wire_to_label.empty() ? w : c.wire_to_label[w]);
  f.close();
}

}  // namespace snarkpipe::circom
