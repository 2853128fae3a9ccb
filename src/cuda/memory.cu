#include <algorithm>
#include <new>
#include <set>

#include "cuda/check.cuh"
#include "cuda/memory.hpp"

namespace snarkpipe::cuda {

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    reset();
    pool_ = std::exchange(o.pool_, nullptr);
    data_ = std::exchange(o.data_, nullptr);
    capacity_ = std::exchange(o.capacity_, 0);
  }
  return *this;
}

void DeviceBuffer::reset() {
  if (pool_ && data_) pool_->give_back(data_, capacity_);
  pool_ = nullptr;
  data_ = nullptr;
  capacity_ = 0;
}

namespace {

// Every live pool, so that a failed cudaMalloc can take back what the others hold idle.
// Never destroyed: pools owned by objects of static duration (a library's state) are
// destroyed at exit after a function-local set would be (the set is made at the first pool,
// later than its owner), and erasing from a destroyed set corrupts the heap (seen on the H200).
std::mutex& registry_mutex() {
  static std::mutex* mu = new std::mutex;
  return *mu;
}
std::set<BufferPool*>& registry() {
  static std::set<BufferPool*>* pools = new std::set<BufferPool*>;
  return *pools;
}

}  // namespace

BufferPool::BufferPool(int device) : device_(device) {
  std::lock_guard lock(registry_mutex());
  registry().insert(this);
}

void BufferPool::release_free_everywhere(int device) {
  std::lock_guard lock(registry_mutex());
  for (BufferPool* p : registry())
    if (p->device_ == device) p->release_free();
}

BufferPool::~BufferPool() {
  {
    std::lock_guard lock(registry_mutex());
    registry().erase(this);
  }
  // Destructors cannot throw: a failing cudaFree here (a dead context) is ignored.
  int prev = 0;
  if (cudaGetDevice(&prev) != cudaSuccess) return;
  cudaSetDevice(device_);
  for (auto& [p, size] : owned_) cudaFree(p);
  cudaSetDevice(prev);
}

DeviceBuffer BufferPool::acquire(std::size_t bytes) {
  // Sizes round up to 2 MiB, so that nearby sizes share blocks.
  const std::size_t granule = std::size_t(2) << 20;
  const std::size_t cap = (std::max<std::size_t>(bytes, 1) + granule - 1) / granule * granule;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.lower_bound(cap);
    if (it != free_.end() && it->first / 2 <= cap) {
      DeviceBuffer b(this, it->second, it->first);
      free_.erase(it);
      return b;
    }
  }
  int prev = 0;
  SNARKPIPE_CUDA_CHECK(cudaGetDevice(&prev));
  SNARKPIPE_CUDA_CHECK(cudaSetDevice(device_));
  void* p = nullptr;
  cudaError_t e = cudaMalloc(&p, cap);
  if (e == cudaErrorMemoryAllocation) {
    // Blocks of other sizes may sit idle in this pool or another on the device (the NTT's,
    // the second stream's): give them back and try again. A card with little memory runs
    // phases of different shapes one after another (memory tier 4).
    cudaGetLastError();
    release_free_everywhere(device_);
    e = cudaMalloc(&p, cap);
  }
  cudaSetDevice(prev);
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw_cuda_error("cudaMalloc", e, __FILE__, __LINE__);
  }
  std::lock_guard<std::mutex> lock(mu_);
  owned_.emplace_back(p, cap);
  ++allocations_;
  return DeviceBuffer(this, p, cap);
}

std::size_t BufferPool::free_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::size_t s = 0;
  for (auto& [size, p] : free_) s += size;
  return s;
}

void BufferPool::release_free() {
  std::lock_guard<std::mutex> lock(mu_);
  if (free_.empty()) return;
  int prev = 0;
  if (cudaGetDevice(&prev) != cudaSuccess) return;
  cudaSetDevice(device_);
  for (auto& [size, p] : free_) {
    cudaFree(p);  // (waits for the device's work in flight, which no longer uses the block)
    std::erase_if(owned_, [q = p](const auto& o) { return o.first == q; });
  }
  free_.clear();
  cudaSetDevice(prev);
}

void BufferPool::give_back(void* data, std::size_t capacity) {
  std::lock_guard<std::mutex> lock(mu_);
  free_.emplace(capacity, data);
}

std::size_t BufferPool::bytes_allocated() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::size_t s = 0;
  for (auto& [p, size] : owned_) s += size;
  return s;
}

std::size_t BufferPool::allocations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return allocations_;
}

PinnedBuffer::~PinnedBuffer() {
  if (data_) cudaFreeHost(data_);
}

void PinnedBuffer::reserve(std::size_t bytes) {
  if (bytes <= capacity_) return;
  if (data_) SNARKPIPE_CUDA_CHECK(cudaFreeHost(data_));
  data_ = nullptr;
  capacity_ = 0;
  SNARKPIPE_CUDA_CHECK(cudaMallocHost(&data_, bytes));
  capacity_ = bytes;
}

namespace {
class PinnedMemoryResource final : public std::pmr::memory_resource {
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    if (alignment > 4096) throw std::bad_alloc();  // cudaMallocHost aligns to pages
    void* p = nullptr;
    const cudaError_t e = cudaMallocHost(&p, std::max<std::size_t>(bytes, 1));
    if (e == cudaErrorMemoryAllocation) {  // short of memory: the allocator's own error
      cudaGetLastError();
      throw std::bad_alloc();
    }
    SNARKPIPE_CUDA_CHECK(e);  // any other error is the device's (and the fault hook's), a CudaError
    return p;
  }
  void do_deallocate(void* p, std::size_t, std::size_t) override { cudaFreeHost(p); }
  bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override { return this == &o; }
};
}  // namespace

std::pmr::memory_resource* pinned_memory() {
  static auto* r = new PinnedMemoryResource;  // never destroyed: see memory.hpp
  return r;
}

int usable_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

}  // namespace snarkpipe::cuda
