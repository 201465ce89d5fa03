#include "server/service.hpp"

#include <algorithm>
#include <cstdint>
#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <new>
#include <spdlog/spdlog.h>

#include "kinds/filecoin_kinds.hpp"
#include "server/convert.hpp"
#include "server/status_codes.hpp"
#include "server/status_document.hpp"

namespace cuzk::server {

namespace v1 = cuzk::v1;
using engine::EngineError;
using Clock = std::chrono::steady_clock;

namespace {

// How long one engine.await() may block before the handler looks at its call again.
constexpr auto kWaitSlice = std::chrono::milliseconds(200);
// How long a new call waits for the cancelled job of an abandoned call with the same id to end.
constexpr auto kReclaimWait = std::chrono::seconds(10);
// AwaitProofRequest.timeout_ms beyond this (30 days) waits this long.
constexpr uint64_t kMaxAwaitMs = uint64_t(30) * 24 * 3600 * 1000;
// How often the recorder looks for ended jobs whose result is not in the spool yet.
constexpr auto kRecordInterval = std::chrono::milliseconds(100);

bool ended(engine::JobState s) { return s != engine::JobState::kQueued && s != engine::JobState::kRunning; }

int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

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

size_t ProvingService::max_waiters(unsigned max_rpc_threads) {
  size_t threads = std::max(max_rpc_threads, 4u);
  return threads - std::min<size_t>(16, threads / 2);
}

ProvingService::WaiterSlot::WaiterSlot(ProvingService& s) : service_(s) {
  size_t limit = max_waiters(s.config_.max_rpc_threads);
  if (s.waiters_.fetch_add(1) >= limit) {
    s.waiters_.fetch_sub(1);
    throw EngineError(EngineError::Code::kResourceExhausted,
                      fmt::format("{} Prove/AwaitProof calls are already waiting (daemon.max_rpc_threads = {} keeps "
                                  "threads free for the other calls); retry later",
                                  limit, s.config_.max_rpc_threads));
  }
}

ProvingService::WaiterSlot::~WaiterSlot() { service_.waiters_.fetch_sub(1); }

template <class F>
grpc::Status ProvingService::guarded(const char* method, F&& body) const {
  grpc::Status status;
  try {
    status = body();
  } catch (const InvalidRequest& e) {
    status = grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, e.what());
  } catch (const Unimplemented& e) {
    status = grpc::Status(grpc::StatusCode::UNIMPLEMENTED, e.what());
  } catch (const kinds::InvalidProofRequest& e) {
    status = grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, e.what());
  } catch (const kinds::UnsupportedProof& e) {
    status = grpc::Status(grpc::StatusCode::UNIMPLEMENTED, e.what());
  } catch (const EngineError& e) {
    status = to_grpc_status(e);
  } catch (const std::bad_alloc&) {
    status = grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "the daemon ran out of memory serving this call");
  } catch (const std::exception& e) {
    status = grpc::Status(grpc::StatusCode::INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    status = grpc::Status(grpc::StatusCode::INTERNAL, "internal error (unknown exception)");
  }
  counters_.record(method, status_code_name(status.error_code()));
  if (!status.ok()) {
    auto level = status.error_code() == grpc::StatusCode::INTERNAL ? spdlog::level::err : spdlog::level::info;
    spdlog::log(level, "rpc {}: {} {}", method, status_code_name(status.error_code()), status.error_message());
  }
  return status;
}

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

grpc::Status ProvingService::SubmitProof(grpc::ServerContext*, const v1::SubmitProofRequest* req,
                                         v1::SubmitProofResponse* resp) {
  return guarded("SubmitProof", [&] {
    Accepted a = submit(*req, false);
    resp->set_job_id(a.id);
    resp->set_queue_position(uint32_t(std::min<size_t>(a.ahead, UINT32_MAX)));
    resp->set_assigned_gpu(engine_.device_names());
    try {
      resp->set_state(to_proto(engine_.peek(a.id).state));
    } catch (const EngineError& e) {
      if (e.code() != EngineError::Code::kNotFound) throw;
      // Ended before a restart (attached), or ended and delivered to a concurrent AwaitProof.
      std::optional<engine::JobResult> r = restored_result(a.id);
      resp->set_state(r ? to_proto(r->state) : v1::JOB_STATE_QUEUED);
    }
    return grpc::Status::OK;
  });
}

