// Engine::snapshot(): what the status document, the metrics and GetStatus report, read from the
// engine's parts without holding any of them while another is asked.
#include <algorithm>
#include <map>

#include "engine/engine_impl.hpp"

namespace cuzk::engine {

EngineSnapshot Engine::snapshot() const {
  const Impl& m = *impl_;
  EngineSnapshot s;
  s.backend = device_names();
  s.policy = std::string(policy_name(m.config.policy));
  s.synthesis_workers = m.synthesis_workers;
  s.gpu_workers = m.gpu_workers;
  s.finalizer_threads = std::max(1u, m.config.finalizer_threads);
  s.queued_partitions = m.work_queue.size() + m.urgent_queue.size();
  s.gpu_queue_depth = m.gpu_queue.size() + m.urgent_gpu_queue.size();
  s.buffers = m.tracker.snapshot();
  const auto backend_bytes = m.backend_parameter_bytes();
  const int64_t device_bytes = backend_bytes.device;
  s.buffers.parameters_device_bytes = device_bytes;
  s.buffers.parameters_released_bytes = backend_bytes.released;
  // The backends count device bytes per device, not per set; a set's are known when it is the
  // only one resident (every device copy is released before its host set is evicted).
  const auto sets = m.params.list();
  for (const auto& info : sets) {
    ParamStatus ps{info.id, info.host_bytes, std::nullopt, info.in_use};
    if (sets.size() == 1) ps.device_bytes = device_bytes;
    s.params.push_back(std::move(ps));
  }
  s.gpu_busy_seconds = double(m.gpu_busy_micros.load()) / 1e6;
  s.param_files_refused = m.params.refused_loads();
  s.uptime_seconds = seconds_between(m.started, Clock::now());
  // The devices' own state first: device_info() asks the driver, which may wait behind a page
  // lock or an unlock beside a proof, and the workers must not wait for it on the engine's lock.
  std::vector<groth16::DeviceInfo> device_infos;
  for (const auto& d : m.devices) device_infos.push_back(d->backend->device_info());
  std::lock_guard lock(m.mutex);
  for (const auto& [id, job] : m.jobs) s.jobs_active += !ended(job->state);
  s.job_list = m.records.list();  // its lock is taken last (job_records.hpp): safe under this one
  s.jobs_completed = m.jobs_completed;
  s.jobs_failed = m.jobs_failed;
  s.jobs_cancelled = m.jobs_cancelled;
  s.partitions_proved = m.partitions_proved;
  for (size_t i = 0; i < kPhaseCount; i++) s.phase_seconds.emplace_back(phase_name(Phase(i)), m.phases[i]);
  for (const auto& [kind, totals] : m.kind_totals) {
    s.kind_totals.push_back(totals);
    s.kind_totals.back().kind = kind;
  }
  for (const auto& w : m.live) {
    auto p = w.lock();
    if (!p) continue;
    std::lock_guard wl(p->where_mutex);
    s.partitions.push_back({p->job->id, p->job->input->kind(), p->index, stage_name(p->where), p->worker});
  }
  for (auto& ps : s.params) {
    for (const auto& [id, job] : m.jobs) ps.jobs += !ended(job->state) && job->param_id == ps.param_id;
  }
  // Jobs per kind: pending until one of their partitions is admitted.
  std::map<std::string, KindQueue> kinds;
  for (const auto& [id, job] : m.jobs) {
    if (ended(job->state)) continue;
    KindQueue& q = kinds[job->input->kind()];
    q.kind = job->input->kind();
    (job->state == JobState::kQueued ? q.pending : q.in_progress)++;
  }
  for (auto& [kind, q] : kinds) s.kinds.push_back(q);
  // The devices and what each proves now (a partition whose worker is one of the device's).
  for (size_t i = 0; i < m.devices.size(); i++) {
    const auto& d = m.devices[i];
    const groth16::DeviceInfo& info = device_infos[i];
    DeviceStatus ds{info.ordinal, info.name,        info.memory_total,      info.memory_free,  {},
                    {},           info.memory_plan, info.memory_plan_bytes, d->busy.seconds(), {}};
    auto on = [&](const Device& device, std::string& job, std::string& kind) {
      const std::string prefix = gpu_worker_prefix(*device.backend, &device == m.urgent_lane.get());
      for (const auto& ps : s.partitions) {
        if (ps.worker.rfind(prefix, 0) == 0 &&
            ps.worker.find_first_not_of("0123456789", prefix.size()) == std::string::npos) {
          job = ps.request_id;
          kind = ps.kind;
          return;
        }
      }
    };
    on(*d, ds.current_job, ds.current_kind);
    if (i == 0 && m.urgent_lane) {
      DeviceStatus::UrgentLane lane{m.urgent_lane->busy.seconds(), {}, {}};
      on(*m.urgent_lane, lane.current_job, lane.current_kind);
      ds.urgent_lane = std::move(lane);
    }
    s.devices.push_back(std::move(ds));
  }
  return s;
}

}  // namespace cuzk::engine
