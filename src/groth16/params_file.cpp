#include "groth16/params_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <tbb/parallel_for.h>

#include "base/mapped_file.hpp"
#include "ec/encoding.hpp"

namespace snarkpipe::groth16 {

namespace {

constexpr std::size_t G1_BYTES = ec::G1_UNCOMPRESSED_BYTES;
constexpr std::size_t G2_BYTES = ec::G2_UNCOMPRESSED_BYTES;

// The file mapped whole, read once in order; failures name the file.
class MappedFile : public base::MappedFile {
 public:
  explicit MappedFile(const std::string& path) try : base
    ::MappedFile(path, {.sequential = true}) {}
  catch (const base::FileError& e) {
    throw ParamsFileError(path, "file", 0, e.what());
  }
};

class Reader {
 public:
  Reader(const MappedFile& f, const ParamsReadOptions& opts) : f_(f), opts_(opts) {}

  std::uint64_t offset() const { return pos_; }
  bool at_end() const { return pos_ == f_.size(); }

  std::uint32_t read_count(const std::string& field, std::size_t point_bytes) {
    if (f_.size() - pos_ < 4) fail(field + ".count", "file ends before the 4-byte count (truncated file?)");
    const std::uint8_t* p = f_.data() + pos_;
    const std::uint32_t n =
        (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | p[3];
    const std::uint64_t need = std::uint64_t(n) * point_bytes;
    if (need > f_.size() - pos_ - 4)
      fail(field + ".count", "count " + std::to_string(n) + " needs " + std::to_string(need) + " bytes but only " +
                                 std::to_string(f_.size() - pos_ - 4) + " remain (truncated or corrupt file)");
    pos_ += 4;
    return n;
  }

  template <class Point, class Decode>
  // `single`: one point, named by its field alone (not as element [0] of a vector).
  std::vector<Point> read_points(const std::string& field, std::size_t n, std::size_t point_bytes, Decode decode,
                                 bool reject_identity, bool single = false) {
    if (f_.size() - pos_ < std::uint64_t(n) * point_bytes)
      fail(field, "file ends inside this vector (truncated file?)");
    std::vector<Point> out(n);
    const std::uint8_t* base = f_.data() + pos_;
    const ec::Validation v = opts_.check_subgroup ? ec::Validation::Full : ec::Validation::SkipSubgroup;
    // The first failing index wins, so the error is the same however threads interleave.
    std::atomic<std::size_t> first_bad{n};
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 4096), [&](const tbb::blocked_range<std::size_t>& r) {
      for (std::size_t i = r.begin(); i < r.end(); ++i) {
        if (i >= first_bad.load(std::memory_order_relaxed)) return;
        const auto res = decode(std::span<const std::uint8_t>(base + i * point_bytes, point_bytes), v);
        const bool identity = res.ok() && res.value().is_identity() && reject_identity;
        if (!res.ok() || identity) {
          std::size_t cur = first_bad.load();
          while (i < cur && !first_bad.compare_exchange_weak(cur, i)) {}
          return;
        }
        out[i] = res.value();
      }
    });
    const std::size_t bad = first_bad.load();
    if (bad < n) {
      const std::uint64_t off = pos_ + std::uint64_t(bad) * point_bytes;
      const std::string what = single ? field : field + "[" + std::to_string(bad) + "]";
      // Decode the first bad point again for its reason (deterministic whatever the threads did).
      const auto res = decode(std::span<const std::uint8_t>(base + bad * point_bytes, point_bytes), v);
      if (res.ok()) throw ParamsFileError(f_.path(), what, off, "point at infinity");
      throw ParamsFileError(f_.path(), what, off, ec::describe(res.error()));
    }
    pos_ += std::uint64_t(n) * point_bytes;
    if (opts_.progress) opts_.progress(pos_, f_.size());
    return out;
  }

  std::vector<G1Affine> g1_vector(const std::string& field, bool reject_identity = true) {
    const std::uint32_t n = read_count(field, G1_BYTES);
    return read_points<G1Affine>(field, n, G1_BYTES, ec::g1_from_bytes, reject_identity);
  }
  std::vector<ec::G2Affine> g2_vector(const std::string& field) {
    const std::uint32_t n = read_count(field, G2_BYTES);
    return read_points<ec::G2Affine>(field, n, G2_BYTES, ec::g2_from_bytes, true);
  }
  // One point that may not be at infinity (the verifying key's α, β, γ, δ).
  G1Affine g1(const std::string& field) {
    return read_points<G1Affine>(field, 1, G1_BYTES, ec::g1_from_bytes, true, true)[0];
  }
  ec::G2Affine g2(const std::string& field) {
    return read_points<ec::G2Affine>(field, 1, G2_BYTES, ec::g2_from_bytes, true, true)[0];
  }

