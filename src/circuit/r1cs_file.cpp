#include "circuit/r1cs_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "base/mapped_file.hpp"

namespace snarkpipe::circuit {

static_assert(std::endian::native == std::endian::little, "the r1cs file is little-endian, read in place");

namespace {

constexpr std::uint64_t NUM_SECTIONS = 13;
constexpr std::uint64_t CHECKSUM_BLOCK = std::uint64_t(1) << 20;
constexpr std::uint64_t P1 = 0x9e3779b185ebca87ULL;
constexpr std::uint64_t P2 = 0xc2b2ae3d27d4eb4fULL;

// Header field offsets (r1cs_file.hpp).
constexpr std::uint64_t OFF_VERSION = 8, OFF_HEADER_SIZE = 12, OFF_NUM_INPUTS = 16, OFF_NUM_AUX = 24,
                        OFF_NUM_CONSTRAINTS = 32, OFF_A_NNZ = 40, OFF_B_NNZ = 48, OFF_C_NNZ = 56, OFF_FILE_SIZE = 64,
                        OFF_RESERVED = 80;

constexpr std::uint64_t fmix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

std::uint64_t load_u64(const std::uint8_t* p) {
  std::uint64_t x;
  std::memcpy(&x, p, 8);
  return x;
}
std::uint32_t load_u32(const std::uint8_t* p) {
  std::uint32_t x;
  std::memcpy(&x, p, 4);
  return x;
}
void store_u64(std::uint8_t* p, std::uint64_t x) { std::memcpy(p, &x, 8); }
void store_u32(std::uint8_t* p, std::uint32_t x) { std::memcpy(p, &x, 4); }

class BlockHasher {
 public:
  explicit BlockHasher(std::uint64_t block) {
    for (std::uint64_t j = 0; j < 4; ++j) v_[j] = fmix(4 * block + j + 1);
  }
  // n is a multiple of 32.
  void update(const std::uint8_t* p, std::uint64_t n) {
    std::uint64_t v0 = v_[0], v1 = v_[1], v2 = v_[2], v3 = v_[3];
    for (std::uint64_t i = 0; i < n; i += 32) {
      v0 = std::rotl(v0 + load_u64(p + i) * P2, 31) * P1;
      v1 = std::rotl(v1 + load_u64(p + i + 8) * P2, 31) * P1;
      v2 = std::rotl(v2 + load_u64(p + i + 16) * P2, 31) * P1;
      v3 = std::rotl(v3 + load_u64(p + i + 24) * P2, 31) * P1;
    }
    v_ = {v0, v1, v2, v3};
    len_ += n;
  }
  std::uint64_t finish() const {
    return fmix(std::rotl(v_[0], 1) + std::rotl(v_[1], 7) + std::rotl(v_[2], 12) + std::rotl(v_[3], 18) + len_);
  }

 private:
  std::array<std::uint64_t, 4> v_{};
  std::uint64_t len_ = 0;
};

// Overflow-checked a + b and a · b: false on overflow.
bool add_ok(std::uint64_t a, std::uint64_t b, std::uint64_t& out) { return !__builtin_add_overflow(a, b, &out); }
bool mul_ok(std::uint64_t a, std::uint64_t b, std::uint64_t& out) { return !__builtin_mul_overflow(a, b, &out); }
bool align_ok(std::uint64_t x, std::uint64_t& out) {
  if (!add_ok(x, R1CS_FILE_ALIGN - 1, out)) return false;
  out &= ~(R1CS_FILE_ALIGN - 1);
  return true;
}

// Bytes per entry of each section, in R1csField order.
constexpr std::array<std::uint64_t, NUM_SECTIONS> ENTRY_SIZE = {1, 8, 4, 32, 8, 4, 32, 8, 4, 32, 8, 8, 8};

using Fd = base::UniqueFd;

// Populated up front: every byte is read anyway (checksum, copy), and one pass in the kernel is
// cheaper than a fault per page.
class Mapping : public base::FileMapping {
 public:
  Mapping(int fd, std::uint64_t size) : base::FileMapping(fd, size, {.populate = true}) {}
};

std::string errno_text(int err) { return std::strerror(err); }

// Copies `count` entries of T from the file image, in parallel.
template <class T>
std::vector<T> copy_section(const std::uint8_t* base, const R1csFileSection& s) {
  const std::uint64_t count = s.size / sizeof(T);
  std::vector<T> v(count);
  auto* dst = reinterpret_cast<std::uint8_t*>(v.data());
  constexpr std::uint64_t chunk = std::uint64_t(1) << 24;
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, s.size, chunk), [&](const auto& r) {
    std::memcpy(dst + r.begin(), base + s.offset + r.begin(), r.end() - r.begin());
  });
  return v;
}

