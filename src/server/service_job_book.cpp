// ProvingService's job book: the jobs accepted and not yet delivered, by id. Acceptance (with its
// spool entry), a repeated request id, waiting for a result, delivery, callers that go away and
// results nobody collects.
#include <algorithm>
#include <cstdint>
#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <spdlog/spdlog.h>

#include "server/convert.hpp"
#include "server/service.hpp"
#include "server/unix_time.hpp"

namespace cuzk::server {

namespace v1 = cuzk::v1;
using engine::EngineError;
using Clock = std::chrono::steady_clock;

namespace {

// How long one engine.await() may block before the handler looks at its call again.
constexpr auto kWaitSlice = std::chrono::milliseconds(200);
// How long a new call waits for the cancelled job of an abandoned call with the same id to end.
constexpr auto kReclaimWait = std::chrono::seconds(10);

bool ended(engine::JobState s) { return s != engine::JobState::kQueued && s != engine::JobState::kRunning; }

// The request's bytes, the same for the same request (what the spool keeps and the digest that
// decides whether a repeated id is the same request).
std::string serialized(const v1::SubmitProofRequest& req) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    req.SerializeToCodedStream(&coded);
  }
  return out;
}

}  // namespace

size_t ProvingService::count_active_locked() {
  size_t active = 0;
  for (auto it = book_.begin(); it != book_.end();) {
    Entry& e = it->second;
    if (!e.ended) {
      try {
        if (ended(engine_.peek(it->first).state)) {
          e.ended = true;
          e.ended_at = Clock::now();
        }
      } catch (const EngineError&) {
        it = book_.erase(it);  // the engine no longer knows it
        continue;
      }
    }
    if (!e.ended) ++active;
    ++it;
  }
  return active;
}

std::map<std::string, ProvingService::Entry>::iterator ProvingService::find_request_locked(
    const std::string& base, const RequestDigest& digest) {
  // The jobs of a request id: the id itself and "<id>.<n>", next to each other in the map's order.
  for (auto it = book_.lower_bound(base); it != book_.end() && it->first.starts_with(base); ++it) {
    const std::string_view rest = std::string_view(it->first).substr(base.size());
    const bool of_base = rest.empty() || (rest.size() > 1 && rest[0] == '.' &&
                                          rest.find_first_not_of("0123456789", 1) == std::string_view::npos);
    if (of_base && it->second.digest == digest && !it->second.abandoned) return it;
  }
  return book_.end();
}

void ProvingService::reclaim_abandoned(const std::string& id) {
  uint64_t seq = 0;
  {
    std::lock_guard lock(book_mutex_);
    auto it = book_.find(id);
    if (it == book_.end() || !it->second.abandoned) return;
    seq = it->second.seq;
  }
  // Its job was cancelled when its caller went away and ends at its next stage boundary.
  try {
    if (!engine_.await(id, kReclaimWait)) return;  // still ending: the engine answers ALREADY_EXISTS
  } catch (const EngineError&) {
    // Dropped meanwhile (janitor): the id is free.
  }
  spdlog::info("{}: a new call reuses the id of an abandoned, cancelled job; its result is dropped", id);
  deliver(id, seq);
}