  [[noreturn]] void fail(const std::string& field, const std::string& why) const {
    throw ParamsFileError(f_.path(), field, pos_, why);
  }

 private:
  const MappedFile& f_;
  ParamsReadOptions opts_;
  std::uint64_t pos_ = 0;
};

// bellperson's VerifyingKey: none of α, β, γ, δ is ever the point at infinity. One that is
// would make its pairing term 1 (γ or δ at infinity lets anyone forge proofs), so it is refused.
VerifyingKey read_vk_from(Reader& r) {
  VerifyingKey vk;
  vk.alpha_g1 = r.g1("alpha_g1");
  vk.beta_g1 = r.g1("beta_g1");
  vk.beta_g2 = r.g2("beta_g2");
  vk.gamma_g2 = r.g2("gamma_g2");
  vk.delta_g1 = r.g1("delta_g1");
  vk.delta_g2 = r.g2("delta_g2");
  vk.ic = r.g1_vector("ic");
  if (vk.ic.empty()) r.fail("ic.count", "a verifying key needs at least one ic point (the constant ONE)");
  return vk;
}

class Writer {
 public:
  explicit Writer(const std::string& path) : path_(path), f_(std::fopen(path.c_str(), "wb"), &std::fclose) {
    if (!f_) throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
    buf_.resize(1 << 22);
    std::setvbuf(f_.get(), buf_.data(), _IOFBF, buf_.size());
  }
  void bytes(const std::uint8_t* p, std::size_t n) {
    if (std::fwrite(p, 1, n, f_.get()) != n)
      throw std::runtime_error("write failed on " + path_ + ": " + std::strerror(errno));
  }
  void count(std::size_t n) {
    if (n > 0xffffffffu) throw std::runtime_error(path_ + ": vector too long for the format's u32 count");
    const std::uint8_t b[4] = {std::uint8_t(n >> 24), std::uint8_t(n >> 16), std::uint8_t(n >> 8), std::uint8_t(n)};
    bytes(b, 4);
  }
  void g1(const G1Affine& p) { bytes(ec::g1_to_uncompressed(p).data(), G1_BYTES); }
  void g2(const ec::G2Affine& p) { bytes(ec::g2_to_uncompressed(p).data(), G2_BYTES); }
  void g1s(const base::HostArray<G1Affine>& v) {
    count(v.size());
    // Encode in parallel blocks, write sequentially.
    constexpr std::size_t BLOCK = 1 << 14;
    std::vector<std::uint8_t> tmp;
    for (std::size_t s = 0; s < v.size(); s += BLOCK) {
      const std::size_t e = std::min(v.size(), s + BLOCK);
      tmp.resize((e - s) * G1_BYTES);
      tbb::parallel_for(s, e, [&](std::size_t i) {
        const auto b = ec::g1_to_uncompressed(v[i]);
        std::memcpy(tmp.data() + (i - s) * G1_BYTES, b.data(), G1_BYTES);
      });
      bytes(tmp.data(), tmp.size());
    }
  }
  void g2s(const base::HostArray<ec::G2Affine>& v) {
    count(v.size());
    for (const auto& p : v) g2(p);
  }
  void vk(const VerifyingKey& k) {
    g1(k.alpha_g1);
    g1(k.beta_g1);
    g2(k.beta_g2);
    g2(k.gamma_g2);
    g1(k.delta_g1);
    g2(k.delta_g2);
    g1s(k.ic);
  }
  void close() {
    if (std::fflush(f_.get()) != 0) throw std::runtime_error("write failed on " + path_ + ": " + std::strerror(errno));
    f_.reset();
  }

 private:
  std::string path_;
  std::unique_ptr<FILE, int (*)(FILE*)> f_;
  std::vector<char> buf_;
};

}  // namespace

VerifyingKey read_vk(const std::string& path, const ParamsReadOptions& opts) {
  MappedFile f(path);
  Reader r(f, opts);
  VerifyingKey vk = read_vk_from(r);
  if (!r.at_end())
    r.fail("end of file",
           std::to_string(f.size() - r.offset()) + " unexpected trailing bytes (is this a .params file?)");
  return vk;
}

