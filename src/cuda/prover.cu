#include "cuda/prover.hpp"
#include "cuda/launch.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <exception>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <type_traits>
#include <vector>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <tbb/parallel_for.h>

#include "circuit/coefficient_codes.hpp"
#include "circuit/spmv.hpp"
#include "cuda/base_streamer.cuh"
#include "cuda/check.cuh"
#include "cuda/curve.cuh"
#include "cuda/memory_plan.hpp"
#include "cuda/msm.hpp"
#include "cuda/split_msm.cuh"
#include "cuda/stream.hpp"
#include "cuda/ntt.hpp"
#include "groth16/params_file.hpp"
#include "poly/domain.hpp"

#include "cuda/prover_kernels.cuh"

namespace snarkpipe::cuda {

namespace {

using ff::Fr;
using groth16::ProofParts;
using groth16::ProverError;

// A deferred key's queries cross from their file in pieces of this many bytes (one pageable
// buffer; the Uploader stages each into page-locked memory).
constexpr std::size_t KEY_READ_PIECE_BYTES = std::size_t(256) << 20;

// MSM_PIECE (the H MSM's passes) and SPLIT_CHUNK (the L, A and B MSMs' full-scalar parts, a
// PoRep witness has ~13M, run in chunks of at most this many scalars: a witness with few 0/1
// values then takes more chunks instead of memory) are in memory_plan.hpp, which counts the
// temporaries they lead to.

// Host → device. From page-locked memory (cuda::pinned_memory, a packed witness kept where
// CudaBackend::witness_memory says) one asynchronous copy at the bus's rate; from pageable
// memory through two pinned 32 MiB buffers: the copy of one chunk overlaps the memcpy into
// the other, and no chunk waits for more than the copy that used its buffer. The caller keeps
// the source unchanged until the stream has passed the copy (start() returns after it has).
class Uploader {
 public:
  explicit Uploader(cudaStream_t st)
      : stream_(st), done_{Event(cudaEventDisableTiming), Event(cudaEventDisableTiming)} {
    for (auto& b : stage_) b.reserve(CHUNK);
  }
  void copy(void* dst, const void* src, std::size_t bytes) {
    if (bytes == 0) return;
    cudaPointerAttributes attr{};
    if (cudaPointerGetAttributes(&attr, src) != cudaSuccess) {
      cudaGetLastError();  // (older drivers report pageable memory as an error: clear it)
    } else if (attr.type == cudaMemoryTypeHost) {
      SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_));
      return;
    }
    for (std::size_t off = 0; off < bytes; off += CHUNK) {
      const std::size_t len = std::min(CHUNK, bytes - off);
      SNARKPIPE_CUDA_CHECK(cudaEventSynchronize(done_[next_]));
      // Pageable → pinned in parallel: one core copies ~5 GB/s, the bus takes ~25.
      char* dst_stage = stage_[next_].template as<char>();
      const char* from = static_cast<const char*>(src) + off;
      tbb::parallel_for(std::size_t(0), (len + PIECE - 1) / PIECE, [&](std::size_t p) {
        std::memcpy(dst_stage + p * PIECE, from + p * PIECE, std::min(PIECE, len - p * PIECE));
      });
      SNARKPIPE_CUDA_CHECK(
          cudaMemcpyAsync(static_cast<char*>(dst) + off, stage_[next_].data(), len, cudaMemcpyHostToDevice, stream_));
      SNARKPIPE_CUDA_CHECK(cudaEventRecord(done_[next_], stream_));
      next_ ^= 1;
    }
  }

 private:
  static constexpr std::size_t CHUNK = std::size_t(32) << 20;
  static constexpr std::size_t PIECE = std::size_t(1) << 20;
  cudaStream_t stream_;
  PinnedBuffer stage_[2];
  Event done_[2];
  unsigned next_ = 0;
};

// A constraint matrix on the device, its coefficients as codes (circuit/coefficient_codes.hpp):
// 8 bytes per nonzero with the column instead of 36.
struct DeviceCsr {
  DeviceBuffer row_ptr, col, code, others;
  std::size_t rows = 0;
};

struct DeviceCircuit {
  DeviceCsr a, b, c;
  DeviceBuffer a_cols, b_cols;  // z indices of the A and B queries' points, in key order
  std::size_t n_a = 0, n_b = 0;
};

// Tiers 3 and 4: a constraint matrix kept in page-locked host memory, coded as on the device,
// streamed through the device in pieces of rows for each SpMV (piece k+1's copy waits for
// piece k's kernel: the bus, ~50 GB/s, is the limit, not the SpMV).
struct StreamedCsr {
  PinnedBuffer row_ptr, col, code;
  DeviceBuffer others;  // the few coefficients that are not ±2^k
  std::size_t rows = 0;
  std::vector<std::size_t> starts;  // piece boundaries (rows), the last = rows
  std::size_t max_piece_rows = 0, max_piece_nnz = 0;
};
struct StreamedCircuit {
  StreamedCsr a, b, c;
  const StreamedCsr& matrix(int k) const { return k == 0 ? a : k == 1 ? b : c; }
  DeviceCircuit queries;  // only the A and B queries' columns (small) stay on the device
};

// A key on the device (vram: the five MSMs with their bases resident) or left in host memory
// (host: the queries' memory pinned in place, unpinned when the key is released).
struct DeviceKey {
  SrsResidency residency = SrsResidency::vram;
  std::unique_ptr<GpuMsmG1> h, l, a, b_g1;
  std::unique_ptr<GpuMsmG2> b_g2;
  std::vector<void*> registered;
  // Host residency: where each query's points stream from. The key's own arrays, pinned in
  // place; or, for a key whose queries were left in their file (ProvingKey::deferred), this
  // backend's page-locked copy read from it: the one host copy there is.
  const ec::G1Affine *host_h = nullptr, *host_l = nullptr, *host_a = nullptr, *host_b_g1 = nullptr;
  const ec::G2Affine* host_b_g2 = nullptr;
  std::vector<std::unique_ptr<PinnedBuffer>> read_from_file;
  DeviceKey() = default;
  DeviceKey(DeviceKey&& o) noexcept = default;
  DeviceKey& operator=(DeviceKey&&) = delete;
  ~DeviceKey() {
    for (void* p : registered) cudaHostUnregister(p);
  }
};

// z indices: every input, then aux j (column num_inputs + j) where the density bit is set;
// for B the inputs too are filtered by density.
std::vector<uint32_t> query_columns(const circuit::R1cs& r1cs, const circuit::DensityBitmap* input_density,
                                    const circuit::DensityBitmap& aux_density) {
  std::vector<uint32_t> cols;
  for (std::size_t i = 0; i < r1cs.num_inputs; ++i)
    if (!input_density || input_density->test(i)) cols.push_back(uint32_t(i));
  for (std::size_t j = 0; j < r1cs.num_aux; ++j)
    if (aux_density.test(j)) cols.push_back(uint32_t(r1cs.num_inputs + j));
  return cols;
}

// The H MSM's configuration: its window for m scalars, and passes over at most as many sorted
// entries as a 2^26-scalar MSM at its own window has (so its temporaries fit beside a
// resident PoRep key and circuit). At 2^27 that is c = 22 in two passes of 6 windows: 12
// windows of additions instead of the 13 of two 2^26 halves at c = 20.
GpuMsmConfig h_msm_config(std::size_t m) {
  GpuMsmConfig cfg;
  const std::size_t piece = std::min(m, MSM_PIECE);
  const unsigned c = GpuMsmG1::window_bits_for(piece);
  cfg.max_entries = piece * windows_for(c);
  return cfg;
}

}  // namespace

