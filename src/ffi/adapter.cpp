#include "ffi/adapter.hpp"

#include "ffi/blst_layout.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <list>
#include <new>
#include <optional>

#include "cuda/device_info.hpp"
#include "cuda/error.hpp"
#include "cuda/memory.hpp"
#include "cuda/prover.hpp"
#include "groth16/backend.hpp"
#include "groth16/params_file.hpp"
#include "groth16/verifier.hpp"
#include "poly/domain.hpp"

namespace snarkpipe::ffi {

using ff::Fr;
using groth16::ProverError;

namespace {

std::string num(std::size_t x) { return std::to_string(x); }

// ---- keys -----------------------------------------------------------------------------------

// create_SRS with cache: at most this many keys, the most recently used first; the cache
// holds one reference to each.
constexpr std::size_t CACHE_LIMIT = 4;
std::mutex registry_mutex;
// When the library is unloaded (dlclose, or the process ends) the cache gives its references
// back: a key no caller holds any more is freed, instead of leaking with its GiBs (an ASan
// build found it). Its device copies are left to the device state (never torn down): at exit
// the CUDA runtime may be gone already.
struct SrsCache : std::list<LoadedSrs*> {
  ~SrsCache() {
    for (LoadedSrs* s : *this)
      if (s->references.fetch_sub(1) == 1) delete s;
  }
};
SrsCache srs_cache;

bool proves_on_gpus();  // below, with the devices

std::unique_ptr<LoadedSrs> read_key(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw AbiError(SNARKPIPE_ABI_PARAMS_FILE, "no such parameters file: " + path);
  if (std::filesystem::is_directory(path, ec))
    throw AbiError(SNARKPIPE_ABI_PARAMS_FILE, path + " is a directory, not a .params file");
  auto srs = std::make_unique<LoadedSrs>();
  srs->path = path;
  try {
    // With a GPU to prove on, the queries stay in the file and go from it straight to the
    // device (or the backend's one page-locked copy): no 47 GB host copy beside the GPU's.
    srs->pk = proves_on_gpus() ? groth16::open_params_deferred(path) : groth16::read_params(path);
  } catch (const groth16::ParamsFileError& e) {
    throw AbiError(SNARKPIPE_ABI_PARAMS_FILE, std::string("cannot load the key: ") + e.what());
  } catch (const std::bad_alloc&) {
    throw AbiError(SNARKPIPE_ABI_OUT_OF_MEMORY, "not enough host memory to load the key in " + path);
  } catch (const std::exception& e) {
    throw AbiError(SNARKPIPE_ABI_PARAMS_FILE, "cannot load the key in " + path + ": " + e.what());
  }
  if (srs->pk.vk.ic.empty())
    throw AbiError(SNARKPIPE_ABI_PARAMS_FILE, path + " has no IC points (a key needs at least the one for ONE)");
  srs->pvk = groth16::PreparedVerifyingKey::from(srs->pk.vk);
  return srs;
}

// ---- devices --------------------------------------------------------------------------------

// One GPU: its backend (made on first use) and the lock that keeps one proof on it at a time.
struct Device {
  int index = 0;
  std::mutex mutex;
  std::atomic<int> waiting{0};
  std::unique_ptr<cuda::CudaBackend> backend;
};

enum class BackendChoice { automatic, cpu, cuda };

struct Devices {
  BackendChoice choice = BackendChoice::automatic;
  cuda::SrsResidency residency = cuda::SrsResidency::automatic;
  std::string configuration_error;  // a bad SNARKPIPE_* value: every prove call reports it
  std::vector<std::unique_ptr<Device>> gpus;

  Devices() {
    if (const char* b = std::getenv("SNARKPIPE_BACKEND"); b && *b) {
      const std::string v = b;
      if (v == "cpu") choice = BackendChoice::cpu;
      else if (v == "cuda") choice = BackendChoice::cuda;
      else if (v != "auto") configuration_error = "SNARKPIPE_BACKEND must be auto, cpu or cuda (got '" + v + "')";
    }
    if (const char* r = std::getenv("SNARKPIPE_SRS_RESIDENCY"); r && *r) {
      try {
        residency = cuda::parse_srs_residency(r);
      } catch (const std::invalid_argument& e) {
        configuration_error = std::string("SNARKPIPE_SRS_RESIDENCY: ") + e.what();
      }
    }
    if (choice == BackendChoice::cpu) return;
    const int n = cuda::usable_device_count();
    for (int i = 0; i < n; ++i) {
      gpus.push_back(std::make_unique<Device>());
      gpus.back()->index = i;
    }
  }

