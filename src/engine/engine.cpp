#include "engine/engine.hpp"

#include <algorithm>
#include <bit>
#include <filesystem>
#include <spdlog/spdlog.h>

#include "engine/engine_impl.hpp"
#include "engine/host_memory.hpp"
#include "engine/synthetic_input.hpp"

namespace cuzk::engine {
namespace {

constexpr uint64_t kFr = 32;  // bytes of one field element

uint64_t density_bytes(uint64_t bits) { return 8 * std::bit_ceil(std::max<uint64_t>(1, (bits + 63) / 64)); }

unsigned resolve_synthesis_workers(const EngineConfig& c) {
  if (c.synthesis_workers) return c.synthesis_workers;
  // The budget is the real bound on memory; enough workers to overlap synthesis with proving.
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return std::clamp(cores / 4, 2u, 16u);
}

uint64_t resolve_budget(const EngineConfig& c) {
  if (c.budget_bytes) return c.budget_bytes;
  const uint64_t total = host_memory_total();
  if (total <= c.safety_margin_bytes) {
    throw EngineError(EngineError::Code::kFailedPrecondition,
                      "host memory (" + std::to_string(total >> 20) + " MiB) is not above the safety margin (" +
                          std::to_string(c.safety_margin_bytes >> 20) + " MiB): set a budget or a smaller margin");
  }
  return total - c.safety_margin_bytes;
}

}  // namespace

uint64_t PartitionShape::total() const {
  uint64_t t = 0;
  for (int64_t b : bytes) t += uint64_t(b);
  return t;
}

PartitionShape partition_shape(const CircuitShape& c, bool witness_only) {
  PartitionShape s;
  s.domain = std::bit_ceil(std::max<uint64_t>(c.constraints, 2));
  s.inputs = c.inputs;
  s.aux = c.aux;
  s.bytes[size_t(BufferClass::kSynthScratch)] = int64_t(c.scratch_bytes);
  if (witness_only) {
    s.bytes[size_t(BufferClass::kWitness)] = int64_t(kFr * (s.aux + std::bit_ceil(std::max<uint64_t>(s.inputs, 1))));
    return s;
  }
  s.bytes[size_t(BufferClass::kAbc)] = int64_t(3 * kFr * s.domain);
  s.bytes[size_t(BufferClass::kAux)] = int64_t(kFr * s.aux);
  s.bytes[size_t(BufferClass::kInputs)] = int64_t(kFr * std::bit_ceil(std::max<uint64_t>(s.inputs, 1)));
  s.bytes[size_t(BufferClass::kDensities)] = int64_t(2 * density_bytes(s.aux) + density_bytes(s.inputs));
  return s;
}

std::string default_param_id(const CircuitDescription& c) { return ParameterManager::synthetic_id(c); }

const char* job_state_name(JobState s) {
  switch (s) {
    case JobState::kQueued:
      return "queued";
    case JobState::kRunning:
      return "running";
    case JobState::kSucceeded:
      return "succeeded";
    case JobState::kFailed:
      return "failed";
    case JobState::kCancelled:
      return "cancelled";
  }
  return "?";
}

const std::vector<double>& Histogram::bounds() {
  static const std::vector<double> b = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600};
  return b;
}

void Histogram::observe(double seconds) {
  const auto& b = bounds();
  counts[std::lower_bound(b.begin(), b.end(), seconds) - b.begin()]++;
  sum += seconds;
  count++;
}

Engine::Impl::Impl(EngineConfig cfg)
    : config(std::move(cfg)),
      timeline(config.timeline_path.empty() ? nullptr : std::make_unique<Timeline>(config.timeline_path)),
      budget(resolve_budget(config)),
      permits(resolve_synthesis_workers(config)),
      tracker(config.log_events, timeline.get()),
      params(
          config.param_cache_dir, config.allow_synthetic_setup, budget,
          [this](const ParamSet& set) {
            for (auto& d : devices) d->backend->release_parameters(set.params);
            if (urgent_lane) urgent_lane->backend->release_parameters(set.params);
            charge_released_parameters();  // before the manager gives back the set's whole charge
          },
          [this](int64_t host) {
            const auto b = backend_parameter_bytes();
            tracker.set_parameters_bytes(host - b.released, b.device, "parameters resident");
          },
          config.make_parameters, config.parameter_sources),
      compiled(config.compiled_dir.empty() ? std::filesystem::path(config.param_cache_dir) / "compiled"
                                           : std::filesystem::path(config.compiled_dir),
               budget, tracker),
      gpu_queue(config.policy == Policy::kBudget                   ? std::max<size_t>(1, config.gpu_queue_capacity)
                : config.policy == Policy::kChannelCapacityWorkers ? resolve_synthesis_workers(config)
                                                                   : 1),
      dealloc(std::make_unique<Deallocator>()) {
  use_mmap_for_large_buffers();
  budget.set_observer([this](uint64_t total, uint64_t used) { tracker.set_budget(int64_t(total), int64_t(used)); });
  tracker.set_budget(int64_t(budget.total()), 0);
}

