// The R1CS file: bit-exact round trips, the documented checksum, and corruption of every
// kind (truncation, flipped bytes, header fields, resealed content errors) ending in an
// R1csFileError that names the field and offset — never a crash.
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "circuit/r1cs_file.hpp"
#include "circuit/recording_cs.hpp"
#include "random_circuit.hpp"
#include "test_seed.hpp"

using namespace snarkpipe::circuit;
using snarkpipe::ff::SeededRng;
namespace fs = std::filesystem;

namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(f), {});
}
void write_bytes(const fs::path& p, const Bytes& b) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}
std::uint64_t get_u64(const Bytes& b, std::uint64_t off) {
  std::uint64_t x;
  std::memcpy(&x, b.data() + off, 8);
  return x;
}
void put_u64(Bytes& b, std::uint64_t off, std::uint64_t x) { std::memcpy(b.data() + off, &x, 8); }
void put_u32(Bytes& b, std::uint64_t off, std::uint32_t x) { std::memcpy(b.data() + off, &x, 4); }
void reseal(Bytes& b) { put_u64(b, R1CS_FILE_CHECKSUM_OFFSET, r1cs_file_checksum(b)); }

// The checksum exactly as r1cs_file.hpp words it, one byte at a time.
std::uint64_t reference_checksum(Bytes img) {
  constexpr std::uint64_t P1 = 0x9e3779b185ebca87ULL, P2 = 0xc2b2ae3d27d4eb4fULL;
  const auto fmix = [](std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
  };
  for (int i = 0; i < 8; ++i) img[72 + i] = 0;
  const std::uint64_t n = img.size(), block = 1 << 20;
  std::uint64_t h = 0;
  for (std::uint64_t i = 0; i * block < n; ++i) {
    const std::uint64_t begin = i * block, len = std::min(block, n - begin);
    std::uint64_t v[4];
    for (std::uint64_t j = 0; j < 4; ++j) v[j] = fmix(4 * i + j + 1);
    for (std::uint64_t w = 0; w < len / 8; ++w) {
      std::uint64_t word = 0;
      for (int b = 7; b >= 0; --b) word = (word << 8) | img[begin + 8 * w + b];
      v[w % 4] = std::rotl(v[w % 4] + word * P2, 31) * P1;
    }
    const std::uint64_t bh =
        fmix(std::rotl(v[0], 1) + std::rotl(v[1], 7) + std::rotl(v[2], 12) + std::rotl(v[3], 18) + len);
    h = std::rotl(h ^ bh, 27) * P1 + P2;
  }
  return fmix(h ^ n);
}

class R1csFile : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("snarkpipe-r1cs-file-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    seed_ = test_seed("R1csFile");
    test_support::RandomCircuit circuit(seed_, 600);
    RecordingConstraintSystem rec;
    circuit.synthesize(rec);
    r1cs_ = new R1cs(rec.finish());
    write_r1cs(dir_ / "good.r1cs", *r1cs_);
    good_ = new Bytes(read_bytes(dir_ / "good.r1cs"));
    layout_ = *r1cs_file_layout(r1cs_->num_inputs, r1cs_->num_aux, r1cs_->num_constraints, r1cs_->a.nnz(),
                                r1cs_->b.nnz(), r1cs_->c.nnz());
  }
  static void TearDownTestSuite() {
    delete r1cs_;
    delete good_;
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Reads `bytes` as a file; the read must fail with R1csFileError (returned), nothing else.
  static std::optional<R1csFileError> read_error(const Bytes& bytes) {
    const fs::path p = dir_ / "bad.r1cs";
    write_bytes(p, bytes);
    try {
      read_r1cs(p);
    } catch (const R1csFileError& e) {
      return e;
    }
    return std::nullopt;
  }
  static void expect_error(const Bytes& bytes, const std::string& field, std::uint64_t offset) {
    const auto e = read_error(bytes);
    ASSERT_TRUE(e.has_value()) << "accepted a corrupt file (expected " << field << ")";
    EXPECT_EQ(e->field(), field) << e->what();
    EXPECT_EQ(e->offset(), offset) << e->what();
  }
  static std::uint64_t at(R1csField f, std::uint64_t index = 0) {
    static constexpr std::uint64_t entry[] = {1, 8, 4, 32, 8, 4, 32, 8, 4, 32, 8, 8, 8};
    return layout_.section(f).offset + index * entry[static_cast<int>(f)];
  }

  static inline fs::path dir_;
  static inline std::uint64_t seed_ = 0;
  static inline R1cs* r1cs_ = nullptr;
  static inline Bytes* good_ = nullptr;
  static inline R1csFileLayout layout_;
};

}  // namespace