struct CudaBackend::Impl {
  int device;
  std::string device_name;
  BufferPool pool;  // before everything that holds its buffers
  // The L, A and B MSMs' stream and temporaries (vram residency): beside the a,b,c → H chain.
  BufferPool tail_pool;
  Stream stream, tail_stream;
  // The L, A, B MSMs beside a streamed H MSM run at the device's highest priority: their
  // kernels are short and wait on the bus, and at equal priority the H MSM's grids (bound by
  // arithmetic) kept them from the SMs, so they took as long as it did (1.08 s for L beside a
  // 1.08 s H MSM, 240 ms alone; tiers-1-h200-2026-12-02). Made at first use.
  Stream beside_stream;
  Event tail_marks[5];
  Event witness_ready, tail_done;
  std::unique_ptr<GpuNtt> ntt;
  std::map<const circuit::R1cs*, DeviceCircuit> circuits;
  DeviceBuffer pow2;  // 2^k for k < 64, the coefficient codes' table (with the first circuit)
  std::map<const groth16::ProvingKey*, DeviceKey> keys;
  CudaProverPhases phases;
  Event marks[6];
  Event ntt_ready, ntt_done;
  std::mutex mu;                       // one proof at a time per backend (the engine holds one backend per worker)
  std::unique_ptr<Uploader> uploader;  // the witness's pinned staging, made once

  CudaBackendOptions options;
  SrsResidency used = SrsResidency::vram;
  std::string memory_plan;  // the last plan, in words (MemoryPlan::describe)
  int memory_tier = 0;
  std::size_t planned_piece = 0;  // the streamed key's piece size the first streaming plan chose
  std::map<const groth16::ProvingKey*, SrsResidency> planned_residency;
  std::set<const circuit::R1cs*> host_evaluated;             // tier 3: circuits whose a, b, c the host computes
  std::set<const groth16::ProvingKey*> bounded_h;            // tier 4: keys whose proofs compute H in bounded memory
  std::set<const circuit::R1cs*> streams_circuit;            // tiers 3, 4: circuits planned to stream
  std::map<const circuit::R1cs*, StreamedCircuit> streamed;  // ... their host copies, made at first use
  PinnedBuffer h_stage;  // tier 4: the vector H stages in host memory (kept: pinning is slow)
  // Tiers 3 and 4: the host's a, b, c and (from a packed witness) aux, page-locked and kept
  // across proofs: no allocation or page faults per proof, and the bus copies them directly.
  PinnedBuffer host_abc, host_aux;
  // Host residency: the key's queries stream through the device piece by piece.
  std::unique_ptr<BaseStreamer> streamer;
  // ... and, where the plan has room (tail_piece_points), the L, A, B MSMs through a second
  // streamer beside the H MSM: made for that phase of each proof and given back after it
  // (its pieces share the room of the H phase's vectors).
  std::unique_ptr<BaseStreamer> tail_streamer;
  std::map<const groth16::ProvingKey*, std::size_t> tail_piece;  // per key: its plan's (0: none)

  std::size_t g1_piece() const {
    return options.host_piece_points ? options.host_piece_points
           : planned_piece           ? planned_piece
                                     : DEFAULT_STREAM_PIECE_G1_POINTS;
  }

  explicit Impl(const CudaBackendOptions& opt)
      : device(opt.device), pool(opt.device), tail_pool(opt.device), options(opt) {
    const int dev = opt.device;
    SNARKPIPE_CUDA_CHECK(cudaSetDevice(dev));
    cudaDeviceProp prop{};
    SNARKPIPE_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    device_name = prop.name;
    stream = Stream(cudaStreamNonBlocking);
    tail_stream = Stream(cudaStreamNonBlocking);
    for (auto& e : marks) e = Event(cudaEventDefault);
    for (auto& e : tail_marks) e = Event(cudaEventDefault);
    witness_ready = Event(cudaEventDisableTiming);
    tail_done = Event(cudaEventDisableTiming);
    ntt_ready = Event(cudaEventDisableTiming);
    ntt_done = Event(cudaEventDisableTiming);
  }
  ~Impl() {
    uploader.reset();
    keys.clear();
    circuits.clear();
    tail_streamer.reset();
    streamer.reset();
  }

  DeviceCsr upload_csr(Uploader& up, const circuit::CsrMatrix& m) {
    DeviceCsr d;
    d.rows = m.num_rows();
    const circuit::CoefficientCodes coded = circuit::encode_coefficients(m.val);
    d.row_ptr = pool.acquire(m.row_ptr.size() * sizeof(uint64_t));
    d.col = pool.acquire(std::max<std::size_t>(m.col.size(), 1) * sizeof(uint32_t));
    d.code = pool.acquire(std::max<std::size_t>(coded.codes.size(), 1) * sizeof(uint32_t));
    d.others = pool.acquire(std::max<std::size_t>(coded.others.size(), 1) * sizeof(Fr));
    up.copy(d.row_ptr.data(), m.row_ptr.data(), m.row_ptr.size() * sizeof(uint64_t));
    up.copy(d.col.data(), m.col.data(), m.col.size() * sizeof(uint32_t));
    up.copy(d.code.data(), coded.codes.data(), coded.codes.size() * sizeof(uint32_t));
    up.copy(d.others.data(), coded.others.data(), coded.others.size() * sizeof(Fr));  // staged: `coded` may go
    return d;
  }