VerifyingKey read_params_vk(const std::string& path, const ParamsReadOptions& opts) {
  MappedFile f(path);
  Reader r(f, opts);
  return read_vk_from(r);
}

ProvingKey read_params(const std::string& path, const ParamsReadOptions& opts) {
  MappedFile f(path);
  Reader r(f, opts);
  ProvingKey pk;
  pk.vk = read_vk_from(r);
  pk.h = r.g1_vector("h");
  pk.l = r.g1_vector("l");
  pk.a = r.g1_vector("a");
  pk.b_g1 = r.g1_vector("b_g1");
  pk.b_g2 = r.g2_vector("b_g2");
  if (!r.at_end()) r.fail("end of file", std::to_string(f.size() - r.offset()) + " unexpected trailing bytes");
  const std::size_t m = pk.h.size() + 1;
  if ((m & (m - 1)) != 0)
    throw ParamsFileError(path, "h.count", 864, "h has " + std::to_string(pk.h.size()) + " points; expected 2^k - 1");
  return pk;
}

namespace {
const char* const QUERY_NAMES[5] = {"h", "l", "a", "b_g1", "b_g2"};
}

ParamsQueries::ParamsQueries(const std::string& path, const ParamsReadOptions& opts) : path_(path), opts_(opts) {
  const ParamsSummary s = summarize_params_file(path);
  if (s.kind != ParamsSummary::Kind::Parameters)
    throw ParamsFileError(path, "h.count", 864, "this is a verifying key (.vk): it has no proving queries");
  const std::uint64_t m = s.h + 1;
  if ((m & (m - 1)) != 0)
    throw ParamsFileError(path, "h.count", 864, "h has " + std::to_string(s.h) + " points; expected 2^k - 1");
  const std::uint64_t counts[5] = {s.h, s.l, s.a, s.b_g1, s.b_g2};
  std::uint64_t pos = 864 + 4 + s.ic * G1_BYTES;
  for (int q = 0; q < 5; ++q) {
    count_[q] = counts[q];
    offset_[q] = pos + 4;
    pos += 4 + counts[q] * (q == 4 ? G2_BYTES : G1_BYTES);
  }
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw ParamsFileError(path, "file", 0, std::string("cannot open: ") + std::strerror(errno));
}

ParamsQueries::~ParamsQueries() {
  if (fd_ >= 0) ::close(fd_);
}

template <class Point, class Decode>
void ParamsQueries::read(Query q, std::uint64_t first, std::uint64_t n, Point* out, std::size_t point_bytes,
                         Decode decode) const {
  const char* field = QUERY_NAMES[int(q)];
  if (first > count(q) || n > count(q) - first)
    throw std::out_of_range(path_ + ": " + field + " points [" + std::to_string(first) + ", " +
                            std::to_string(first + n) + ") past its " + std::to_string(count(q)));
  const ec::Validation v = opts_.check_subgroup ? ec::Validation::Full : ec::Validation::SkipSubgroup;
  constexpr std::uint64_t BLOCK = 4096;  // points per read: 384 KiB of G1
  std::atomic<std::uint64_t> first_bad{n};
  std::atomic<int> io_errno{0};
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, (n + BLOCK - 1) / BLOCK), [&](const auto& blocks) {
    std::vector<std::uint8_t> buf(BLOCK * point_bytes);
    for (std::uint64_t b = blocks.begin(); b < blocks.end(); ++b) {
      const std::uint64_t i0 = b * BLOCK, k = std::min(BLOCK, n - i0);
      const std::uint64_t off = offset(q) + (first + i0) * point_bytes, len = k * point_bytes;
      for (std::uint64_t got = 0; got < len;) {
        const ssize_t r = ::pread(fd_, buf.data() + got, len - got, off_t(off + got));
        if (r <= 0) {
          io_errno = r == 0 ? EIO : errno;
          return;
        }
        got += std::uint64_t(r);
      }
      for (std::uint64_t i = 0; i < k; ++i) {
        const auto res = decode(std::span<const std::uint8_t>(buf.data() + i * point_bytes, point_bytes), v);
        if (!res.ok() || res.value().is_identity()) {
          std::uint64_t cur = first_bad.load();
          while (i0 + i < cur && !first_bad.compare_exchange_weak(cur, i0 + i)) {}
          return;
        }
        out[i0 + i] = res.value();
      }
    }
  });
  if (io_errno) throw ParamsFileError(path_, field, offset(q), std::string("read failed: ") + std::strerror(io_errno));
  const std::uint64_t bad = first_bad.load();
  if (bad < n) {
    const std::uint64_t off = offset(q) + (first + bad) * point_bytes;
    std::vector<std::uint8_t> b(point_bytes);
    if (::pread(fd_, b.data(), point_bytes, off_t(off)) != ssize_t(point_bytes))
      throw ParamsFileError(path_, field, off, "read failed");
    const auto res = decode(std::span<const std::uint8_t>(b.data(), point_bytes), v);
    const std::string what = std::string(field) + "[" + std::to_string(first + bad) + "]";
    throw ParamsFileError(path_, what, off, res.ok() ? "point at infinity" : ec::describe(res.error()));
  }
  if (opts_.progress)
    opts_.progress(offset(q) + (first + n) * point_bytes, offset(Query::b_g2) + count(Query::b_g2) * G2_BYTES);
}

