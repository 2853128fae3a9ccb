// Reusable witness buffers (lesson 6: no per-partition allocation of GiB-size vectors, no
// munmap storms). A buffer's bytes stay charged to the memory budget while it exists, in
// use or idle; idle buffers are reused first and trimmed only when the budget needs room.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/memory_budget.hpp"
#include "groth16/prover.hpp"

namespace snarkpipe::engine {

class WitnessBufferPool {
 public:
  struct Buffer {
    groth16::Witness witness;
    std::uint64_t charged = 0;  // bytes reserved in the budget for this buffer's capacity
  };
  using Handle = std::unique_ptr<Buffer>;

  explicit WitnessBufferPool(MemoryBudget& budget) : budget_(budget) {}
  ~WitnessBufferPool();  // releases the idle buffers' charge (buffers in use must be back)
  WitnessBufferPool(const WitnessBufferPool&) = delete;
  WitnessBufferPool& operator=(const WitnessBufferPool&) = delete;

  static std::uint64_t bytes_for(std::size_t inputs, std::size_t aux) { return (inputs + aux) * sizeof(ff::Fr); }

  // An emptied buffer with capacity for `inputs` and `aux` values: the smallest idle buffer
  // that is big enough, else an idle one grown, else a new one (reserving what it adds);
  // nullptr when the budget cannot take the extra bytes.
  Handle try_acquire(std::size_t inputs, std::size_t aux);
  // Back to the idle list; its bytes stay charged. A buffer whose capacity grew past its
  // charge (a witness source that recharge() refused) is freed instead, its charge released:
  // kept, it would hold memory the budget does not count.
  void give_back(Handle buffer);
  // After a witness source filled the buffer: charges any capacity it grew beyond what was
  // charged. False (nothing charged) when the budget cannot take it.
  bool recharge(Buffer& buffer);
  // Takes idle buffers out of the pool, releasing their charge, until `bytes` are available
  // in the budget or none is left but the one (smallest) idle buffer that fits `inputs` and
  // `aux` values, which is kept for the partition that wants the room. The caller frees
  // what it gets outside its locks.
  std::vector<Handle> trim(std::uint64_t bytes, std::size_t inputs, std::size_t aux);

  std::size_t idle() const;
  std::uint64_t idle_bytes() const;  // the idle buffers' charge
  std::size_t in_use() const;        // acquired and not given back
  std::size_t created() const;
  std::size_t reused() const;

 private:
  static std::uint64_t capacity_bytes(const Buffer& b) {
    return (b.witness.inputs.capacity() + b.witness.aux.capacity()) * sizeof(ff::Fr);
  }

  MemoryBudget& budget_;
  mutable std::mutex mu_;
  std::vector<Handle> idle_;
  std::size_t created_ = 0, reused_ = 0, in_use_ = 0;
};

}  // namespace snarkpipe::engine