TEST_F(R1csFile, RoundTripIsBitExact) {
  const R1cs back = read_r1cs(dir_ / "good.r1cs");
  EXPECT_TRUE(back == *r1cs_);
  write_r1cs(dir_ / "again.r1cs", back);
  EXPECT_EQ(read_bytes(dir_ / "again.r1cs"), *good_);
  write_r1cs(dir_ / "again.r1cs", *r1cs_);  // overwrites in place
  EXPECT_EQ(read_bytes(dir_ / "again.r1cs"), *good_);

  const Bytes& b = *good_;
  EXPECT_EQ(std::memcmp(b.data(), "SNKR1CS\0", 8), 0);
  EXPECT_EQ(b.size(), layout_.file_size);
  EXPECT_EQ(get_u64(b, 64), b.size());
  EXPECT_EQ(get_u64(b, 16), r1cs_->num_inputs);
  EXPECT_EQ(get_u64(b, 24), r1cs_->num_aux);
  EXPECT_EQ(get_u64(b, 32), r1cs_->num_constraints);
  EXPECT_EQ(get_u64(b, R1CS_FILE_CHECKSUM_OFFSET), reference_checksum(b));
  for (const auto& s : layout_.sections) EXPECT_EQ(s.offset % 64, 0u);
  // Sections hold the arrays in their in-memory layout.
  EXPECT_EQ(std::memcmp(b.data() + at(R1csField::b_col), r1cs_->b.col.data(), r1cs_->b.nnz() * 4), 0);
  EXPECT_EQ(std::memcmp(b.data() + at(R1csField::c_val), r1cs_->c.val.data(), r1cs_->c.nnz() * 32), 0);
  EXPECT_EQ(std::memcmp(b.data() + at(R1csField::b_aux_density), r1cs_->b_aux_density.words().data(),
                        r1cs_->b_aux_density.words().size() * 8),
            0);
  for (const auto& entry : fs::directory_iterator(dir_)) {  // no temporaries left behind
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();
  }

  // The smallest circuit: ONE and its input constraint only.
  RecordingConstraintSystem rec;
  const R1cs tiny = rec.finish();
  write_r1cs(dir_ / "tiny.r1cs", tiny);
  EXPECT_TRUE(read_r1cs(dir_ / "tiny.r1cs") == tiny);
}

TEST_F(R1csFile, ChecksumMatchesItsDescription) {
  SeededRng rng(test_seed("R1csFile.Checksum"));
  for (std::uint64_t size : {128ull, 192ull, 4096ull, 1ull << 20, (1ull << 20) + 64, 3 * (1ull << 20) + 640}) {
    Bytes img(size);
    for (auto& x : img) x = static_cast<std::uint8_t>(rng.next_u64());
    const std::uint64_t h = r1cs_file_checksum(img);
    EXPECT_EQ(h, reference_checksum(img)) << size;
    img[72] ^= 1;  // the checksum field does not count
    EXPECT_EQ(r1cs_file_checksum(img), h);
    img[size - 1] ^= 1;
    EXPECT_NE(r1cs_file_checksum(img), h);
  }
  EXPECT_THROW(r1cs_file_checksum(Bytes(100)), std::invalid_argument);
  EXPECT_THROW(r1cs_file_checksum(Bytes(200)), std::invalid_argument);
}