void ParamsQueries::read_g1(Query q, std::uint64_t first, std::uint64_t n, G1Affine* out) const {
  if (q == Query::b_g2) throw std::invalid_argument("ParamsQueries::read_g1: b_g2 holds G2 points");
  read(q, first, n, out, G1_BYTES, ec::g1_from_bytes);
}

void ParamsQueries::read_g2(std::uint64_t first, std::uint64_t n, ec::G2Affine* out) const {
  read(Query::b_g2, first, n, out, G2_BYTES, ec::g2_from_bytes);
}

ProvingKey open_params_deferred(const std::string& path, const ParamsReadOptions& opts) {
  auto q = std::make_shared<const ParamsQueries>(path, opts);
  ProvingKey pk;
  pk.vk = read_params_vk(path, opts);
  using Q = ParamsQueries::Query;
  pk.h = base::HostArray<G1Affine>::elsewhere(q->count(Q::h));
  pk.l = base::HostArray<G1Affine>::elsewhere(q->count(Q::l));
  pk.a = base::HostArray<G1Affine>::elsewhere(q->count(Q::a));
  pk.b_g1 = base::HostArray<G1Affine>::elsewhere(q->count(Q::b_g1));
  pk.b_g2 = base::HostArray<ec::G2Affine>::elsewhere(q->count(Q::b_g2));
  pk.deferred = std::move(q);
  return pk;
}

void write_vk(const std::string& path, const VerifyingKey& vk) {
  Writer w(path);
  w.vk(vk);
  w.close();
}

void write_params(const std::string& path, const ProvingKey& pk) {
  if (!pk.queries_on_host())
    throw std::invalid_argument(
        "write_params: this key's queries are not in host memory (a key opened with its queries "
        "left in " +
        (pk.deferred ? pk.deferred->path() : std::string("a file")) + ")");
  Writer w(path);
  w.vk(pk.vk);
  w.g1s(pk.h);
  w.g1s(pk.l);
  w.g1s(pk.a);
  w.g1s(pk.b_g1);
  w.g2s(pk.b_g2);
  w.close();
}

ParamsSummary summarize_params_file(const std::string& path) {
  MappedFile f(path);
  ParamsSummary s{};
  s.file_bytes = f.size();
  std::uint64_t pos = 864;
  auto count = [&](const char* field, std::size_t point_bytes) -> std::uint64_t {
    if (f.size() < pos + 4)
      throw ParamsFileError(path, std::string(field) + ".count", pos, "file ends before the count");
    const std::uint8_t* p = f.data() + pos;
    const std::uint64_t n =
        (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | p[3];
    if (n * point_bytes > f.size() - pos - 4)
      throw ParamsFileError(path, std::string(field) + ".count", pos,
                            "count " + std::to_string(n) + " exceeds the bytes that remain (truncated file?)");
    pos += 4 + n * point_bytes;
    return n;
  };
  if (f.size() < 864)
    throw ParamsFileError(path, "header", 0, "file is shorter than the 864-byte verifying-key prefix");
  s.ic = count("ic", G1_BYTES);
  if (pos == f.size()) {
    s.kind = ParamsSummary::Kind::VerifyingKey;
    return s;
  }
  s.kind = ParamsSummary::Kind::Parameters;
  s.h = count("h", G1_BYTES);
  s.l = count("l", G1_BYTES);
  s.a = count("a", G1_BYTES);
  s.b_g1 = count("b_g1", G1_BYTES);
  s.b_g2 = count("b_g2", G2_BYTES);
  if (pos != f.size())
    throw ParamsFileError(path, "end of file", pos, std::to_string(f.size() - pos) + " trailing bytes");
  return s;
}

}  // namespace snarkpipe::groth16