// A matrix array of the file: a view into the mapping, or a copy.
template <class T>
CsrArray<T> section_array(const std::shared_ptr<Mapping>& map, const R1csFileSection& s, bool in_place) {
  if (!in_place) return copy_section<T>(map->data(), s);
  return CsrArray<T>::view(map, reinterpret_cast<T*>(map->mutable_data() + s.offset), s.size / sizeof(T));
}

}  // namespace

std::optional<R1csFileLayout> r1cs_file_layout(std::uint64_t num_inputs, std::uint64_t num_aux,
                                               std::uint64_t num_constraints, std::uint64_t a_nnz, std::uint64_t b_nnz,
                                               std::uint64_t c_nnz) {
  std::uint64_t rows_plus_1;
  if (!add_ok(num_constraints, 1, rows_plus_1)) return std::nullopt;
  const std::uint64_t aux_words = DensityBitmap::words_for(num_aux);
  const std::uint64_t input_words = DensityBitmap::words_for(num_inputs);
  const std::array<std::uint64_t, NUM_SECTIONS> counts = {
      R1CS_FILE_HEADER_SIZE, rows_plus_1, a_nnz, a_nnz,     rows_plus_1, b_nnz,    b_nnz,
      rows_plus_1,           c_nnz,       c_nnz, aux_words, input_words, aux_words};
  R1csFileLayout layout;
  std::uint64_t at = 0;
  for (std::size_t i = 0; i < NUM_SECTIONS; ++i) {
    std::uint64_t size, end;
    if (!align_ok(at, at) || !mul_ok(counts[i], ENTRY_SIZE[i], size) || !add_ok(at, size, end)) return std::nullopt;
    layout.sections[i] = {at, size};
    at = end;
  }
  if (!align_ok(at, layout.file_size)) return std::nullopt;
  return layout;
}

std::uint64_t r1cs_file_checksum(std::span<const std::uint8_t> file) {
  const std::uint64_t n = file.size();
  if (n < R1CS_FILE_HEADER_SIZE || n % R1CS_FILE_ALIGN != 0) {
    throw std::invalid_argument("r1cs_file_checksum: image length must be a multiple of 64, at least the header");
  }
  const std::uint64_t blocks = (n + CHECKSUM_BLOCK - 1) / CHECKSUM_BLOCK;
  std::vector<std::uint64_t> hashes(blocks);
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, blocks, 1), [&](const auto& r) {
    for (std::uint64_t i = r.begin(); i < r.end(); ++i) {
      const std::uint64_t begin = i * CHECKSUM_BLOCK, len = std::min(CHECKSUM_BLOCK, n - begin);
      BlockHasher h(i);
      if (i == 0) {
        std::array<std::uint8_t, R1CS_FILE_HEADER_SIZE> header;
        std::memcpy(header.data(), file.data(), header.size());
        store_u64(header.data() + R1CS_FILE_CHECKSUM_OFFSET, 0);
        h.update(header.data(), header.size());
        h.update(file.data() + header.size(), len - header.size());
      } else {
        h.update(file.data() + begin, len);
      }
      hashes[i] = h.finish();
    }
  });
  std::uint64_t h = 0;
  for (std::uint64_t bh : hashes) h = std::rotl(h ^ bh, 27) * P1 + P2;
  return fmix(h ^ n);
}

