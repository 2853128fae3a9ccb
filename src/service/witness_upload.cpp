#include "service/witness_upload.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>

#include <tbb/parallel_for.h>

#include "circom/wtns.hpp"
#include "groth16/packed_witness.hpp"

namespace snarkpipe::service {

namespace {

constexpr std::uint64_t VALUE_BYTES = 32;

std::uint64_t load_u64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// 32 little-endian bytes below r, compared limb by limb (no field arithmetic: a PoRep upload
// has 130M values).
bool below_r(const std::uint8_t* p) {
  const auto& m = ff::Fr::MODULUS;
  for (int limb = 3; limb >= 0; --limb) {
    const std::uint64_t v = load_u64(p + 8 * limb);
    if (v != m[limb]) return v < m[limb];
  }
  return false;
}

bool is_one(const std::uint8_t* p) {
  if (p[0] != 1) return false;
  for (int i = 1; i < 32; ++i)
    if (p[i]) return false;
  return true;
}

ff::Fr value_at(const std::uint8_t* p) { return *ff::Fr::from_bytes_le(std::span<const std::uint8_t>(p, VALUE_BYTES)); }

class File {
 public:
  explicit File(const std::filesystem::path& path) : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0)
      throw std::runtime_error("cannot open the spooled witness " + path.string() + ": " + std::strerror(errno));
  }
  ~File() { ::close(fd_); }
  void read_at(std::uint64_t offset, void* out, std::size_t size) const {
    auto* p = static_cast<std::uint8_t*>(out);
    while (size) {
      const ssize_t n = ::pread(fd_, p, size, off_t(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        throw std::runtime_error("the spooled witness " + path_.string() + " is shorter than it was when admitted");
      p += n, offset += std::uint64_t(n), size -= std::size_t(n);
    }
  }

 private:
  std::filesystem::path path_;
  int fd_;
};

// `count` values from `offset` onto the end of `out`, in blocks (no 4 GB read buffer), each
// block converted in parallel: a PoRep partition's ~13M general values are on the daemon's
// path to the device.
template <class Values>
void read_values(const File& f, std::uint64_t offset, std::uint64_t count, Values& out) {
  constexpr std::uint64_t BLOCK = 1 << 20;
  std::vector<std::uint8_t> buf(std::min(count, BLOCK) * VALUE_BYTES);
  const std::size_t base = out.size();
  out.resize(base + count);
  for (std::uint64_t done = 0; done < count;) {
    const std::uint64_t n = std::min(BLOCK, count - done);
    f.read_at(offset + done * VALUE_BYTES, buf.data(), n * VALUE_BYTES);
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, n, 1 << 14), [&](const auto& r) {
      for (std::uint64_t i = r.begin(); i < r.end(); ++i) out[base + done + i] = value_at(buf.data() + i * VALUE_BYTES);
    });
    done += n;
  }
}

// A packed partition's bitmaps and general values from `at` into `out` (its capacity kept),
// with the rank the unpacking and the GPU use.
void read_packed_aux(const File& f, std::uint64_t at, WitnessShape shape, groth16::PackedWitness& out) {
  out.num_aux = shape.num_aux;
  const std::uint64_t words = (shape.num_aux + 63) / 64;
  out.general.resize(words);
  out.ones.resize(words);
  f.read_at(at, out.general.data(), words * 8);
  f.read_at(at + words * 8, out.ones.data(), words * 8);
  if constexpr (std::endian::native != std::endian::little) {
    for (auto* v : {&out.general, &out.ones})
      for (auto& w : *v) w = load_u64(reinterpret_cast<const std::uint8_t*>(&w));
  }
  out.rank.resize(words);
  std::uint64_t general = 0;
  for (std::uint64_t w = 0; w < words; ++w) {
    out.rank[w] = std::uint32_t(general);
    general += std::uint64_t(std::popcount(out.general[w]));
  }
  out.values.clear();
  out.values.reserve(general);
  read_values(f, at + 2 * words * 8, general, out.values);
}

}  // namespace

std::optional<WitnessFormat> parse_witness_format(std::string_view name) {
  if (name == "wtns") return WitnessFormat::WTNS;
  if (name == "assignment") return WitnessFormat::ASSIGNMENT;
  if (name == "packed") return WitnessFormat::PACKED;
  return std::nullopt;
}