Engine::Impl::~Impl() = default;

Engine::Engine(EngineConfig config) {
  try {
    impl_ = std::make_unique<Impl>(std::move(config));
  } catch (const EngineError&) {
    throw;
  } catch (const std::exception& e) {
    throw EngineError(EngineError::Code::kFailedPrecondition, e.what());
  }
  Impl& m = *impl_;
  const auto& c = m.config;
  if (c.max_queued_partitions < c.max_partitions_per_job) {
    throw EngineError(EngineError::Code::kFailedPrecondition,
                      "max_queued_partitions (" + std::to_string(c.max_queued_partitions) +
                          ") is smaller than max_partitions_per_job (" + std::to_string(c.max_partitions_per_job) +
                          "): the largest jobs could never be queued");
  }
  // Devices: the CPU backend acts as one device when there is no GPU (or when asked).
  BackendKind kind = c.backend;
  if (kind == BackendKind::kAuto) kind = groth16::cuda_device_count() > 0 ? BackendKind::kCuda : BackendKind::kCpu;
  try {
    if (c.make_backend) {
      for (unsigned i = 0; i < std::max(c.make_backend_devices, 1u); i++) {
        auto dev = std::make_unique<Device>();
        dev->backend = c.make_backend();
        if (!dev->backend) throw std::runtime_error("make_backend made no backend");
        m.devices.push_back(std::move(dev));
      }
    } else if (kind == BackendKind::kCuda) {
      std::vector<int> ids = c.devices;
      if (ids.empty()) {
        for (int d = 0; d < groth16::cuda_device_count(); d++) ids.push_back(d);
      }
      if (ids.empty()) throw std::runtime_error("backend cuda: no CUDA device is present");
      // The urgent lane first, on the first device: the ordinary backend there plans with the
      // rest of the card.
      uint64_t lane_memory = 0;
      if (c.urgent_lane_memory && !c.make_urgent_backend) {
        lane_memory = c.urgent_lane_memory;
        m.urgent_lane = std::make_unique<Device>();
        m.urgent_lane->backend = groth16::make_cuda_backend(
            ids.front(), {.h_copies = 1, .device_memory_bytes = size_t(lane_memory), .urgent_lane = true});
        uint64_t card = m.urgent_lane->backend->device_info().memory_total;
        if (c.device_memory_limit) card = std::min(card, c.device_memory_limit);
        if (card && lane_memory > card / 4) {
          throw std::runtime_error("urgent_lane_memory (" + mib(lane_memory) + ") is more than a quarter of device " +
                                   std::to_string(ids.front()) + "'s " + mib(card) +
                                   (c.device_memory_limit ? " (device_memory_limit)" : "") +
                                   "; lower it, or 0 for no lane");
        }
      }
      for (int id : ids) {
        auto dev = std::make_unique<Device>();
        // One device only: another device's backend would upload a set from its host copy.
        dev->backend =
            groth16::make_cuda_backend(id, {.h_copies = c.gpu_h_copies,
                                            .device_memory_bytes = size_t(c.device_memory_limit),
                                            .device_memory_reserved = size_t(id == ids.front() ? lane_memory : 0),
                                            .release_host_bases = c.release_host_parameters && ids.size() == 1});
        m.devices.push_back(std::move(dev));
      }
    } else {
      auto dev = std::make_unique<Device>();
      dev->backend = groth16::make_cpu_backend();
      m.devices.push_back(std::move(dev));
    }
    if (c.make_urgent_backend) {
      if (!c.urgent_lane_memory) {
        throw std::runtime_error(
            "make_urgent_backend needs urgent_lane_memory: sets of at most half of it go to "
            "the lane");
      }
      m.urgent_lane = std::make_unique<Device>();
      m.urgent_lane->backend = c.make_urgent_backend();
      if (!m.urgent_lane->backend) throw std::runtime_error("make_urgent_backend made no backend");
    }
  } catch (const std::exception& e) {
    throw EngineError(EngineError::Code::kFailedPrecondition, e.what());
  }
  // Witness-only synthesis where the backends make a/b/c on the device (auto), or as configured.
  bool all_cuda = true;
  for (auto& d : m.devices) all_cuda = all_cuda && d->backend->name().starts_with("cuda");
  m.witness_only =
      c.witness_synthesis == WitnessSynthesis::kOn || (c.witness_synthesis == WitnessSynthesis::kAuto && all_cuda);
  // One device only: another device's backend would upload a set from its host copy.
  m.sets_leave_host =
      c.release_host_parameters && m.devices.size() == 1 && m.devices.front()->backend->gives_back_host_copies();
  m.synthesis_workers = resolve_synthesis_workers(c);
  for (unsigned i = 0; i < m.synthesis_workers; i++) {
    m.threads.emplace_back([&m, i] {
      m.run_synthesis_worker(m.work_queue, std::string(worker_name(Worker::kSynthesis)) + "-" + std::to_string(i),
                             false);
    });
  }
  m.threads.emplace_back([&m] { m.run_synthesis_worker(m.urgent_queue, "urgent-synth", true); });
  for (auto& d : m.devices) {
    for (unsigned w = 0; w < std::max(1u, c.gpu_workers_per_device); w++, m.gpu_workers++) {
      m.threads.emplace_back([&m, dev = d.get(), w] { m.run_gpu_worker(*dev, w, m.gpu_queue); });
    }
  }
  if (m.urgent_lane) {
    m.threads.emplace_back([&m] { m.run_gpu_worker(*m.urgent_lane, 0, m.urgent_gpu_queue); });
    m.gpu_workers++;
    spdlog::info("engine: urgent partitions are proved on {} (its own lane of the card)",
                 m.urgent_lane->backend->name());
  }
  for (unsigned i = 0; i < std::max(1u, c.finalizer_threads); i++)
    m.threads.emplace_back([&m, i] { m.run_finalizer_worker(i); });
  // The backends' page-locked bytes, for every tracker event and snapshot (atomic reads). Set
  // last, and cleared by ~Engine, so that it never reads devices that are gone.
  m.tracker.set_pinned_probe([&m] {
    BufferTracker::PinnedBytes p;
    m.for_each_backend([&p](const groth16::ProverBackend& b) {
      p.staging += int64_t(b.staging_bytes());
      p.abc += int64_t(b.pinned_abc_bytes());
      p.abc_kept += int64_t(b.idle_host_bytes());
    });
    return p;
  });
  std::string names;
  for (auto& d : m.devices) names += (names.empty() ? "" : ",") + d->backend->name();
  spdlog::info(
      "engine: backend {}, policy {}, budget {}, {} synthesis workers (+1 urgent, priority >= {}, admitted {}{}), {} "
      "GPU workers, {} finalizers, {} synthesis",
      names, policy_name(c.policy), mib(m.budget.total()), m.synthesis_workers, c.urgent_priority,
      urgent_admission_name(c.urgent_admission),
      c.urgent_admission == UrgentAdmission::kReserve ? " " + mib(c.urgent_reserve_bytes) : std::string(),
      m.gpu_workers, std::max(1u, c.finalizer_threads), m.witness_only ? "witness-only" : "full");
}

