// The synthesis workers (stages loading_parameters, synth_running and synth_done_waiting_gpu):
// after admission (admission.cpp), a partition's parameter set is acquired and its proving
// assignment synthesized on a CPU worker, then it goes to the GPU queue.
#include <algorithm>
#include <spdlog/spdlog.h>
#include <tbb/task_arena.h>
#include <utility>
#include <vector>

#include "engine/engine_impl.hpp"
#include "engine/thread_name.hpp"

namespace cuzk::engine {
namespace {

BufferBytes bytes_of(const r1cs::ProvingAssignment& pa) {
  const auto b = pa.bytes();
  BufferBytes out{};
  if (pa.compiled()) {  // witness-only: a/b/c and the densities are not the partition's
    out[size_t(BufferClass::kWitness)] = int64_t(b.aux + b.inputs);
    return out;
  }
  out[size_t(BufferClass::kAbc)] = int64_t(b.a + b.b + b.c + b.abc_prepared);  // with their compact copies
  out[size_t(BufferClass::kAux)] = int64_t(b.aux);
  out[size_t(BufferClass::kInputs)] = int64_t(b.inputs);
  out[size_t(BufferClass::kDensities)] = int64_t(b.densities);
  return out;
}

}  // namespace

void Engine::Impl::settle_synthesized(Partition& p) {
  Job& job = *p.job;
  // The circuit's scratch is gone; from here the partition holds what its assignment does,
  // with the backend's compact a/b/c copies (at most ~49 bytes a constraint: within the
  // synthetic circuit's ~185 bytes of scratch, beyond a PoRep partition's 64 MiB).
  const uint64_t scratch = p.shape().scratch();
  auto keep_for = [&](const BufferBytes& actual, uint64_t held) {
    uint64_t total = 0;
    for (int64_t b : actual) total += uint64_t(b);
    return std::max(total, held - std::min(held, scratch));
  };
  BufferBytes actual = bytes_of(*p.assignment);
  // Copies the preparation took from the backends' idle ones were charged there: they are this
  // partition's now.
  uint64_t held = p.reserved;
  charge_idle_host_memory(nullptr, &held, p.assignment->bytes().abc_prepared);
  uint64_t keep = keep_for(actual, held);
  if (keep > held && !job.urgent) {
    // Bytes beyond the estimate (the preparation's copies beyond what synthesis held) are
    // charged within the budget, after what the backends keep idle goes if need be.
    bool fits = budget.try_charge(keep - held, urgent_room());
    if (!fits) {
      trim_backends();
      fits = budget.try_charge(keep - held, urgent_room());
    }
    if (fits) {
      held = keep;
    } else {
      // The preparation is best effort: the partition goes without it (its copies go back to
      // the backend, whose idle memory is charged only within the budget).
      p.assignment->set_abc_preparation(nullptr);
      actual = bytes_of(*p.assignment);
      keep = keep_for(actual, held);
      uint64_t spare = held - std::min(held, keep);
      held -= spare;
      charge_idle_host_memory(&spare);
      held += spare;
      spdlog::info("partition {}: proved without the backend's preparation of a/b/c (beyond the budget)", p.label);
    }
  }
  if (keep > held) {  // urgent (beside the budget), or the estimate was short: the truth is charged
    budget.force_reserve(keep - held);
    held = keep;
  }
  p.reserved = keep;
  // The tracker counts the assignment before the budget lets go of the rest.
  move_stage(p, Stage::kSynthDoneWaitingGpu, actual);
  if (held > keep) budget.release(held - keep);
}

void Engine::Impl::run_synthesis_worker(PartitionQueue& queue, const std::string& name, bool urgent) {
  name_this_thread(name);
  // Urgent synthesis' inner parallel loops go to an arena the shared threads serve first.
  tbb::task_arena arena(tbb::task_arena::automatic, 1,
                        urgent ? tbb::task_arena::priority::high : tbb::task_arena::priority::normal);
  while (auto p = queue.pop()) {
    try {
      arena.execute([&] { synthesize_partition(p, name); });
    } catch (const std::exception& e) {
      if (p) fail(std::move(p), "synthesis", e.what());
    }
  }
}

// The compiled circuit of p's parameter set, recorded from p's own partition when there is none
// yet (the first partition of a shape pays). A circuit that cannot be compiled is proved in full
// from then on (logged): null.
std::shared_ptr<const r1cs::CompiledCircuit> Engine::Impl::compiled_circuit(Partition& p) {
  Job& job = *p.job;
  try {
    return compiled.get(job.param_id, [&](r1cs::ConstraintSystem& cs) { job.input->synthesize(p.index, cs); });
  } catch (const r1cs::CircuitTooLarge& e) {
    if (job.witness_only.exchange(false)) {
      spdlog::warn("job {}: proved by full synthesis: its circuit cannot be compiled ({})", job.id, e.what());
    }
    return nullptr;
  }
}

std::string Engine::Impl::witness_path_refused(Partition& p) {
  Job& job = *p.job;
  if (!job.witness_only) return "another partition of the job found the witness path refused";
  std::string why = place_matrices(p);
  // The plan in force, which another set's placement may have made again since.
  for_each_prover(p, [&](const Device& d) {
    if (why.empty()) why = d.backend->abc_off_device();
  });
  if (why.empty()) return why;
  p.compiled.reset();
  if (job.witness_only.exchange(false)) spdlog::warn("job {}: proved by full synthesis: {}", job.id, why);
  return why;
}

std::string Engine::Impl::place_matrices(Partition& p) {
  const ParamSet& set = *p.params;
  std::lock_guard lock(set.matrices_mutex);
  auto& said = p.on_urgent_lane ? set.matrices_on_urgent_lane : set.matrices_on_devices;
  if (said && !said->empty()) return *said;  // refused: no compiled circuit needed
  p.compiled = compiled_circuit(p);
  if (!p.compiled) return "its circuit cannot be compiled";
  if (said) return {};
  // A set placed again around the matrices may have had its host copy written back: charged,
  // even when a backend throws.
  struct Charge {
    Impl& m;
    ~Charge() {
      try {
        m.charge_released_parameters();
      } catch (const std::exception& e) {  // never out of a destructor
        spdlog::error("charging the parameters' host copies: {}", e.what());
      }
    }
  } charge{*this};
  std::string why;
  std::vector<Device*> accepted;
  for_each_prover(p, [&](Device& d) {
    if (!why.empty()) return;
    std::unique_lock serial(d.serial, std::defer_lock);
    if (!d.backend->concurrent()) serial.lock();
    why = d.backend->place_matrices(set.params, p.compiled);
    if (why.empty()) accepted.push_back(&d);
  });
  // One device's refusal sends the set to full synthesis on all: those that took the matrices
  // let them go (their room back to the set's plan).
  if (!why.empty()) {
    for (Device* d : accepted) {
      std::unique_lock serial(d->serial, std::defer_lock);
      if (!d->backend->concurrent()) serial.lock();
      try {
        d->backend->let_matrices_go(set.params, p.compiled);
      } catch (const std::exception& e) {  // its plan heals at its next full-synthesis proof
        spdlog::warn("{} could not let the compiled circuit's matrices go: {}", d->backend->name(), e.what());
      }
    }
  }
  said = why;
  if (!p.on_urgent_lane) set.devices_verdict = why.empty() ? ParamSet::Verdict::kAccepted : ParamSet::Verdict::kRefused;
  // Its partitions go by full synthesis: the compiled circuit's host memory goes back to the
  // budget (the backends let go of their matrices), unless the other side (the devices or the
  // urgent lane) proves the set witness-only with it.
  const auto& other = p.on_urgent_lane ? set.matrices_on_devices : set.matrices_on_urgent_lane;
  if (!why.empty() && (!other || !other->empty())) {
    p.compiled.reset();
    compiled.release(set.id);
  }
  return why;
}

// Hands p on (GPU queue) or retires it; p is left non-null only when an exception escapes.
void Engine::Impl::synthesize_partition(std::shared_ptr<Partition>& p, const std::string& name) {
  Job& job = *p->job;
  if (job.stop || !admit(*p, name)) return retire(std::move(p), false);
  const auto admitted = Clock::now();
  {
    std::lock_guard lock(mutex);
    if (job.state == JobState::kQueued) {
      job.state = JobState::kRunning;
      records.running(job.seq);
    }
  }
  observe_stage(Stage::kQueued, name, *p, p->queued_at, admitted);
  // Parameters: loaded once per set and shared while partitions hold them (the first pays).
  p->set_where(Stage::kLoadingParameters, name);
  const bool within_budget = config.policy == Policy::kBudget && !job.urgent;
  for (;;) {
    while (!(p->params = params.acquire(job.param_id, within_budget))) {
      // The set was evicted while this partition waited for the budget (so it carried none of
      // the set's bytes), and they do not fit beside it now: admitted again, carrying them.
      unadmit(*p);
      if (job.stop || !admit(*p, name)) return retire(std::move(p), false);
      p->set_where(Stage::kLoadingParameters, name);
    }
    if (job.urgent) params.keep_under_pressure(job.param_id);
    // A set goes on the devices before the first synthesis that uses it (the partition that
    // loaded it, or one that got it first): with one GPU its host copy goes back there
    // (engine.release_host_parameters), and its budget with it, before the witnesses take the
    // memory, and no proof finds it not yet placed. Placing a placed set again is a no-op.
    // Urgent work with a lane goes on the lane alone, whose uploads read the host copy.
    p->on_urgent_lane = job.urgent && urgent_lane && place_on_urgent_lane(*p->params);
    if (!p->on_urgent_lane && config.release_host_parameters && !p->params->on_devices) load_on_devices(*p->params);
    if (std::exchange(p->admits_after_load, false)) {
      if (!admit_after_set_load(*p, name)) return retire(std::move(p), false);
      if (!p->params) {  // it waited for its bytes without the set
        p->set_where(Stage::kLoadingParameters, name);
        continue;
      }
    }
    if (!p->witness_only) break;
    const std::string refused = witness_path_refused(*p);
    if (refused.empty()) break;
    // Proved by full synthesis: a partition admitted for its witness alone gives that back and is
    // admitted again for a full synthesis' bytes, without holding the set, as any admission waits.
    p->witness_only = false;
    if (const auto never = never_fits_budget(job, job.full_shape, uint64_t(p->params->host_bytes)); !never.empty()) {
      throw EngineError(EngineError::Code::kFailedPrecondition,
                        "proved by full synthesis (" + refused + "), but " + never);
    }
    unadmit(*p);
    p->params.reset();
    if (job.stop || !admit(*p, name)) return retire(std::move(p), false);
    p->set_where(Stage::kLoadingParameters, name);
  }
  const auto loaded = Clock::now();
  observe_stage(Stage::kLoadingParameters, name, *p, admitted, loaded);
  if (job.stop) return retire(std::move(p), false);  // cancelled meanwhile: skip the synthesis

  p->set_where(Stage::kSynthRunning, name);
  move_stage(*p, Stage::kSynthRunning, p->shape().bytes);
  if (p->witness_only) {
    p->assignment = std::make_unique<r1cs::ProvingAssignment>(std::move(p->compiled));
    if (p->kept) {  // a finished partition's aux memory (page-locked still, by a CUDA backend)
      p->assignment->adopt_witness(std::move(*p->kept));
      p->kept.reset();
    }
    p->assignment->reserve(0, job.shape.aux);
  } else {
    p->assignment = std::make_unique<r1cs::ProvingAssignment>();
    // Exactly the domain: the CPU prover pads a/b/c in place, with no reallocation.
    p->assignment->reserve(job.shape.domain, job.shape.aux);
  }
  job.input->synthesize(p->index, *p->assignment);
  p->assignment->enforce_input_constraints();
  p->assignment->check_matches_compiled();
  // The backend may compact and page-lock a/b/c here, on this thread, so that the GPU worker's
  // upload is a short DMA (counted in the synthesis span). Any CUDA backend's preparation serves
  // every device.
  Device& prover = p->on_urgent_lane ? *urgent_lane : *devices.front();
  prover.backend->prepare_assignment(*p->assignment);
  const auto done = Clock::now();
  settle_synthesized(*p);
  observe_stage(Stage::kSynthRunning, name, *p, loaded, done);

  p->set_where(Stage::kSynthDoneWaitingGpu);
  const QueueKey key = p->key;
  PartitionQueue& gpu = p->on_urgent_lane ? urgent_gpu_queue : gpu_queue;
  if (config.policy == Policy::kSemaphoreReleaseAfterSynth) {
    // The permit goes back now; the partition then waits for the one-slot GPU channel while
    // holding its memory (the design that ran a 755 GiB host out of memory).
    p->holds_permit = false;
    permits.release(1);
    gpu.push_unbounded(key, std::move(p));
    return;
  }
  // Urgent work goes ahead of the queue even when it is full (its key sorts it first).
  if (job.urgent) {
    gpu.push_unbounded(key, std::move(p));
    return;
  }
  // Blocks while the GPU queue is full (its capacity depends on the policy); the
  // semaphore-hold policy keeps its permit until a GPU worker takes the partition.
  auto keep_ref = p;
  if (!gpu_queue.push(key, std::move(p))) retire(std::move(keep_ref), false);
}

}  // namespace cuzk::engine
