// The engine's timeline in Chrome trace JSON (opens in Perfetto or chrome://tracing): one track
// per worker with a span per stage and partition, and counter tracks for each buffer class,
// the budget and the process RSS. Written as events happen, closed by the destructor.
#pragma once

#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace cuzk::engine {

class Timeline {
 public:
  using Clock = std::chrono::steady_clock;
  // Throws std::runtime_error when the file cannot be created.
  explicit Timeline(const std::string& path);
  ~Timeline();
  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;

  // args: numbers shown with the span (prove_start's steps, in seconds).
  void span(const std::string& track, const std::string& name, Clock::time_point start, Clock::time_point end,
            const std::vector<std::pair<std::string, double>>& args = {});
  void counter(const std::string& name, const std::vector<std::pair<std::string, double>>& values);

 private:
  void write_event_locked(const std::string& json);
  int track_id_locked(const std::string& track);
  double micros(Clock::time_point t) const;

  std::mutex mutex_;
  std::FILE* file_ = nullptr;
  Clock::time_point start_;
  std::map<std::string, int> tracks_;
  bool first_ = true;
};

}  // namespace cuzk::engine
