// Stages 2 and 3: admission (by the memory budget, or by the policy being compared) and
// synthesis of the partition's proving assignment on a CPU worker.
#include <algorithm>
#include <spdlog/spdlog.h>

#include "engine/engine_impl.hpp"

namespace cuzk::engine {
namespace {

BufferBytes bytes_of(const r1cs::ProvingAssignment& pa) {
  const auto b = pa.bytes();
  BufferBytes out{};
  out[size_t(BufferClass::kAbc)] = int64_t(b.a + b.b + b.c + b.abc_prepared);  // with their compact copies
  out[size_t(BufferClass::kAux)] = int64_t(b.aux);
  out[size_t(BufferClass::kInputs)] = int64_t(b.inputs);
  out[size_t(BufferClass::kDensities)] = int64_t(b.densities);
  return out;
}

}  // namespace

bool Engine::Impl::admit(Partition& p) {
  const uint64_t need = p.job->shape.total();
  auto give_up = [&] { return p.job->stop.load() || stopping.load(); };
  switch (config.policy) {
    case Policy::kBudget:
      if (!budget.try_reserve(need)) {
        p.set_where("waiting_budget");
        // Idle parameter sets go before work waits, and again whenever the budget changes
        // while this partition is at the head of the line; but not its own set, which it would
        // load again at once beyond the budget (submit checked that a partition and its set fit).
        // The backends' idle copies go too, when that lets the partition in (their unlock
        // waits for the device, and the next partitions would make them again).
        auto on_pressure = [&] {
          params.evict_idle_for(need, p.job->param_id);
          trim_backends_if_that_fits(need);
        };
        if (!budget.reserve(need, give_up, on_pressure)) return false;
      }
      break;
    case Policy::kSemaphoreReleaseAfterSynth:
    case Policy::kSemaphoreHoldUntilDelivered:
      p.set_where("waiting_permit");
      if (!permits.reserve(1, give_up)) return false;
      p.holds_permit = true;
      budget.force_reserve(need);  // accounted, not enforced: these policies ignore the budget
      break;
    case Policy::kChannelCapacityWorkers:
      budget.force_reserve(need);
      break;
  }
  p.reserved = need;
  return true;
}

void Engine::Impl::charge_idle_host_memory() {
  std::lock_guard lock(idle_charge_mutex);
  uint64_t idle = 0;
  for (auto& d : devices) idle += d->backend->idle_host_bytes();
  if (idle > idle_charged) budget.force_reserve(idle - idle_charged);
  if (idle < idle_charged) budget.release(idle_charged - idle);
  idle_charged = idle;
}

void Engine::Impl::trim_backends() {
  for (auto& d : devices) d->backend->trim_host_memory();
  charge_idle_host_memory();
}

void Engine::Impl::trim_backends_if_that_fits(uint64_t need) {
  uint64_t idle = 0;
  {
    std::lock_guard lock(idle_charge_mutex);
    idle = idle_charged;
  }
  const uint64_t used = budget.used();
  if (idle > 0 && used - std::min(used, idle) + need <= budget.total()) trim_backends();
}

void Engine::Impl::synthesis_loop(unsigned worker) {
  const std::string track = "synth-" + std::to_string(worker);
  while (auto p = work_queue.pop()) {
    try {
      synthesize_one(p, track);
    } catch (const std::exception& e) {
      if (p) fail(std::move(p), "synthesis", e.what());
    }
  }
}

// Hands p on (GPU queue) or retires it; p is left non-null only when an exception escapes.
void Engine::Impl::synthesize_one(std::shared_ptr<Partition>& p, const std::string& track) {
  Job& job = *p->job;
  if (job.stop || !admit(*p)) return retire(std::move(p), false);
  const auto admitted = Clock::now();
  observe_phase("queue_wait", seconds_between(p->queued_at, admitted));
  {
    std::lock_guard lock(mutex);
    job.timings.queue_wait += seconds_between(p->queued_at, admitted);
    if (job.state == JobState::kQueued) job.state = JobState::kRunning;
  }
  // Parameters: loaded once per set and shared while partitions hold them (the first pays).
  p->set_where("loading_params", track);
  p->params = params.acquire(job.param_id);
  const auto loaded = Clock::now();
  {
    std::lock_guard lock(mutex);
    job.timings.param_load += seconds_between(admitted, loaded);
  }
  observe_phase("param_load", seconds_between(admitted, loaded));
  if (job.stop) return retire(std::move(p), false);  // cancelled meanwhile: skip the synthesis

  p->set_where(stage_name(Stage::kSynthRunning), track);
  move_stage(*p, Stage::kSynthRunning, job.shape.bytes, "synth_start");
  p->assignment = std::make_unique<r1cs::ProvingAssignment>();
  // Exactly the domain: the CPU prover pads a/b/c in place, with no reallocation.
  p->assignment->reserve(job.shape.domain, job.shape.aux);
  job.input->synthesize(p->index, *p->assignment);
  p->assignment->enforce_input_constraints();
  // The backend may compact and page-lock a/b/c here, on this thread, so that the GPU worker's
  // upload is a short DMA (counted in the synthesis span). Any CUDA backend's preparation serves
  // every device.
  devices.front()->backend->prepare_assignment(*p->assignment);
  const auto done = Clock::now();
  // The circuit's scratch is gone; from here the partition holds what its assignment does,
  // with the backend's compact a/b/c copies (at most ~49 bytes a constraint, against ~185 of the
  // synthetic circuit's scratch: they fit in what synthesis held).
  const BufferBytes actual = bytes_of(*p->assignment);
  uint64_t actual_total = 0;
  for (int64_t b : actual) actual_total += uint64_t(b);
  const uint64_t held = p->reserved;
  const uint64_t keep = std::max(actual_total, held - std::min(held, job.shape.scratch()));
  if (keep > held) {  // the estimate was short: account for the truth
    budget.force_reserve(keep - held);
  } else if (keep < held) {
    budget.release(held - keep);
  }
  p->reserved = keep;
  charge_idle_host_memory();  // the preparation may have taken the backend's idle copies
  move_stage(*p, Stage::kSynthDoneWaitingGpu, actual, "synth_done");
  span(track, "synthesize " + p->label, loaded, done);
  observe_phase("synthesis", seconds_between(loaded, done));
  {
    std::lock_guard lock(mutex);
    job.timings.synthesis += seconds_between(loaded, done);
  }

  p->set_where(stage_name(Stage::kSynthDoneWaitingGpu));
  const QueueKey key = p->key;
  if (config.policy == Policy::kSemaphoreReleaseAfterSynth) {
    // The permit goes back now; the partition then waits for the one-slot GPU channel while
    // holding its memory (the design that ran a 755 GiB host out of memory).
    p->holds_permit = false;
    permits.release(1);
    gpu_queue.push_unbounded(key, std::move(p));
    return;
  }
  // Blocks while the GPU queue is full (its capacity depends on the policy); the
  // semaphore-hold policy keeps its permit until a GPU worker takes the partition.
  auto keep_ref = p;
  if (!gpu_queue.push(key, std::move(p))) retire(std::move(keep_ref), false);
}

}  // namespace cuzk::engine
