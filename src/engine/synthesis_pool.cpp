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
    // Its last proof failed verification with an unchecked witness: check this one.
    const bool check = config_.check_witness || job.suspect[key.partition].has_value();
    // How the witness is made: packed as it is generated (no full vector: the backend takes
    // packed witnesses and nothing checks it), in full into a pooled buffer, or packed and
    // then unpacked into one (the request has only a packed source).
    enum class Form { packed, full, unpacked } form = Form::full;
    const bool pack_now = backend_->packed_witnesses() && !check && config_.pack_as_generated;
    if (job.request.packed_witness && (pack_now || !job.request.witness))
      form = pack_now ? Form::packed : Form::unpacked;
    // Admission: the working memory, then the witness buffer (an idle one when it fits). A
    // witness packed as it is generated is charged a full vector's bytes until it is packed
    // (then its capacity): the budget never holds less than what the synthesis may touch.
    const std::uint64_t full_bytes = WitnessBufferPool::bytes_for(r1cs.num_inputs, r1cs.num_aux);
    std::uint64_t generation_charge = form == Form::packed ? full_bytes : 0;
    WitnessBufferPool::Handle buffer;
    const bool have_working = host_.try_reserve(working + generation_charge);
    if (have_working && form != Form::packed) buffer = pool_.try_acquire(r1cs.num_inputs, r1cs.num_aux);
    if (!have_working || (form != Form::packed && !buffer)) {
      if (have_working) host_.release(working + generation_charge);
      // Idle buffers this partition cannot use may hold the bytes: free them (outside the
      // lock), else wait until something is released. The head of the queue waits; nothing
      // overtakes it.
      auto freed = pool_.trim(working + full_bytes, r1cs.num_inputs, r1cs.num_aux);
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
    const PackedWitnessSource& packed_source = job.request.packed_witness;
    const std::shared_ptr<const CircuitKeys> keys = job.keys;
    std::optional<Job::UnverifiedFailure> suspect = std::exchange(job.suspect[key.partition], std::nullopt);
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
    bool made_packed = false;
    // The packed form goes in the backend's memory (page-locked for a GPU) when it is what the
    // backend gets; a CPU backend's is a transient, freed once unpacked (uncharged: a tenth of
    // the buffer it is unpacked into, which is charged).
    std::unique_ptr<groth16::PackedWitness> transient;
    try {
      const auto shape_error = [&](std::size_t inputs, std::uint64_t aux) -> std::string {
        if (inputs == r1cs.num_inputs && aux == r1cs.num_aux) return "";
        return where + "the witness has " + std::to_string(inputs) + " inputs and " + std::to_string(aux) +
               " aux values; circuit '" + keys->type + "' has " + std::to_string(r1cs.num_inputs) + " and " +
               std::to_string(r1cs.num_aux);
      };
      if (form != Form::full) {
        if (!packed && backend_->packed_witnesses()) {
          packed = std::make_unique<groth16::PackedWitness>(witness_memory());
          made_packed = true;
        }
        groth16::PackedWitness& p = packed ? *packed : *(transient = std::make_unique<groth16::PackedWitness>());
        packed_source(key.partition, p);
        error = shape_error(p.inputs.size(), p.num_aux);
        if (error.empty() && form == Form::unpacked) {
          buffer->witness.inputs.assign(p.inputs.begin(), p.inputs.end());
          buffer->witness.aux.resize(p.num_aux);
          groth16::unpack_aux_into(p, buffer->witness.aux);
          transient.reset();
        } else if (error.empty() && !p.inputs[0].is_one()) {
          error = where + "the witness's first input is not the constant ONE";
        }
      } else {
        source(key.partition, buffer->witness);
      }
      if (error.empty() && form != Form::packed) {  // the full witness, in the buffer
        const groth16::Witness& w = buffer->witness;
        if (error = shape_error(w.inputs.size(), w.aux.size()); !error.empty()) {
          // named above
        } else if (!w.inputs[0].is_one()) {
          error = where + "the witness's first input is not the constant ONE";
        } else if (!pool_.recharge(*buffer)) {
          error = where + "the witness source grew its buffer beyond what the memory budget holds";
        } else if (check) {
          const circuit::Satisfaction sat = circuit::is_satisfied(r1cs, w.inputs, w.aux);
          if (!sat) error = where + "the witness does not satisfy constraint " + std::to_string(*sat.first_failing_row);
        }
      }
    } catch (const std::exception& e) {
      error = where + "witness generation failed: " + e.what();
    }
    // A backend that takes packed witnesses gets the 0/1 values as bits: the partition then
    // waits for its device holding ~1/10 of the full witness, and the buffer is reused.
    if (error.empty() && backend_->packed_witnesses() && form == Form::full) {
      try {
        if (!packed) {
          packed = std::make_unique<groth16::PackedWitness>(witness_memory());
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
    packed_charge += std::exchange(generation_charge, 0);
    if (!packed && packed_charge) host_.release(std::exchange(packed_charge, 0));
    if (packed) {
      const std::uint64_t need = packed->capacity_bytes();
      if (need <= packed_charge) {
        host_.release(packed_charge - need);
        packed_charge = need;
      } else if (host_.try_reserve(need - packed_charge)) {
        packed_charge = need;
      } else if (form == Form::packed) {
        // No full witness to fall back on: kept, over its charge by what a witness of nearly
        // all general values grew beyond a full vector's bytes (the budget's margin takes it).
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
      if (buffer) pool_.give_back(std::move(buffer));
      host_.release(working);
      --job.in_flight;
      if (!error.empty()) finish_job(job, JobState::FAILED, error);
      settle(job);
      wake();
    } else {
      if (packed) {
        if (buffer) pool_.give_back(std::move(buffer));
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
