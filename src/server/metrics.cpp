#include "server/metrics.hpp"

#include <map>
#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include "kinds/filecoin_kinds.hpp"

namespace cuzk::server {

namespace {

namespace pm = prometheus;

// One scrape's registry: every family is made from the snapshot when asked for, so the engine
// keeps its own counters and nothing here outlives the scrape.
class Scrape {
 public:
  pm::Family<pm::Gauge>& gauges(const std::string& name, const std::string& help) {
    return pm::BuildGauge().Name(name).Help(help).Register(registry_);
  }
  pm::Family<pm::Counter>& counters(const std::string& name, const std::string& help) {
    return pm::BuildCounter().Name(name).Help(help).Register(registry_);
  }
  pm::Family<pm::Histogram>& histograms(const std::string& name, const std::string& help) {
    return pm::BuildHistogram().Name(name).Help(help).Register(registry_);
  }
  void gauge(const std::string& name, const std::string& help, double value) { gauges(name, help).Add({}).Set(value); }
  void counter(const std::string& name, const std::string& help, double value) {
    counters(name, help).Add({}).Increment(value);
  }
  std::string text() const { return pm::TextSerializer().Serialize(registry_.Collect()); }

 private:
  pm::Registry registry_;
};

}  // namespace

std::string render_prometheus(const engine::EngineSnapshot& s, const DaemonMetrics& d) {
  using engine::BufferClass;
  using engine::Stage;
  Scrape m;
  m.gauges("cuzk_info", "Backend and admission policy of this daemon (value is always 1).")
      .Add({{"backend", s.backend}, {"policy", s.policy}})
      .Set(1);
  m.gauge("cuzk_uptime_seconds", "Seconds since the engine started.", s.uptime_seconds);
  m.gauge("cuzk_draining", "1 while the daemon is shutting down and refuses new proofs.", d.draining ? 1 : 0);
  m.gauge("cuzk_listener_insecure",
          "1 while the gRPC listener is plain TCP on an address other machines may reach (no TLS, no client "
          "authentication).",
          d.listener.insecure ? 1 : 0);

  auto& workers = m.gauges("cuzk_workers", "Worker threads by kind.");
  workers.Add({{"kind", engine::worker_name(engine::Worker::kSynthesis)}}).Set(s.synthesis_workers);
  workers.Add({{"kind", engine::worker_name(engine::Worker::kGpu)}}).Set(s.gpu_workers);
  workers.Add({{"kind", engine::worker_name(engine::Worker::kFinalizer)}}).Set(s.finalizer_threads);

  m.counter("cuzk_proofs_completed_total", "Proofs (jobs) that succeeded.", double(s.jobs_completed));
  m.counter("cuzk_proofs_failed_total", "Proofs (jobs) that failed.", double(s.jobs_failed));
  m.counter("cuzk_proofs_cancelled_total", "Proofs (jobs) that were cancelled.", double(s.jobs_cancelled));
  m.counter("cuzk_partitions_proved_total", "Partition proofs made.", double(s.partitions_proved));
  m.gauge("cuzk_jobs_active", "Jobs queued or running in the engine.", double(s.jobs_active));
  m.gauge("cuzk_jobs_tracked", "Jobs accepted by the daemon whose result has not been delivered.",
          double(d.jobs_tracked));
  // Per kind, every Filecoin kind from the start (at 0): a kind's first job is then a change (a
  // series that appears with its first job hides it from increase() and rate(), and a family
  // with no series is left out of the text).
  std::map<std::string, engine::KindQueue> queues;
  std::map<std::string, engine::KindTotals> totals;
  for (std::string_view k : kinds::kFilecoinKinds) {
    queues[std::string(k)];
    totals[std::string(k)];
  }
  for (const engine::KindQueue& q : s.kinds) queues[q.kind] = q;
  for (const engine::KindTotals& t : s.kind_totals) totals[t.kind] = t;
  auto& kind_jobs =
      m.gauges("cuzk_kind_jobs",
               "Jobs not yet ended per proof kind: pending (no partition started) and in_progress (Curio's queues).");
  for (const auto& [kind, q] : queues) {
    kind_jobs.Add({{"kind", kind}, {"state", "pending"}}).Set(q.pending);
    kind_jobs.Add({{"kind", kind}, {"state", "in_progress"}}).Set(q.in_progress);
  }
  auto& kind_completed =
      m.counters("cuzk_kind_proofs_completed_total", "Proofs (jobs) that succeeded, per proof kind.");
  auto& kind_failed = m.counters("cuzk_kind_proofs_failed_total", "Proofs (jobs) that failed, per proof kind.");
  auto& kind_seconds = m.histograms("cuzk_kind_proof_duration_seconds",
                                    "Seconds from submission to end of each succeeded proof (job), per proof kind.");
  for (const auto& [kind, t] : totals) {
    kind_completed.Add({{"kind", kind}}).Increment(double(t.completed));
    kind_failed.Add({{"kind", kind}}).Increment(double(t.failed));
    kind_seconds.Add({{"kind", kind}}, engine::Histogram::bounds())
        .ObserveMultiple(std::vector<double>(t.seconds.counts.begin(), t.seconds.counts.end()), t.seconds.sum);
  }
  m.gauge("cuzk_queue_depth_partitions", "Partitions waiting for admission (budget).", double(s.queued_partitions));
  m.gauge("cuzk_gpu_queue_depth_partitions", "Synthesized partitions waiting for a GPU worker.",
          double(s.gpu_queue_depth));
  m.counter("cuzk_gpu_busy_seconds_total", "GPU worker busy time, summed over workers.", s.gpu_busy_seconds);

  // The engine's histograms count per bucket, as ObserveMultiple takes them (the last: +Inf).
  auto& phases = m.histograms("cuzk_phase_duration_seconds",
                              "Seconds spent in each proving phase: per partition, except total (per job, submission "
                              "to end).");
  const pm::Histogram::BucketBoundaries bounds = engine::Histogram::bounds();
  for (const auto& [phase, h] : s.phase_seconds) {
    phases.Add({{"phase", phase}}, bounds)
        .ObserveMultiple(std::vector<double>(h.counts.begin(), h.counts.end()), h.sum);
  }

  const engine::TrackerSnapshot& b = s.buffers;
  m.gauge("cuzk_budget_total_bytes", "Host-memory budget for partition buffers.", double(b.budget_total));
  m.gauge("cuzk_budget_used_bytes", "Bytes of the budget reserved now.", double(b.budget_used));
  m.gauge("cuzk_budget_free_bytes", "Bytes of the budget not reserved.", double(b.budget_total - b.budget_used));
  m.gauge("cuzk_budget_used_peak_bytes", "Highest reservation since start.", double(b.peak_budget_used));

  auto& stage_partitions = m.gauges("cuzk_stage_partitions", "Partitions in each pipeline stage (buffer tracker).");
  auto& stage_bytes =
      m.gauges("cuzk_stage_buffer_bytes", "Bytes of each large buffer class held in each pipeline stage.");
  for (size_t st = 0; st < engine::kTrackedStageCount; ++st) {
    const std::string stage = engine::stage_name(Stage(st));
    stage_partitions.Add({{"stage", stage}}).Set(double(b.stages[st].partitions));
    for (size_t c = 0; c < engine::kBufferClassCount; ++c) {
      stage_bytes.Add({{"stage", stage}, {"class", engine::buffer_class_name(BufferClass(c))}})
          .Set(double(b.stages[st].bytes[c]));
    }
  }
  m.gauge("cuzk_tracked_bytes", "All live partition buffers.", double(b.tracked_bytes()));
  m.gauge("cuzk_tracked_peak_bytes", "Highest tracked bytes since start.", double(b.peak_tracked_bytes));
  m.gauge("cuzk_waiting_gpu_peak_partitions", "Most partitions waiting for a GPU at once.", double(b.peak_waiting_gpu));
  m.counter("cuzk_param_files_refused_total",
            "Parameter set loads refused: a file unreadable, truncated, with a wrong digest or points off the curve "
            "(the log names the file; a missing file is not counted).",
            double(s.param_files_refused));
  m.counter("cuzk_done_partitions_total", "Partitions that left the pipeline.", double(b.done_partitions));
  m.gauge("cuzk_parameters_host_bytes", "Parameter bytes resident in host memory (all sets).",
          double(b.parameters_host_bytes));
  m.gauge("cuzk_parameters_released_bytes",
          "Parameter bytes given back to the OS while the device holds the sets (engine.release_host_parameters).",
          double(b.parameters_released_bytes));
  m.gauge("cuzk_compiled_circuit_bytes",
          "Compiled circuits (A, B, C of the shapes proved witness-only) resident in host memory.",
          double(b.compiled_circuit_bytes));
  m.gauge("cuzk_parameters_device_bytes", "Parameter bytes resident in device memory (all sets, all devices).",
          double(b.parameters_device_bytes));
  m.gauge("cuzk_pinned_pool_bytes", "Pinned staging pool bytes.", double(b.pinned_pool_bytes));
  m.gauge("cuzk_abc_pinned_bytes",
          "a/b/c bytes page-locked for their upload (part of the abc class; neither swappable nor reclaimable).",
          double(b.abc_pinned_bytes));
  m.gauge("cuzk_abc_kept_bytes",
          "Host bytes the backends keep between partitions for later ones (compact a/b/c copies, page-locked: also in "
          "abc_pinned_bytes; charged to the budget).",
          double(b.abc_kept_bytes));
  m.gauge("cuzk_witness_kept_bytes",
          "Witness-only partitions' aux memory kept for the next synthesis of its shape (page-locked with the CUDA "
          "backend; charged to the budget).",
          double(b.witness_kept_bytes));
  m.gauge("cuzk_input_bytes", "Bytes of the jobs' parsed inputs (Commit1 outputs, ...) while their jobs live.",
          double(b.input_bytes));
  m.gauge("cuzk_input_jobs", "Jobs holding a parsed input.", double(b.input_jobs));
  m.gauge("cuzk_rss_bytes", "Resident set size of the daemon.", double(b.rss_bytes));
  m.gauge("cuzk_rss_peak_bytes", "Highest resident set size seen.", double(b.peak_rss_bytes));

  // Device bytes per set only where the engine knows them (engine::ParamStatus::device_bytes).
  auto& resident = m.gauges("cuzk_param_resident_bytes",
                            "Bytes of each resident parameter set, by memory (device: only while it is the one set "
                            "resident; cuzk_parameters_device_bytes has the total).");
  auto& in_use = m.gauges("cuzk_param_in_use", "1 when a job is using the parameter set.");
  for (const engine::ParamStatus& p : s.params) {
    resident.Add({{"param_id", p.param_id}, {"memory", "host"}}).Set(double(p.host_bytes));
    if (p.device_bytes) resident.Add({{"param_id", p.param_id}, {"memory", "device"}}).Set(double(*p.device_bytes));
    in_use.Add({{"param_id", p.param_id}}).Set(p.in_use ? 1 : 0);
  }

  auto& device_memory =
      m.gauges("cuzk_device_memory_bytes", "Memory of each proving device (0 for the CPU), total and free.");
  auto& device_busy = m.gauges("cuzk_device_busy", "1 while a partition is on the device.");
  auto& device_busy_seconds =
      m.counters("cuzk_device_busy_seconds_total",
                 "Seconds with a partition proving on the device (overlapping partitions count once): its rate is "
                 "the device's busy share.");
  auto& device_plan = m.gauges("cuzk_device_memory_plan_bytes",
                               "Each GPU's device memory plan by use: scratch, twiddles, compact_abc, bases_resident, "
                               "bases_streamed (read from host memory), msm_workspace_limit, available.");
  auto& lane_busy_seconds = m.counters(
      "cuzk_urgent_lane_busy_seconds_total",
      "Seconds with an urgent partition proving on the card's urgent lane (engine.urgent_lane_memory), beside the "
      "device's own.");
  for (const engine::DeviceStatus& dev : s.devices) {
    const std::string ordinal = std::to_string(dev.ordinal);
    if (dev.urgent_lane) {
      lane_busy_seconds.Add({{"ordinal", ordinal}, {"name", dev.name}}).Increment(dev.urgent_lane->busy_seconds);
    }
    device_memory.Add({{"ordinal", ordinal}, {"name", dev.name}, {"memory", "total"}}).Set(double(dev.memory_total));
    device_memory.Add({{"ordinal", ordinal}, {"name", dev.name}, {"memory", "free"}}).Set(double(dev.memory_free));
    device_busy.Add({{"ordinal", ordinal}, {"name", dev.name}}).Set(dev.current_job.empty() ? 0 : 1);
    device_busy_seconds.Add({{"ordinal", ordinal}, {"name", dev.name}}).Increment(dev.busy_seconds);
    for (const auto& [use, bytes] : dev.memory_plan_bytes) {
      device_plan.Add({{"ordinal", ordinal}, {"name", dev.name}, {"use", use}}).Set(double(bytes));
    }
  }

  auto& rpc = m.counters("cuzk_rpc_requests_total", "gRPC calls served, by method and status code.");
  for (const RpcCounters::Row& r : d.rpc) rpc.Add({{"method", r.method}, {"code", r.code}}).Increment(double(r.count));
  return m.text();
}

}  // namespace cuzk::server