std::string_view witness_format_name(WitnessFormat f) {
  switch (f) {
    case WitnessFormat::WTNS:
      return "wtns";
    case WitnessFormat::ASSIGNMENT:
      return "assignment";
    case WitnessFormat::PACKED:
      return "packed";
  }
  return "?";
}

std::uint64_t exact_upload_bytes(WitnessFormat f, WitnessShape s, std::uint64_t partitions) {
  return f == WitnessFormat::ASSIGNMENT ? partitions * (s.num_inputs + s.num_aux) * VALUE_BYTES : 0;
}

std::uint64_t max_upload_bytes(WitnessFormat f, WitnessShape s, std::uint64_t partitions) {
  const std::uint64_t words = (s.num_aux + 63) / 64;
  switch (f) {
    case WitnessFormat::WTNS:
      return 4096 + (s.num_inputs + s.num_aux) * VALUE_BYTES;  // header + sections
    case WitnessFormat::ASSIGNMENT:
      return exact_upload_bytes(f, s, partitions);
    case WitnessFormat::PACKED:
      return partitions * ((s.num_inputs + s.num_aux) * VALUE_BYTES + 16 * words);
  }
  return 0;
}

UploadChecker::UploadChecker(WitnessFormat format, WitnessShape shape, std::uint64_t partitions)
    : format_(format), shape_(shape), partitions_(partitions), words_((shape.num_aux + 63) / 64) {
  if (format == WitnessFormat::WTNS) throw std::logic_error("a .wtns upload is checked whole (check_wtns)");
  starts_.push_back(0);
  part_size_ = shape_.num_inputs;
  if (format_ == WitnessFormat::PACKED) general_.resize(words_);
}

void UploadChecker::fail(const std::string& why) const {
  throw BadWitness("witness (" + std::string(witness_format_name(format_)) + "), partition " +
                   std::to_string(partition_) + ", byte " + std::to_string(offset_) + ": " + why);
}

void UploadChecker::next_part() {
  index_ = 0;
  switch (part_) {
    case Part::INPUTS:
      if (format_ == WitnessFormat::ASSIGNMENT) {
        part_ = Part::VALUES;
        part_size_ = shape_.num_aux;
      } else {
        part_ = Part::GENERAL;
        part_size_ = words_;
        general_count_ = 0;
      }
      break;
    case Part::GENERAL:
      part_ = Part::ONES;
      part_size_ = words_;
      break;
    case Part::ONES:
      part_ = Part::VALUES;
      part_size_ = general_count_;
      break;
    case Part::VALUES:
      ++partition_;
      if (partition_ == partitions_) {
        part_ = Part::DONE;
        return;
      }
      starts_.push_back(offset_);
      part_ = Part::INPUTS;
      part_size_ = shape_.num_inputs;
      break;
    case Part::DONE:
      break;
  }
  if (part_size_ == 0 && part_ != Part::DONE) next_part();
}

void UploadChecker::item(const std::uint8_t* p) {
  switch (part_) {
    case Part::INPUTS:
      if (!below_r(p)) fail("input " + std::to_string(index_) + " is not below r");
      if (index_ == 0 && !is_one(p)) fail("the first value (the constant ONE) is not 1");
      break;
    case Part::VALUES:
      if (!below_r(p)) fail("aux value " + std::to_string(index_) + " is not below r");
      break;
    case Part::GENERAL:
    case Part::ONES: {
      std::uint64_t word = load_u64(p);
      const std::uint64_t last_bits = shape_.num_aux % 64;
      if (index_ + 1 == words_ && last_bits && (word >> last_bits))
        fail(std::string(part_ == Part::GENERAL ? "general" : "ones") + " bitmap has bits past num_aux");
      if (part_ == Part::GENERAL) {
        general_[index_] = word;
        general_count_ += std::uint64_t(std::popcount(word));
      } else if (word & general_[index_]) {
        fail("ones and general bitmaps overlap in word " + std::to_string(index_));
      }
      break;
    }
    case Part::DONE:
      break;
  }
}