ProvingService::Accepted ProvingService::submit(const v1::SubmitProofRequest& req, bool by_prove) {
  auto refuse_if_full = [&](size_t active) {
    if (active >= config_.max_queued_jobs) {
      throw EngineError(EngineError::Code::kResourceExhausted,
                        fmt::format("{} proofs are queued or running (daemon.max_queued_jobs = {}); retry later",
                                    active, config_.max_queued_jobs));
    }
  };
  // Cheap refusals first: a PoRep request carries a Commit1 output of tens of MB to parse and check.
  if (draining_) throw EngineError(EngineError::Code::kUnavailable, "the daemon is shutting down; no new proofs");
  {
    std::lock_guard lock(book_mutex_);
    if (req.request_id().empty() || !book_.contains(req.request_id())) refuse_if_full(count_active_locked());
  }
  engine::JobRequest job = to_job_request(req, engine_.config().max_partitions_per_job);
  if (!job.request_id.empty()) reclaim_abandoned(job.request_id);
  std::string bytes = serialized(req);  // tens of MB for a PoRep: moved into the journal entry
  const RequestDigest digest = request_digest(bytes);
  const std::string what = job.input ? job.input->describe()
                                     : fmt::format("synthetic, {} partition{} of {} constraints", job.partitions.size(),
                                                   job.partitions.size() == 1 ? "" : "s",
                                                   job.partitions.empty() ? 0 : job.partitions[0].constraints);
  const int priority = job.priority;
  std::lock_guard accept(accept_mutex_);
  std::shared_lock drain(drain_mutex_);
  if (draining_) throw EngineError(EngineError::Code::kUnavailable, "the daemon is shutting down; no new proofs");
  Accepted out;
  out.id = job.request_id;
  {
    std::lock_guard lock(book_mutex_);
    if (!out.id.empty()) {
      // A request id names a request, not a job: the same request under it again attaches to its
      // job (a client retrying after a lost answer or a daemon restart: one proof); another request
      // under an id in use gets a job of its own, "<id>.2", "<id>.3", ... (Curio sends the chain
      // partitions of one WindowPoSt deadline under one id, and each caller needs its own proof).
      const std::string base = out.id;
      if (auto it = find_request_locked(base, digest); it != book_.end()) {
        Entry& e = it->second;
        out.id = it->first;
        if (by_prove) ++e.prove_waiters;
        spdlog::info("{}: a repeated {} attaches to the job already accepted for this request", out.id,
                     by_prove ? "Prove" : "SubmitProof");
        out.attached = true;
        return out;
      }
      for (unsigned n = 2; book_.contains(out.id); n++) out.id = base + "." + std::to_string(n);
      if (out.id != base) {
        spdlog::info("{}: another request under the id {}, which a job holds: a job of its own", out.id, base);
      }
    }
    out.ahead = count_active_locked();
    refuse_if_full(out.ahead);
    // An id of our own for a request without one: "job-<seq>", which no restart gives out again.
    if (out.id.empty()) {
      while (book_.contains("job-" + std::to_string(next_seq_))) ++next_seq_;
      out.id = "job-" + std::to_string(next_seq_);
    }
  }
  Entry entry;
  entry.seq = next_seq_++;
  entry.submitted_unix_ms = unix_ms_now();
  entry.priority = priority;
  entry.by_prove = by_prove;
  entry.prove_waiters = by_prove ? 1 : 0;
  entry.digest = digest;
  job.request_id = out.id;
  if (journal_) {
    JournalEntry j;
    j.id = out.id;
    j.seq = entry.seq;
    j.submitted_unix_ms = entry.submitted_unix_ms;
    j.priority = priority;
    j.from_prove = by_prove;
    j.request_digest = digest;
    j.request = std::move(bytes);
    std::lock_guard journal(journal_mutex_);
    try {
      journal_->write(j);
    } catch (const JournalError& e) {
      // A full or failing disk costs this job its durability, not the proof (a WinningPoSt cannot wait).
      spdlog::warn("{}: accepted without a spool entry, so a restart before it ends loses it: {}", out.id, e.what());
    }
  }
  try {
    engine_.submit(std::move(job));
  } catch (...) {
    if (journal_) {
      std::lock_guard journal(journal_mutex_);
      journal_->remove(out.id);
    }
    throw;
  }
  {
    std::lock_guard lock(book_mutex_);
    book_[out.id] = entry;
  }
  spdlog::info("accepted {} ({}; priority {})", out.id, what, priority);
  return out;
}

std::optional<engine::JobResult> ProvingService::restored_result(const std::string& id) const {
  std::lock_guard lock(book_mutex_);
  auto it = book_.find(id);
  if (it == book_.end() || !it->second.restored) return std::nullopt;
  return it->second.restored;
}

std::optional<engine::JobResult> ProvingService::poll(const std::string& id, std::chrono::milliseconds slice) {
  if (std::optional<engine::JobResult> r = restored_result(id)) return r;
  return engine_.await(id, slice);
}

std::optional<engine::JobResult> ProvingService::wait(grpc::ServerContext* ctx, const std::string& id,
                                                      std::optional<Clock::time_point> until) {
  for (;;) {
    auto slice = std::chrono::duration_cast<std::chrono::milliseconds>(kWaitSlice);
    if (until) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*until - Clock::now());
      slice = std::clamp(left, std::chrono::milliseconds(0), slice);
    }
    if (auto r = poll(id, slice)) return r;
    if (ctx->IsCancelled()) return std::nullopt;
    if (until && Clock::now() >= *until) return std::nullopt;
  }
}