Engine::~Engine() {
  if (!impl_) return;
  shutdown(true);
  impl_->tracker.set_pinned_probe(nullptr);
}

const EngineConfig& Engine::config() const { return impl_->config; }

std::string Engine::submit(JobRequest request) {
  Impl& m = *impl_;
  using Code = EngineError::Code;
  std::shared_ptr<const ProofInput> input = request.input;
  if (!input) {
    if (request.partitions.size() > m.config.max_partitions_per_job) {
      throw EngineError(Code::kInvalidArgument, "the job has " + std::to_string(request.partitions.size()) +
                                                    " partitions, more than the limit of " +
                                                    std::to_string(m.config.max_partitions_per_job));
    }
    input = make_synthetic_input(request.partitions);
  }
  const size_t partition_count = input->partitions();
  if (partition_count == 0) throw EngineError(Code::kInvalidArgument, "the job has no partitions");
  if (partition_count > m.config.max_partitions_per_job) {
    throw EngineError(Code::kInvalidArgument,
                      "the job has " + std::to_string(partition_count) + " partitions, more than the limit of " +
                          std::to_string(m.config.max_partitions_per_job) + " (engine.max_partitions_per_job)");
  }
  const std::string expected_id = input->param_id();
  if (request.param_id.empty()) request.param_id = expected_id;
  if (request.param_id != expected_id) {
    throw EngineError(Code::kInvalidArgument,
                      "parameter id '" + request.param_id + "' does not match the circuit (" + expected_id + ")");
  }
  if (!request.request_id.empty() && !ParameterManager::valid_id(request.request_id)) {
    throw EngineError(Code::kInvalidArgument,
                      "request id '" + request.request_id + "' must be 1-200 letters, digits, '.', '_' or '-'");
  }

  auto job = std::make_shared<Job>();
  const CircuitShape circuit = input->shape();
  job->witness_only =
      m.witness_only && !m.witness_refused(request.param_id) && m.compiled.uncompilable(request.param_id).empty();
  job->shape = partition_shape(circuit, job->witness_only);
  job->full_shape = partition_shape(circuit);
  job->input = input;
  job->input_bytes = input->input_bytes();
  job->urgent = request.priority >= m.config.urgent_priority;
  // A partition that can never fit is rejected now rather than waiting forever.
  const std::string never =
      m.never_fits_budget(*job, job->shape, uint64_t(m.params.expected_bytes(request.param_id).value_or(0)));
  if (!never.empty()) throw EngineError(Code::kFailedPrecondition, never);

  {
    std::lock_guard lock(m.mutex);
    if (!m.accepting) throw EngineError(Code::kUnavailable, "the engine is shutting down");
    const size_t queued = m.work_queue.size() + m.urgent_queue.size();
    if (queued + partition_count > m.config.max_queued_partitions) {
      throw EngineError(Code::kResourceExhausted,
                        "the queue is full (" + std::to_string(queued) + " partitions waiting, limit " +
                            std::to_string(m.config.max_queued_partitions) + "); retry later");
    }
    job->seq = m.next_seq++;
    job->id = request.request_id.empty() ? "job-" + std::to_string(job->seq) : request.request_id;
    if (m.jobs.count(job->id))
      throw EngineError(Code::kAlreadyExists, "request id '" + job->id + "' is already in use");
    job->param_id = request.param_id;
    job->request = std::move(request);
    job->submitted = Clock::now();
    job->proofs.resize(partition_count);
    m.jobs[job->id] = job;
    // The parsed input lives with the job: charged (not enforced: it is already in memory) until
    // the job ends.
    if (job->input_bytes) {
      m.budget.force_reserve(job->input_bytes);
      m.tracker.input_enter(int64_t(job->input_bytes), "input " + job->id);
    }
    std::erase_if(m.live, [](const std::weak_ptr<Partition>& w) { return w.expired(); });
    // Before any worker can take a partition and record its spans.
    m.records.submitted(job->seq, job->id, input->kind(), input->describe(), job->request.priority,
                        uint32_t(partition_count), job->submitted);
    for (uint32_t i = 0; i < partition_count; i++) {
      auto p = std::make_shared<Partition>();
      p->job = job;
      p->index = i;
      p->key = {job->request.priority, job->seq, i};
      p->label = job->id + "/" + std::to_string(i);
      p->queued_at = job->submitted;
      m.live.push_back(p);
      // Under the engine's lock, so the queue limit above holds for concurrent submits.
      (job->urgent ? m.urgent_queue : m.work_queue).push_unbounded(p->key, p);
    }
  }
  spdlog::info("job {}: queued, {}: {} partition(s) of {} constraints, priority {}, parameters {}{}", job->id,
               input->kind(), partition_count, circuit.constraints, job->request.priority, job->param_id,
               m.witness_only && !job->witness_only
                   ? ", by full synthesis (the devices refused the witness path, or its circuit cannot be compiled)"
                   : "");
  return job->id;
}

