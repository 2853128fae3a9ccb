#include "engine/circuit_store.hpp"

#include <algorithm>

#include "circuit/recording_cs.hpp"
#include "engine/job.hpp"
#include "groth16/setup.hpp"

namespace snarkpipe::engine {

std::uint64_t CircuitKeys::host_bytes() const {
  // What this process holds itself: not arrays held elsewhere (a key's queries left in their
  // file) nor views into a mapped file (page cache the kernel can take back).
  auto held = [](const auto& a) -> std::uint64_t {
    return a.on_host() && !a.is_view() ? a.size() * sizeof(*a.data()) : 0;
  };
  auto csr = [&](const circuit::CsrMatrix& m) { return held(m.row_ptr) + held(m.col) + held(m.val); };
  const std::uint64_t g1 = sizeof(ec::G1Affine);
  return csr(r1cs.a) + csr(r1cs.b) + csr(r1cs.c) + (r1cs.num_columns() * 2 + r1cs.num_inputs) / 8 + held(pk.h) +
         held(pk.l) + held(pk.a) + held(pk.b_g1) + held(pk.b_g2) + (pk.vk.ic.size() + pvk.ic.size()) * g1;
}

std::shared_ptr<const CircuitKeys> make_circuit_keys(std::string type, circuit::R1cs r1cs, groth16::ProvingKey pk) {
  auto k = std::make_shared<CircuitKeys>();
  k->type = std::move(type);
  k->r1cs = std::move(r1cs);
  k->pvk = groth16::PreparedVerifyingKey::from(pk.vk);
  k->pk = std::move(pk);
  return k;
}

CircuitLoader record_and_setup(std::string type, std::shared_ptr<const circuit::Circuit> shape) {
  return [type = std::move(type), shape = std::move(shape)] {
    circuit::RecordingConstraintSystem cs;
    shape->synthesize(cs);
    circuit::R1cs r1cs = cs.finish();
    groth16::ProvingKey pk = groth16::setup(r1cs);
    return make_circuit_keys(type, std::move(r1cs), std::move(pk));
  };
}

CircuitStore::~CircuitStore() {
  for (auto& [_, e] : entries_)
    if (e.keys) host_.release(e.bytes);
}

void CircuitStore::add(const std::string& type, CircuitLoader loader) {
  std::lock_guard lock(mu_);
  if (!loader) throw EngineError("circuit type '" + type + "': no loader");
  Entry e;
  e.loader = std::move(loader);
  if (!entries_.try_emplace(type, std::move(e)).second)
    throw EngineError("circuit type '" + type + "' is already registered");
}

bool CircuitStore::contains(const std::string& type) const {
  std::lock_guard lock(mu_);
  return entries_.contains(type);
}

std::uint64_t CircuitStore::pinned_bytes_except(const Entry* self) const {
  std::uint64_t b = 0;
  for (const auto& [_, e] : entries_)
    if (&e != self && e.keys && e.pins > 0) b += e.bytes;
  return b;
}

void CircuitStore::fits_or_throw(const std::string& type, const Entry& e, std::uint64_t bytes,
                                 std::uint64_t headroom) const {
  const std::uint64_t others = pinned_bytes_except(&e);
  const std::uint64_t limit = host_.limit();
  if (others > limit || bytes > limit - others || headroom > limit - others - bytes)
    throw EngineError("memory budget too small for circuit '" + type + "': it needs " + format_bytes(bytes) +
                      " resident + " + format_bytes(headroom) + " per partition, the budget is " + format_bytes(limit) +
                      " of which " + format_bytes(others) + " hold other circuits in use");
}

void CircuitStore::check_fits(const std::string& type, std::uint64_t headroom) const {
  std::lock_guard lock(mu_);
  const auto it = entries_.find(type);
  if (it == entries_.end()) throw EngineError("unknown circuit type '" + type + "'");
  fits_or_throw(type, it->second, it->second.bytes, headroom);
}

CircuitStore::Pinned CircuitStore::pin(const std::string& type, std::uint64_t headroom) {
  std::unique_lock lock(mu_);
  const auto it = entries_.find(type);
  if (it == entries_.end()) throw EngineError("unknown circuit type '" + type + "'");
  Entry& e = it->second;
  loaded_.wait(lock, [&] { return !e.loading; });
  Pinned out;
  if (e.keys) {
    fits_or_throw(type, e, e.bytes, headroom);
    ++e.pins;
    e.last_used = ++clock_;
    out.keys = e.keys;
    return out;
  }
  // Load without the lock: loading (reading files, or a setup) may take long.
  e.loading = true;
  lock.unlock();
  std::shared_ptr<const CircuitKeys> keys;
  std::string failure;
  try {
    keys = e.loader();
    if (!keys) failure = "the loader returned nothing";
  } catch (const std::exception& ex) {
    failure = ex.what();
  }
  lock.lock();
  auto done_loading = [&] {
    e.loading = false;
    loaded_.notify_all();
  };
  if (!failure.empty()) {
    done_loading();
    throw EngineError("loading circuit '" + type + "': " + failure);
  }
  const std::uint64_t bytes = keys->host_bytes();
  try {
    fits_or_throw(type, e, bytes, headroom);
  } catch (...) {
    done_loading();
    throw;
  }
  // Room: evict idle residents, least recently used first, then wait for work in flight.
  while (!host_.try_reserve(bytes)) {
    Entry* lru = nullptr;
    for (auto& [_, other] : entries_)
      if (&other != &e && other.keys && other.pins == 0 && (!lru || other.last_used < lru->last_used)) lru = &other;
    if (lru) {
      host_.release(lru->bytes);
      out.evicted.push_back(std::move(lru->keys));
      lru->keys.reset();
      lru->bytes = 0;
      continue;
    }
    lock.unlock();
    if (reclaim_) reclaim_(bytes);
    const bool got = host_.reserve(bytes, std::chrono::milliseconds(50));
    lock.lock();
    if (got) break;
    try {
      fits_or_throw(type, e, bytes, headroom);
    } catch (...) {
      done_loading();
      throw;
    }
  }
  e.keys = keys;
  e.bytes = bytes;
  e.pins = 1;
  e.last_used = ++clock_;
  done_loading();
  out.keys = std::move(keys);
  return out;
}

void CircuitStore::unpin(const std::string& type) {
  std::lock_guard lock(mu_);
  const auto it = entries_.find(type);
  if (it == entries_.end() || it->second.pins == 0)
    throw std::logic_error("circuit store: unpinning '" + type + "', which is not pinned");
  --it->second.pins;
}

std::vector<std::string> CircuitStore::resident() const {
  std::lock_guard lock(mu_);
  std::vector<std::pair<std::uint64_t, std::string>> r;
  for (const auto& [name, e] : entries_)
    if (e.keys) r.emplace_back(e.last_used, name);
  std::sort(r.begin(), r.end());
  std::vector<std::string> out;
  for (auto& [_, n] : r) out.push_back(std::move(n));
  return out;
}

std::uint64_t CircuitStore::resident_bytes() const {
  std::lock_guard lock(mu_);
  std::uint64_t b = 0;
  for (const auto& [_, e] : entries_)
    if (e.keys) b += e.bytes;
  return b;
}

}  // namespace snarkpipe::engine
