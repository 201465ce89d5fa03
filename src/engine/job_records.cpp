#include "engine/job_records.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace cuzk::engine {

namespace {

double span_seconds(JobRecords::Clock::duration d) { return std::chrono::duration<double>(d).count(); }
double span_micros(JobRecords::Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

bool record_ended(JobState s) {
  return s == JobState::kSucceeded || s == JobState::kFailed || s == JobState::kCancelled;
}

// A span's name in the trace: the timeline's name for work ("synthesize"), else the stage's.
std::string span_name(Stage s) { return *stage_info(s).span ? stage_info(s).span : stage_name(s); }

// What a partition waits in between two spans: the queues that have no span of their own.
const char* gap_after(Stage s) {
  switch (s) {
    case Stage::kSynthRunning:
      return stage_name(Stage::kSynthDoneWaitingGpu);
    case Stage::kOnGpu:
      return stage_name(Stage::kAbcFreed);
    default:
      return nullptr;
  }
}

}  // namespace

std::string JobRecords::expectation_key(const std::string& kind, uint32_t partitions) {
  return kind + "/" + std::to_string(partitions);
}

void JobRecords::submitted(uint64_t seq, const std::string& id, const std::string& kind, const std::string& what,
                           int priority, uint32_t partitions, Clock::time_point at) {
  Record r;
  r.status.request_id = id;
  r.status.kind = kind;
  r.status.what = what;
  r.status.priority = priority;
  r.status.partitions = partitions;
  r.status.submitted_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                   (std::chrono::system_clock::now() - (Clock::now() - at)).time_since_epoch())
                                   .count();
  r.submitted = at;
  std::lock_guard lock(mutex_);
  records_[seq] = std::move(r);
}

void JobRecords::running(uint64_t seq) {
  std::lock_guard lock(mutex_);
  auto it = records_.find(seq);
  if (it != records_.end() && it->second.status.state == JobState::kQueued)
    it->second.status.state = JobState::kRunning;
}

void JobRecords::span(uint64_t seq, uint32_t partition, Stage s, const std::string& worker, Clock::time_point a,
                      Clock::time_point b) {
  std::lock_guard lock(mutex_);
  auto it = records_.find(seq);
  if (it == records_.end()) return;
  Record& r = it->second;
  if (r.spans.size() >= kMaxSpans) {
    r.dropped_spans++;
    return;
  }
  r.spans.push_back({partition, s, worker, a, b});
}

void JobRecords::partition_ended(uint64_t seq) {
  std::lock_guard lock(mutex_);
  auto it = records_.find(seq);
  if (it != records_.end()) it->second.status.partitions_ended++;
}

std::optional<JobStatus> JobRecords::ended(uint64_t seq, JobState state, const std::string& error,
                                           Clock::time_point at) {
  std::lock_guard lock(mutex_);
  auto it = records_.find(seq);
  if (it == records_.end()) return std::nullopt;
  Record& r = it->second;
  r.status.state = state;
  r.status.error = error;
  r.ended = at;
  JobStatus status = status_of(r, at);  // expected as it was while the job ran
  if (state == JobState::kSucceeded) {
    const std::string key = expectation_key(r.status.kind, r.status.partitions);
    const double took = span_seconds(at - r.submitted);
    auto e = expected_.find(key);
    // A moving average that follows load changes within a few jobs.
    if (e != expected_.end()) {
      e->second = 0.7 * e->second + 0.3 * took;
    } else if (expected_.size() < kMaxKeys) {
      expected_.emplace(key, took);
    }
  }
  ended_.push_back(seq);
  while (ended_.size() > kKeptEnded) {
    records_.erase(ended_.front());
    ended_.pop_front();
  }
  return status;
}

JobStatus JobRecords::status_of(const Record& r, Clock::time_point now) const {
  JobStatus s = r.status;
  s.elapsed_seconds = span_seconds((record_ended(s.state) ? r.ended : now) - r.submitted);
  auto e = expected_.find(expectation_key(s.kind, s.partitions));
  if (e != expected_.end()) s.expected_seconds = e->second;
  return s;
}