namespace {

JobResult result_of(const Job& job) {
  JobResult r;
  r.request_id = job.id;
  r.state = job.state;
  r.error = job.error;
  r.timings = job.timings;
  r.verified = job.state == JobState::kSucceeded && job.all_verified;
  if (job.state == JobState::kSucceeded) {
    for (const auto& p : job.proofs) r.proof.insert(r.proof.end(), p.begin(), p.end());
  }
  return r;
}

}  // namespace

std::optional<JobResult> Engine::await(const std::string& request_id, std::chrono::milliseconds timeout) {
  Impl& m = *impl_;
  std::unique_lock lock(m.mutex);
  auto it = m.jobs.find(request_id);
  if (it == m.jobs.end())
    throw EngineError(EngineError::Code::kNotFound, "no job with request id '" + request_id + "'");
  auto job = it->second;
  if (!m.job_ended.wait_for(lock, timeout, [&] { return ended(job->state); })) return std::nullopt;
  return result_of(*job);
}

JobResult Engine::peek(const std::string& request_id) const {
  Impl& m = *impl_;
  std::lock_guard lock(m.mutex);
  auto it = m.jobs.find(request_id);
  if (it == m.jobs.end())
    throw EngineError(EngineError::Code::kNotFound, "no job with request id '" + request_id + "'");
  return result_of(*it->second);
}

