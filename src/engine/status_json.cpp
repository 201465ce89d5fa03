// The status document (GET /status on the daemon, `cuzk status --json`).
#include <map>
#include <nlohmann/json.hpp>

#include "engine/engine.hpp"

namespace cuzk::engine {

std::string snapshot_to_json(const EngineSnapshot& s) {
  using nlohmann::json;
  const auto& b = s.buffers;
  json stages = json::object();
  for (size_t i = 0; i < kTrackedStageCount; i++) {
    json classes = json::object();
    for (size_t c = 0; c < kBufferClassCount; c++) classes[buffer_class_name(BufferClass(c))] = b.stages[i].bytes[c];
    stages[stage_name(Stage(i))] = {
        {"partitions", b.stages[i].partitions}, {"bytes", classes}, {"total_bytes", b.stages[i].total_bytes()}};
  }
  json partitions = json::array();
  for (const auto& p : s.partitions) {
    partitions.push_back({{"request_id", p.request_id},
                          {"kind", p.kind},
                          {"partition", p.partition},
                          {"stage", p.stage},
                          {"worker", p.worker}});
  }
  // Per job: its partitions not yet done by stage (from the partitions above).
  std::map<std::string, json> job_stages;
  for (const auto& p : s.partitions) {
    json& stages_of = job_stages[p.request_id];
    if (stages_of.is_null()) stages_of = json::object();
    stages_of[p.stage] = stages_of.value(p.stage, 0) + 1;
  }
  json job_list = json::array();
  for (const auto& j : s.job_list) {
    const bool ended =
        j.state == JobState::kSucceeded || j.state == JobState::kFailed || j.state == JobState::kCancelled;
    auto st = job_stages.find(j.request_id);
    job_list.push_back({{"request_id", j.request_id},
                        {"kind", j.kind},
                        {"what", j.what},
                        {"priority", j.priority},
                        {"state", job_state_name(j.state)},
                        {"partitions", j.partitions},
                        {"partitions_ended", j.partitions_ended},
                        {"stages", !ended && st != job_stages.end() ? st->second : json::object()},
                        {"submitted_unix_ms", j.submitted_unix_ms},
                        {"elapsed_seconds", j.elapsed_seconds},
                        {"expected_seconds", j.expected_seconds ? json(*j.expected_seconds) : json(nullptr)},
                        {"error", j.error}});
  }
  json kinds = json::array();
  for (const auto& k : s.kinds)
    kinds.push_back({{"kind", k.kind}, {"pending", k.pending}, {"in_progress", k.in_progress}});
  json devices = json::array();
  for (const auto& d : s.devices) {
    json plan = json::object();
    for (const auto& [use, bytes] : d.memory_plan_bytes) plan[use] = bytes;
    devices.push_back({{"ordinal", d.ordinal},
                       {"name", d.name},
                       {"memory_total_bytes", d.memory_total},
                       {"memory_free_bytes", d.memory_free},
                       {"current_job", d.current_job},
                       {"current_kind", d.current_kind},
                       {"busy_seconds", d.busy_seconds},
                       {"memory_plan", d.memory_plan},
                       {"memory_plan_bytes", plan}});
    if (d.urgent_lane) {
      devices.back()["urgent_lane"] = {{"busy_seconds", d.urgent_lane->busy_seconds},
                                       {"current_job", d.urgent_lane->current_job},
                                       {"current_kind", d.urgent_lane->current_kind}};
    }
  }
  json params = json::array();
  for (const auto& p : s.params) {
    params.push_back({{"param_id", p.param_id},
                      {"host_bytes", p.host_bytes},
                      {"device_bytes", p.device_bytes ? json(*p.device_bytes) : json(nullptr)},
                      {"in_use", p.in_use},
                      {"jobs", p.jobs}});
  }
  json phases = json::object();
  for (const auto& [name, h] : s.phase_seconds) phases[name] = {{"count", h.count}, {"sum_seconds", h.sum}};
  json doc = {
      {"backend", s.backend},
      {"policy", s.policy},
      {"uptime_seconds", s.uptime_seconds},
      {"workers", {{"synthesis", s.synthesis_workers}, {"gpu", s.gpu_workers}, {"finalizer", s.finalizer_threads}}},
      {"budget",
       {{"total_bytes", b.budget_total},
        {"used_bytes", b.budget_used},
        {"free_bytes", b.budget_total - b.budget_used},
        {"peak_used_bytes", b.peak_budget_used}}},
      {"queue", {{"queued_partitions", s.queued_partitions}, {"gpu_queue_depth", s.gpu_queue_depth}}},
      {"jobs",
       {{"active", s.jobs_active},
        {"completed", s.jobs_completed},
        {"failed", s.jobs_failed},
        {"cancelled", s.jobs_cancelled},
        {"partitions_proved", s.partitions_proved}}},
      {"buffers",
       {{"stages", stages},
        {"done_partitions", b.done_partitions},
        {"input_jobs", b.input_jobs},
        {"input_bytes", b.input_bytes},
        {"tracked_bytes", b.tracked_bytes()},
        {"peak_tracked_bytes", b.peak_tracked_bytes},
        {"parameters_host_bytes", b.parameters_host_bytes},
        {"compiled_circuit_bytes", b.compiled_circuit_bytes},
        {"parameters_device_bytes", b.parameters_device_bytes},
        {"parameters_released_bytes", b.parameters_released_bytes},
        {"pinned_pool_bytes", b.pinned_pool_bytes},
        {"abc_pinned_bytes", b.abc_pinned_bytes},
        {"abc_kept_bytes", b.abc_kept_bytes},
        {"witness_kept_bytes", b.witness_kept_bytes},
        {"rss_bytes", b.rss_bytes},
        {"peak_rss_bytes", b.peak_rss_bytes},
        {"idle", b.idle()}}},
      {"partitions", partitions},
      {"job_list", job_list},
      {"kinds", kinds},
      {"devices", devices},
      {"params", params},
      {"phases", phases},
      {"gpu_busy_seconds", s.gpu_busy_seconds},
  };
  // An error message may quote bytes that are not UTF-8: replaced, never a failed document.
  return doc.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace cuzk::engine
