#include "server/metrics.hpp"

#include <cmath>
#include <fmt/format.h>

namespace cuzk::server {

std::string escape_label_value(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

// Writes one metric family: HELP and TYPE once, then its samples.
class Writer {
 public:
  void family(std::string_view name, std::string_view type, std::string_view help) {
    fmt::format_to(std::back_inserter(out_), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  }
  void sample(std::string_view name, std::string_view labels, double value) {
    std::string v;
    if (std::isinf(value)) {
      v = value > 0 ? "+Inf" : "-Inf";
    } else if (value == std::floor(value) && std::fabs(value) < 1e15) {
      v = fmt::format("{}", int64_t(value));
    } else {
      v = fmt::format("{}", value);
    }
    if (labels.empty()) {
      fmt::format_to(std::back_inserter(out_), "{} {}\n", name, v);
    } else {
      fmt::format_to(std::back_inserter(out_), "{}{{{}}} {}\n", name, labels, v);
    }
  }
  void gauge(std::string_view name, std::string_view help, double value) {
    family(name, "gauge", help);
    sample(name, "", value);
  }
  void counter(std::string_view name, std::string_view help, double value) {
    family(name, "counter", help);
    sample(name, "", value);
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

std::string label(std::string_view k, std::string_view v) { return fmt::format("{}=\"{}\"", k, escape_label_value(v)); }

}  // namespace

std::string render_prometheus(const engine::EngineSnapshot& s, const DaemonMetrics& d) {
  Writer w;
  w.family("cuzk_info", "gauge", "Backend and admission policy of this daemon (value is always 1).");
  w.sample("cuzk_info", label("backend", s.backend) + "," + label("policy", s.policy), 1);
  w.gauge("cuzk_uptime_seconds", "Seconds since the engine started.", s.uptime_seconds);
  w.gauge("cuzk_draining", "1 while the daemon is shutting down and refuses new proofs.", d.draining ? 1 : 0);

  w.family("cuzk_workers", "gauge", "Worker threads by kind.");
  w.sample("cuzk_workers", label("kind", "synthesis"), s.synthesis_workers);
  w.sample("cuzk_workers", label("kind", "gpu"), s.gpu_workers);
  w.sample("cuzk_workers", label("kind", "finalizer"), s.finalizer_threads);

  w.counter("cuzk_proofs_completed_total", "Proofs (jobs) that succeeded.", double(s.jobs_completed));
  w.counter("cuzk_proofs_failed_total", "Proofs (jobs) that failed.", double(s.jobs_failed));
  w.counter("cuzk_proofs_cancelled_total", "Proofs (jobs) that were cancelled.", double(s.jobs_cancelled));
  w.counter("cuzk_partitions_proved_total", "Partition proofs made.", double(s.partitions_proved));
  w.gauge("cuzk_jobs_active", "Jobs queued or running in the engine.", double(s.jobs_active));
  w.gauge("cuzk_jobs_tracked", "Jobs accepted by the daemon whose result has not been delivered.",
          double(d.jobs_tracked));
  w.family("cuzk_kind_jobs", "gauge",
           "Jobs not yet ended per proof kind: pending (no partition started) and in_progress (Curio's queues).");
  for (const engine::KindQueue& k : s.kinds) {
    w.sample("cuzk_kind_jobs", label("kind", k.kind) + "," + label("state", "pending"), k.pending);
    w.sample("cuzk_kind_jobs", label("kind", k.kind) + "," + label("state", "in_progress"), k.in_progress);
  }
  w.gauge("cuzk_queue_depth_partitions", "Partitions waiting for admission (budget).", double(s.queued_partitions));
  w.gauge("cuzk_gpu_queue_depth_partitions", "Synthesized partitions waiting for a GPU worker.",
          double(s.gpu_queue_depth));
  w.counter("cuzk_gpu_busy_seconds_total", "GPU worker busy time, summed over workers.", s.gpu_busy_seconds);

  // Engine histograms count per bucket; Prometheus buckets are cumulative and end with +Inf.
  w.family("cuzk_phase_duration_seconds", "histogram",
           "Seconds spent in each proving phase: per partition, except total (per job, submission to end).");
  const std::vector<double>& bounds = engine::Histogram::bounds();
  for (const auto& [phase, h] : s.phase_seconds) {
    uint64_t cumulative = 0;
    for (size_t i = 0; i < h.counts.size(); ++i) {
      cumulative += h.counts[i];
      std::string le = i < bounds.size() ? fmt::format("{}", bounds[i]) : "+Inf";
      w.sample("cuzk_phase_duration_seconds_bucket", label("phase", phase) + "," + label("le", le), double(cumulative));
    }
    w.sample("cuzk_phase_duration_seconds_sum", label("phase", phase), h.sum);
    w.sample("cuzk_phase_duration_seconds_count", label("phase", phase), double(h.count));
  }

  const engine::TrackerSnapshot& b = s.buffers;
  w.gauge("cuzk_budget_total_bytes", "Host-memory budget for partition buffers.", double(b.budget_total));
  w.gauge("cuzk_budget_used_bytes", "Bytes of the budget reserved now.", double(b.budget_used));
  w.gauge("cuzk_budget_free_bytes", "Bytes of the budget not reserved.", double(b.budget_total - b.budget_used));
  w.gauge("cuzk_budget_used_peak_bytes", "Highest reservation since start.", double(b.peak_budget_used));

  w.family("cuzk_stage_partitions", "gauge", "Partitions in each pipeline stage (buffer tracker).");
  for (size_t st = 0; st < engine::kStageCount; ++st) {
    w.sample("cuzk_stage_partitions", label("stage", engine::stage_name(engine::Stage(st))),
             double(b.stages[st].partitions));
  }
  w.family("cuzk_stage_buffer_bytes", "gauge", "Bytes of each large buffer class held in each pipeline stage.");
  for (size_t st = 0; st < engine::kStageCount; ++st) {
    for (size_t c = 0; c < engine::kBufferClassCount; ++c) {
      w.sample("cuzk_stage_buffer_bytes",
               label("stage", engine::stage_name(engine::Stage(st))) + "," +
                   label("class", engine::buffer_class_name(engine::BufferClass(c))),
               double(b.stages[st].bytes[c]));
    }
  }
  w.gauge("cuzk_tracked_bytes", "All live partition buffers.", double(b.tracked_bytes()));
  w.gauge("cuzk_tracked_peak_bytes", "Highest tracked bytes since start.", double(b.peak_tracked_bytes));
  w.gauge("cuzk_waiting_gpu_peak_partitions", "Most partitions waiting for a GPU at once.", double(b.peak_waiting_gpu));
  w.counter("cuzk_done_partitions_total", "Partitions that left the pipeline.", double(b.done_partitions));
  w.gauge("cuzk_srs_host_bytes", "Parameter (SRS) bytes resident in host memory.", double(b.srs_host_bytes));
  w.gauge("cuzk_srs_device_bytes", "Parameter (SRS) bytes resident in device memory.", double(b.srs_device_bytes));
  w.gauge("cuzk_pinned_pool_bytes", "Pinned staging pool bytes.", double(b.pinned_pool_bytes));
  w.gauge("cuzk_abc_pinned_bytes",
          "a/b/c bytes page-locked for their upload (part of the abc class; neither swappable nor reclaimable).",
          double(b.abc_pinned_bytes));
  w.gauge("cuzk_abc_kept_bytes",
          "Host bytes the backends keep between partitions for later ones (compact a/b/c copies, page-locked: also in "
          "abc_pinned_bytes; charged to the budget).",
          double(b.abc_kept_bytes));
  w.gauge("cuzk_input_bytes", "Bytes of the jobs' parsed inputs (Commit1 outputs, ...) while their jobs live.",
          double(b.input_bytes));
  w.gauge("cuzk_input_jobs", "Jobs holding a parsed input.", double(b.input_jobs));
  w.gauge("cuzk_rss_bytes", "Resident set size of the daemon.", double(b.rss_bytes));
  w.gauge("cuzk_rss_peak_bytes", "Highest resident set size seen.", double(b.peak_rss_bytes));

  w.family("cuzk_param_resident_bytes", "gauge", "Bytes of each resident parameter set, by memory.");
  for (const engine::ParamStatus& p : s.params) {
    w.sample("cuzk_param_resident_bytes", label("param_id", p.param_id) + "," + label("memory", "host"),
             double(p.host_bytes));
    w.sample("cuzk_param_resident_bytes", label("param_id", p.param_id) + "," + label("memory", "device"),
             double(p.device_bytes));
  }
  w.family("cuzk_param_in_use", "gauge", "1 when a job is using the parameter set.");
  for (const engine::ParamStatus& p : s.params) {
    w.sample("cuzk_param_in_use", label("param_id", p.param_id), p.in_use ? 1 : 0);
  }

  w.family("cuzk_device_memory_bytes", "gauge", "Memory of each proving device (0 for the CPU), total and free.");
  for (const engine::DeviceStatus& dev : s.devices) {
    std::string labels = label("ordinal", std::to_string(dev.ordinal)) + "," + label("name", dev.name);
    w.sample("cuzk_device_memory_bytes", labels + "," + label("memory", "total"), double(dev.memory_total));
    w.sample("cuzk_device_memory_bytes", labels + "," + label("memory", "free"), double(dev.memory_free));
  }
  w.family("cuzk_device_busy", "gauge", "1 while a partition is on the device.");
  for (const engine::DeviceStatus& dev : s.devices) {
    w.sample("cuzk_device_busy", label("ordinal", std::to_string(dev.ordinal)) + "," + label("name", dev.name),
             dev.current_job.empty() ? 0 : 1);
  }

  w.family("cuzk_rpc_requests_total", "counter", "gRPC calls served, by method and status code.");
  for (const RpcCounters::Row& r : d.rpc) {
    w.sample("cuzk_rpc_requests_total", label("method", r.method) + "," + label("code", r.code), double(r.count));
  }
  return w.take();
}

}  // namespace cuzk::server
