#include "engine/tracker.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <spdlog/spdlog.h>
#include <stdexcept>
#include <unistd.h>

#include "engine/timeline.hpp"

namespace cuzk::engine {

const char* buffer_class_name(BufferClass c) {
  switch (c) {
    case BufferClass::kAbc:
      return "abc";
    case BufferClass::kAux:
      return "aux";
    case BufferClass::kInputs:
      return "inputs";
    case BufferClass::kDensities:
      return "densities";
    case BufferClass::kSynthScratch:
      return "synth_scratch";
    case BufferClass::kWitness:
      return "witness";
    case BufferClass::kCount:
      break;
  }
  return "?";
}

int64_t StageCounters::total_bytes() const {
  int64_t t = 0;
  for (int64_t b : bytes) t += b;
  return t;
}

int64_t TrackerSnapshot::tracked_bytes() const {
  int64_t t = input_bytes;
  for (const auto& s : stages) t += s.total_bytes();
  return t;
}

bool TrackerSnapshot::idle() const {
  return input_jobs == 0 && input_bytes == 0 && std::all_of(stages.begin(), stages.end(), [](const StageCounters& s) {
           return s.partitions == 0 && std::all_of(s.bytes.begin(), s.bytes.end(), [](int64_t b) { return b == 0; });
         });
}

int64_t process_rss_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  long long pages_total = 0, pages_resident = 0;
  const int got = std::fscanf(f, "%lld %lld", &pages_total, &pages_resident);
  std::fclose(f);
  return got == 2 ? int64_t(pages_resident) * sysconf(_SC_PAGESIZE) : 0;
}

BufferTracker::BufferTracker(bool log_events, Timeline* timeline) : log_events_(log_events), timeline_(timeline) {}

namespace {

// The tracker counts tracked stages only; the others have no counters.
size_t tracked_index(Stage s) {
  if (!tracked(s)) throw std::logic_error(std::string("the buffer tracker has no stage ") + stage_name(s));
  return size_t(s);
}

void add(StageCounters& c, const BufferBytes& bytes, int64_t sign) {
  c.partitions += sign;
  for (size_t i = 0; i < kBufferClassCount; i++) c.bytes[i] += sign * bytes[i];
}

// 12.3MiB / 1.25GiB: one log line must stay readable from 2^10 to 2^27 constraints.
std::string human(int64_t b) {
  char buf[32];
  const double v = double(b);
  if (std::abs(v) >= double(int64_t(1) << 30)) {
    std::snprintf(buf, sizeof buf, "%.2fGiB", v / double(int64_t(1) << 30));
  } else {
    std::snprintf(buf, sizeof buf, "%.1fMiB", v / double(1 << 20));
  }
  return buf;
}

}  // namespace

void BufferTracker::enter(Stage s, const BufferBytes& bytes, const std::string& what) {
  std::lock_guard lock(mutex_);
  add(s_.stages[tracked_index(s)], bytes, +1);
  event_locked(what);
}

void BufferTracker::move(Stage from, Stage to, const BufferBytes& from_bytes, const BufferBytes& to_bytes,
                         const std::string& what) {
  std::lock_guard lock(mutex_);
  add(s_.stages[tracked_index(from)], from_bytes, -1);
  add(s_.stages[tracked_index(to)], to_bytes, +1);
  event_locked(what);
}

void BufferTracker::leave(Stage s, const BufferBytes& bytes, const std::string& what, bool completed) {
  std::lock_guard lock(mutex_);
  add(s_.stages[tracked_index(s)], bytes, -1);
  if (completed) s_.done_partitions++;
  event_locked(what);
}

void BufferTracker::move_bytes(Stage from, Stage to, const BufferBytes& bytes, const std::string& what) {
  std::lock_guard lock(mutex_);
  for (size_t i = 0; i < kBufferClassCount; i++) {
    s_.stages[tracked_index(from)].bytes[i] -= bytes[i];
    s_.stages[tracked_index(to)].bytes[i] += bytes[i];
  }
  event_locked(what);
}

void BufferTracker::leave_bytes(Stage s, const BufferBytes& bytes, const std::string& what) {
  std::lock_guard lock(mutex_);
  for (size_t i = 0; i < kBufferClassCount; i++) s_.stages[tracked_index(s)].bytes[i] -= bytes[i];
  event_locked(what);
}

void BufferTracker::input_enter(int64_t bytes, const std::string& what) {
  std::lock_guard lock(mutex_);
  s_.input_jobs++;
  s_.input_bytes += bytes;
  event_locked(what);
}

void BufferTracker::input_leave(int64_t bytes, const std::string& what) {
  std::lock_guard lock(mutex_);
  s_.input_jobs--;
  s_.input_bytes -= bytes;
  event_locked(what);
}

void BufferTracker::set_parameters_bytes(int64_t host, int64_t device, const std::string& what) {
  std::lock_guard lock(mutex_);
  s_.parameters_host_bytes = host;
  s_.parameters_device_bytes = device;
  event_locked(what);
}

