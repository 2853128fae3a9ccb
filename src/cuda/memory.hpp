// Device memory that is allocated once and reused (DESIGN.md §1, lessons 4-6): a pool per
// device hands out blocks and takes them back, so the steady state makes no cudaMalloc or
// cudaFree; pinned host buffers stage copies to and from the device. No CUDA headers here.
#pragma once

#include <cstddef>
#include <map>
#include <memory_resource>
#include <mutex>
#include <utility>
#include <vector>

namespace snarkpipe::cuda {

class BufferPool;

// A block from a BufferPool, given back to it on destruction (move-only).
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { reset(); }

  void* data() const { return data_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(data_);
  }
  std::size_t capacity() const { return capacity_; }
  void reset();

 private:
  friend class BufferPool;
  DeviceBuffer(BufferPool* pool, void* data, std::size_t capacity) : pool_(pool), data_(data), capacity_(capacity) {}
  BufferPool* pool_ = nullptr;
  void* data_ = nullptr;
  std::size_t capacity_ = 0;
};

class BufferPool {
 public:
  explicit BufferPool(int device = 0);
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // A block of at least `bytes` bytes (rounded up to 2 MiB) on this pool's device: the
  // smallest free block that is large enough, when it wastes no more than half of itself,
  // else a new allocation.
  // Throws CudaError when the device has no room.
  DeviceBuffer acquire(std::size_t bytes);

  int device() const { return device_; }
  std::size_t bytes_allocated() const;  // held by the pool, in use or free
  std::size_t allocations() const;      // cudaMalloc calls made so far
  std::size_t free_bytes() const;       // held but not in use
  // Frees the blocks not in use. When cudaMalloc fails, acquire does this for every pool on
  // its device (release_free_everywhere), then tries once more.
  void release_free();
  static void release_free_everywhere(int device);

 private:
  friend class DeviceBuffer;
  void give_back(void* data, std::size_t capacity);

  int device_;
  mutable std::mutex mu_;
  std::multimap<std::size_t, void*> free_;
  std::vector<std::pair<void*, std::size_t>> owned_;
  std::size_t allocations_ = 0;
};

// Page-locked host memory as a std::pmr resource (cudaMallocHost / cudaFreeHost), for host
// data a device copies often, such as packed witnesses: copies from it go straight to the bus,
// asynchronously, without the staging copy pageable memory needs. One for the process, never
// destroyed (what it allocated may outlive any backend). Allocating page-locked memory is slow
// (~0.1 s per GB) and freeing it may wait for the device: keep and reuse what it gives. It
// throws std::bad_alloc when page-locked memory is short, and CudaError for any other CUDA
// error (a dead device; the test-only fault hook too). In a build without CUDA it is the
// default resource.
std::pmr::memory_resource* pinned_memory();

// Page-locked host memory (cudaMallocHost), grown on demand and kept.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer();

  // Makes room for at least `bytes` bytes; the contents are not kept across a growth.
  void reserve(std::size_t bytes);
  void* data() const { return data_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(data_);
  }
  std::size_t capacity() const { return capacity_; }

 private:
  void* data_ = nullptr;
  std::size_t capacity_ = 0;
};

// The number of CUDA devices usable here: 0 without a driver or device (never throws).
int usable_device_count();

}  // namespace snarkpipe::cuda