  // Appends to `out` (at `at`) the z indices first_column + i of the set bits of a density.
  void expand_density(const msm::DensityView& d, uint32_t first_column, uint32_t* out, Uploader& up) {
    const std::size_t words = d.words.size();
    if (words == 0) return;
    DeviceBuffer dw = pool.acquire(words * 8), counts = pool.acquire(words * 4), offsets = pool.acquire(words * 4);
    up.copy(dw.data(), d.words.data(), words * 8);
    popcount_kernel<<<blocks_for(words, 256), 256, 0, stream>>>(dw.as<uint64_t>(), words, counts.as<uint32_t>());
    SNARKPIPE_CUDA_CHECK_LAUNCH();
    std::size_t temp_bytes = 0;
    SNARKPIPE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, counts.as<uint32_t>(),
                                                       offsets.as<uint32_t>(), int64_t(words), stream));
    DeviceBuffer temp = pool.acquire(temp_bytes);
    SNARKPIPE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.data(), temp_bytes, counts.as<uint32_t>(),
                                                       offsets.as<uint32_t>(), int64_t(words), stream));
    expand_density_kernel<<<blocks_for(words, 256), 256, 0, stream>>>(dw.as<uint64_t>(), offsets.as<uint32_t>(), words,
                                                                      first_column, out);
    SNARKPIPE_CUDA_CHECK_LAUNCH();
    // The buffers go back to the pool once the stream has used them (start() synchronizes
    // before it returns, and nothing else runs on this backend meanwhile).
    SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  // The A and B queries' z indices of an evaluated assignment, from its densities (no CSR).
  DeviceCircuit evaluated_queries(const groth16::EvaluatedAssignment& ea) {
    DeviceCircuit d;
    const std::size_t nin = ea.inputs.size();
    d.n_a = nin + ea.a_aux.count();
    std::vector<uint32_t> b_inputs;
    for (std::size_t i = 0; i < nin; ++i)
      if (ea.b_input.test(i)) b_inputs.push_back(uint32_t(i));
    d.n_b = b_inputs.size() + ea.b_aux.count();
    d.a_cols = pool.acquire(std::max<std::size_t>(d.n_a, 1) * sizeof(uint32_t));
    d.b_cols = pool.acquire(std::max<std::size_t>(d.n_b, 1) * sizeof(uint32_t));
    std::vector<uint32_t> a_inputs(nin);
    for (std::size_t i = 0; i < nin; ++i) a_inputs[i] = uint32_t(i);
    Uploader& up = *uploader;
    up.copy(d.a_cols.data(), a_inputs.data(), nin * 4);
    up.copy(d.b_cols.data(), b_inputs.data(), b_inputs.size() * 4);
    expand_density(ea.a_aux, uint32_t(nin), d.a_cols.as<uint32_t>() + nin, up);
    expand_density(ea.b_aux, uint32_t(nin), d.b_cols.as<uint32_t>() + b_inputs.size(), up);
    return d;
  }

  // The SpMV's table of 2^k (k < 64), Montgomery form, with the first circuit.
  void ensure_pow2(Uploader& up) {
    if (pow2.data()) return;
    const circuit::PowerOfTwoCoefficients p;
    pow2 = pool.acquire(sizeof(p.powers()));
    up.copy(pow2.data(), p.powers().data(), sizeof(p.powers()));
  }

  // The A and B queries' z indices of a recorded circuit, into d.
  void upload_queries(Uploader& up, const circuit::R1cs& r1cs, DeviceCircuit& d) {
    const auto a_cols = query_columns(r1cs, nullptr, r1cs.a_aux_density);
    const auto b_cols = query_columns(r1cs, &r1cs.b_input_density, r1cs.b_aux_density);
    d.n_a = a_cols.size();
    d.n_b = b_cols.size();
    d.a_cols = pool.acquire(std::max<std::size_t>(d.n_a, 1) * sizeof(uint32_t));
    d.b_cols = pool.acquire(std::max<std::size_t>(d.n_b, 1) * sizeof(uint32_t));
    up.copy(d.a_cols.data(), a_cols.data(), a_cols.size() * sizeof(uint32_t));
    up.copy(d.b_cols.data(), b_cols.data(), b_cols.size() * sizeof(uint32_t));
  }

  DeviceCircuit& circuit_for(const circuit::R1cs& r1cs) {
    auto it = circuits.find(&r1cs);
    if (it != circuits.end()) return it->second;
    Uploader up(stream);
    ensure_pow2(up);
    DeviceCircuit d;
    d.a = upload_csr(up, r1cs.a);
    d.b = upload_csr(up, r1cs.b);
    d.c = upload_csr(up, r1cs.c);
    upload_queries(up, r1cs, d);
    SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));
    release_mapped(r1cs);
    return circuits.emplace(&r1cs, std::move(d)).first->second;
  }

  // Once the device (or this backend's page-locked copy) holds a circuit mapped from its cache
  // file, the file's pages leave this process's memory: they come back from the file only if
  // the host reads the circuit again (the satisfaction check after a failed proof). Not for a
  // circuit whose a, b, c the host computes every proof (tier 3).
  void release_mapped(const circuit::R1cs& r1cs) const {
    if (host_evaluated.count(&r1cs)) return;
    for (const circuit::CsrMatrix* mat : {&r1cs.a, &r1cs.b, &r1cs.c}) {
      mat->row_ptr.release_mapped_pages();
      mat->col.release_mapped_pages();
      mat->val.release_mapped_pages();
    }
  }

  // (Filled in place: page-locked buffers do not move.)
  void stream_csr(Uploader& up, const circuit::CsrMatrix& mat, StreamedCsr& h) {
    h.rows = mat.num_rows();
    const circuit::CoefficientCodes coded = circuit::encode_coefficients(mat.val);
    h.row_ptr.reserve(mat.row_ptr.size() * 8);
    h.col.reserve(std::max<std::size_t>(mat.col.size(), 1) * 4);
    h.code.reserve(std::max<std::size_t>(coded.codes.size(), 1) * 4);
    std::memcpy(h.row_ptr.data(), mat.row_ptr.data(), mat.row_ptr.size() * 8);
    std::memcpy(h.col.data(), mat.col.data(), mat.col.size() * 4);
    std::memcpy(h.code.data(), coded.codes.data(), coded.codes.size() * 4);
    h.others = pool.acquire(std::max<std::size_t>(coded.others.size(), 1) * sizeof(Fr));
    up.copy(h.others.data(), coded.others.data(), coded.others.size() * sizeof(Fr));  // staged: `coded` may go
    // Pieces of at most CSR_PIECE_ROWS rows and CSR_PIECE_NNZ entries (a longer row alone).
    const uint64_t* rp = mat.row_ptr.data();
    for (std::size_t r = 0; r < h.rows;) {
      const std::size_t limit =
          std::min(h.rows, r + (options.circuit_piece_rows ? options.circuit_piece_rows : CSR_PIECE_ROWS));
      const uint64_t* end = std::upper_bound(rp + r + 1, rp + limit + 1, rp[r] + CSR_PIECE_NNZ);
      const std::size_t e = std::max<std::size_t>(r + 1, std::size_t(end - rp) - 1);
      h.starts.push_back(r);
      h.max_piece_rows = std::max(h.max_piece_rows, e - r);
      h.max_piece_nnz = std::max<std::size_t>(h.max_piece_nnz, rp[e] - rp[r]);
      r = e;
    }
    h.starts.push_back(h.rows);
  }

  StreamedCircuit& streamed_for(const circuit::R1cs& r1cs) {
    auto it = streamed.find(&r1cs);
    if (it != streamed.end()) return it->second;
    Uploader up(stream);
    ensure_pow2(up);
    StreamedCircuit& sc = streamed[&r1cs];
    struct Undo {  // a failure leaves no half-made entry
      std::map<const circuit::R1cs*, StreamedCircuit>& map;
      const circuit::R1cs* key;
      bool done = false;
      ~Undo() {
        if (!done) map.erase(key);
      }
    } undo{streamed, &r1cs};
    stream_csr(up, r1cs.a, sc.a);
    stream_csr(up, r1cs.b, sc.b);
    stream_csr(up, r1cs.c, sc.c);
    upload_queries(up, r1cs, sc.queries);
    SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));
    release_mapped(r1cs);
    undo.done = true;
    return sc;
  }

  // out[0, n) = the rows of a streamed matrix times z, zero past its rows, on `stream`.
  void streamed_spmv(const StreamedCsr& h, const fr_t* z, fr_t* out, std::size_t n) {
    DeviceBuffer rp = pool.acquire((h.max_piece_rows + 1) * 8),
                 col = pool.acquire(std::max<std::size_t>(h.max_piece_nnz, 1) * 4),
                 code = pool.acquire(std::max<std::size_t>(h.max_piece_nnz, 1) * 4);
    const uint64_t* host_rp = h.row_ptr.as<uint64_t>();
    for (std::size_t i = 0; i + 1 < h.starts.size(); ++i) {
      const std::size_t r0 = h.starts[i], r1 = h.starts[i + 1];
      const uint64_t p0 = host_rp[r0], p1 = host_rp[r1];
      SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(rp.data(), host_rp + r0, (r1 - r0 + 1) * 8, cudaMemcpyHostToDevice, stream));
      SNARKPIPE_CUDA_CHECK(
          cudaMemcpyAsync(col.data(), h.col.as<uint32_t>() + p0, (p1 - p0) * 4, cudaMemcpyHostToDevice, stream));
      SNARKPIPE_CUDA_CHECK(
          cudaMemcpyAsync(code.data(), h.code.as<uint32_t>() + p0, (p1 - p0) * 4, cudaMemcpyHostToDevice, stream));
      spmv_kernel<<<blocks_for(r1 - r0, 256), 256, 0, stream>>>(rp.as<uint64_t>(), col.as<uint32_t>(),
                                                                code.as<uint32_t>(), h.others.as<fr_t>(),
                                                                pow2.as<fr_t>(), z, r1 - r0, out + r0, p0);
      SNARKPIPE_CUDA_CHECK_LAUNCH();
    }
    if (n > h.rows) SNARKPIPE_CUDA_CHECK(cudaMemsetAsync(out + h.rows, 0, (n - h.rows) * sizeof(Fr), stream));
    SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));  // the pieces go back to the pool
  }

  // The H MSM works on the main stream; the others (tail) on the second stream, from its pool.
  template <class C>
  std::unique_ptr<GpuMsm<C>> resident(Uploader& up, const base::HostArray<ec::Affine<C>>& points, bool tail) {
    auto m = tail ? std::make_unique<GpuMsm<C>>(points.size(), pool, tail_pool, tail_stream)
                  : std::make_unique<GpuMsm<C>>(points.size(), pool, stream);
    up.copy(m->device_bases(), points.data(), points.size() * sizeof(ec::Affine<C>));
    return m;
  }

  // Points [0, n) of query q of a deferred key, read from its file in pieces into `to` (device
  // or page-locked memory) through one pageable piece: the host never holds the whole query.
  template <class C>
  void read_query(Uploader* up, const groth16::ParamsQueries& file, groth16::ParamsQueries::Query q,
                  ec::Affine<C>* to) {
    using Point = ec::Affine<C>;
    const std::size_t n = file.count(q), piece = KEY_READ_PIECE_BYTES / sizeof(Point);
    std::vector<Point> buf(up ? std::min(n, piece) : 0);
    for (std::size_t off = 0; off < n; off += piece) {
      const std::size_t len = std::min(piece, n - off);
      Point* dst = up ? buf.data() : to + off;
      if constexpr (std::is_same_v<C, ec::G1Curve>) file.read_g1(q, off, len, dst);
      else file.read_g2(off, len, dst);
      if (up) up->copy(to + off, dst, len * sizeof(Point));  // staged: buf may be refilled
    }
  }

  template <class C>
  std::unique_ptr<GpuMsm<C>> resident_from_file(Uploader& up, const groth16::ParamsQueries& file,
                                                groth16::ParamsQueries::Query q, bool tail) {
    const std::size_t n = file.count(q);
    auto m = tail ? std::make_unique<GpuMsm<C>>(n, pool, tail_pool, tail_stream)
                  : std::make_unique<GpuMsm<C>>(n, pool, stream);
    read_query<C>(&up, file, q, reinterpret_cast<ec::Affine<C>*>(m->device_bases()));
    return m;
  }

  DeviceKey& key_for(const groth16::ProvingKey& pk, SrsResidency residency) {
    auto it = keys.find(&pk);
    if (it != keys.end()) return it->second;
    if (residency == SrsResidency::host) return keys.emplace(&pk, host_key(pk)).first->second;
    Uploader up(stream);
    DeviceKey k;
    if (pk.deferred) {
      using Q = groth16::ParamsQueries::Query;
      const groth16::ParamsQueries& f = *pk.deferred;
      k.h = resident_from_file<ec::G1Curve>(up, f, Q::h, false);
      k.l = resident_from_file<ec::G1Curve>(up, f, Q::l, true);
      k.a = resident_from_file<ec::G1Curve>(up, f, Q::a, true);
      k.b_g1 = resident_from_file<ec::G1Curve>(up, f, Q::b_g1, true);
      k.b_g2 = resident_from_file<ec::G2Curve>(up, f, Q::b_g2, true);
    } else {
      k.h = resident<ec::G1Curve>(up, pk.h, false);
      k.l = resident<ec::G1Curve>(up, pk.l, true);
      k.a = resident<ec::G1Curve>(up, pk.a, true);
      k.b_g1 = resident<ec::G1Curve>(up, pk.b_g1, true);
      k.b_g2 = resident<ec::G2Curve>(up, pk.b_g2, true);
    }
    SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));
    return keys.emplace(&pk, std::move(k)).first->second;
  }

  DeviceKey host_key(const groth16::ProvingKey& pk) {
    DeviceKey k;
    k.residency = SrsResidency::host;
    if (!streamer) streamer = std::make_unique<BaseStreamer>(pool, stream, g1_piece());
    if (pk.deferred) {  // read once from the file into page-locked memory of this backend's own
      using Q = groth16::ParamsQueries::Query;
      const groth16::ParamsQueries& f = *pk.deferred;
      auto take = [&](Q q, std::size_t bytes) {
        k.read_from_file.push_back(std::make_unique<PinnedBuffer>());
        k.read_from_file.back()->reserve(std::max<std::size_t>(bytes, 1));
        return k.read_from_file.back().get();
      };
      auto g1 = [&](Q q) {
        PinnedBuffer* b = take(q, f.count(q) * sizeof(ec::G1Affine));
        read_query<ec::G1Curve>(nullptr, f, q, b->as<ec::G1Affine>());
        return b->as<const ec::G1Affine>();
      };
      k.host_h = g1(Q::h), k.host_l = g1(Q::l), k.host_a = g1(Q::a), k.host_b_g1 = g1(Q::b_g1);
      PinnedBuffer* b2 = take(Q::b_g2, f.count(Q::b_g2) * sizeof(ec::G2Affine));
      read_query<ec::G2Curve>(nullptr, f, Q::b_g2, b2->as<ec::G2Affine>());
      k.host_b_g2 = b2->as<const ec::G2Affine>();
      return k;
    }
    k.host_h = pk.h.data(), k.host_l = pk.l.data(), k.host_a = pk.a.data(), k.host_b_g1 = pk.b_g1.data();
    k.host_b_g2 = pk.b_g2.data();
    auto pin = [&](const void* data, std::size_t bytes) {
      if (bytes == 0) return;
      void* p = const_cast<void*>(data);
      // Portable: another device's backend may stream the same key (it then finds the memory
      // already registered, which is fine, and leaves the unregistering to the first).
      const cudaError_t e = cudaHostRegister(p, bytes, cudaHostRegisterPortable);
      if (e == cudaErrorHostMemoryAlreadyRegistered) {
        cudaGetLastError();
        return;
      }
      SNARKPIPE_CUDA_CHECK(e);
      k.registered.push_back(p);
    };
    pin(pk.h.data(), pk.h.size() * sizeof(ec::G1Affine));
    pin(pk.l.data(), pk.l.size() * sizeof(ec::G1Affine));
    pin(pk.a.data(), pk.a.size() * sizeof(ec::G1Affine));
    pin(pk.b_g1.data(), pk.b_g1.size() * sizeof(ec::G1Affine));
    pin(pk.b_g2.data(), pk.b_g2.size() * sizeof(ec::G2Affine));
    return k;
  }

  // Σ s_i·P_i over a query whose points stay in host memory (see BaseStreamer).
  // With cols the scalars are s[cols[i]] (a query over z, read in place: no gathered copy).
  // The streamer, pool and stream are the first (H MSM) or the second (L, A, B beside it).
  template <class C>
  ec::Jacobian<C> streamed_msm(const ec::Affine<C>* points, const fr_t* s, const uint32_t* cols, std::size_t n,
                               bool split01) {
    return streamed_msm(*streamer, pool, stream, points, s, cols, n, split01);
  }
  template <class C>
  ec::Jacobian<C> streamed_msm(BaseStreamer& through, BufferPool& on, cudaStream_t st, const ec::Affine<C>* points,
                               const fr_t* s, const uint32_t* cols, std::size_t n, bool split01) {
    return through.run<C>(points, n, [&](GpuMsm<C>& msm, std::size_t off, std::size_t len) {
      if (!split01) return msm.msm_device(reinterpret_cast<const Fr*>(s + off), len);
      return cols ? split_msm(msm, split(s, cols + off, len, on, st))
                  : split_msm(msm, split(s + off, nullptr, len, on, st));
    });
  }

  // Tier 4: the coefficients of h = icoset(â·b̂)/z − intt(c)/z (GpuNtt::quotient_coefficients'
  // formula) with one full-size vector on the device and one in pinned host memory, the
  // staged vector crossing back in pieces into a small buffer. Seven crossings of 2^log_m
  // elements: a up, â down, b up, â up (times b̂), the product's inverse down, c up, and
  // that back up (minus intt(c)/z). Everything on `stream`, in order.
  // fill(k, v) writes a (k = 0), b or c into v, all 2^log_m entries, on `stream`.
  template <class Fill>
  DeviceBuffer bounded_quotient(GpuNtt& ntt, unsigned log_m, const Fr& z_inv, Fill&& fill) {
    const std::size_t n = std::size_t(1) << log_m, bytes = n * sizeof(Fr);
    DeviceBuffer v = pool.acquire(bytes);
    const std::size_t piece_n = std::min(n, H_STAGE_PIECE);
    DeviceBuffer piece = pool.acquire(piece_n * sizeof(Fr));
    h_stage.reserve(bytes);
    Fr* staged = h_stage.as<Fr>();
    auto load = [&](int k) { fill(k, v.as<fr_t>()); };
    auto stage_out = [&] {
      SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(staged, v.data(), bytes, cudaMemcpyDeviceToHost, stream));
    };
    auto combine = [&](bool multiply) {
      for (std::size_t off = 0; off < n; off += piece_n) {
        const std::size_t len = std::min(piece_n, n - off);
        SNARKPIPE_CUDA_CHECK(
            cudaMemcpyAsync(piece.data(), staged + off, len * sizeof(Fr), cudaMemcpyHostToDevice, stream));
        if (multiply)
          mul_by_kernel<<<blocks_for(len, 256), 256, 0, stream>>>(v.as<fr_t>() + off, piece.as<fr_t>(), len);
        else subtract_from_kernel<<<blocks_for(len, 256), 256, 0, stream>>>(v.as<fr_t>() + off, piece.as<fr_t>(), len);
        SNARKPIPE_CUDA_CHECK_LAUNCH();
      }
    };
    load(0);
    ntt.coset_from_evaluations(v.as<Fr>(), log_m, stream);
    stage_out();
    load(1);
    ntt.coset_from_evaluations(v.as<Fr>(), log_m, stream);
    combine(true);
    ntt.icoset_ntt_times(v.as<Fr>(), log_m, z_inv, stream);
    stage_out();
    load(2);
    ntt.intt_times(v.as<Fr>(), log_m, z_inv, stream);
    combine(false);
    SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));  // the piece goes back to the pool
    return v;
  }

  // The 0/1 split and its MSM (cuda/split_msm.cuh), on this backend's pool and stream or given ones.
  using Split = SplitScalars;
  static Split split(const fr_t* s, const uint32_t* cols, std::size_t n, BufferPool& pool, cudaStream_t stream) {
    return split_scalars(s, cols, n, pool, stream);
  }
  template <class C>
  static ec::Jacobian<C> split_msm(GpuMsm<C>& msm, const Split& sp) {
    return cuda::split_msm(msm, sp);
  }

  // The NTT engine: dense twiddles, or compact ones for tier 4 (either replaces the other).
  GpuNtt& ntt_for(unsigned log_m, GpuNtt::Twiddles twiddles = GpuNtt::Twiddles::dense) {
    if (!ntt || ntt->max_log_n() < log_m || ntt_twiddles != twiddles) {
      ntt.reset();
      ntt = std::make_unique<GpuNtt>(log_m, device, twiddles);
      ntt_twiddles = twiddles;
    }
    return *ntt;
  }
  GpuNtt::Twiddles ntt_twiddles = GpuNtt::Twiddles::dense;
};

