// Admission and retirement: what a partition takes from the memory budget before its synthesis
// (admit: the budget policy, or the comparison policy being measured) and what it gives back once
// its buffers are freed (retire), with the job's end when its last partition is gone; and the
// budget's charge for what the backends keep between partitions.
#include <algorithm>
#include <spdlog/spdlog.h>

#include "engine/engine_impl.hpp"

namespace cuzk::engine {

uint64_t Engine::Impl::urgent_room() const {
  return config.urgent_admission == UrgentAdmission::kReserve ? config.urgent_reserve_bytes : 0;
}

bool Engine::Impl::admit(Partition& p, const std::string& worker) {
  p.witness_only = p.job->witness_only;  // the job's path now: the partition's bytes follow it
  const uint64_t need = p.shape().total();
  if (p.job->urgent) {
    // A WinningPoSt must not queue behind C2 partitions waiting for memory: it is charged at once,
    // inside the room ordinary work left free (reserve) or beyond the budget (beside); either way
    // ordinary work then waits for it. Its worker takes one partition at a time, so the excess is
    // bounded by one urgent partition plus those waiting for the GPU.
    budget.force_reserve(need);
    p.reserved = need;
    return true;
  }
  const uint64_t keep_free = urgent_room();
  auto give_up = [&] { return p.job->stop.load() || stopping.load(); };
  switch (config.policy) {
    case Policy::kBudget: {
      // A set that is not resident loads within the budget too: the first partition that needs
      // it carries its bytes (they become the set's charge), the others wait for that one's
      // admission and then need their own bytes only (submit checked that a partition and its
      // set fit). When the set's host copy leaves once it is on the devices, the partition that
      // loads it reserves the set's bytes alone here and its own after (admit_after_set_load).
      const std::string& set = p.job->param_id;
      const auto load = params.claim_load(set, give_up, [&] { p.set_where(Stage::kWaitingBudget, worker); });
      if (!load) return false;
      p.admits_after_load = *load && sets_leave_host;
      const uint64_t bytes = (p.admits_after_load ? 0 : need) + *load;
      // A kept witness of its shape comes with its charge: the partition reserves the rest at
      // once, or gives it back and waits without it (one held in the line could block the head).
      // Not while others wait: the rest would not be reserved before them.
      const uint64_t kept = p.admits_after_load || budget.waiters() ? 0 : take_kept_witness(p);
      if (p.kept) {
        if (budget.try_reserve(bytes - std::min(kept, bytes), keep_free)) {
          if (kept > bytes) budget.release(kept - bytes);
          if (*load) params.load_paid(set, *load);
          break;
        }
        uint64_t charge = kept;
        give_back_kept_witness(p, &charge);
        if (charge) budget.release(charge);
      }
      if (!budget.try_reserve(bytes, keep_free)) {
        p.set_where(Stage::kWaitingBudget, worker);
        // Idle parameter sets go before work waits, and again whenever the budget changes
        // while this partition is at the head of the line; but not its own set, which it would
        // load again at once. The backends' idle copies go too, when that lets the partition in
        // (their unlock waits for the device, and the next partitions would make them again).
        // A partition that can never fit beside what stays of its set's host copy gives up.
        std::string never_fits;
        // A witness of its shape kept since (by a partition that ended) is taken rather than
        // freed when its charge lets this reservation (the head of the line) in: the reservation
        // takes the charge over (it stays charged throughout), and gives the witness back with it
        // if the partition leaves the line instead.
        uint64_t taken_over = 0;
        auto on_pressure = [&]() -> uint64_t {
          if (!p.kept && !p.admits_after_load) {
            taken_over = take_kept_witness_if_that_fits(p, bytes + keep_free);
            if (p.kept) return taken_over;  // it fits now: nothing else need go
          }
          params.evict_idle_for(bytes + keep_free, set);
          trim_backends_if_that_fits(bytes + keep_free);
          if (!*load) never_fits = never_fits_beside_set(p);
          return 0;
        };
        auto leave_the_kept_witness = [&] {
          give_back_kept_witness(p, &taken_over);
          if (taken_over) budget.release(taken_over);
        };
        auto give_up_or_never_fits = [&] { return give_up() || !never_fits.empty(); };
        bool in = false;
        try {
          in = budget.reserve(bytes, give_up_or_never_fits, on_pressure, keep_free);
        } catch (...) {
          leave_the_kept_witness();
          if (*load) params.unclaim(set);
          throw;
        }
        if (!in) {
          leave_the_kept_witness();
          if (*load) params.unclaim(set);
          if (!never_fits.empty()) throw EngineError(EngineError::Code::kFailedPrecondition, never_fits);
          return false;
        }
        if (taken_over > bytes) budget.release(taken_over - bytes);  // beyond what it counted for
      }
      if (*load) params.load_paid(set, *load);
      if (p.admits_after_load) return true;  // p.reserved stays 0: the set's bytes are its charge
      break;
    }
    case Policy::kSemaphoreReleaseAfterSynth:
    case Policy::kSemaphoreHoldUntilDelivered:
      p.set_where(Stage::kWaitingPermit, worker);
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

std::string Engine::Impl::never_fits_budget(const Job& job, const PartitionShape& shape, uint64_t params_bytes) const {
  // The set's bytes count even when it is loaded now: it may be evicted and reloaded while the
  // job waits, and a partition plus its parameters must fit together; when the set's host copy
  // leaves once its device holds it (sets_leave_host), the set loads first and the partition
  // after: each must fit, not both together. The resident compiled circuits stay charged beside.
  const uint64_t room = job.urgent ? 0 : urgent_room(), circuits = compiled.bytes();
  const uint64_t peak =
      (sets_leave_host ? std::max(shape.total(), params_bytes) : shape.total() + params_bytes) + circuits;
  if (config.policy != Policy::kBudget || peak + job.input_bytes + room <= budget.total()) return {};
  return "one partition needs " + mib(shape.total()) + " (a/b/c " + mib(shape.abc()) +
         (sets_leave_host ? "), or " : ") plus ") + mib(params_bytes) + " of parameters" +
         (sets_leave_host ? " while they load" : "") +
         (room ? " and the " + mib(room) + " kept for urgent work" : std::string()) +
         (circuits ? " and the " + mib(circuits) + " of compiled circuits" : std::string()) +
         ", more than the whole host-memory budget of " + mib(budget.total()) +
         "; raise the budget or use smaller partitions";
}

bool Engine::Impl::witness_refused(const std::string& param_id) const {
  const auto set = params.peek(param_id);
  if (!set) return false;
  // Before the matrices are placed the plan in force is the set's alone, and may overlay where the
  // plan made around them does not (a 60.8 GB WindowPoSt set on an 80 GB card): only
  // place_matrices can tell then.
  const auto verdict = set->devices_verdict.load();
  if (verdict != ParamSet::Verdict::kAccepted) return verdict == ParamSet::Verdict::kRefused;
  return std::any_of(devices.begin(), devices.end(),
                     [](const auto& d) { return !d->backend->abc_off_device().empty(); });
}

std::string Engine::Impl::never_fits_beside_set(const Partition& p) const {
  if (!sets_leave_host) return {};
  const auto set = params.peek(p.job->param_id);
  if (!set || !set->on_devices) return {};  // not loaded, or not yet placed: its copy may still go
  uint64_t given_back = 0;                  // by every device
  for (auto& d : devices) {
    const uint64_t b = d->backend->released_host_bytes_of(set->params);
    given_back = d == devices.front() ? b : std::min(given_back, b);
  }
  const uint64_t stays = uint64_t(set->host_bytes) - std::min(uint64_t(set->host_bytes), given_back);
  const uint64_t need = p.shape().total();
  if (need + stays + p.job->input_bytes + urgent_room() <= budget.total()) return {};
  return "one partition needs " + mib(need) + " beside the " + mib(stays) + " of parameters '" + set->id +
         "' that stay in host memory (the device could not hold all their bases), more than the host-memory "
         "budget of " +
         mib(budget.total()) + "; raise the budget";
}

bool Engine::Impl::admit_after_set_load(Partition& p, const std::string& worker) {
  const uint64_t need = p.shape().total();
  const uint64_t keep_free = urgent_room();
  const std::string set = p.job->param_id;
  if (auto never = never_fits_beside_set(p); !never.empty()) {
    budget.recheck();  // the partitions waiting for room beside this set find out too
    throw EngineError(EngineError::Code::kFailedPrecondition, never);
  }
  if (budget.try_reserve(need, keep_free)) {
    p.reserved = need;
    return true;
  }
  // Waits without holding the set (the head of the line may need it evicted); the caller
  // acquires it again.
  p.params.reset();
  p.set_where(Stage::kWaitingBudget, worker);
  std::string never_fits;
  auto give_up = [&] { return p.job->stop.load() || stopping.load() || !never_fits.empty(); };
  auto on_pressure = [&]() -> uint64_t {
    params.evict_idle_for(need + keep_free, set);
    trim_backends_if_that_fits(need + keep_free);
    never_fits = never_fits_beside_set(p);
    return 0;
  };
  if (!budget.reserve(need, give_up, on_pressure, keep_free)) {
    if (!never_fits.empty()) throw EngineError(EngineError::Code::kFailedPrecondition, never_fits);
    return false;
  }
  p.reserved = need;
  return true;
}

void Engine::Impl::unadmit(Partition& p) {
  uint64_t reserved = p.reserved.exchange(0);
  give_back_kept_witness(p, &reserved);
  budget.release(reserved);
  if (p.holds_permit) {
    p.holds_permit = false;
    permits.release(1);
  }
}

void Engine::Impl::charge_idle_host_memory(uint64_t* from, uint64_t* to, uint64_t to_most) {
  for (int attempt = 0;; attempt++) {
    {
      std::lock_guard lock(idle_charge_mutex);
      uint64_t idle = 0;
      for_each_backend([&](groth16::ProverBackend& b) { idle += b.idle_host_bytes(); });
      if (idle <= idle_charged) {
        uint64_t gone = idle_charged - idle;
        idle_charged = idle;
        if (to) {  // taken by this partition's preparation: its bytes now
          const uint64_t taken = std::min(gone, to_most);
          *to += taken;
          gone -= taken;
        }
        if (gone) budget.release(gone);
        return;
      }
      uint64_t grown = idle - idle_charged;
      if (from) {  // memory this reservation paid for went idle: the charge moves with it
        const uint64_t moved = std::min(grown, *from);
        *from -= moved;
        idle_charged += moved;
        grown -= moved;
      }
      if (grown == 0 || budget.try_charge(grown, urgent_room())) {
        idle_charged += grown;
        return;
      }
      if (attempt > 1) {  // a backend that cannot trim: the truth is charged
        budget.force_reserve(grown);
        idle_charged += grown;
        spdlog::warn("the backends keep {:.1f} MiB beyond the host-memory budget", double(grown) / (1 << 20));
        return;
      }
    }
    // Beyond the budget: what the backends keep for later partitions goes instead (its unlock
    // may wait for the device; the next partitions make it again).
    for_each_backend([](groth16::ProverBackend& b) { b.trim_host_memory(); });
  }
}

Engine::Impl::BackendParameterBytes Engine::Impl::backend_parameter_bytes() const {
  BackendParameterBytes b;
  for_each_backend([&](const groth16::ProverBackend& backend) {
    b.device += int64_t(backend.resident_bytes());
    b.released += int64_t(backend.released_host_bytes());
  });
  return b;
}

uint64_t Engine::Impl::parameters_host_bytes(const BackendParameterBytes& b) const {
  return uint64_t(std::max<int64_t>(0, params.resident_bytes() - b.released));
}

void Engine::Impl::charge_released_parameters() {
  BackendParameterBytes b;
  {
    std::lock_guard lock(idle_charge_mutex);  // read under it: a stale sum must not undo a newer one
    b = backend_parameter_bytes();
    const auto released = uint64_t(b.released);
    if (released == released_credit) return;
    if (released > released_credit) {
      budget.release(released - released_credit);
    } else {
      budget.force_reserve(released_credit - released);
    }
    released_credit = released;
  }
  tracker.set_parameters_bytes(int64_t(parameters_host_bytes(b)), b.device,
                               "parameters' host copy given back or written back");
}

void Engine::Impl::trim_backends() {
  for_each_backend([](groth16::ProverBackend& b) { b.trim_host_memory(); });
  charge_idle_host_memory();
}

void Engine::Impl::trim_backends_if_that_fits(uint64_t need) {
  uint64_t idle = kept_witnesses.charged();
  {
    std::lock_guard lock(idle_charge_mutex);
    idle += idle_charged;
  }
  const uint64_t used = budget.used();
  if (idle > 0 && used - std::min(used, idle) + need <= budget.total()) {
    trim_backends();
    drop_kept_witnesses();
  }
}

uint64_t Engine::Impl::take_kept_witness(Partition& p) {
  if (!p.witness_only || p.job->urgent || p.kept) return 0;
  auto e = kept_witnesses.take(p.shape().aux);
  if (!e) return 0;
  p.kept.emplace(std::move(e->witness));
  show_kept_witnesses();
  return e->charged;
}

uint64_t Engine::Impl::take_kept_witness_if_that_fits(Partition& p, uint64_t need) {
  const uint64_t taken = take_kept_witness(p);
  if (!p.kept) return 0;
  const uint64_t used = budget.used();
  if (used - std::min(used, taken) + need <= budget.total()) return taken;
  uint64_t charge = taken;
  give_back_kept_witness(p, &charge, /*here=*/false, /*recheck=*/false);  // else on_pressure again at once
  if (charge) budget.release(charge);
  return 0;
}

void Engine::Impl::show_kept_witnesses() {
  std::lock_guard lock(kept_witnesses_shown);  // the last to set it read the pool last
  tracker.set_kept_witness_bytes(int64_t(kept_witnesses.bytes()));
}

void Engine::Impl::keep_witness(r1cs::KeptWitness&& w, uint64_t* reservation, bool here, bool recheck) {
  KeptWitnesses::Entry e{std::move(w), 0};
  const uint64_t charged = e.charged = std::min(e.witness.bytes(), *reservation);
  auto displaced = kept_witnesses.put(std::move(e));  // if it throws, e is freed and its charge stays
  *reservation -= charged;
  if (displaced) free_kept_witness(std::move(*displaced), here);
  show_kept_witnesses();
  if (recheck) budget.recheck();  // the head of the line may take it, or have it dropped, now
}

void Engine::Impl::give_back_kept_witness(Partition& p, uint64_t* reservation, bool here, bool recheck) {
  if (!p.kept) return;
  keep_witness(std::move(*p.kept), reservation, here, recheck);
  p.kept.reset();
}

void Engine::Impl::drop_kept_witnesses(bool here) {
  auto entries = kept_witnesses.take_all();
  if (entries.empty()) return;
  show_kept_witnesses();
  for (auto& e : entries) free_kept_witness(std::move(e), here);
}

void Engine::Impl::free_kept_witness(KeptWitnesses::Entry&& e, bool here) {
  // The task owns the entry alone, so that it is freed before its charge goes back.
  auto free = [this, owned = std::make_shared<KeptWitnesses::Entry>(std::move(e))]() mutable {
    const uint64_t charged = owned->charged;
    owned.reset();  // its lock goes (the unlock may wait for the device), then its memory
    budget.release(charged);
  };
  if (here) return free();
  dealloc->post(std::move(free));
}

void Engine::Impl::retire(std::shared_ptr<Partition> p, bool completed) {
  p->set_where(Stage::kDeallocPending, worker_name(Worker::kDealloc));
  if (p->holds_permit) {
    p->holds_permit = false;
    permits.release(1);
  }
  if (p->in_tracker) {
    move_stage(*p, Stage::kDeallocPending, p->tracked, completed ? nullptr : "dealloc_pending (dropped)");
  }
  dealloc->post([this, p = std::move(p), completed] {
    uint64_t r = p->reserved.exchange(0);  // released last, also when something below throws
    try {
      // A proved witness-only partition's aux memory waits for the next synthesis of its shape.
      std::optional<r1cs::KeptWitness> witness;
      if (completed && p->witness_only && p->assignment && !p->job->urgent && kept_witnesses.capacity()) {
        try {
          witness.emplace(p->assignment->release_witness());
        } catch (const std::exception& e) {  // freed with the assignment instead
          spdlog::warn("partition {}: its witness memory is not kept: {}", p->label, e.what());
        }
      }
      p->assignment.reset();  // the large free, here on the deallocation thread
      p->params.reset();
      // The tracker lets go of the buffers before the budget does: what it counts stays within it.
      if (p->in_tracker) {
        tracker.leave(Stage::kDeallocPending, p->tracked, (completed ? "freed " : "dropped ") + p->label, completed);
        p->in_tracker = false;
      }
      // A dropped partition's compact copies went back to its backend: paid from its reservation.
      if (witness) keep_witness(std::move(*witness), &r, /*here=*/true);
      give_back_kept_witness(*p, &r, /*here=*/true);  // admitted with one, and never synthesized
      charge_idle_host_memory(&r);
    } catch (const std::exception& e) {
      spdlog::error("partition {}: releasing its buffers failed: {}", p->label, e.what());
    }
    try {
      if (r) budget.release(r);
    } catch (const std::exception& e) {
      spdlog::error("partition {}: releasing its reservation failed: {}", p->label, e.what());
    }
    partition_ended(*p);  // always: a job must end
  });
}

void Engine::Impl::partition_ended(Partition& p) {
  Job& job = *p.job;
  bool last_job = false;
  {
    std::lock_guard lock(mutex);
    job.ended_partitions++;
    records.partition_ended(job.seq);
    if (job.ended_partitions < job.proofs.size()) return;
    last_job = std::none_of(jobs.begin(), jobs.end(),
                            [&](const auto& j) { return j.second.get() != &job && !ended(j.second->state); });
  }
  // The engine is about to be idle: what the backends keep for later partitions goes first (the
  // device is idle, so unlocking it stalls no proof; the next job makes it again), so that an
  // idle engine holds nothing but resident parameters.
  if (last_job) {
    trim_backends();
    drop_kept_witnesses(/*here=*/true);  // before the job ends: its caller may find the engine idle
  }
  if (job.input_bytes) {
    tracker.input_leave(int64_t(job.input_bytes), "input " + job.id);
    budget.release(job.input_bytes);
  }
  std::unique_lock lock(mutex);
  const Clock::time_point now = Clock::now();
  job.timings.total = seconds_between(job.submitted, now);
  KindTotals& kind = kind_totals[job.input->kind()];
  if (job.cancel_requested) {
    job.state = JobState::kCancelled;
    jobs_cancelled++;
  } else if (!job.error.empty()) {
    job.state = JobState::kFailed;
    jobs_failed++;
    kind.failed++;
  } else {
    job.state = JobState::kSucceeded;
    jobs_completed++;
    kind.completed++;
    phases[size_t(Phase::kTotal)].observe(job.timings.total);
    kind.seconds.observe(job.timings.total);
  }
  spdlog::info("job {}: {}{}{} in {:.3f} s", job.id, job_state_name(job.state), job.error.empty() ? "" : ": ",
               job.error, job.timings.total);
  std::optional<JobStatus> status = records.ended(job.seq, job.state, job.error, now);
  job_ended.notify_all();
  lock.unlock();
  if (config.on_job_ended && status) config.on_job_ended(*status);
}

}  // namespace cuzk::engine