bool Engine::cancel(const std::string& request_id) {
  Impl& m = *impl_;
  std::shared_ptr<Job> job;
  {
    std::lock_guard lock(m.mutex);
    auto it = m.jobs.find(request_id);
    if (it == m.jobs.end())
      throw EngineError(EngineError::Code::kNotFound, "no job with request id '" + request_id + "'");
    job = it->second;
    if (ended(job->state)) return false;
  }
  return m.stop_job(*job, "cancelled by request", true);
}

void Engine::forget(const std::string& request_id) {
  Impl& m = *impl_;
  std::lock_guard lock(m.mutex);
  auto it = m.jobs.find(request_id);
  if (it != m.jobs.end() && ended(it->second->state)) m.jobs.erase(it);
}

void Engine::preload_params(const std::string& param_id) {
  if (!ParameterManager::valid_id(param_id)) {
    throw EngineError(EngineError::Code::kInvalidArgument, "invalid parameter id '" + param_id + "'");
  }
  Impl& m = *impl_;
  const uint64_t room = m.urgent_room();
  if (!m.params.resident(param_id)) {
    // A synthetic id must describe a circuit submit() would accept, and no set may be loaded
    // (or set up) that the budget cannot hold: a preload is not a way around the budget.
    if (const auto c = ParameterManager::parse_synthetic_id(param_id)) check_synthetic_circuit(*c);
    const auto need = m.params.expected_bytes(param_id);
    if (need && uint64_t(*need) + m.parameters_host_bytes() + room > m.budget.total()) {
      m.params.evict_idle_for(uint64_t(*need) + room);
      if (uint64_t(*need) + m.parameters_host_bytes() + room > m.budget.total()) {
        throw EngineError(EngineError::Code::kFailedPrecondition,
                          "parameters '" + param_id + "' need " + mib(uint64_t(*need)) + ", more than the " +
                              mib(m.budget.total() - std::min(m.budget.total(), m.parameters_host_bytes() + room)) +
                              " of the host-memory budget left beside the resident sets in use" +
                              (room ? " and the room kept for urgent work" : ""));
      }
    }
  }
  std::shared_ptr<const ParamSet> set;
  try {
    // Under the budget policy the set's bytes wait for room in the budget's line, as a partition's
    // do (a partition that needs the set may be paying for it already: then nothing more).
    const bool within_budget = m.config.policy == Policy::kBudget;
    auto give_up = [&m] { return m.stopping.load(); };
    const EngineError stopping(EngineError::Code::kUnavailable, "the engine is shutting down");
    while (!set) {
      if (within_budget) {
        const auto load = m.params.claim_load(param_id, give_up);
        if (!load) throw stopping;
        if (*load) {
          auto on_pressure = [&]() -> uint64_t {
            m.params.evict_idle_for(*load + room, param_id);
            m.trim_backends_if_that_fits(*load + room);
            return 0;
          };
          if (!m.budget.reserve(*load, give_up, on_pressure, room)) {
            m.params.unclaim(param_id);
            throw stopping;
          }
          m.params.load_paid(param_id, *load);
        }
      }
      set = m.params.acquire(param_id, within_budget);  // nullptr: evicted meanwhile, again
    }
  } catch (const EngineError&) {
    throw;
  } catch (const ParametersNotFound& e) {
    throw EngineError(EngineError::Code::kNotFound, e.what());
  } catch (const std::exception& e) {
    throw EngineError(EngineError::Code::kFailedPrecondition, e.what());
  }
  // Each device gets the set ready too (the CUDA backend pins it and uploads its bases), so
  // the first proof does not pay for it.
  try {
    m.load_on_devices(*set);
  } catch (const std::exception& e) {
    throw EngineError(EngineError::Code::kFailedPrecondition, e.what());
  }
}