TEST_F(R1csFile, TruncationAtManyOffsets) {
  SeededRng rng(test_seed("R1csFile.Truncation"));
  std::vector<std::uint64_t> cuts;
  for (std::uint64_t i = 0; i <= 136; ++i) cuts.push_back(i);
  for (const auto& s : layout_.sections) {
    for (std::uint64_t d : {s.offset - 1, s.offset, s.offset + 1, s.offset + s.size - 1, s.offset + s.size}) {
      cuts.push_back(d);
    }
  }
  for (int i = 0; i < 150; ++i) cuts.push_back(rng.next_u64() % good_->size());
  cuts.push_back(good_->size() - 1);
  for (std::uint64_t cut : cuts) {
    if (cut >= good_->size()) continue;
    const Bytes b(good_->begin(), good_->begin() + static_cast<std::ptrdiff_t>(cut));
    const auto e = read_error(b);
    ASSERT_TRUE(e.has_value()) << "accepted a file truncated to " << cut << " bytes";
    EXPECT_EQ(e->field(), cut < R1CS_FILE_HEADER_SIZE ? "header" : "file_size") << e->what();
  }
  Bytes longer = *good_;
  longer.resize(longer.size() + 64);
  expect_error(longer, "file_size", 64);
  expect_error(Bytes{}, "header", 0);
}

TEST_F(R1csFile, FlippedBytesAnywhere) {
  SeededRng rng(test_seed("R1csFile.FlippedBytes"));
  std::vector<std::uint64_t> offsets;
  for (std::uint64_t i = 0; i < R1CS_FILE_HEADER_SIZE; ++i) offsets.push_back(i);
  for (const auto& s : layout_.sections) {
    if (s.size) offsets.insert(offsets.end(), {s.offset, s.offset + s.size - 1});
  }
  for (int i = 0; i < 300; ++i) offsets.push_back(rng.next_u64() % good_->size());
  for (std::uint64_t off : offsets) {
    Bytes b = *good_;
    b[off] ^= static_cast<std::uint8_t>(1 + rng.next_u64() % 255);
    ASSERT_TRUE(read_error(b).has_value()) << "accepted a flipped byte at offset " << off;
  }
}

