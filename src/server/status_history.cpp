#include "server/status_history.hpp"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "kinds/filecoin_kinds.hpp"
#include "server/unix_time.hpp"

namespace cuzk::server {

void StatusHistory::add_sample(const engine::EngineSnapshot& s, int64_t unix_ms) {
  Sample x;
  x.t = unix_ms;
  for (size_t st = 0; st < engine::kTrackedStageCount; st++) {
    for (size_t c = 0; c < engine::kBufferClassCount; c++) x.by_class[c] += s.buffers.stages[st].bytes[c];
    x.by_stage[st] = s.buffers.stages[st].total_bytes();
  }
  x.input = s.buffers.input_bytes;
  x.budget_total = s.buffers.budget_total;
  x.budget_used = s.buffers.budget_used;
  x.rss = s.buffers.rss_bytes;
  for (const auto& d : s.devices) x.gpu_busy.push_back(d.busy_seconds);
  std::lock_guard lock(mutex_);
  samples_.push_back(std::move(x));
  while (samples_.size() > kSamples) samples_.pop_front();
}

void StatusHistory::job_ended(const engine::JobStatus& job, int64_t unix_ms) {
  if (job.kind != kinds::kWinningPoStKind) return;
  std::lock_guard lock(mutex_);
  latencies_.push_back({unix_ms, job.elapsed_seconds, job.request_id, job.state});
  while (latencies_.size() > kMaxLatencies ||
         (!latencies_.empty() && latencies_.front().t < unix_ms - kLatencyWindowMs))
    latencies_.pop_front();
}

std::string StatusHistory::json(int64_t now_unix_ms) const {
  using nlohmann::json;
  json classes = json::array(), stages = json::array();
  for (size_t c = 0; c < engine::kBufferClassCount; c++) classes.push_back(buffer_class_name(engine::BufferClass(c)));
  for (size_t st = 0; st < engine::kTrackedStageCount; st++) stages.push_back(stage_name(engine::Stage(st)));
  json samples = json::array(), latencies = json::array();
  {
    std::lock_guard lock(mutex_);
    for (const Sample& x : samples_) {
      samples.push_back({{"t", x.t},
                         {"class", x.by_class},
                         {"stage", x.by_stage},
                         {"input", x.input},
                         {"budget_total", x.budget_total},
                         {"budget_used", x.budget_used},
                         {"rss", x.rss},
                         {"gpu_busy", x.gpu_busy}});
    }
    for (const Latency& l : latencies_) {
      if (l.t < now_unix_ms - kLatencyWindowMs) continue;
      latencies.push_back(
          {{"t", l.t}, {"seconds", l.seconds}, {"request_id", l.request_id}, {"state", job_state_name(l.state)}});
    }
  }
  json doc = {
      {"now_unix_ms", now_unix_ms}, {"window_seconds", kSamples}, {"latency_window_seconds", kLatencyWindowMs / 1000},
      {"classes", classes},         {"stages", stages},           {"samples", samples},
      {"winning_post", latencies}};
  return doc.dump() + "\n";
}

HistorySampler::HistorySampler(StatusHistory& history, std::function<engine::EngineSnapshot()> snapshot,
                               std::chrono::milliseconds interval) {
  thread_ = std::thread([this, &history, snapshot = std::move(snapshot), interval] {
    std::unique_lock lock(mutex_);
    auto next = std::chrono::steady_clock::now();
    while (!stop_) {
      lock.unlock();
      try {
        history.add_sample(snapshot(), unix_ms_now());
      } catch (const std::exception& e) {
        spdlog::warn("status history: no sample: {}", e.what());
      }
      lock.lock();
      // On the second, however long a snapshot took; never a burst to catch up.
      next = std::max(next + interval, std::chrono::steady_clock::now());
      cv_.wait_until(lock, next, [this] { return stop_; });
    }
  });
}

void HistorySampler::stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace cuzk::server