void Engine::Impl::load_on_devices(const ParamSet& set) {
  for (auto& d : devices) {
    try {
      std::unique_lock serial(d->serial, std::defer_lock);
      if (!d->backend->concurrent()) serial.lock();
      d->backend->load_parameters(set.params);
      charge_released_parameters();
    } catch (const std::exception& e) {
      throw std::runtime_error("parameters '" + set.id + "' could not be loaded on " + d->backend->name() + ": " +
                               e.what());
    }
  }
  set.on_devices = true;
  // The partitions waiting for room beside the set look again at what stays of its host copy
  // (never_fits_beside_set): placing it may not have changed the budget.
  budget.recheck();
}

bool Engine::Impl::place_on_urgent_lane(const ParamSet& set) {
  if (set.on_urgent_lane) return true;
  if (set.off_urgent_lane) return false;
  // The lane holds small sets (a 32 GiB WinningPoSt's is 0.18 GiB) beside one proof's buffers.
  if (uint64_t(set.host_bytes) > config.urgent_lane_memory / 2) {
    spdlog::info("parameters '{}' ({}) are proved on the devices, not on the urgent lane ({})", set.id,
                 mib(uint64_t(set.host_bytes)), mib(config.urgent_lane_memory));
    set.off_urgent_lane = true;
    return false;
  }
  try {
    for (auto& d : devices) d->backend->keep_host_copy(set.params);
    charge_released_parameters();  // a copy written back is charged again
    std::unique_lock serial(urgent_lane->serial, std::defer_lock);
    if (!urgent_lane->backend->concurrent()) serial.lock();
    urgent_lane->backend->load_parameters(set.params);
  } catch (const std::exception& e) {
    spdlog::warn("parameters '{}' could not be loaded on {} ({}): their urgent partitions are proved on the devices",
                 set.id, urgent_lane->backend->name(), e.what());
    // What the lane placed of it goes, and the devices may give its host copy back again.
    try {
      urgent_lane->backend->release_parameters(set.params);
    } catch (const std::exception& f) {
      spdlog::warn("parameters '{}': {} could not release them: {}", set.id, urgent_lane->backend->name(), f.what());
    }
    for (auto& d : devices) d->backend->let_host_copy_go(set.params);
    set.off_urgent_lane = true;
    return false;
  }
  set.on_urgent_lane = true;
  return true;
}

bool Engine::evict_params(const std::string& param_id) {
  try {
    return impl_->params.evict(param_id);
  } catch (const std::logic_error& e) {
    throw EngineError(EngineError::Code::kFailedPrecondition, e.what());
  }
}