SrsResidency parse_srs_residency(const std::string& text) {
  if (text == "vram") return SrsResidency::vram;
  if (text == "host") return SrsResidency::host;
  if (text == "auto") return SrsResidency::automatic;
  throw std::invalid_argument("SRS residency must be vram, host or auto (got '" + text + "')");
}

const char* to_string(SrsResidency r) {
  return r == SrsResidency::vram ? "vram" : r == SrsResidency::host ? "host" : "auto";
}

CudaBackend::CudaBackend(const CudaBackendOptions& options) {
  if (usable_device_count() <= options.device)
    throw CudaError("CudaBackend", 100, "no usable CUDA device " + std::to_string(options.device), __FILE__, __LINE__);
  impl_ = std::make_unique<Impl>(options);
  impl_->uploader = std::make_unique<Uploader>(impl_->stream);
}

CudaBackend::~CudaBackend() = default;

std::string CudaBackend::name() const {
  return "cuda:" + std::to_string(impl_->device) + " (" + impl_->device_name + ")";
}

void CudaBackend::release_key(const groth16::ProvingKey& pk) {
  std::lock_guard lock(impl_->mu);
  impl_->keys.erase(&pk);
  impl_->planned_residency.erase(&pk);
  impl_->bounded_h.erase(&pk);
  impl_->tail_piece.erase(&pk);
}