void write_r1cs(const std::filesystem::path& path, const R1cs& r1cs) {
  if (auto d = find_defect(r1cs)) {
    throw std::invalid_argument("write_r1cs: malformed R1CS: " + std::string(field_name(d->field)) + "[" +
                                std::to_string(d->index) + "]: " + d->problem);
  }
  const auto layout =
      *r1cs_file_layout(r1cs.num_inputs, r1cs.num_aux, r1cs.num_constraints, r1cs.a.nnz(), r1cs.b.nnz(), r1cs.c.nnz());
  const std::string name = path.string();
  // Unique per process and call, so concurrent writers of one path never share a temporary.
  static std::atomic<std::uint64_t> serial{0};
  const std::filesystem::path tmp =
      path.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial.fetch_add(1));
  const std::string tmp_name = tmp.string();

  const int raw_fd = ::open(tmp_name.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (raw_fd < 0) throw R1csFileError(name, "file", 0, "cannot create " + tmp_name + ": " + errno_text(errno));
  Fd fd(raw_fd);
  struct Cleanup {
    const std::filesystem::path& p;
    bool armed = true;
    ~Cleanup() {
      if (armed) {
        std::error_code ec;
        std::filesystem::remove(p, ec);
      }
    }
  } cleanup{tmp};

  std::uint64_t at = 0;
  const auto put = [&](const void* data, std::uint64_t n) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    while (n > 0) {
      const ssize_t w = ::write(fd.get(), p, std::min<std::uint64_t>(n, std::uint64_t(1) << 30));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) throw R1csFileError(name, "file", at, "write failed: " + errno_text(w < 0 ? errno : EIO));
      p += w;
      n -= static_cast<std::uint64_t>(w);
      at += static_cast<std::uint64_t>(w);
    }
  };
  const auto pad_to = [&](std::uint64_t offset) {
    static constexpr std::uint8_t zeros[R1CS_FILE_ALIGN] = {};
    put(zeros, offset - at);
  };

  std::array<std::uint8_t, R1CS_FILE_HEADER_SIZE> header{};
  std::memcpy(header.data(), R1CS_FILE_MAGIC, sizeof(R1CS_FILE_MAGIC));
  store_u32(header.data() + OFF_VERSION, R1CS_FILE_VERSION);
  store_u32(header.data() + OFF_HEADER_SIZE, static_cast<std::uint32_t>(R1CS_FILE_HEADER_SIZE));
  store_u64(header.data() + OFF_NUM_INPUTS, r1cs.num_inputs);
  store_u64(header.data() + OFF_NUM_AUX, r1cs.num_aux);
  store_u64(header.data() + OFF_NUM_CONSTRAINTS, r1cs.num_constraints);
  store_u64(header.data() + OFF_A_NNZ, r1cs.a.nnz());
  store_u64(header.data() + OFF_B_NNZ, r1cs.b.nnz());
  store_u64(header.data() + OFF_C_NNZ, r1cs.c.nnz());
  store_u64(header.data() + OFF_FILE_SIZE, layout.file_size);
  put(header.data(), header.size());

  using F = R1csField;
  const auto put_section = [&](F f, const void* data) {
    pad_to(layout.section(f).offset);
    put(data, layout.section(f).size);
  };
  const auto put_matrix = [&](const CsrMatrix& m, F row_ptr, F col, F val) {
    put_section(row_ptr, m.row_ptr.data());
    put_section(col, m.col.data());
    put_section(val, m.val.data());
  };
  put_matrix(r1cs.a, F::a_row_ptr, F::a_col, F::a_val);
  put_matrix(r1cs.b, F::b_row_ptr, F::b_col, F::b_val);
  put_matrix(r1cs.c, F::c_row_ptr, F::c_col, F::c_val);
  put_section(F::a_aux_density, r1cs.a_aux_density.words().data());
  put_section(F::b_input_density, r1cs.b_input_density.words().data());
  put_section(F::b_aux_density, r1cs.b_aux_density.words().data());
  pad_to(layout.file_size);

  std::uint64_t checksum;
  {
    const auto map = [&] {
      try {
        return std::make_unique<Mapping>(fd.get(), layout.file_size);
      } catch (const base::FileError& e) {
        throw R1csFileError(name, "file", 0, e.what());
      }
    }();
    checksum = r1cs_file_checksum({map->data(), layout.file_size});
  }
  std::uint8_t sum[8];
  store_u64(sum, checksum);
  if (::pwrite(fd.get(), sum, 8, R1CS_FILE_CHECKSUM_OFFSET) != 8) {
    throw R1csFileError(name, "checksum", R1CS_FILE_CHECKSUM_OFFSET, "write failed: " + errno_text(errno));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw R1csFileError(name, "file", 0, "cannot rename " + tmp_name + ": " + ec.message());
  cleanup.armed = false;
}