void UploadChecker::feed(const std::uint8_t* data, std::size_t size) {
  while (size) {
    if (part_ == Part::DONE) fail("bytes after the last partition (is 'partitions' right?)");
    const std::size_t item_bytes = (part_ == Part::GENERAL || part_ == Part::ONES) ? 8 : VALUE_BYTES;
    if (carried_ || size < item_bytes) {
      const std::size_t take = std::min(item_bytes - carried_, size);
      std::memcpy(carry_ + carried_, data, take);
      carried_ += take, data += take, size -= take;
      if (carried_ < item_bytes) return;
      item(carry_);
      carried_ = 0;
    } else {
      item(data);
      data += item_bytes, size -= item_bytes;
    }
    offset_ += item_bytes;
    if (++index_ == part_size_) next_part();
  }
}

std::vector<std::uint64_t> UploadChecker::finish() const {
  if (part_ != Part::DONE)
    throw BadWitness("witness (" + std::string(witness_format_name(format_)) + ") ends early: " +
                     std::to_string(offset_ + carried_) + " bytes, in partition " + std::to_string(partition_) +
                     " of " + std::to_string(partitions_) + " (each needs " + std::to_string(shape_.num_inputs) +
                     " inputs and " + std::to_string(shape_.num_aux) + " aux values)");
  return starts_;
}

void check_wtns(const std::filesystem::path& file, WitnessShape shape) {
  std::vector<ff::Fr> values;
  try {
    values = circom::read_wtns(file.string());
  } catch (const std::exception& e) {
    throw BadWitness(std::string("witness (wtns): ") + e.what());
  }
  if (values.size() != shape.num_inputs + shape.num_aux)
    throw BadWitness("witness (wtns) has " + std::to_string(values.size()) + " values; the circuit has " +
                     std::to_string(shape.num_inputs + shape.num_aux) + " (" + std::to_string(shape.num_inputs) +
                     " inputs with ONE, " + std::to_string(shape.num_aux) + " aux): is it this circuit's witness?");
}

void read_uploaded_partition(const std::filesystem::path& file, WitnessFormat format, WitnessShape shape,
                             const std::vector<std::uint64_t>& starts, std::size_t k, groth16::Witness& out) {
  out.inputs.clear();
  out.aux.clear();
  if (format == WitnessFormat::WTNS) {
    const std::vector<ff::Fr> values = circom::read_wtns(file.string());
    out.inputs.assign(values.begin(), values.begin() + std::ptrdiff_t(shape.num_inputs));
    out.aux.assign(values.begin() + std::ptrdiff_t(shape.num_inputs), values.end());
    return;
  }
  if (k >= starts.size()) throw std::runtime_error("the spooled witness has no partition " + std::to_string(k));
  const File f(file);
  const std::uint64_t start = starts[k];
  read_values(f, start, shape.num_inputs, out.inputs);
  const std::uint64_t aux_at = start + shape.num_inputs * VALUE_BYTES;
  if (format == WitnessFormat::ASSIGNMENT) {
    read_values(f, aux_at, shape.num_aux, out.aux);
    return;
  }
  groth16::PackedWitness packed;
  read_packed_aux(f, aux_at, shape, packed);
  out.aux.resize(shape.num_aux);
  groth16::unpack_aux_into(packed, out.aux);
}

void read_uploaded_packed_partition(const std::filesystem::path& file, WitnessShape shape,
                                    const std::vector<std::uint64_t>& starts, std::size_t k,
                                    groth16::PackedWitness& out) {
  if (k >= starts.size()) throw std::runtime_error("the spooled witness has no partition " + std::to_string(k));
  const File f(file);
  out.inputs.clear();
  read_values(f, starts[k], shape.num_inputs, out.inputs);
  read_packed_aux(f, starts[k] + shape.num_inputs * VALUE_BYTES, shape, out);
}

std::vector<std::uint8_t> encode_packed(const groth16::Witness& w) {
  groth16::PackedWitness packed;
  groth16::pack_witness(w.inputs, w.aux, packed);
  std::vector<std::uint8_t> out((w.inputs.size() + packed.values.size()) * VALUE_BYTES + 16 * packed.general.size());
  std::uint8_t* p = out.data();
  for (const auto& x : w.inputs) x.to_bytes_le(p), p += VALUE_BYTES;
  for (const auto* bitmap : {&packed.general, &packed.ones})
    for (std::uint64_t word : *bitmap)
      for (int i = 0; i < 8; ++i) *p++ = std::uint8_t(word >> (8 * i));
  for (const auto& x : packed.values) x.to_bytes_le(p), p += VALUE_BYTES;
  return out;
}

}  // namespace snarkpipe::service