void CudaBackend::release_circuit(const circuit::R1cs& r1cs) {
  std::lock_guard lock(impl_->mu);
  impl_->circuits.erase(&r1cs);
  impl_->host_evaluated.erase(&r1cs);
  impl_->streams_circuit.erase(&r1cs);
  impl_->streamed.erase(&r1cs);
}

std::size_t CudaBackend::device_bytes_held() const {
  return impl_->pool.bytes_allocated() + impl_->tail_pool.bytes_allocated();
}
const CudaProverPhases& CudaBackend::last_phases() const { return impl_->phases; }
std::pmr::memory_resource* CudaBackend::witness_memory() const { return pinned_memory(); }

SrsResidency CudaBackend::residency_used() const { return impl_->used; }
const std::string& CudaBackend::memory_plan() const { return impl_->memory_plan; }
int CudaBackend::memory_tier() const { return impl_->memory_tier; }

std::size_t CudaBackend::key_bytes(const groth16::ProvingKey& pk) {
  return (pk.h.size() + pk.l.size() + pk.a.size() + pk.b_g1.size()) * sizeof(ec::G1Affine) +
         pk.b_g2.size() * sizeof(ec::G2Affine);
}

std::size_t CudaBackend::circuit_bytes(const circuit::R1cs& r1cs) { return device_circuit_bytes(r1cs); }

namespace {

MemoryTier tier_of(SrsResidency residency, bool circuit_on_device) {
  return residency != SrsResidency::host ? MemoryTier::resident
         : circuit_on_device             ? MemoryTier::key_streamed
                                         : MemoryTier::circuit_streamed;
}

TierChoice choice_of(SrsResidency residency) {
  return residency == SrsResidency::vram   ? TierChoice::key_on_device
         : residency == SrsResidency::host ? TierChoice::key_on_host
                                           : TierChoice::any;
}

}  // namespace

std::size_t CudaBackend::device_bytes_needed(const groth16::ProvingKey& pk, const circuit::R1cs& r1cs,
                                             SrsResidency residency, std::size_t host_piece_points) {
  return device_bytes_needed(pk, r1cs, residency, host_piece_points, circuit_bytes(r1cs));
}

