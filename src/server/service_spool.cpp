// ProvingService and its spool: the recorder thread that writes ended jobs' results, and
// resume_from_spool(), which brings a restarted daemon's jobs back.
#include <algorithm>
#include <spdlog/spdlog.h>

#include "server/convert.hpp"
#include "server/service.hpp"
#include "server/unix_time.hpp"

namespace cuzk::server {

namespace v1 = cuzk::v1;
using engine::EngineError;
using Clock = std::chrono::steady_clock;

namespace {

// How often the recorder looks for ended jobs whose result is not in the spool yet.
constexpr auto kRecordInterval = std::chrono::milliseconds(100);

engine::JobResult to_job_result(const std::string& id, const JournalResult& r) {
  engine::JobResult out;
  out.request_id = id;
  out.state = r.state;
  out.error = r.error;
  out.proof = r.proof;
  out.timings = r.timings;
  out.verified = r.verified;
  return out;
}

JournalResult to_journal_result(const engine::JobResult& r) {
  JournalResult out;
  out.state = r.state;
  out.error = r.error;
  out.proof = r.proof;
  out.timings = r.timings;
  out.verified = r.verified;
  out.ended_unix_ms = unix_ms_now();
  return out;
}

}  // namespace

ProvingService::ProvingService(engine::Engine& engine, const DaemonConfig& config, Journal* journal)
    : engine_(engine), config_(config), journal_(journal) {
  if (!journal_) return;
  recorder_ = std::thread([this] {
    std::unique_lock lock(recorder_mutex_);
    while (!recorder_stop_) {
      recorder_cv_.wait_for(lock, kRecordInterval);
      if (recorder_stop_) break;
      lock.unlock();
      try {
        record_results();
      } catch (const std::exception& e) {
        spdlog::warn("spool: recording results failed: {}", e.what());
      }
      lock.lock();
    }
  });
}

ProvingService::~ProvingService() {
  {
    std::lock_guard lock(recorder_mutex_);
    recorder_stop_ = true;
  }
  recorder_cv_.notify_all();
  if (recorder_.joinable()) recorder_.join();
}

void ProvingService::close_journal() {
  {
    std::lock_guard lock(recorder_mutex_);
    recorder_stop_ = true;
  }
  recorder_cv_.notify_all();
  if (recorder_.joinable()) recorder_.join();
  record_results();
}

void ProvingService::record_results() {
  if (!journal_) return;
  std::lock_guard journal(journal_mutex_);
  std::vector<std::pair<std::string, Entry>> ended_jobs;
  {
    std::lock_guard lock(book_mutex_);
    count_active_locked();  // marks the jobs that ended
    for (const auto& [id, e] : book_) {
      if (e.ended && !e.result_settled) ended_jobs.emplace_back(id, e);
    }
  }
  for (const auto& [id, e] : ended_jobs) {
    std::optional<engine::JobResult> r;
    try {
      r = engine_.await(id, std::chrono::milliseconds(0));
    } catch (const EngineError&) {
      continue;  // forgotten meanwhile
    }
    if (!r) continue;
    // A job the shutdown cancelled (not a client) stays an accepted job in the spool: the next
    // start proves it.
    const bool keep_queued = r->state == engine::JobState::kCancelled && draining_ && !e.client_cancelled;
    if (!keep_queued) {
      JournalEntry j;
      j.id = id;
      j.seq = e.seq;
      j.submitted_unix_ms = e.submitted_unix_ms;
      j.priority = e.priority;
      j.from_prove = e.by_prove;
      j.request_digest = e.digest;
      j.result = to_journal_result(*r);
      try {
        journal_->write(j);
      } catch (const JournalError& ex) {
        spdlog::warn("{}: its result cannot be journaled ({}); a restart before it is collected proves it again", id,
                     ex.what());
      }
    }
    std::lock_guard lock(book_mutex_);
    if (auto it = book_.find(id); it != book_.end() && it->second.seq == e.seq) it->second.result_settled = true;
  }
}

void ProvingService::resume_from_spool() {
  if (!journal_) return;
  std::vector<JournalEntry> entries = journal_->load();
  std::lock_guard accept(accept_mutex_);
  size_t resumed = 0, kept = 0;
  const int64_t now_ms = unix_ms_now();
  for (JournalEntry& j : entries) {
    next_seq_ = std::max(next_seq_, j.seq + 1);
    Entry e;
    e.seq = j.seq;
    e.submitted_unix_ms = j.submitted_unix_ms;
    e.priority = j.priority;
    e.by_prove = j.from_prove;
    e.digest = j.request_digest;
    const double age_s = double(std::max<int64_t>(now_ms - j.submitted_unix_ms, 0)) / 1000;
    if (!j.result) {
      v1::SubmitProofRequest req;
      if (request_digest(j.request) != j.request_digest || !req.ParseFromString(j.request)) {
        journal_->set_aside(j.id, "its request does not parse as a SubmitProofRequest");
        continue;
      }
      try {
        // The same conversion and checks as a new request; the id is the one it was accepted under.
        engine::JobRequest job = to_job_request(req, engine_.config().max_partitions_per_job);
        job.request_id = j.id;
        engine_.submit(std::move(job));
        std::lock_guard lock(book_mutex_);
        book_[j.id] = e;
        ++resumed;
        spdlog::info("resumed {} from the spool (priority {}, accepted {:.0f} s ago)", j.id, j.priority, age_s);
        continue;
      } catch (const std::exception& ex) {
        JournalResult failed;
        failed.state = engine::JobState::kFailed;
        failed.error = std::string("accepted before the daemon restarted, but it cannot be resumed: ") + ex.what();
        failed.ended_unix_ms = now_ms;
        j.result = failed;
        j.request.clear();
        spdlog::warn("{}: {}", j.id, failed.error);
        try {
          journal_->write(j);
        } catch (const JournalError& w) {
          spdlog::warn("{}: {}", j.id, w.what());
        }
      }
    }
    const JournalResult& r = *j.result;
    e.ended = true;
    e.result_settled = true;
    e.restored = to_job_result(j.id, r);
    const auto ended_ago = std::chrono::milliseconds(std::max<int64_t>(now_ms - r.ended_unix_ms, 0));
    e.ended_at = Clock::now() - ended_ago;
    {
      std::lock_guard lock(book_mutex_);
      book_[j.id] = e;
    }
    ++kept;
    spdlog::info("kept the {} result of {} from the spool (ended {:.0f} s ago) until it is collected or expires",
                 engine::job_state_name(r.state), j.id, double(ended_ago.count()) / 1000);
  }
  spdlog::info("spool {}: {} job(s) resumed, {} ended result(s) kept", journal_->dir(), resumed, kept);
}

}  // namespace cuzk::server