void BufferTracker::set_compiled_circuit_bytes(int64_t host, const std::string& what) {
  std::lock_guard lock(mutex_);
  s_.compiled_circuit_bytes = host;
  event_locked(what);
}

void BufferTracker::set_pinned_probe(std::function<PinnedBytes()> probe) {
  std::lock_guard lock(mutex_);
  pinned_probe_ = std::move(probe);
}

void BufferTracker::read_pinned_probe_locked(TrackerSnapshot& into) const {
  if (!pinned_probe_) return;
  const PinnedBytes p = pinned_probe_();
  into.pinned_pool_bytes = p.staging;
  into.abc_pinned_bytes = p.abc;
  into.abc_kept_bytes = p.abc_kept;
}

void BufferTracker::set_kept_witness_bytes(int64_t bytes) {
  std::lock_guard lock(mutex_);
  s_.witness_kept_bytes = bytes;
}

void BufferTracker::set_budget(int64_t total, int64_t used) {
  std::lock_guard lock(mutex_);
  s_.budget_total = total;
  s_.budget_used = used;
  s_.peak_budget_used = std::max(s_.peak_budget_used, used);
}

TrackerSnapshot BufferTracker::snapshot() const {
  std::lock_guard lock(mutex_);
  TrackerSnapshot out = s_;
  out.rss_bytes = process_rss_bytes();
  read_pinned_probe_locked(out);
  return out;
}

void BufferTracker::reset_peaks() {
  std::lock_guard lock(mutex_);
  s_.peak_tracked_bytes = s_.tracked_bytes();
  s_.peak_waiting_gpu = s_.stages[size_t(Stage::kSynthDoneWaitingGpu)].partitions;
  s_.peak_budget_used = s_.budget_used;
  s_.peak_rss_bytes = process_rss_bytes();
}

void BufferTracker::event_locked(const std::string& what) {
  s_.rss_bytes = process_rss_bytes();
  read_pinned_probe_locked(s_);
  s_.peak_tracked_bytes = std::max(s_.peak_tracked_bytes, s_.tracked_bytes());
  s_.peak_waiting_gpu = std::max(s_.peak_waiting_gpu, s_.stages[size_t(Stage::kSynthDoneWaitingGpu)].partitions);
  s_.peak_rss_bytes = std::max(s_.peak_rss_bytes, s_.rss_bytes);
  if (log_events_ && spdlog::should_log(spdlog::level::info)) {
    std::string line;
    for (size_t i = 0; i < kTrackedStageCount; i++) {
      const auto& c = s_.stages[i];
      fmt::format_to(std::back_inserter(line), " {}={}/{}", stage_name(Stage(i)), c.partitions, human(c.total_bytes()));
    }
    spdlog::info(
        "{:<40} |{} done={} | input={}/{} | parameters host={} dev={} | compiled={} | pinned staging={} abc={} | "
        "kept abc={} witness={} | budget {}/{} | rss {}",
        what, line, s_.done_partitions, s_.input_jobs, human(s_.input_bytes), human(s_.parameters_host_bytes),
        human(s_.parameters_device_bytes), human(s_.compiled_circuit_bytes), human(s_.pinned_pool_bytes),
        human(s_.abc_pinned_bytes), human(s_.abc_kept_bytes), human(s_.witness_kept_bytes), human(s_.budget_used),
        human(s_.budget_total), human(s_.rss_bytes));
  }
  if (timeline_) {
    for (size_t c = 0; c < kBufferClassCount; c++) {
      std::vector<std::pair<std::string, double>> values;
      for (size_t i = 0; i < kTrackedStageCount; i++)
        values.emplace_back(stage_name(Stage(i)), double(s_.stages[i].bytes[c]));
      timeline_->counter(std::string(buffer_class_name(BufferClass(c))) + " bytes", values);
    }
    std::vector<std::pair<std::string, double>> parts;
    for (size_t i = 0; i < kTrackedStageCount; i++)
      parts.emplace_back(stage_name(Stage(i)), double(s_.stages[i].partitions));
    timeline_->counter("partitions", parts);
    timeline_->counter("input bytes", {{"input", double(s_.input_bytes)}});
    timeline_->counter("budget bytes", {{"used", double(s_.budget_used)}, {"total", double(s_.budget_total)}});
    timeline_->counter("process RSS bytes", {{"rss", double(s_.rss_bytes)}});
    timeline_->counter("parameters bytes",
                       {{"host", double(s_.parameters_host_bytes)}, {"device", double(s_.parameters_device_bytes)}});
    timeline_->counter("compiled circuit bytes", {{"host", double(s_.compiled_circuit_bytes)}});
    timeline_->counter("backend host bytes", {{"pinned staging", double(s_.pinned_pool_bytes)},
                                              {"pinned abc", double(s_.abc_pinned_bytes)},
                                              {"kept abc", double(s_.abc_kept_bytes)}});
    timeline_->counter("kept witness bytes", {{"kept", double(s_.witness_kept_bytes)}});
  }
}

}  // namespace cuzk::engine