std::size_t CudaBackend::device_bytes_needed(const groth16::ProvingKey& pk, const circuit::R1cs& r1cs,
                                             SrsResidency residency, std::size_t host_piece_points,
                                             std::size_t circuit) {
  return plan_for_tier(ProofShape::of(pk, r1cs, circuit), tier_of(residency, true), host_piece_points).device_bytes;
}

std::size_t CudaBackend::device_bytes_needed(const groth16::ProvingKey& pk, const groth16::EvaluatedAssignment& ea,
                                             SrsResidency residency, std::size_t host_piece_points) {
  return plan_for_tier(ProofShape::of(pk, ea), tier_of(residency, false), host_piece_points).device_bytes;
}

ProofParts CudaBackend::start(const groth16::ProvingKey& pk, const circuit::R1cs& r1cs, const groth16::Witness& w,
                              groth16::ProverTimings* timings, const groth16::ProverProgress& progress) {
  return start_common(pk, &r1cs, &w, nullptr, nullptr, timings, progress, std::chrono::steady_clock::now());
}

ProofParts CudaBackend::start_evaluated(const groth16::ProvingKey& pk, const groth16::EvaluatedAssignment& ea,
                                        groth16::ProverTimings* timings, const groth16::ProverProgress& progress) {
  return start_common(pk, nullptr, nullptr, nullptr, &ea, timings, progress, std::chrono::steady_clock::now());
}

ProofParts CudaBackend::start_packed(const groth16::ProvingKey& pk, const circuit::R1cs& r1cs,
                                     const groth16::PackedWitness& w, groth16::ProverTimings* timings,
                                     const groth16::ProverProgress& progress) {
  const auto entered = std::chrono::steady_clock::now();
  const std::size_t words = (w.num_aux + 63) / 64;
  if (w.general.size() != words || w.ones.size() != words || w.rank.size() != words)
    throw groth16::ProverError("the packed witness's bitmaps do not match its " + std::to_string(w.num_aux) +
                               " aux values");
  return start_common(pk, &r1cs, nullptr, &w, nullptr, timings, progress, entered);
}

