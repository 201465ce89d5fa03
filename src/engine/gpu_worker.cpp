// The GPU workers (stages on_gpu and abc_freed): prove_start runs the H polynomial and the G1
// MSMs on the device (or on the CPU backend); a/b/c go to the deallocation thread the moment the
// prover releases them, and their share of the reservation returns to the budget once they are
// freed; the partition then goes to the finalizer queue. The only worker of the GPU queue holds
// the next partition back while it proves one, when the backend uploads its witness meanwhile
// (ProverBackend::uploads_ahead); work that goes before it still goes first.
#include <spdlog/spdlog.h>

#include "engine/engine_impl.hpp"
#include "engine/thread_name.hpp"
#include "ff/os_rng.hpp"

namespace cuzk::engine {

std::string gpu_worker_prefix(const groth16::ProverBackend& backend, bool urgent_lane) {
  return std::string(worker_name(Worker::kGpu)) + (urgent_lane ? "-urgent-" : "-") + backend.name() + "-";
}

void Engine::Impl::run_gpu_worker(Device& device, unsigned index, PartitionQueue& queue) {
  const std::string name = gpu_worker_prefix(*device.backend, &device == urgent_lane.get()) + std::to_string(index);
  name_this_thread(name);
  ff::OsRng rng;
  // Another worker (or device) would take the held partition sooner: only the queue's sole worker
  // holds one. Only under the budget policy: the others bound memory by the queue's capacity.
  const bool sole = &queue == &gpu_queue && devices.size() == 1 && std::max(1u, config.gpu_workers_per_device) == 1 &&
                    config.policy == Policy::kBudget;
  std::shared_ptr<Partition> next;
  while (auto p = next ? held_or_before(queue, next) : queue.pop()) {
    if (sole && device.backend->uploads_ahead()) {
      next = queue.try_pop_if([&](const Partition& q) {
        return q.assignment && q.assignment->abc_pending() && q.params && q.params == p->params && !q.job->stop;
      });
    }
    try {
      prove_start_partition(p, device, rng, name, next ? next->assignment.get() : nullptr);
    } catch (const std::exception& e) {
      if (p) fail(std::move(p), "prove_start", e.what());
    }
    charge_released_parameters();  // a set's host copy given back after the proof, or written back for room
  }
}

std::shared_ptr<Partition> Engine::Impl::held_or_before(PartitionQueue& queue, std::shared_ptr<Partition>& held) {
  if (auto first = queue.try_pop_before(held->key)) {  // came since (urgent work, an older job's partition)
    const QueueKey key = held->key;
    queue.push_unbounded(key, std::move(held));
    return first;
  }
  return std::move(held);
}

// Hands p on (finalizer queue) or retires it; p is left non-null only when an exception escapes.
void Engine::Impl::prove_start_partition(std::shared_ptr<Partition>& p, Device& device, ff::OsRng& rng,
                                         const std::string& name, const r1cs::ProvingAssignment* next) {
  if (p->holds_permit) {  // semaphore-hold-until-delivered: delivered now
    p->holds_permit = false;
    permits.release(1);
  }
  Job& job = *p->job;
  if (job.stop) return retire(std::move(p), false);
  p->set_where(Stage::kOnGpu, name);
  move_stage(*p, Stage::kOnGpu, p->tracked);
  BufferBytes abc_only{};
  abc_only[size_t(BufferClass::kAbc)] = p->tracked[size_t(BufferClass::kAbc)];
  // The vectors leave the partition here; the tracker shows them as pending deallocation.
  // The sink runs inside prove_start, while this thread holds p.
  Partition* raw = p.get();
  p->assignment->set_abc_sink([this, raw, abc_only](r1cs::ReleasedAbc&& abc) {
    tracker.move_bytes(Stage::kOnGpu, Stage::kDeallocPending, abc_only, "a/b/c released " + raw->label);
    raw->tracked[size_t(BufferClass::kAbc)] = 0;
    const uint64_t share = uint64_t(abc_only[size_t(BufferClass::kAbc)]);
    raw->reserved -= share;
    // The task owns the vectors through a shared_ptr (ReleasedAbc moves but is not copyable).
    dealloc->post([this, abc = std::make_shared<r1cs::ReleasedAbc>(std::move(abc)), abc_only, share,
                   label = raw->label]() mutable {
      r1cs::free_gradually(std::move(*abc));  // the preparation (page-locks), then the memory
      abc.reset();
      tracker.leave_bytes(Stage::kDeallocPending, abc_only, "a/b/c freed " + label);
      // The compact copies the backend keeps for the next partitions were part of the share:
      // their charge moves to the idle memory (never missed, never counted twice), the rest
      // goes back.
      uint64_t rest = share;
      charge_idle_host_memory(&rest);
      if (rest) budget.release(rest);
    });
  });
  const auto t0 = Clock::now();
  groth16::ProveTimings t;  // where the device's time went, on the timeline's span
  {
    const Fr r = Fr::random(rng), s = Fr::random(rng);
    std::unique_lock serial(device.serial, std::defer_lock);
    if (!device.backend->concurrent()) serial.lock();
    device.busy.enter();
    struct Leave {
      BusyClock& busy;
      ~Leave() { busy.leave(); }
    } leave{device.busy};
    p->pending = device.backend->prove_start(p->params->params, *p->assignment, r, s, &t, next);
  }
  const auto t1 = Clock::now();
  p->assignment->set_abc_sink(nullptr);
  gpu_busy_micros += std::chrono::duration_cast<std::chrono::microseconds>(t1 - t0).count();
  observe_stage(Stage::kOnGpu, name, *p, t0, t1,
                {{"abc_s", t.abc},
                 {"h_ntt_s", t.h_ntt},
                 {"msm_h_s", t.msm_h},
                 {"msm_l_s", t.msm_l},
                 {"msm_a_s", t.msm_a},
                 {"msm_b_g1_s", t.msm_b_g1},
                 {"msm_b_g2_s", t.msm_b_g2}});
  p->set_where(Stage::kAbcFreed);
  move_stage(*p, Stage::kAbcFreed, p->tracked);
  const QueueKey key = p->key;
  finalize_queue.push_unbounded(key, std::move(p));
}

}  // namespace cuzk::engine