namespace {

// Reads the file at `path` (in place when `in_place`), validating everything
// r1cs_file.hpp lists.
R1cs load_r1cs(const std::filesystem::path& path, bool in_place) {
  const std::string name = path.string();
  const auto fail = [&](std::string field, std::uint64_t offset, std::string problem) -> R1csFileError {
    return R1csFileError(name, std::move(field), offset, std::move(problem));
  };

  const int raw_fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
  if (raw_fd < 0) throw fail("file", 0, "cannot open: " + errno_text(errno));
  Fd fd(raw_fd);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw fail("file", 0, "cannot stat: " + errno_text(errno));
  if (!S_ISREG(st.st_mode)) throw fail("file", 0, "not a regular file");
  const std::uint64_t length = static_cast<std::uint64_t>(st.st_size);

  // The header, read with pread so that everything before the mapping is bounded.
  if (length < R1CS_FILE_HEADER_SIZE) {
    throw fail("header", 0,
               "file has " + std::to_string(length) + " bytes, less than the " + std::to_string(R1CS_FILE_HEADER_SIZE) +
                   "-byte header");
  }
  std::array<std::uint8_t, R1CS_FILE_HEADER_SIZE> h{};
  for (std::uint64_t got = 0; got < h.size();) {
    const ssize_t n = ::pread(fd.get(), h.data() + got, h.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw fail("header", got, "read failed: " + errno_text(n < 0 ? errno : EIO));
    got += static_cast<std::uint64_t>(n);
  }
  if (std::memcmp(h.data(), R1CS_FILE_MAGIC, sizeof(R1CS_FILE_MAGIC)) != 0) {
    throw fail("magic", 0, "not an r1cs file (magic is not \"SNKR1CS\\0\")");
  }
  if (const std::uint32_t v = load_u32(h.data() + OFF_VERSION); v != R1CS_FILE_VERSION) {
    throw fail("version", OFF_VERSION,
               "version " + std::to_string(v) + ", this reader knows " + std::to_string(R1CS_FILE_VERSION));
  }
  if (const std::uint32_t hs = load_u32(h.data() + OFF_HEADER_SIZE); hs != R1CS_FILE_HEADER_SIZE) {
    throw fail("header_size", OFF_HEADER_SIZE,
               std::to_string(hs) + ", expected " + std::to_string(R1CS_FILE_HEADER_SIZE));
  }
  for (std::uint64_t i = OFF_RESERVED; i < R1CS_FILE_HEADER_SIZE; ++i) {
    if (h[i] != 0) throw fail("reserved", i, "not zero");
  }
  const std::uint64_t num_inputs = load_u64(h.data() + OFF_NUM_INPUTS);
  const std::uint64_t num_aux = load_u64(h.data() + OFF_NUM_AUX);
  const std::uint64_t num_constraints = load_u64(h.data() + OFF_NUM_CONSTRAINTS);
  const std::uint64_t nnz[3] = {load_u64(h.data() + OFF_A_NNZ), load_u64(h.data() + OFF_B_NNZ),
                                load_u64(h.data() + OFF_C_NNZ)};
  const std::uint64_t file_size = load_u64(h.data() + OFF_FILE_SIZE);
  if (num_inputs == 0) throw fail("num_inputs", OFF_NUM_INPUTS, "0, but input 0 is ONE");
  if (num_inputs > (std::uint64_t(1) << 32)) {
    throw fail("num_inputs", OFF_NUM_INPUTS, std::to_string(num_inputs) + " exceeds 2^32 columns");
  }
  if (num_aux > (std::uint64_t(1) << 32) - num_inputs) {
    throw fail("num_aux", OFF_NUM_AUX,
               "num_inputs + num_aux = " + std::to_string(num_inputs) + " + " + std::to_string(num_aux) +
                   " exceeds 2^32 columns");
  }
  const auto layout = r1cs_file_layout(num_inputs, num_aux, num_constraints, nnz[0], nnz[1], nnz[2]);
  if (!layout) throw fail("counts", OFF_NUM_INPUTS, "the section sizes they give overflow 64 bits");
  if (file_size != layout->file_size) {
    throw fail("file_size", OFF_FILE_SIZE,
               std::to_string(file_size) + ", but the counts give " + std::to_string(layout->file_size));
  }
  if (length != file_size) {
    throw fail("file_size", OFF_FILE_SIZE,
               std::to_string(file_size) + ", but the file has " + std::to_string(length) + " bytes" +
                   (length < file_size ? " (truncated)" : " (trailing data)"));
  }

  // Shared by the views when reading in place: the mapping lives as long as the last of them.
  const auto map = [&] {
    try {
      return std::make_shared<Mapping>(fd.get(), length);
    } catch (const base::FileError& e) {
      throw fail("file", 0, e.what());
    }
  }();
  const std::uint8_t* base = map->data();

  const std::uint64_t stored = load_u64(h.data() + R1CS_FILE_CHECKSUM_OFFSET);
  if (const std::uint64_t computed = r1cs_file_checksum({base, length}); computed != stored) {
    char buf[80];
    std::snprintf(buf, sizeof buf, "stored 0x%016llx, computed 0x%016llx", static_cast<unsigned long long>(stored),
                  static_cast<unsigned long long>(computed));
    throw fail("checksum", R1CS_FILE_CHECKSUM_OFFSET, buf);
  }

  // Padding after each section (and after the last, up to file_size) is zero.
  for (std::size_t i = 0; i < NUM_SECTIONS; ++i) {
    const std::uint64_t from = layout->sections[i].offset + layout->sections[i].size;
    const std::uint64_t to = i + 1 < NUM_SECTIONS ? layout->sections[i + 1].offset : layout->file_size;
    for (std::uint64_t k = from; k < to; ++k) {
      if (base[k] != 0) {
        throw fail("padding after " + std::string(field_name(static_cast<R1csField>(i))), k, "not zero");
      }
    }
  }

  using F = R1csField;
  R1cs r;
  r.num_inputs = num_inputs;
  r.num_aux = num_aux;
  r.num_constraints = num_constraints;
  const auto read_matrix = [&](CsrMatrix& m, F row_ptr, F col, F val) {
    m.row_ptr = section_array<std::uint64_t>(map, layout->section(row_ptr), in_place);
    m.col = section_array<std::uint32_t>(map, layout->section(col), in_place);
    m.val = section_array<Fr>(map, layout->section(val), in_place);
  };
  read_matrix(r.a, F::a_row_ptr, F::a_col, F::a_val);
  read_matrix(r.b, F::b_row_ptr, F::b_col, F::b_val);
  read_matrix(r.c, F::c_row_ptr, F::c_col, F::c_val);
  const auto read_density = [&](F f, std::uint64_t bits) {
    const R1csFileSection& s = layout->section(f);
    std::vector<std::uint64_t> words = copy_section<std::uint64_t>(base, s);
    if (bits % 64 != 0 && (words.back() >> (bits % 64)) != 0) {
      throw fail(std::string(field_name(f)), s.offset + s.size - 8,
                 "bits past the " + std::to_string(bits) + "-bit bitmap are set");
    }
    return DensityBitmap::from_words(bits, std::move(words));
  };
  r.a_aux_density = read_density(F::a_aux_density, num_aux);
  r.b_input_density = read_density(F::b_input_density, num_inputs);
  r.b_aux_density = read_density(F::b_aux_density, num_aux);

  if (const auto d = find_defect(r)) {
    const R1csFileSection& s = layout->section(d->field);
    const std::uint64_t entry = d->field >= F::a_aux_density ? 8 : ENTRY_SIZE[static_cast<std::size_t>(d->field)];
    const std::uint64_t index = d->field >= F::a_aux_density ? d->index / 64 : d->index;
    const std::uint64_t offset = d->field == F::counts ? OFF_NUM_INPUTS : s.offset + index * entry;
    throw fail(std::string(field_name(d->field)), offset, d->problem);
  }
  if (in_place && !map->make_writable()) throw fail("file", 0, "mprotect failed: " + errno_text(errno));
  return r;
}

}  // namespace

R1cs read_r1cs(const std::filesystem::path& path) { return load_r1cs(path, false); }

R1cs map_r1cs(const std::filesystem::path& path) { return load_r1cs(path, true); }

}  // namespace snarkpipe::circuit