grpc::Status ProvingService::AwaitProof(grpc::ServerContext* ctx, const v1::AwaitProofRequest* req,
                                        v1::AwaitProofResponse* resp) {
  return guarded("AwaitProof", [&] {
    const std::string& id = req->job_id();
    check_request_id(id, false);
    WaiterSlot slot(*this);
    std::optional<Clock::time_point> until;
    if (req->timeout_ms() > 0) {
      until = Clock::now() + std::chrono::milliseconds(std::min<uint64_t>(req->timeout_ms(), kMaxAwaitMs));
    }
    std::optional<engine::JobResult> r = wait(ctx, id, until);
    if (ctx->IsCancelled()) return grpc::Status(grpc::StatusCode::CANCELLED, "the call was cancelled");
    // The timeout passed: a job that ended meanwhile is delivered now, not reported as ended and kept.
    if (!r) r = poll(id, std::chrono::milliseconds(0));
    if (!r) {
      to_proto(engine_.peek(id), resp);  // still running: TIMEOUT, with its current state
      return grpc::Status::OK;
    }
    to_proto(*r, resp);
    result_taken(id, false);
    return grpc::Status::OK;
  });
}

grpc::Status ProvingService::Prove(grpc::ServerContext* ctx, const v1::ProveRequest* req, v1::ProveResponse* resp) {
  return guarded("Prove", [&] {
    if (!req->has_submit()) throw InvalidRequest("ProveRequest.submit is missing: put the SubmitProofRequest there");
    WaiterSlot slot(*this);
    Accepted a = submit(req->submit(), true);
    std::optional<engine::JobResult> r;
    try {
      r = wait(ctx, a.id, std::nullopt);
    } catch (...) {
      prove_caller_left(a.id);
      throw;
    }
    if (!r) {
      // The caller went away (or its deadline passed).
      prove_caller_left(a.id);
      return grpc::Status(grpc::StatusCode::CANCELLED,
                          "the call was cancelled; the job was cancelled with it unless another caller waits for it");
    }
    to_proto(*r, resp->mutable_result());
    result_taken(a.id, true);
    return grpc::Status::OK;
  });
}

grpc::Status ProvingService::CancelProof(grpc::ServerContext*, const v1::CancelProofRequest* req,
                                         v1::CancelProofResponse* resp) {
  return guarded("CancelProof", [&] {
    const std::string& id = req->job_id();
    check_request_id(id, false);
    {
      // Before the cancel, so that the recorder keeps this cancellation even during a shutdown.
      std::lock_guard lock(book_mutex_);
      if (auto it = book_.find(id); it != book_.end()) it->second.client_cancelled = true;
    }
    bool cancelled = false;
    try {
      cancelled = engine_.cancel(id);
    } catch (const EngineError& e) {
      std::optional<engine::JobResult> r;
      if (e.code() != EngineError::Code::kNotFound || !(r = restored_result(id))) throw;
      resp->set_was_running(false);  // ended before a restart
      resp->set_state(to_proto(r->state));
      return grpc::Status::OK;
    }
    resp->set_was_running(cancelled);
    try {
      resp->set_state(to_proto(engine_.peek(id).state));
    } catch (const EngineError& e) {
      if (e.code() != EngineError::Code::kNotFound) throw;
      // Ended and delivered to a concurrent AwaitProof since cancel(): answer from what is known.
      resp->set_state(cancelled ? v1::JOB_STATE_CANCELLED : v1::JOB_STATE_UNSPECIFIED);
    }
    if (cancelled) spdlog::info("{}: cancelled by a client", id);
    return grpc::Status::OK;
  });
}

grpc::Status ProvingService::GetStatus(grpc::ServerContext*, const v1::GetStatusRequest* req,
                                       v1::GetStatusResponse* resp) {
  return guarded("GetStatus", [&] {
    std::optional<engine::JobResult> job;
    if (!req->job_id().empty()) {
      check_request_id(req->job_id(), false);
      try {
        job = engine_.peek(req->job_id());
      } catch (const EngineError& e) {
        if (e.code() != EngineError::Code::kNotFound || !(job = restored_result(req->job_id()))) throw;
      }
    }
    engine::EngineSnapshot s = engine_.snapshot();
    to_proto(s, resp);
    if (job) {
      v1::JobStatus* j = resp->mutable_job();
      j->set_job_id(job->request_id);
      j->set_state(to_proto(job->state));
      j->set_error(job->error);
      to_proto(job->timings, j->mutable_timings());
      for (const engine::PartitionStatus& p : s.partitions) {
        if (p.request_id != job->request_id) continue;
        if (j->proof_kind().empty()) j->set_proof_kind(wire_kind_name(p.kind));
        v1::PartitionStage* ps = j->add_partitions();
        ps->set_partition(p.partition);
        ps->set_stage(p.stage);
        ps->set_worker(p.worker);
      }
    }
    DaemonMetrics d = daemon_metrics();
    resp->set_status_json(status_document(s, d));
    resp->set_draining(d.draining);
    return grpc::Status::OK;
  });
}