std::vector<JobStatus> JobRecords::list() const {
  const Clock::time_point now = Clock::now();
  std::lock_guard lock(mutex_);
  std::vector<JobStatus> out;
  for (const auto& [seq, r] : records_) {
    if (!record_ended(r.status.state)) out.push_back(status_of(r, now));
  }
  for (auto it = ended_.rbegin(); it != ended_.rend(); ++it) out.push_back(status_of(records_.at(*it), now));
  return out;
}

std::optional<std::string> JobRecords::chrome_trace(const std::string& id) const {
  using nlohmann::json;
  const Clock::time_point now = Clock::now();
  std::lock_guard lock(mutex_);
  const Record* found = nullptr;
  for (auto it = records_.rbegin(); it != records_.rend() && !found; ++it) {
    if (it->second.status.request_id == id) found = &it->second;
  }
  if (!found) return std::nullopt;
  const Record& r = *found;
  const JobStatus s = status_of(r, now);
  json events = json::array();
  auto at = [&](Clock::time_point t) { return span_micros(t - r.submitted); };
  auto track = [&](int tid, const std::string& name) {
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", tid}, {"args", {{"name", name}}}});
    events.push_back(
        {{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", 1}, {"tid", tid}, {"args", {{"sort_index", tid}}}});
  };
  events.push_back({{"name", "process_name"},
                    {"ph", "M"},
                    {"pid", 1},
                    {"args", {{"name", "cuzk job " + s.request_id + " (" + s.kind + ")"}}}});
  // The job itself on the first track; one track per partition below it.
  track(1, "job");
  events.push_back({{"name", s.request_id + " " + job_state_name(s.state)},
                    {"ph", "X"},
                    {"pid", 1},
                    {"tid", 1},
                    {"ts", 0.0},
                    {"dur", s.elapsed_seconds * 1e6},
                    {"args", {{"what", s.what}, {"priority", s.priority}, {"error", s.error}}}});
  std::vector<const Span*> spans;
  for (const Span& sp : r.spans) spans.push_back(&sp);
  std::stable_sort(spans.begin(), spans.end(), [](const Span* a, const Span* b) {
    return a->partition != b->partition ? a->partition < b->partition : a->start < b->start;
  });
  std::optional<uint32_t> current;
  const Span* previous = nullptr;
  for (const Span* sp : spans) {
    const int tid = int(sp->partition) + 2;
    if (current != sp->partition) {
      track(tid, "partition " + std::to_string(sp->partition));
      current = sp->partition;
      previous = nullptr;
    }
    // The queue between two spans (waiting for a GPU worker, or for a finalizer) is a span too.
    if (previous && sp->start > previous->end) {
      if (const char* gap = gap_after(previous->stage)) {
        events.push_back({{"name", gap},
                          {"ph", "X"},
                          {"pid", 1},
                          {"tid", tid},
                          {"ts", at(previous->end)},
                          {"dur", span_micros(sp->start - previous->end)},
                          {"args", {{"stage", gap}}}});
      }
    }
    events.push_back({{"name", span_name(sp->stage)},
                      {"ph", "X"},
                      {"pid", 1},
                      {"tid", tid},
                      {"ts", at(sp->start)},
                      {"dur", span_micros(sp->end - sp->start)},
                      {"args", {{"stage", stage_name(sp->stage)}, {"worker", sp->worker}}}});
    previous = sp;
  }
  json doc = {{"displayTimeUnit", "ms"},
              {"traceEvents", events},
              {"otherData",
               {{"request_id", s.request_id},
                {"kind", s.kind},
                {"what", s.what},
                {"state", job_state_name(s.state)},
                {"error", s.error},
                {"submitted_unix_ms", s.submitted_unix_ms},
                {"elapsed_seconds", s.elapsed_seconds},
                {"spans_dropped", r.dropped_spans}}}};
  // An error may quote bytes that are not UTF-8: replaced, never a failed download.
  return doc.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace cuzk::engine
