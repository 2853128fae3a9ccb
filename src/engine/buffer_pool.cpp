#include "engine/buffer_pool.hpp"

#include <algorithm>

namespace snarkpipe::engine {

WitnessBufferPool::~WitnessBufferPool() {
  for (const auto& b : idle_) budget_.release(b->charged);
}

WitnessBufferPool::Handle WitnessBufferPool::try_acquire(std::size_t inputs, std::size_t aux) {
  std::lock_guard lock(mu_);
  auto fits = [&](const Handle& b) {
    return b->witness.inputs.capacity() >= inputs && b->witness.aux.capacity() >= aux;
  };
  // The smallest idle buffer that fits; failing that, the largest one (to grow).
  auto best = idle_.end();
  for (auto it = idle_.begin(); it != idle_.end(); ++it) {
    const bool f = fits(*it);
    if (best == idle_.end()) {
      best = it;
    } else if (f != fits(*best)) {
      if (f) best = it;
    } else if (f ? (*it)->charged < (*best)->charged : (*it)->charged > (*best)->charged) {
      best = it;
    }
  }
  Handle b;
  if (best != idle_.end()) {
    const std::uint64_t want = std::max(bytes_for(inputs, aux), (*best)->charged);
    if (want > (*best)->charged && !budget_.try_reserve(want - (*best)->charged)) return nullptr;
    b = std::move(*best);
    idle_.erase(best);
    if (want > b->charged) {
      b->witness.inputs.reserve(std::max(inputs, b->witness.inputs.capacity()));
      b->witness.aux.reserve(std::max(aux, b->witness.aux.capacity()));
      b->charged = want;
    }
    ++reused_;
  } else {
    const std::uint64_t want = bytes_for(inputs, aux);
    if (!budget_.try_reserve(want)) return nullptr;
    b = std::make_unique<Buffer>();
    b->witness.inputs.reserve(inputs);
    b->witness.aux.reserve(aux);
    b->charged = want;
    ++created_;
  }
  b->witness.inputs.clear();
  b->witness.aux.clear();
  ++in_use_;
  return b;
}

void WitnessBufferPool::give_back(Handle buffer) {
  std::lock_guard lock(mu_);
  --in_use_;
  if (capacity_bytes(*buffer) > buffer->charged) {
    budget_.release(buffer->charged);
    return;
  }
  idle_.push_back(std::move(buffer));
}

bool WitnessBufferPool::recharge(Buffer& buffer) {
  const std::uint64_t now = capacity_bytes(buffer);
  if (now <= buffer.charged) return true;
  if (!budget_.try_reserve(now - buffer.charged)) return false;
  buffer.charged = now;
  return true;
}

std::vector<WitnessBufferPool::Handle> WitnessBufferPool::trim(std::uint64_t bytes, std::size_t inputs,
                                                               std::size_t aux) {
  std::lock_guard lock(mu_);
  auto keep = idle_.end();
  for (auto it = idle_.begin(); it != idle_.end(); ++it)
    if ((*it)->witness.inputs.capacity() >= inputs && (*it)->witness.aux.capacity() >= aux &&
        (keep == idle_.end() || (*it)->charged < (*keep)->charged))
      keep = it;
  Handle kept;
  if (keep != idle_.end()) {
    kept = std::move(*keep);
    idle_.erase(keep);
  }
  std::vector<Handle> out;
  while (!idle_.empty() && budget_.available() < bytes) {
    budget_.release(idle_.back()->charged);
    out.push_back(std::move(idle_.back()));
    idle_.pop_back();
  }
  if (kept) idle_.push_back(std::move(kept));
  return out;
}

std::size_t WitnessBufferPool::idle() const {
  std::lock_guard lock(mu_);
  return idle_.size();
}

std::uint64_t WitnessBufferPool::idle_bytes() const {
  std::lock_guard lock(mu_);
  std::uint64_t bytes = 0;
  for (const auto& b : idle_) bytes += b->charged;
  return bytes;
}

std::size_t WitnessBufferPool::in_use() const {
  std::lock_guard lock(mu_);
  return in_use_;
}

std::size_t WitnessBufferPool::created() const {
  std::lock_guard lock(mu_);
  return created_;
}

std::size_t WitnessBufferPool::reused() const {
  std::lock_guard lock(mu_);
  return reused_;
}

}  // namespace snarkpipe::engine
