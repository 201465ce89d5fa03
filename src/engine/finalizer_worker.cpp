// The finalizer workers (stages finalizing_b_g2 and verifying): prove_finish (the B-in-G2 MSM and
// the assembly of A, B, C) on the CPU, the points checked in their groups (always), then the
// proof is verified (unless configured off) and the partition is retired (admission.cpp); the
// job ends when its last partition has been freed.
#include <spdlog/spdlog.h>

#include "engine/engine_impl.hpp"
#include "engine/thread_name.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::engine {

void Engine::Impl::run_finalizer_worker(unsigned index) {
  const std::string name = std::string(worker_name(Worker::kFinalizer)) + "-" + std::to_string(index);
  name_this_thread(name);
  while (auto p = finalize_queue.pop()) {
    try {
      finish_partition(p, name);
    } catch (const std::exception& e) {
      if (p) fail(std::move(p), "prove_finish", e.what());
    }
  }
}

// Retires p (completed, or dropped); p is left non-null only when an exception escapes.
void Engine::Impl::finish_partition(std::shared_ptr<Partition>& p, const std::string& name) {
  Job& job = *p->job;
  if (job.stop) return retire(std::move(p), false);
  p->set_where(Stage::kFinalizingBG2, name);
  move_stage(*p, Stage::kFinalizingBG2, p->tracked);
  const auto t0 = Clock::now();
  const groth16::Proof proof = groth16::prove_finish(p->params->params, *p->assignment, p->pending);
  const auto t1 = Clock::now();
  observe_stage(Stage::kFinalizingBG2, name, *p, t0, t1);
  // Whatever is configured, no proof leaves with a point off its curve or outside its subgroup:
  // corrupt parameters make such points, and the check costs microseconds.
  if (const auto bad = groth16::proof_point_error(proof)) {
    const std::string reload = params.suspect(p->params->id);
    throw std::runtime_error("the proof's " + *bad + " (parameters " + p->params->id + " from " + p->params->origin +
                             " are corrupt or do not fit the circuit)" + (reload.empty() ? "" : "; " + reload));
  }
  bool verified = false;
  if (config.verify_before_return) {
    p->set_where(Stage::kVerifying, name);
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
    observe_stage(Stage::kVerifying, name, *p, t1, Clock::now());
    if (!verified) {
      // Corrupt parameters fail every proof the same way: have the set reloaded and its file checked.
      const std::string reload = params.suspect(p->params->id);
      throw std::runtime_error("the proof did not verify against the public inputs of " + job.input->describe() +
                               " with parameters " + p->params->id + " from " + p->params->origin +
                               " (parameters that are corrupt or do not fit the circuit, or a prover bug: please "
                               "report it)" +
                               (reload.empty() ? "" : "; " + reload));
    }
  }
  const auto bytes = groth16::encode_proof(proof);
  {
    std::lock_guard lock(mutex);
    job.proofs[p->index].assign(bytes.begin(), bytes.end());
    job.all_verified = job.all_verified && verified;
    partitions_proved++;
  }
  retire(std::move(p), true);
}

}  // namespace cuzk::engine