// Random damage past the checksum (resealed): the content validators see arbitrary bytes.
// Either the file is still a well-formed R1CS (a coefficient became another one) or the
// reader says what is wrong; it never crashes or reads out of bounds.
TEST_F(R1csFile, ResealedRandomDamage) {
  SeededRng rng(test_seed("R1csFile.ResealedRandomDamage"));
  int rejected = 0;
  for (int i = 0; i < 200; ++i) {
    Bytes b = *good_;
    const int flips = 1 + static_cast<int>(rng.next_u64() % 4);
    for (int f = 0; f < flips; ++f) {
      const std::uint64_t off = R1CS_FILE_HEADER_SIZE + rng.next_u64() % (b.size() - R1CS_FILE_HEADER_SIZE);
      b[off] ^= static_cast<std::uint8_t>(1 + rng.next_u64() % 255);
    }
    reseal(b);
    write_bytes(dir_ / "damaged.r1cs", b);
    try {
      const R1cs r = read_r1cs(dir_ / "damaged.r1cs");
      EXPECT_EQ(find_defect(r), std::nullopt);
    } catch (const R1csFileError&) {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 20);  // most damage lands in coefficients and leaves another valid one
}

TEST_F(R1csFile, HeaderFields) {
  const auto with = [](auto edit) {
    Bytes b = *good_;
    edit(b);
    return b;
  };
  expect_error(with([](Bytes& b) { b[3] = 'x'; }), "magic", 0);
  expect_error(with([](Bytes& b) { put_u32(b, 8, 2); }), "version", 8);
  expect_error(with([](Bytes& b) { put_u32(b, 8, 0); }), "version", 8);
  expect_error(with([](Bytes& b) { put_u32(b, 12, 64); }), "header_size", 12);
  expect_error(with([](Bytes& b) { b[100] = 1; }), "reserved", 100);
  expect_error(with([](Bytes& b) { put_u64(b, 16, 0); }), "num_inputs", 16);
  expect_error(with([](Bytes& b) { put_u64(b, 16, 1ull << 33); }), "num_inputs", 16);
  expect_error(with([](Bytes& b) { put_u64(b, 24, 1ull << 32); }), "num_aux", 24);
  expect_error(with([](Bytes& b) { put_u64(b, 24, ~0ull); }), "num_aux", 24);
  expect_error(with([](Bytes& b) { put_u64(b, 32, ~0ull); }), "counts", 16);
  expect_error(with([](Bytes& b) { put_u64(b, 40, 1ull << 60); }), "counts", 16);
  expect_error(with([](Bytes& b) { put_u64(b, 56, ~0ull / 32); }), "counts", 16);
  // A count that moves the layout: the file_size check catches it, unless the padding
  // absorbs the change, and then the checksum does.
  const auto count_changed = [](std::uint64_t off) {
    Bytes b = *good_;
    put_u64(b, off, get_u64(b, off) + 1);
    const auto l = r1cs_file_layout(get_u64(b, 16), get_u64(b, 24), get_u64(b, 32), get_u64(b, 40), get_u64(b, 48),
                                    get_u64(b, 56));
    if (l->file_size != b.size()) {
      expect_error(b, "file_size", 64);
    } else {
      expect_error(b, "checksum", 72);
    }
  };
  for (std::uint64_t off : {32, 40, 48, 56}) count_changed(off);
  expect_error(with([](Bytes& b) { put_u64(b, 64, get_u64(b, 64) + 64); }), "file_size", 64);
  expect_error(with([](Bytes& b) { put_u64(b, 64, get_u64(b, 64) - 64); }), "file_size", 64);
  expect_error(with([](Bytes& b) { put_u64(b, 72, get_u64(b, 72) ^ 1); }), "checksum", 72);
  // num_inputs changed by one, checksum resealed: the layout stays, but columns move between
  // inputs and aux, and the densities no longer agree with the matrices.
  for (std::int64_t delta : {-1, 1}) {
    Bytes b = *good_;
    const std::uint64_t n = get_u64(b, 16) + static_cast<std::uint64_t>(delta);
    if (DensityBitmap::words_for(n) != DensityBitmap::words_for(get_u64(b, 16))) continue;
    put_u64(b, 16, n);
    reseal(b);
    EXPECT_TRUE(read_error(b).has_value()) << "num_inputs changed by " << delta << " was accepted";
  }
}

TEST_F(R1csFile, ContentErrorsNameFieldAndOffset) {
  using F = R1csField;
  const R1cs& r = *r1cs_;
  // A row of each matrix with at least two entries.
  const auto wide_row = [](const CsrMatrix& m) {
    std::size_t row = 0;
    while (m.row_cols(row).size() < 2) ++row;
    return row;
  };
  const auto resealed = [](auto edit) {
    Bytes b = *good_;
    edit(b);
    reseal(b);
    return b;
  };
  struct M {
    const CsrMatrix& m;
    F row_ptr, col, val;
  };
  for (const M& m : {M{r.a, F::a_row_ptr, F::a_col, F::a_val}, M{r.b, F::b_row_ptr, F::b_col, F::b_val},
                     M{r.c, F::c_row_ptr, F::c_col, F::c_val}}) {
    const std::string rp(field_name(m.row_ptr)), col(field_name(m.col)), val(field_name(m.val));
    const std::size_t row = wide_row(m.m);
    const std::uint64_t k = m.m.row_ptr[row];
    // row_ptr: not monotone, not starting at 0, not ending at nnz.
    expect_error(resealed([&](Bytes& b) { put_u64(b, at(m.row_ptr, row + 2), m.m.row_ptr[row + 1] - 1); }), rp,
                 at(m.row_ptr, row + 2));
    expect_error(resealed([&](Bytes& b) { put_u64(b, at(m.row_ptr, 0), 1); }), rp, at(m.row_ptr, 0));
    expect_error(resealed([&](Bytes& b) { put_u64(b, at(m.row_ptr, r.num_constraints), m.m.nnz() + 1); }), rp,
                 at(m.row_ptr, r.num_constraints));
    expect_error(resealed([&](Bytes& b) { put_u64(b, at(m.row_ptr, r.num_constraints), ~0ull); }), rp,
                 at(m.row_ptr, r.num_constraints));
    // col: out of range, unsorted, duplicate.
    expect_error(resealed([&](Bytes& b) { put_u32(b, at(m.col, k), static_cast<std::uint32_t>(r.num_columns())); }),
                 col, at(m.col, k));
    expect_error(resealed([&](Bytes& b) { put_u32(b, at(m.col, k), ~0u); }), col, at(m.col, k));
    expect_error(resealed([&](Bytes& b) {
                   put_u32(b, at(m.col, k), m.m.col[k + 1]);
                   put_u32(b, at(m.col, k + 1), m.m.col[k]);
                 }),
                 col, at(m.col, k + 1));
    expect_error(resealed([&](Bytes& b) { put_u32(b, at(m.col, k + 1), m.m.col[k]); }), col, at(m.col, k + 1));
    // val: zero, not reduced.
    expect_error(resealed([&](Bytes& b) { std::memset(b.data() + at(m.val, k), 0, 32); }), val, at(m.val, k));
    expect_error(resealed([&](Bytes& b) { std::memcpy(b.data() + at(m.val, k + 1), Fr::MODULUS.data(), 32); }), val,
                 at(m.val, k + 1));
    expect_error(resealed([&](Bytes& b) { std::memset(b.data() + at(m.val, k), 0xff, 32); }), val, at(m.val, k));
  }
  // Densities: a bit that disagrees with the matrix, a bit past the end.
  for (const auto& density : {std::pair{F::a_aux_density, r.num_aux}, std::pair{F::b_input_density, r.num_inputs},
                              std::pair{F::b_aux_density, r.num_aux}}) {
    const auto f = density.first;  // not a structured binding: clang 14 cannot capture those
    const auto bits = density.second;
    const std::string name(field_name(f));
    const std::uint64_t j = bits - 1;
    expect_error(resealed([&](Bytes& b) { b[at(f, j / 64) + (j % 64) / 8] ^= std::uint8_t(1 << (j % 8)); }), name,
                 at(f, j / 64));
    if (bits % 64 != 0) {
      expect_error(resealed([&](Bytes& b) { b[at(f, bits / 64) + 7] ^= 0x80; }), name, at(f, bits / 64));
    }
  }
  // Padding between sections and at the end.
  int gaps = 0;
  for (std::size_t i = 0; i < layout_.sections.size(); ++i) {
    const std::uint64_t end = layout_.sections[i].offset + layout_.sections[i].size;
    const std::uint64_t next = i + 1 < layout_.sections.size() ? layout_.sections[i + 1].offset : layout_.file_size;
    if (end == next) continue;
    ++gaps;
    expect_error(resealed([&](Bytes& b) { b[next - 1] = 0x5a; }),
                 "padding after " + std::string(field_name(static_cast<F>(i))), next - 1);
  }
  EXPECT_GT(gaps, 0);
}

TEST_F(R1csFile, MessagesAndOddPaths) {
  Bytes b = *good_;
  put_u64(b, at(R1csField::b_row_ptr, 1), 1ull << 40);
  reseal(b);
  const auto e = read_error(b);
  ASSERT_TRUE(e.has_value());
  const std::string expected = (dir_ / "bad.r1cs").string() + ": B.row_ptr at byte offset " +
                               std::to_string(at(R1csField::b_row_ptr, 2)) + ": not monotone";
  // Entry 1 is huge: entry 2 is the first that goes down.
  EXPECT_EQ(std::string(e->what()), expected);

  EXPECT_THROW(read_r1cs(dir_ / "does-not-exist.r1cs"), R1csFileError);
  EXPECT_THROW(read_r1cs(dir_), R1csFileError);
  EXPECT_THROW(write_r1cs(dir_ / "no-such-dir" / "x.r1cs", *r1cs_), R1csFileError);
  R1cs broken = *r1cs_;
  broken.c.val[0] = Fr::zero();
  EXPECT_THROW(write_r1cs(dir_ / "broken.r1cs", broken), std::invalid_argument);
  EXPECT_FALSE(fs::exists(dir_ / "broken.r1cs"));
}
