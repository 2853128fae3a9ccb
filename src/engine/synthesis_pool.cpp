// The synthesis workers: admit the next partition in scheduling order when its memory fits
// the host budget (else wait: backpressure), generate its witness into a pooled buffer
// outside the lock, check it, and queue it for a device.
#include <utility>

#include "circuit/spmv.hpp"
#include "engine/engine.hpp"

namespace snarkpipe::engine {

void Engine::synthesis_worker() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stopping_ || !synth_.empty(); });
    if (stopping_) return;

    // Lookahead: no more partitions synthesized ahead of the devices than configured, so
    // memory is not spent on witnesses that would only wait, and a more urgent job that
    // arrives finds few partitions before it.
    if (ready_.size() + synthesizing_ >= lookahead_) {
      const std::uint64_t seen = epoch_;
      cv_.wait(lock, [&] { return stopping_ || epoch_ != seen; });
      continue;
    }
    const PartitionKey key = synth_.front();
    Job& job = *jobs_.at(key.job);
    const circuit::R1cs& r1cs = job.keys->r1cs;
    const std::uint64_t working = job.needs.host_per_partition;
    // Admission: the working memory, then the witness buffer (an idle one when it fits).
    WitnessBufferPool::Handle buffer;
    const bool have_working = host_.try_reserve(working);
    if (have_working) buffer = pool_.try_acquire(r1cs.num_inputs, r1cs.num_aux);
    if (!buffer) {
      if (have_working) host_.release(working);
      // Idle buffers this partition cannot use may hold the bytes: free them (outside the
      // lock), else wait until something is released. The head of the queue waits; nothing
      // overtakes it.
      auto freed = pool_.trim(working + WitnessBufferPool::bytes_for(r1cs.num_inputs, r1cs.num_aux), r1cs.num_inputs,
                              r1cs.num_aux);
      std::vector<SparePacked> spares = take_spare_packed();  // kept packed witnesses too
      if (freed.empty() && spares.empty()) {
        const std::uint64_t seen = epoch_;
        cv_.wait(lock, [&] { return stopping_ || epoch_ != seen; });
      } else {
        lock.unlock();
        freed.clear();
        spares.clear();
        lock.lock();
      }
      continue;
    }
    synth_.pop();
    ++job.in_flight;
    ++synthesizing_;
    if (job.state == JobState::QUEUED) job.state = JobState::RUNNING;
    const WitnessSource& source = job.request.witness;
    const std::shared_ptr<const CircuitKeys> keys = job.keys;
    // Its last proof failed verification with an unchecked witness: check this one.
    std::optional<Job::UnverifiedFailure> suspect = std::exchange(job.suspect[key.partition], std::nullopt);
    const bool check = config_.check_witness || suspect.has_value();
    // A kept packed witness to pack into, with the charge it holds (settled against its
    // capacity once packed, below).
    std::unique_ptr<groth16::PackedWitness> packed;
    std::uint64_t packed_charge = 0;
    if (backend_->packed_witnesses() && !spare_packed_.empty()) {
      packed = std::move(spare_packed_.back().packed);
      packed_charge = spare_packed_.back().charge;
      spare_packed_.pop_back();
    }
    lock.unlock();

    timeline_.record(key.job, key.partition, Stage::SYNTH_START);
    std::string error;
    const std::string where = "partition " + std::to_string(key.partition) + ": ";
    try {
      source(key.partition, buffer->witness);
      const groth16::Witness& w = buffer->witness;
      if (w.inputs.size() != r1cs.num_inputs || w.aux.size() != r1cs.num_aux) {
        error = where + "the witness has " + std::to_string(w.inputs.size()) + " inputs and " +
                std::to_string(w.aux.size()) + " aux values; circuit '" + keys->type + "' has " +
                std::to_string(r1cs.num_inputs) + " and " + std::to_string(r1cs.num_aux);
      } else if (!w.inputs[0].is_one()) {
        error = where + "the witness's first input is not the constant ONE";
      } else if (!pool_.recharge(*buffer)) {
        error = where + "the witness source grew its buffer beyond what the memory budget holds";
      } else if (check) {
        const circuit::Satisfaction sat = circuit::is_satisfied(r1cs, w.inputs, w.aux);
        if (!sat) error = where + "the witness does not satisfy constraint " + std::to_string(*sat.first_failing_row);
      }
    } catch (const std::exception& e) {
      error = where + "witness generation failed: " + e.what();
    }
    // A backend that takes packed witnesses gets the 0/1 values as bits: the partition then
    // waits for its device holding ~1/10 of the full witness, and the buffer is reused.
    bool made_packed = false;
    if (error.empty() && backend_->packed_witnesses()) {
      try {
        if (!packed) {
          packed = std::make_unique<groth16::PackedWitness>(backend_->witness_memory());
          made_packed = true;
        }
        groth16::pack_witness(buffer->witness.inputs, buffer->witness.aux, *packed);
      } catch (const std::exception& e) {
        error = where + "packing the witness failed: " + e.what();
      }
    }
    timeline_.record(key.job, key.partition, Stage::SYNTH_END);

    lock.lock();
    --synthesizing_;
    if (made_packed) ++packed_created_;
    // The packed witness's charge follows its capacity (packing may have grown it, a smaller
    // witness leaves a surplus). When the budget cannot hold it, it is freed (outside the lock:
    // freeing page-locked memory may wait for a device) and the partition waits as its full
    // witness.
    std::unique_ptr<groth16::PackedWitness> unheld;
    if (packed) {
      const std::uint64_t need = packed->capacity_bytes();
      if (need <= packed_charge) {
        host_.release(packed_charge - need);
        packed_charge = need;
      } else if (host_.try_reserve(need - packed_charge)) {
        packed_charge = need;
      } else {
        host_.release(packed_charge);
        packed_charge = 0;
        unheld = std::move(packed);
      }
    }
    if (suspect && !is_terminal(job.state)) {
      if (error.empty())
        proof_failed_on_device(job, key.partition, *devices_[std::size_t(suspect->device)], suspect->what);
      else
        error += " (found after its proof failed verification on device " +
                 std::to_string(devices_[std::size_t(suspect->device)]->spec.index) + "; not the device's fault)";
    }
    if (is_terminal(job.state) || !error.empty()) {
      if (packed) spare_packed_.push_back({std::move(packed), packed_charge});  // for the next partition
      pool_.give_back(std::move(buffer));
      host_.release(working);
      --job.in_flight;
      if (!error.empty()) finish_job(job, JobState::FAILED, error);
      settle(job);
      wake();
    } else {
      if (packed) {
        pool_.give_back(std::move(buffer));
        ready_.push(key, Ready{nullptr, working, std::move(packed), packed_charge});
      } else {
        ready_.push(key, Ready{std::move(buffer), working, nullptr, 0});  // the full witness (no room for both)
      }
      timeline_.record(key.job, key.partition, Stage::GPU_QUEUE);
      wake();
    }
    if (unheld) {
      lock.unlock();
      unheld.reset();
      lock.lock();
    }
  }
}

}  // namespace snarkpipe::engine
