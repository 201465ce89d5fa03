// Stage 6: finalizers. prove_finish (the B-in-G2 MSM and the assembly of A, B, C) on the CPU,
// then the proof is verified (unless configured off) and the partition's remaining buffers go
// to the deallocation thread; the job ends when its last partition has been freed.
#include <spdlog/spdlog.h>

#include "engine/engine_impl.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::engine {

void Engine::Impl::finalizer_loop(unsigned worker) {
  const std::string track = "final-" + std::to_string(worker);
  while (auto p = finalize_queue.pop()) {
    try {
      finish_one(p, track);
    } catch (const std::exception& e) {
      if (p) fail(std::move(p), "prove_finish", e.what());
    }
  }
}

// Retires p (completed, or dropped); p is left non-null only when an exception escapes.
void Engine::Impl::finish_one(std::shared_ptr<Partition>& p, const std::string& track) {
  Job& job = *p->job;
  if (job.stop) return retire(std::move(p), false);
  p->set_where(stage_name(Stage::kFinalizingBG2), track);
  move_stage(*p, Stage::kFinalizingBG2, p->tracked, "finalize_start");
  const auto t0 = Clock::now();
  const groth16::Proof proof = groth16::prove_finish(p->params->params, *p->assignment, p->pending);
  const auto t1 = Clock::now();
  span(track, "prove_finish " + p->label, t0, t1);
  observe_phase("finalize", seconds_between(t0, t1));
  bool verified = false;
  double verify_s = 0;
  if (config.verify_before_return) {
    p->set_where("verifying", track);
    // The inputs a verifier computes from the request (Filecoin's kinds), else the assignment's.
    std::vector<Fr> public_inputs;
    if (auto in = job.input->public_inputs(p->index)) {
      public_inputs = std::move(*in);
    } else {
      const auto& inputs = p->assignment->inputs();
      public_inputs.assign(inputs.begin() + 1, inputs.end());  // without ONE
    }
    if (public_inputs.size() + 1 != p->assignment->num_inputs()) {
      throw std::runtime_error("the circuit has " + std::to_string(p->assignment->num_inputs() - 1) +
                               " public inputs, the verifier computes " + std::to_string(public_inputs.size()));
    }
    verified = groth16::verify_proof(p->params->pvk, proof, public_inputs);
    const auto t2 = Clock::now();
    verify_s = seconds_between(t1, t2);
    span(track, "verify " + p->label, t1, t2);
    observe_phase("verify", verify_s);
    if (!verified) {
      throw std::runtime_error("the proof did not verify against the public inputs of " + job.input->describe() +
                               " (a prover bug, or parameters that do not fit the circuit: please report it)");
    }
  }
  const auto bytes = groth16::encode_proof(proof);
  {
    std::lock_guard lock(mutex);
    job.timings.finalize += seconds_between(t0, t1);
    job.timings.verify += verify_s;
    job.proofs[p->index].assign(bytes.begin(), bytes.end());
    job.all_verified = job.all_verified && verified;
    partitions_proved++;
  }
  retire(std::move(p), true);
}

}  // namespace cuzk::engine