  // The device to prove on, or null for the CPU.
  Device* pick(int gpu_index) {
    if (!configuration_error.empty()) throw AbiError(SNARKPIPE_ABI_INVALID_ARGUMENT, configuration_error);
    if (gpus.empty()) {
      if (choice == BackendChoice::cuda)
        throw AbiError(SNARKPIPE_ABI_DEVICE, "SNARKPIPE_BACKEND=cuda, but no usable GPU: " + cuda::why_no_devices());
      if (gpu_index > 0)
        throw AbiError(SNARKPIPE_ABI_INVALID_ARGUMENT,
                       "gpu_index " + std::to_string(gpu_index) + " asked for, but there is no usable GPU");
      return nullptr;  // gpu_index 0 or -1 without a GPU: the CPU, as supraseal's callers expect to work
    }
    if (gpu_index >= int(gpus.size()) || gpu_index < -1)
      throw AbiError(SNARKPIPE_ABI_INVALID_ARGUMENT, "gpu_index " + std::to_string(gpu_index) +
                                                         " asked for; there are " + std::to_string(gpus.size()) +
                                                         " usable GPUs (or -1: any)");
    if (gpu_index >= 0) return gpus[std::size_t(gpu_index)].get();
    // Any: the one with the fewest proofs waiting for it.
    return std::min_element(gpus.begin(), gpus.end(),
                            [](const auto& x, const auto& y) { return x->waiting.load() < y->waiting.load(); })
        ->get();
  }

  void release_key(const groth16::ProvingKey& pk) {
    for (auto& d : gpus) {
      std::lock_guard lock(d->mutex);
      if (d->backend) d->backend->release_key(pk);
    }
  }
};

// Never destroyed: the GPUs' backends (streams, pools, pinned memory) are not torn down by
// static destructors at the caller's exit, beside the CUDA runtime's own teardown and other
// statics' (the process's end gives everything back).
Devices& devices() {
  static Devices* d = new Devices;
  return *d;
}

bool proves_on_gpus() { return !devices().gpus.empty() && devices().configuration_error.empty(); }

// ---- one batch ------------------------------------------------------------------------------

// A density copied with the bits past its length cleared (bellperson's bitvec leaves them
// unspecified), its popcount checked against the caller's.
struct Density {
  std::vector<std::uint64_t> words;
  std::size_t bits = 0;

  Density(const std::uint64_t* data, std::size_t bit_len, std::size_t popcount, std::size_t circuit, const char* what)
      : words((bit_len + 63) / 64), bits(bit_len) {
    if (bit_len && !data)
      throw AbiError(SNARKPIPE_ABI_INVALID_ARGUMENT, "circuit " + num(circuit) + ": " + what + " is null");
    if (bit_len) std::memcpy(words.data(), data, words.size() * 8);
    if (bit_len % 64) words.back() &= (std::uint64_t(1) << (bit_len % 64)) - 1;
    std::size_t count = 0;
    for (auto w : words) count += std::size_t(std::popcount(w));
    if (count != popcount)
      throw AbiError(SNARKPIPE_ABI_DENSITY_MISMATCH, "circuit " + num(circuit) + ": " + what + " has " + num(count) +
                                                         " bits set, but its popcount says " + num(popcount));
  }
  msm::DensityView view() const { return msm::DensityView(words, bits); }
};

// One circuit's assignment, checked against itself and the key.
struct CheckedAssignment {
  std::optional<Density> a_aux, b_inp, b_aux;
  groth16::EvaluatedAssignment ea;

