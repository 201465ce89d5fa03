// What the engine remembers of its recent jobs for the status page: every job not yet ended and
// the last few ended ones (their state and error, even once the daemon has delivered and
// forgotten them), each with the spans of its partitions' stages; a job's spans become a Chrome
// trace (GET /timeline?job=ID). Bounded: kKeptEnded ended jobs, kMaxSpans spans a job. Also the
// expected wall time of a job: a moving average of the recent successful jobs of its kind and
// partition count. Thread-safe; its lock is taken last (never while holding it is another taken).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/job.hpp"
#include "engine/stages.hpp"

namespace cuzk::engine {

class JobRecords {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr size_t kKeptEnded = 32;
  static constexpr size_t kMaxSpans = 4096;

  // seq: the engine's unique job number (request ids may be used again after a job is forgotten).
  void submitted(uint64_t seq, const std::string& id, const std::string& kind, const std::string& what, int priority,
                 uint32_t partitions, Clock::time_point at);
  // A partition of the job was admitted: it runs.
  void running(uint64_t seq);
  // Time partition `partition` spent in stage s, run by `worker` (a queue wait: the worker that took it).
  void span(uint64_t seq, uint32_t partition, Stage s, const std::string& worker, Clock::time_point a,
            Clock::time_point b);
  // A partition of the job left the pipeline: proved, failed or dropped.
  void partition_ended(uint64_t seq);
  // The job as it ended (nullopt for a job never submitted here).
  std::optional<JobStatus> ended(uint64_t seq, JobState state, const std::string& error, Clock::time_point at);

  // Jobs not yet ended first (oldest first), then the ended ones, latest first.
  std::vector<JobStatus> list() const;
  // The newest job under this request id as Chrome trace JSON; nullopt when none is kept.
  std::optional<std::string> chrome_trace(const std::string& id) const;

 private:
  struct Span {
    uint32_t partition;
    Stage stage;
    std::string worker;
    Clock::time_point start, end;
  };
  struct Record {
    JobStatus status;
    Clock::time_point submitted, ended;
    std::vector<Span> spans;
    size_t dropped_spans = 0;
  };
  JobStatus status_of(const Record& r, Clock::time_point now) const;
  static std::string expectation_key(const std::string& kind, uint32_t partitions);

  mutable std::mutex mutex_;
  std::map<uint64_t, Record> records_;      // by seq
  std::deque<uint64_t> ended_;              // seqs of the ended jobs kept, oldest first
  std::map<std::string, double> expected_;  // by expectation_key: seconds, moving average (kMaxKeys at most)
  static constexpr size_t kMaxKeys = 256;
};

}  // namespace cuzk::engine