void Engine::shutdown(bool cancel_in_flight) {
  Impl& m = *impl_;
  auto unfinished = [&m] {
    std::vector<std::shared_ptr<Job>> out;
    std::lock_guard lock(m.mutex);
    m.accepting = false;
    for (auto& [id, job] : m.jobs) {
      if (!ended(job->state)) out.push_back(job);
    }
    return out;
  };
  // Cancelling needs no turn: a second, impatient caller makes the first one's wait short.
  if (cancel_in_flight) {
    for (auto& job : unfinished()) m.stop_job(*job, "cancelled: the engine is shutting down", true);
  }
  std::lock_guard turn(m.shutdown_mutex);
  if (m.stopped) return;
  const auto running = unfinished();
  {
    std::unique_lock lock(m.mutex);
    m.job_ended.wait(lock, [&] {
      return std::all_of(running.begin(), running.end(), [](const auto& j) { return ended(j->state); });
    });
  }
  m.stopping = true;
  m.work_queue.close();
  m.urgent_queue.close();
  m.gpu_queue.close();
  m.urgent_gpu_queue.close();
  m.finalize_queue.close();
  m.budget.wake_all();
  m.permits.wake_all();
  m.params.wake_waiters();
  for (auto& t : m.threads) t.join();
  m.threads.clear();
  m.dealloc->drain();
  m.stopped = true;
  spdlog::info("engine: stopped");
}

bool Engine::Impl::stop_job(Job& job, const std::string& error, bool cancelled) {
  {
    std::lock_guard lock(mutex);
    if (ended(job.state) || job.stop) return false;  // ended, or already stopped by an error
    job.error = error;
    job.cancel_requested = cancelled;
    job.stop = true;
  }
  auto mine = [&job](const Partition& p) { return p.job.get() == &job; };
  for (auto& p : work_queue.remove_if(mine)) retire(p, false);
  for (auto& p : urgent_queue.remove_if(mine)) retire(p, false);
  for (auto& p : gpu_queue.remove_if(mine)) retire(p, false);
  for (auto& p : urgent_gpu_queue.remove_if(mine)) retire(p, false);
  for (auto& p : finalize_queue.remove_if(mine)) retire(p, false);
  budget.wake_all();
  permits.wake_all();
  params.wake_waiters();
  return true;
}

void Engine::Impl::fail(std::shared_ptr<Partition> p, const char* what_failed, const std::string& what) {
  spdlog::error("partition {}: {} failed: {}", p->label, what_failed, what);
  if (p->assignment) p->assignment->set_abc_sink(nullptr);
  stop_job(*p->job, "partition " + std::to_string(p->index) + ": " + what_failed + " failed: " + what, false);
  retire(std::move(p), false);
}

void Engine::Impl::move_stage(Partition& p, Stage to, const BufferBytes& bytes, const char* event) {
  const std::string what = std::string(event ? event : stage_name(to)) + " " + p.label;
  if (p.in_tracker) {
    tracker.move(p.stage, to, p.tracked, bytes, what);
  } else {
    tracker.enter(to, bytes, what);
    p.in_tracker = true;
  }
  p.stage = to;
  p.tracked = bytes;
}

namespace {

// The job's own sum of a phase (JobTimings), nullptr for kTotal (set once, at the job's end).
double* job_timing(JobTimings& t, Phase phase) {
  switch (phase) {
    case Phase::kQueueWait:
      return &t.queue_wait;
    case Phase::kParamLoad:
      return &t.param_load;
    case Phase::kSynthesis:
      return &t.synthesis;
    case Phase::kGpu:
      return &t.gpu;
    case Phase::kFinalize:
      return &t.finalize;
    case Phase::kVerify:
      return &t.verify;
    case Phase::kTotal:
    case Phase::kNone:
      break;
  }
  return nullptr;
}

}  // namespace

void Engine::Impl::observe_stage(Stage s, const std::string& worker, const Partition& p, Clock::time_point a,
                                 Clock::time_point b, const std::vector<std::pair<std::string, double>>& args) {
  const StageInfo& info = stage_info(s);
  const double seconds = seconds_between(a, b);
  if (info.phase != Phase::kNone) {
    std::lock_guard lock(mutex);
    phases[size_t(info.phase)].observe(seconds);
    if (double* t = job_timing(p.job->timings, info.phase)) *t += seconds;
  }
  if (timeline && *info.span) timeline->span(worker, std::string(info.span) + " " + p.label, a, b, args);
  records.span(p.job->seq, p.index, s, worker, a, b);
}

std::optional<std::string> Engine::job_trace(const std::string& request_id) const {
  return impl_->records.chrome_trace(request_id);
}

std::string Engine::device_names() const {
  std::string names;
  for (auto& d : impl_->devices) {
    if (!names.empty()) names += ',';
    names += d->backend->name();
  }
  return names;
}

}  // namespace cuzk::engine