void ProvingService::deliver(const std::string& id, uint64_t seq) {
  // The spool's lock first: a job accepted under the same id right after must not lose its file.
  std::lock_guard journal(journal_mutex_);
  {
    std::lock_guard lock(book_mutex_);
    auto it = book_.find(id);
    if (it == book_.end() || (seq != 0 && it->second.seq != seq)) return;  // delivered by a concurrent caller
    book_.erase(it);
  }
  try {
    engine_.forget(id);
  } catch (const EngineError&) {
    // Restored from the spool (the engine never knew it), or already forgotten.
  }
  if (journal_) journal_->remove(id);
}

void ProvingService::result_taken(const std::string& id, bool by_prove) {
  uint64_t seq = 0;
  {
    std::lock_guard lock(book_mutex_);
    auto it = book_.find(id);
    if (it == book_.end()) return;
    Entry& e = it->second;
    if (by_prove && e.prove_waiters > 0) --e.prove_waiters;
    if (e.prove_waiters > 0) return;  // another Prove caller takes it too, and delivers it last
    seq = e.seq;
  }
  deliver(id, seq);
}

void ProvingService::prove_caller_left(const std::string& id) {
  uint64_t seq = 0;
  {
    std::lock_guard lock(book_mutex_);
    auto it = book_.find(id);
    if (it == book_.end()) return;
    Entry& e = it->second;
    if (e.prove_waiters > 0) --e.prove_waiters;
    if (!e.by_prove || e.prove_waiters > 0) {
      spdlog::info("{}: a Prove caller went away; the job goes on ({})", id,
                   e.by_prove ? "another Prove waits for it" : "it was submitted by SubmitProof");
      return;
    }
    seq = e.seq;
  }
  // Nobody can receive this proof any more.
  try {
    engine_.cancel(id);
  } catch (const EngineError&) {
  }
  {
    std::lock_guard journal(journal_mutex_);
    {
      std::lock_guard lock(book_mutex_);
      auto it = book_.find(id);
      if (it == book_.end() || it->second.seq != seq) return;
      it->second.abandoned = true;
      it->second.result_settled = true;  // nothing to keep: a restart must not prove it again
    }
    if (journal_) journal_->remove(id);
  }
  spdlog::info("{}: the Prove caller went away; job cancelled", id);
}

void ProvingService::begin_drain() {
  // The flag first, so that new submitters turn back at once and cannot starve this lock; the
  // exclusive lock then waits for those already past the check.
  draining_ = true;
  std::unique_lock lock(drain_mutex_);
}

size_t ProvingService::jobs_tracked() const {
  std::lock_guard lock(book_mutex_);
  return book_.size();
}

void ProvingService::collect_expired() {
  std::vector<std::pair<std::string, uint64_t>> expired;  // id, seq
  {
    std::lock_guard lock(book_mutex_);
    count_active_locked();
    auto ttl = std::chrono::duration<double>(config_.result_ttl_seconds);
    std::vector<std::pair<Clock::time_point, std::string>> kept;  // ended, still retained
    for (const auto& [id, e] : book_) {
      if (!e.ended) continue;
      if (e.abandoned || Clock::now() - e.ended_at > ttl) {
        expired.emplace_back(id, e.seq);
      } else {
        kept.emplace_back(e.ended_at, id);
      }
    }
    if (kept.size() > config_.max_retained_results) {
      size_t excess = kept.size() - config_.max_retained_results;
      std::partial_sort(kept.begin(), kept.begin() + ptrdiff_t(excess), kept.end());
      spdlog::warn("{} ended results were never collected (daemon.max_retained_results = {}); dropping the {} oldest",
                   kept.size(), config_.max_retained_results, excess);
      for (size_t i = 0; i < excess; ++i) expired.emplace_back(kept[i].second, book_.at(kept[i].second).seq);
    }
  }
  for (const auto& [id, seq] : expired) {
    spdlog::info("{}: result dropped (never collected)", id);
    deliver(id, seq);
  }
}

}  // namespace cuzk::server
