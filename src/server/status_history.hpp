// The status page's history (GET /status/history), so that its charts are full when it opens:
// one sample a second of the tracked bytes by buffer class and by stage, the budget and the GPUs'
// busy time, for the last 10 minutes; and the latency of every WinningPoSt job that ended in the
// last hour. Bounded rings, in memory only. Thread-safe.
#pragma once

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine.hpp"

namespace cuzk::server {

class StatusHistory {
 public:
  static constexpr size_t kSamples = 600;  // 10 minutes at one a second
  static constexpr int64_t kLatencyWindowMs = 3600 * 1000;
  static constexpr size_t kMaxLatencies = 4096;  // a bound however fast WinningPoSt jobs come

  // One sample of the engine's state at unix_ms.
  void add_sample(const engine::EngineSnapshot& s, int64_t unix_ms);
  // A job ended at unix_ms; WinningPoSt jobs are kept for the latency chart.
  void job_ended(const engine::JobStatus& job, int64_t unix_ms);
  // The document: samples oldest first, latencies of the last hour before now_unix_ms.
  std::string json(int64_t now_unix_ms) const;

 private:
  struct Sample {
    int64_t t = 0;
    std::array<int64_t, engine::kBufferClassCount> by_class{};
    std::array<int64_t, engine::kTrackedStageCount> by_stage{};
    int64_t input = 0, budget_total = 0, budget_used = 0, rss = 0;
    std::vector<double> gpu_busy;  // per device, its busy_seconds
  };
  struct Latency {
    int64_t t = 0;
    double seconds = 0;
    std::string request_id;
    engine::JobState state = engine::JobState::kSucceeded;
  };
  mutable std::mutex mutex_;
  std::deque<Sample> samples_;
  std::deque<Latency> latencies_;
};

// Samples the engine into a history every interval on a thread of its own, from construction
// until stop() or destruction (which must come before the engine's).
class HistorySampler {
 public:
  HistorySampler(StatusHistory& history, std::function<engine::EngineSnapshot()> snapshot,
                 std::chrono::milliseconds interval = std::chrono::seconds(1));
  ~HistorySampler() { stop(); }
  HistorySampler(const HistorySampler&) = delete;
  HistorySampler& operator=(const HistorySampler&) = delete;
  void stop();

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace cuzk::server