ProofParts CudaBackend::start_common(const groth16::ProvingKey& pk, const circuit::R1cs* r1cs,
                                     const groth16::Witness* full, const groth16::PackedWitness* packed,
                                     const groth16::EvaluatedAssignment* evaluated, groth16::ProverTimings* timings,
                                     const groth16::ProverProgress& progress,
                                     std::chrono::steady_clock::time_point entered) {
  Impl& m = *impl_;
  std::lock_guard lock(m.mu);
  SNARKPIPE_CUDA_CHECK(cudaSetDevice(m.device));
  auto phase = [&](std::string_view p) {
    if (progress) progress(p);
  };
  const auto wall0 = entered;
  // The shapes, with the query sizes of the circuit's device copy when it has one (counted
  // once at upload from the same densities) instead of recounting them every proof.
  if (evaluated) {
    groth16::check_shapes(pk, *evaluated);
  } else {
    const auto cached = m.circuits.find(r1cs);
    const groth16::QuerySizes sizes = cached != m.circuits.end()
                                          ? groth16::QuerySizes{cached->second.n_a, cached->second.n_b}
                                          : groth16::query_sizes(*r1cs);
    if (full) groth16::check_shapes(pk, *r1cs, full->inputs, full->aux.size(), sizes);
    else groth16::check_shapes(pk, *r1cs, packed->inputs, packed->num_aux, sizes);
  }
  m.phases.host_checks = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - entered).count();
  // Sets phases.host_after when start returns, after the buffers below are given back.
  struct HostAfter {
    double& ms;
    std::optional<std::chrono::steady_clock::time_point> from;
    ~HostAfter() {
      if (from) ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - *from).count();
    }
  } host_after{m.phases.host_after, std::nullopt};

  // First use of this key or circuit: plan the device memory (once; not on the hot path).
  const bool key_known = m.keys.count(&pk) != 0;
  if (!key_known ||
      (r1cs && !m.circuits.count(r1cs) && !m.host_evaluated.count(r1cs) && !m.streams_circuit.count(r1cs))) {
    std::size_t free_bytes = 0, total_bytes = 0;
    SNARKPIPE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    PlanRequest req;
    req.shape = r1cs ? ProofShape::of(pk, *r1cs) : ProofShape::of(pk, *evaluated);
    req.device_free = free_bytes + m.pool.bytes_allocated() + m.tail_pool.bytes_allocated();
    req.budget = m.options.device_budget;
    // A key already on the device (or pinned) keeps its place; the circuit plans around it.
    req.choice = choice_of(key_known ? m.keys.at(&pk).residency : m.options.residency);
    req.piece_points = m.options.host_piece_points ? m.options.host_piece_points : m.planned_piece;
    req.concurrent_msms = m.options.concurrent_msms;
    req.only_tier = m.options.only_tier;
    req.device_name = m.device_name + " (" + std::to_string(total_bytes >> 30) + " GiB)";
    MemoryPlan plan;
    try {
      plan = plan_device_memory(req);
    } catch (const MemoryPlanError& e) {
      throw ProverError(e.what());
    }
    m.memory_plan = plan.describe();
    m.memory_tier = int(plan.tier);
    if (!m.planned_piece && plan.piece_points) m.planned_piece = plan.piece_points;
    if (r1cs && plan.abc_from_host) m.host_evaluated.insert(r1cs);
    if (r1cs && plan.streams_circuit) m.streams_circuit.insert(r1cs);
    if (plan.tier == MemoryTier::bounded_h) m.bounded_h.insert(&pk);
    m.tail_piece[&pk] = plan.tail_piece_points;
    if (!key_known) m.planned_residency[&pk] = plan.key_on_device() ? SrsResidency::vram : SrsResidency::host;
  }
  const SrsResidency residency = key_known ? m.keys.at(&pk).residency : m.planned_residency.at(&pk);
  m.used = residency;
  if (!key_known || (r1cs && !m.circuits.count(r1cs)))
    phase(residency == SrsResidency::vram ? "upload key and circuit (first use)"
                                          : "pin key, upload circuit (first use)");
  // Tier 4 in the least memory: the circuit stays in host memory; the host's cores evaluate
  // a, b, c, which then take the evaluated path.
  std::optional<groth16::EvaluatedAssignment> host_assignment;
  if (r1cs && m.host_evaluated.count(r1cs)) {
    phase("a,b,c on the host (the circuit stays in host memory)");
    const std::size_t rows = r1cs->num_constraints;
    std::span<const Fr> inputs = full ? std::span<const Fr>(full->inputs) : std::span<const Fr>(packed->inputs);
    std::span<const Fr> aux;
    if (full) {
      aux = full->aux;
    } else {
      m.host_aux.reserve(std::max<std::size_t>(packed->num_aux, 1) * sizeof(Fr));
      const std::span<Fr> out(m.host_aux.as<Fr>(), packed->num_aux);
      groth16::unpack_aux_into(*packed, out);
      aux = out;
    }
    m.host_abc.reserve(std::max<std::size_t>(3 * rows, 1) * sizeof(Fr));
    const std::span<Fr> a(m.host_abc.as<Fr>(), rows), b(a.data() + rows, rows), c(b.data() + rows, rows);
    circuit::evaluate_into(*r1cs, inputs, aux, a, b, c);
    host_assignment = groth16::EvaluatedAssignment{
        a, b, c, inputs, aux, r1cs->a_aux_density, r1cs->b_input_density, r1cs->b_aux_density};
    evaluated = &*host_assignment;
    r1cs = nullptr;
    full = nullptr;
    packed = nullptr;
  }
  // An evaluated assignment brings no circuit: its queries' z indices are expanded per proof.
  std::optional<DeviceCircuit> evaluated_circuit;
  if (evaluated) evaluated_circuit = m.evaluated_queries(*evaluated);
  // Tiers 3 and 4: the circuit streams through the device for each SpMV.
  StreamedCircuit* sc = r1cs && m.streams_circuit.count(r1cs) ? &m.streamed_for(*r1cs) : nullptr;
  DeviceCircuit& dc = evaluated ? *evaluated_circuit : sc ? sc->queries : m.circuit_for(*r1cs);
  DeviceKey& dk = m.key_for(pk, residency);
  const bool host = dk.residency == SrsResidency::host;

  const std::size_t rows = evaluated ? evaluated->num_constraints() : r1cs->num_constraints;
  const std::size_t nin = evaluated ? evaluated->inputs.size() : r1cs->num_inputs;
  const std::size_t naux = evaluated ? evaluated->aux.size() : r1cs->num_aux;
  const poly::EvaluationDomain domain = poly::EvaluationDomain::for_size(rows);
  const std::size_t n = domain.m();
  const unsigned log_m = domain.log_m();
  // Tier 4 (bounded H) runs one phase at a time and needs an evaluated assignment (tier 3's
  // host a, b, c or the caller's).
  const bool bounded = host && (evaluated || sc) && m.bounded_h.count(&pk);
  GpuNtt& ntt = m.ntt_for(log_m, bounded || sc ? GpuNtt::Twiddles::compact : GpuNtt::Twiddles::dense);
  cudaStream_t st = m.stream;
  auto mark = [&](int i) { SNARKPIPE_CUDA_CHECK(cudaEventRecord(m.marks[i], st)); };

  phase(bounded     ? "H in bounded memory (a, b, c and one vector staged over the bus)"
        : evaluated ? "upload a,b,c + H (NTT)"
                    : "a,b,c + H (NTT)");
  mark(0);
  const auto queued0 = std::chrono::steady_clock::now();
  DeviceBuffer z;
  DeviceBuffer packed_parts[4];
  auto upload_witness = [&] {
    z = m.pool.acquire((nin + naux) * sizeof(Fr));
    Uploader& up = *m.uploader;
    if (full || evaluated) {
      up.copy(z.data(), full ? full->inputs.data() : evaluated->inputs.data(), nin * sizeof(Fr));
      up.copy(z.as<Fr>() + nin, full ? full->aux.data() : evaluated->aux.data(), naux * sizeof(Fr));
    } else {
      // Bits and the general values cross the bus (~1/10 of the full witness); the device
      // writes the aux values into z.
      const std::size_t words = packed->general.size();
      up.copy(z.data(), packed->inputs.data(), nin * sizeof(Fr));
      packed_parts[0] = m.pool.acquire(std::max<std::size_t>(words, 1) * 8);
      packed_parts[1] = m.pool.acquire(std::max<std::size_t>(words, 1) * 8);
      packed_parts[2] = m.pool.acquire(std::max<std::size_t>(words, 1) * 4);
      packed_parts[3] = m.pool.acquire(std::max<std::size_t>(packed->values.size(), 1) * sizeof(Fr));
      up.copy(packed_parts[0].data(), packed->general.data(), words * 8);
      up.copy(packed_parts[1].data(), packed->ones.data(), words * 8);
      up.copy(packed_parts[2].data(), packed->rank.data(), words * 4);
      up.copy(packed_parts[3].data(), packed->values.data(), packed->values.size() * sizeof(Fr));
      if (naux)
        unpack_kernel<<<blocks_for(naux, 256), 256, 0, st>>>(
            packed_parts[0].as<uint64_t>(), packed_parts[1].as<uint64_t>(), packed_parts[2].as<uint32_t>(),
            packed_parts[3].as<fr_t>(), naux, z.as<fr_t>() + nin);
      SNARKPIPE_CUDA_CHECK_LAUNCH();
    }
  };
  // With a/b/c given (bounded, evaluated), z comes after H, into h's room.
  const bool late_witness = bounded && evaluated;
  if (!late_witness) upload_witness();
  mark(1);
  // The L, A and B MSMs need only the witness. With the key in GPU memory they run on the
  // second stream, beside the a,b,c → NTT → H MSM chain, so that each chain's arithmetic fills
  // the SMs the other's memory passes (SpMV, the NTTs' permutations and pointwise steps, the
  // sorts) and sparse tails (reductions, the last wave of a kernel) leave idle. With a
  // host-resident key they follow the H MSM on the main stream (one streamer, one stream).
  const bool concurrent = !host && m.options.concurrent_msms;
  // With the key streamed, the L, A, B MSMs (bound by the bus) go beside the H MSM (bound by
  // its arithmetic) where the plan made room: after H, once its phase's memory is given back.
  // Not when z comes after the H MSM (late_witness).
  const auto tp = m.tail_piece.find(&pk);
  const std::size_t beside_piece =
      host && !late_witness && m.options.concurrent_msms && tp != m.tail_piece.end() ? tp->second : 0;
  const bool beside_h_msm = beside_piece > 0;
  if (beside_h_msm && !m.beside_stream) {
    int least = 0, greatest = 0;
    SNARKPIPE_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    m.beside_stream = Stream(cudaStreamNonBlocking, greatest);
  }
  cudaStream_t ts = !host ? m.tail_stream : beside_h_msm ? m.beside_stream : st;
  BufferPool& tpool = host && !beside_h_msm ? m.pool : m.tail_pool;
  ProofParts parts;
  auto tail = [&] {
    SNARKPIPE_CUDA_CHECK(cudaSetDevice(m.device));
    auto tmark = [&](int i) { SNARKPIPE_CUDA_CHECK(cudaEventRecord(m.tail_marks[i], ts)); };
    tmark(0);
    if (host) {  // the queries stream through in pieces, each split on its own, read through cols
      BaseStreamer& through = beside_h_msm ? *m.tail_streamer : *m.streamer;
      parts.l = m.streamed_msm(through, tpool, ts, dk.host_l, z.as<fr_t>() + nin, nullptr, naux, true);
      tmark(1);
      parts.a = m.streamed_msm(through, tpool, ts, dk.host_a, z.as<fr_t>(), dc.a_cols.as<uint32_t>(), dc.n_a, true);
      tmark(2);
      parts.b_g1 =
          m.streamed_msm(through, tpool, ts, dk.host_b_g1, z.as<fr_t>(), dc.b_cols.as<uint32_t>(), dc.n_b, true);
      tmark(3);
      parts.b_g2 =
          m.streamed_msm(through, tpool, ts, dk.host_b_g2, z.as<fr_t>(), dc.b_cols.as<uint32_t>(), dc.n_b, true);
    } else {
      // B_G2 first: measured 0.5 % faster than last (gpu-notes item 45, when its loop was bound
      // by latency and spills more than by the multipliers, beside the H chain's NTTs).
      {
        const Impl::Split b = m.split(z.as<fr_t>(), dc.b_cols.as<uint32_t>(), dc.n_b, tpool, ts);
        parts.b_g2 = m.split_msm(*dk.b_g2, b);
        tmark(1);
        parts.b_g1 = m.split_msm(*dk.b_g1, b);
      }
      tmark(2);
      parts.l = m.split_msm(*dk.l, m.split(z.as<fr_t>() + nin, nullptr, naux, tpool, ts));
      tmark(3);
      parts.a = m.split_msm(*dk.a, m.split(z.as<fr_t>(), dc.a_cols.as<uint32_t>(), dc.n_a, tpool, ts));
    }
    tmark(4);
    SNARKPIPE_CUDA_CHECK(cudaEventSynchronize(m.tail_marks[4]));
  };
  std::exception_ptr tail_error;
  std::thread tail_thread;
  // Joined however this function leaves: the tail reads z, dc and dk.
  struct Joiner {
    std::thread& t;
    ~Joiner() {
      if (t.joinable()) t.join();
    }
  } joiner{tail_thread};
  if (!host) {  // the second stream starts once the witness is on the device
    SNARKPIPE_CUDA_CHECK(cudaEventRecord(m.witness_ready, st));
    SNARKPIPE_CUDA_CHECK(cudaStreamWaitEvent(ts, m.witness_ready));
  }
  auto start_tail = [&] {
    tail_thread = std::thread([&] {
      try {
        tail();
      } catch (...) {
        tail_error = std::current_exception();
      }
    });
  };
  if (concurrent) start_tail();

  DeviceBuffer abc[3];
  if (bounded) {
    mark(2);
    abc[0] = m.bounded_quotient(ntt, log_m, domain.coset_vanishing_inv(), [&](int k, fr_t* v) {
      if (sc) return m.streamed_spmv(sc->matrix(k), z.as<fr_t>(), v, n);
      const std::span<const Fr> x = k == 0 ? evaluated->a : k == 1 ? evaluated->b : evaluated->c;
      m.uploader->copy(v, x.data(), rows * sizeof(Fr));
      SNARKPIPE_CUDA_CHECK(cudaMemsetAsync(v + rows, 0, (n - rows) * sizeof(Fr), st));
    });
    ntt.release_scratch();  // the H MSM's and z's room
    mark(3);
  } else {
    for (auto& v : abc) v = m.pool.acquire(n * sizeof(Fr));
    const DeviceCsr* mats[3] = {&dc.a, &dc.b, &dc.c};
    const std::span<const Fr> given[3] = {evaluated ? evaluated->a : std::span<const Fr>(),
                                          evaluated ? evaluated->b : std::span<const Fr>(),
                                          evaluated ? evaluated->c : std::span<const Fr>()};
    for (int k = 0; k < 3; ++k) {
      SNARKPIPE_CUDA_CHECK(cudaMemsetAsync(abc[k].as<Fr>() + rows, 0, (n - rows) * sizeof(Fr), st));
      if (evaluated) {
        m.uploader->copy(abc[k].data(), given[k].data(), rows * sizeof(Fr));
        continue;
      }
      if (sc) {
        m.streamed_spmv(sc->matrix(k), z.as<fr_t>(), abc[k].as<fr_t>(), n);
        continue;
      }
      spmv_kernel<<<blocks_for(rows, 256), 256, 0, st>>>(mats[k]->row_ptr.as<uint64_t>(), mats[k]->col.as<uint32_t>(),
                                                         mats[k]->code.as<uint32_t>(), mats[k]->others.as<fr_t>(),
                                                         m.pow2.as<fr_t>(), z.as<fr_t>(), rows, abc[k].as<fr_t>(), 0);
      SNARKPIPE_CUDA_CHECK_LAUNCH();
    }
    mark(2);
    // The NTTs run on the NTT engine's stream, ordered after the SpMV and before what follows.
    cudaStream_t nst = cudaStream_t(ntt.stream());
    SNARKPIPE_CUDA_CHECK(cudaEventRecord(m.ntt_ready, st));
    SNARKPIPE_CUDA_CHECK(cudaStreamWaitEvent(nst, m.ntt_ready));
    ntt.quotient_coefficients(abc[0].as<Fr>(), abc[1].as<Fr>(), abc[2].as<Fr>(), log_m, domain.coset_vanishing_inv(),
                              nst);
    SNARKPIPE_CUDA_CHECK(cudaEventRecord(m.ntt_done, nst));
    SNARKPIPE_CUDA_CHECK(cudaStreamWaitEvent(st, m.ntt_done));
    abc[1].reset();
    abc[2].reset();
    mark(3);
  }

  if (beside_h_msm) {
    // The H phase's blocks (a, b, c, the NTT's scratch) go back to the device, so that the
    // second streamer's MSMs find their room beside the H MSM's (the plan's two phases).
    SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(st));
    ntt.release_scratch();
    m.pool.release_free();
    m.tail_streamer.reset();  // (one left by a proof that failed)
    m.tail_streamer = std::make_unique<BaseStreamer>(m.tail_pool, m.beside_stream, beside_piece);
    start_tail();
  }
  phase(concurrent || beside_h_msm ? "H MSM (L, A, B MSMs beside it)" : "H MSM");
  // One MSM at its own window, its windows in passes whose temporaries fit beside a resident
  // PoRep key and circuit (h_msm_config: one 2^27 pass would need ~38 GB).
  if (host) parts.h = m.streamed_msm(dk.host_h, abc[0].as<fr_t>(), nullptr, n - 1, false);
  else parts.h = dk.h->msm_device(abc[0].as<Fr>(), n - 1, h_msm_config(n - 1));
  abc[0].reset();
  if (late_witness) upload_witness();  // into h's room (the pool reuses its block)
  mark(4);
  if (concurrent || beside_h_msm) {
    tail_thread.join();
    if (tail_error) std::rethrow_exception(tail_error);
    // Its pieces and temporaries go back to the device: the next proof's H phase needs the room.
    if (beside_h_msm) {
      SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(m.beside_stream));
      m.tail_streamer.reset();
      m.tail_pool.release_free();
    }
  } else {
    phase("L, A, B MSMs");
    tail();
  }
  SNARKPIPE_CUDA_CHECK(cudaEventRecord(m.tail_done, ts));
  SNARKPIPE_CUDA_CHECK(cudaStreamWaitEvent(st, m.tail_done));
  mark(5);
  SNARKPIPE_CUDA_CHECK(cudaEventSynchronize(m.marks[5]));
  host_after.from = std::chrono::steady_clock::now();

  auto span = [&](int i, int j) { return elapsed_ms(m.marks[i], m.marks[j]); };
  auto tail_span = [&](int i, int j) { return elapsed_ms(m.tail_marks[i], m.tail_marks[j]); };
  CudaProverPhases& p = m.phases;
  p.upload = span(0, 1);
  p.abc = span(1, 2);
  p.ntt = span(2, 3);
  p.h_msm = span(3, 4);
  // The second stream's order: L, A, B_G1, B_G2 streamed; B_G2, B_G1, L, A resident.
  p.l_msm = host ? tail_span(0, 1) : tail_span(2, 3);
  p.a_msm = host ? tail_span(1, 2) : tail_span(3, 4);
  p.b_g1_msm = host ? tail_span(2, 3) : tail_span(1, 2);
  p.b_g2_msm = host ? tail_span(3, 4) : tail_span(0, 1);
  p.concurrent = concurrent || beside_h_msm;
  p.device_total = span(0, 5);
  p.host_before = std::chrono::duration<double, std::milli>(queued0 - wall0).count();
  if (timings) {
    timings->abc_ms = p.upload + p.abc;
    timings->ntt_ms = p.ntt;
    timings->h_msm_ms = p.h_msm;
    timings->l_msm_ms = p.l_msm;
    timings->a_msm_ms = p.a_msm;
    timings->b_g1_msm_ms = p.b_g1_msm;
    timings->b_g2_msm_ms = p.b_g2_msm;
    timings->total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall0).count();
  }
  return parts;
}

}  // namespace snarkpipe::cuda