grpc::Status ProvingService::GetMetrics(grpc::ServerContext*, const v1::GetMetricsRequest*,
                                        v1::GetMetricsResponse* resp) {
  return guarded("GetMetrics", [&] {
    resp->set_prometheus_text(metrics_text());
    return grpc::Status::OK;
  });
}

std::pair<int64_t, bool> ProvingService::preload(const std::string& id) {
  auto resident = [&](int64_t* host_bytes) {
    for (const engine::ParamStatus& p : engine_.snapshot().params) {
      if (p.param_id != id) continue;
      if (host_bytes) *host_bytes = p.host_bytes;
      return true;
    }
    return false;
  };
  bool before = resident(nullptr);
  engine_.preload_params(id);
  int64_t host_bytes = 0;
  resident(&host_bytes);
  spdlog::info("parameters {} {}", id, before ? "were resident already" : "preloaded");
  return {host_bytes, before};
}

std::pair<bool, uint64_t> ProvingService::evict(const std::string& id) {
  uint64_t bytes = 0;
  for (const engine::ParamStatus& p : engine_.snapshot().params) {
    if (p.param_id == id)
      bytes = uint64_t(std::max<int64_t>(p.host_bytes, 0) + std::max<int64_t>(p.device_bytes.value_or(0), 0));
  }
  bool evicted = engine_.evict_params(id);  // FAILED_PRECONDITION while a job uses it
  if (evicted) spdlog::info("parameters {} evicted", id);
  return {evicted, evicted ? bytes : 0};
}

grpc::Status ProvingService::PreloadSRS(grpc::ServerContext*, const v1::PreloadSrsRequest* req,
                                        v1::PreloadSrsResponse* resp) {
  return guarded("PreloadSRS", [&] {
    std::string id = param_id_for_circuit(req->circuit_id());
    auto start = Clock::now();
    auto [host_bytes, before] = preload(id);
    resp->set_already_loaded(before);
    resp->set_load_time_ms(
        uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count()));
    resp->set_param_id(id);
    resp->set_host_bytes(host_bytes);
    return grpc::Status::OK;
  });
}

grpc::Status ProvingService::EvictSRS(grpc::ServerContext*, const v1::EvictSrsRequest* req,
                                      v1::EvictSrsResponse* resp) {
  return guarded("EvictSRS", [&] {
    std::string id = param_id_for_circuit(req->circuit_id());
    auto [evicted, bytes] = evict(id);
    resp->set_was_loaded(evicted);
    resp->set_freed_bytes(bytes);
    resp->set_param_id(id);
    return grpc::Status::OK;
  });
}

grpc::Status ProvingService::PreloadParams(grpc::ServerContext*, const v1::PreloadParamsRequest* req,
                                           v1::PreloadParamsResponse* resp) {
  return guarded("PreloadParams", [&] {
    std::string id = req->param_id();
    if (id.empty()) {
      if (!req->has_synthetic()) throw InvalidRequest("give param_id, or the synthetic circuit to derive it from");
      id = engine::default_param_id(to_circuit(req->synthetic()));
    }
    check_param_id(id);
    resp->set_param_id(id);
    resp->set_host_bytes(preload(id).first);
    return grpc::Status::OK;
  });
}

grpc::Status ProvingService::EvictParams(grpc::ServerContext*, const v1::EvictParamsRequest* req,
                                         v1::EvictParamsResponse* resp) {
  return guarded("EvictParams", [&] {
    check_param_id(req->param_id());
    resp->set_evicted(evict(req->param_id()).first);
    return grpc::Status::OK;
  });
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

DaemonMetrics ProvingService::daemon_metrics() const {
  std::lock_guard lock(listener_mutex_);
  return DaemonMetrics{counters_.rows(), draining_.load(), jobs_tracked(), listener_};
}

std::string ProvingService::status_json() const { return status_document(engine_.snapshot(), daemon_metrics()); }

std::string ProvingService::metrics_text() const { return render_prometheus(engine_.snapshot(), daemon_metrics()); }

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