  CheckedAssignment(const Assignment& as, std::size_t i, const groth16::ProvingKey& pk) {
    auto fail = [&](int code, const std::string& why) { throw AbiError(code, "circuit " + num(i) + ": " + why); };
    auto need = [&](const void* p, std::size_t n, const char* what) {
      if (n && !p) fail(SNARKPIPE_ABI_INVALID_ARGUMENT, std::string(what) + " is null");
    };
    need(as.a, as.abc_size, "a");
    need(as.b, as.abc_size, "b");
    need(as.c, as.abc_size, "c");
    need(as.inp_assignment_data, as.inp_assignment_size, "inp_assignment_data");
    need(as.aux_assignment_data, as.aux_assignment_size, "aux_assignment_data");
    if (as.inp_assignment_size == 0) fail(SNARKPIPE_ABI_SHAPE_MISMATCH, "no inputs (input 0 must be the constant ONE)");
    if (as.abc_size < as.inp_assignment_size)
      fail(SNARKPIPE_ABI_SHAPE_MISMATCH, "abc_size " + num(as.abc_size) + " is less than its " +
                                             num(as.inp_assignment_size) +
                                             " inputs (bellperson appends one constraint per input)");
    if (as.a_aux_bit_len != as.aux_assignment_size || as.b_aux_bit_len != as.aux_assignment_size)
      fail(SNARKPIPE_ABI_SHAPE_MISMATCH, "the aux densities have " + num(as.a_aux_bit_len) + " (A) and " +
                                             num(as.b_aux_bit_len) + " (B) bits for " + num(as.aux_assignment_size) +
                                             " aux values");
    if (as.b_inp_bit_len != as.inp_assignment_size)
      fail(SNARKPIPE_ABI_SHAPE_MISMATCH,
           "the B input density has " + num(as.b_inp_bit_len) + " bits for " + num(as.inp_assignment_size) + " inputs");
    // Against the key.
    if (pk.vk.ic.size() != as.inp_assignment_size)
      fail(SNARKPIPE_ABI_SHAPE_MISMATCH, "it has " + num(as.inp_assignment_size) +
                                             " inputs (ONE included); the key is for " + num(pk.vk.ic.size()) +
                                             " (a key for another circuit?)");
    if (pk.l.size() != as.aux_assignment_size)
      fail(SNARKPIPE_ABI_SHAPE_MISMATCH, "it has " + num(as.aux_assignment_size) +
                                             " aux values; the key's L query has " + num(pk.l.size()) +
                                             " points (a key for another circuit?)");
    const std::size_t m = poly::EvaluationDomain::for_size(as.abc_size).m();
    if (pk.h.size() + 1 != m)
      fail(SNARKPIPE_ABI_SHAPE_MISMATCH, "abc_size " + num(as.abc_size) + " needs a domain of " + num(m) +
                                             "; the key's H query is for " + num(pk.h.size() + 1));
    a_aux.emplace(as.a_aux_density, as.a_aux_bit_len, as.a_aux_popcount, i, "a_aux_density");
    b_inp.emplace(as.b_inp_density, as.b_inp_bit_len, as.b_inp_popcount, i, "b_inp_density");
    b_aux.emplace(as.b_aux_density, as.b_aux_bit_len, as.b_aux_popcount, i, "b_aux_density");
    if (pk.a.size() != as.inp_assignment_size + as.a_aux_popcount)
      fail(SNARKPIPE_ABI_DENSITY_MISMATCH, "its A density selects " + num(as.inp_assignment_size + as.a_aux_popcount) +
                                               " points (inputs and a_aux_popcount); the key's A query has " +
                                               num(pk.a.size()));
    if (pk.b_g1.size() != as.b_inp_popcount + as.b_aux_popcount)
      fail(SNARKPIPE_ABI_DENSITY_MISMATCH, "its B densities select " + num(as.b_inp_popcount + as.b_aux_popcount) +
                                               " points; the key's B queries have " + num(pk.b_g1.size()));
    auto span = [](const fr_t* p, std::size_t n) { return std::span<const Fr>(reinterpret_cast<const Fr*>(p), n); };
    ea.a = span(as.a, as.abc_size);
    ea.b = span(as.b, as.abc_size);
    ea.c = span(as.c, as.abc_size);
    ea.inputs = span(as.inp_assignment_data, as.inp_assignment_size);
    ea.aux = span(as.aux_assignment_data, as.aux_assignment_size);
    ea.a_aux = a_aux->view();
    ea.b_input = b_inp->view();
    ea.b_aux = b_aux->view();
    try {
      groth16::check_shapes(pk, ea);
    } catch (const ProverError& e) {
      fail(SNARKPIPE_ABI_SHAPE_MISMATCH, e.what());
    }
  }
};

groth16::ProofParts parts_on_gpu(Device& dev, const DeviceChoice& choice, const groth16::ProvingKey& pk,
                                 const groth16::EvaluatedAssignment& ea) {
  dev.waiting.fetch_add(1);
  struct Leave {
    std::atomic<int>& w;
    ~Leave() { w.fetch_sub(1); }
  } leave{dev.waiting};
  std::unique_lock<std::mutex> caller_lock;
  if (choice.caller_mutex) caller_lock = std::unique_lock(*choice.caller_mutex);
  std::lock_guard lock(dev.mutex);
  try {
    if (!dev.backend) {
      cuda::CudaBackendOptions options;
      options.device = dev.index;
      options.residency = devices().residency;
      dev.backend = std::make_unique<cuda::CudaBackend>(options);
    }
    return dev.backend->start_evaluated(pk, ea);
  } catch (const ProverError& e) {  // the shapes were checked: this is the memory plan refusing
    throw AbiError(SNARKPIPE_ABI_OUT_OF_MEMORY, std::string("GPU ") + std::to_string(dev.index) + ": " + e.what());
  } catch (const cuda::CudaError& e) {
    throw AbiError(SNARKPIPE_ABI_DEVICE, std::string("GPU ") + std::to_string(dev.index) + ": " + e.what());
  } catch (const std::bad_alloc&) {
    throw AbiError(SNARKPIPE_ABI_OUT_OF_MEMORY, "GPU " + std::to_string(dev.index) + ": out of host memory");
  }
}

groth16::Proof prove_one(const LoadedSrs& srs, const CheckedAssignment& ca, const groth16::ProverRandomness& rs,
                         std::size_t i, const DeviceChoice& choice) {
  const groth16::ProvingKey& pk = srs.pk;
  const groth16::EvaluatedAssignment& ea = ca.ea;
  Device* dev = devices().pick(choice.gpu_index);
  const groth16::ProofParts parts = dev ? parts_on_gpu(*dev, choice, pk, ea) : groth16::compute_proof_parts(pk, ea);
  const std::span<const Fr> publics = ea.inputs.subspan(1);
  groth16::Proof proof = groth16::assemble(pk.vk, parts, rs);
  if (groth16::verify(srs.pvk, proof, publics)) return proof;
  // Not a proof. The caller's witness, or the device?
  if (const auto k = groth16::first_unsatisfied(ea))
    throw AbiError(SNARKPIPE_ABI_UNSATISFIED, "circuit " + num(i) + ": a·b ≠ c at constraint " + num(*k) +
                                                  ": the witness does not satisfy the circuit; no proof was made");
  if (dev) {
    std::fprintf(stderr, "snarkpipe: circuit %zu's proof from GPU %d did not verify; proving it again on the CPU\n", i,
                 dev->index);
    // A key whose queries stayed in their file is read whole for this (rare) CPU proof.
    const groth16::ProvingKey whole =
        pk.queries_on_host() ? groth16::ProvingKey{} : groth16::read_params(pk.deferred->path());
    const groth16::ProvingKey& cpu_key = pk.queries_on_host() ? pk : whole;
    proof = groth16::assemble(pk.vk, groth16::compute_proof_parts(cpu_key, ea), rs);
    if (groth16::verify(srs.pvk, proof, publics)) return proof;
  }
  throw AbiError(SNARKPIPE_ABI_NOT_VERIFIED,
                 "circuit " + num(i) +
                     ": the proof does not verify although a·b = c holds at every constraint: the inputs and aux "
                     "values do not match the a, b, c evaluations, or the key is not this circuit's");
}

}  // namespace

// ---- keys -----------------------------------------------------------------------------------

LoadedSrs* load_srs(const char* path, bool cache) {
  if (!path || !*path) throw AbiError(SNARKPIPE_ABI_INVALID_ARGUMENT, "create_SRS: the path is empty");
  const std::string p = path;
  auto find = [&]() -> LoadedSrs* {
    for (auto it = srs_cache.begin(); it != srs_cache.end(); ++it)
      if ((*it)->path == p) {
        srs_cache.splice(srs_cache.begin(), srs_cache, it);
        return add_reference(*it);
      }
    return nullptr;
  };
  if (cache) {
    std::lock_guard lock(registry_mutex);
    if (LoadedSrs* hit = find()) return hit;
  }
  std::unique_ptr<LoadedSrs> loaded = read_key(p);  // minutes for a 47 GB key: outside the lock
  if (!cache) return loaded.release();
  LoadedSrs* dropped = nullptr;
  LoadedSrs* result = nullptr;
  {
    std::lock_guard lock(registry_mutex);
    if (LoadedSrs* hit = find()) return hit;  // another thread loaded it meanwhile (ours is freed)
    LoadedSrs* srs = loaded.release();
    srs->references = 2;  // the caller's and the cache's
    srs_cache.push_front(srs);
    if (srs_cache.size() > CACHE_LIMIT) {
      dropped = srs_cache.back();
      srs_cache.pop_back();
    }
    result = srs;
  }
  if (dropped) drop_reference(dropped);
  return result;
}

LoadedSrs* add_reference(LoadedSrs* srs) {
  if (srs) srs->references.fetch_add(1);
  return srs;
}

void drop_reference(LoadedSrs* srs) {
  if (!srs) return;
  if (srs->references.fetch_sub(1) != 1) return;
  devices().release_key(srs->pk);
  delete srs;
}

void evict(LoadedSrs* srs) {
  if (!srs) return;
  devices().release_key(srs->pk);
  bool was_cached = false;
  {
    std::lock_guard lock(registry_mutex);
    auto it = std::find(srs_cache.begin(), srs_cache.end(), srs);
    if (it != srs_cache.end()) {
      srs_cache.erase(it);
      was_cached = true;
    }
  }
  if (was_cached) drop_reference(srs);  // the cache's reference; the caller still holds one
}

// ---- proving --------------------------------------------------------------------------------

std::unique_ptr<PendingProofs> prove_batch(const Assignment* provers, std::size_t num_circuits, const fr_t* r_s,
                                           const fr_t* s_s, const SRS& srs, const DeviceChoice& device) {
  if (!srs.ptr)
    throw AbiError(SNARKPIPE_ABI_INVALID_ARGUMENT, "the SRS is empty (create_SRS failed, or it was dropped)");
  if (num_circuits == 0) return std::make_unique<PendingProofs>();  // as supraseal: an empty batch proves nothing
  if (!provers || !r_s || !s_s)
    throw AbiError(SNARKPIPE_ABI_INVALID_ARGUMENT, std::string(!provers ? "provers"
                                                               : !r_s   ? "r_s"
                                                                        : "s_s") +
                                                       " is null");
  const LoadedSrs& key = *static_cast<const LoadedSrs*>(srs.ptr);
  // Every circuit is checked before any is proved: a bad batch costs no GPU time.
  std::vector<CheckedAssignment> checked;
  checked.reserve(num_circuits);
  for (std::size_t i = 0; i < num_circuits; ++i) checked.emplace_back(provers[i], i, key.pk);
  auto pending = std::make_unique<PendingProofs>();
  pending->proofs.reserve(num_circuits);
  for (std::size_t i = 0; i < num_circuits; ++i) {
    const groth16::ProverRandomness rs{fr_from_blst(r_s[i]), fr_from_blst(s_s[i])};
    pending->proofs.push_back(prove_one(key, checked[i], rs, i, device));
  }
  return pending;
}

void write_proofs(const PendingProofs& pending, groth16_proof* out) {
  if (!out) throw AbiError(SNARKPIPE_ABI_INVALID_ARGUMENT, "proofs is null");
  for (std::size_t i = 0; i < pending.proofs.size(); ++i) out[i] = proof_to_blst(pending.proofs[i]);
}

// ---- errors ---------------------------------------------------------------------------------

RustError to_rust_error(int code, const std::string& message) noexcept {
  return RustError{code, ::strdup(message.c_str())};  // NULL if even that fails: the code still says what
}

RustError current_exception_error() noexcept {
  try {
    throw;
  } catch (const AbiError& e) {
    return to_rust_error(e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return to_rust_error(SNARKPIPE_ABI_OUT_OF_MEMORY, "out of host memory");
  } catch (const std::exception& e) {
    return to_rust_error(SNARKPIPE_ABI_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return to_rust_error(SNARKPIPE_ABI_INTERNAL, "internal error (an unknown exception)");
  }
}

}  // namespace snarkpipe::ffi
