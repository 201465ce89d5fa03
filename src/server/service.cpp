#include "server/service.hpp"

#include <algorithm>
#include <cstdint>
#include <fmt/format.h>
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

bool ended(engine::JobState s) { return s != engine::JobState::kQueued && s != engine::JobState::kRunning; }

}  // namespace

ProvingService::ProvingService(engine::Engine& engine, const DaemonConfig& config) : engine_(engine), config_(config) {}

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

void ProvingService::reclaim_abandoned(const std::string& id) {
  {
    std::lock_guard lock(book_mutex_);
    auto it = book_.find(id);
    if (it == book_.end() || !it->second.abandoned) return;
  }
  // Its job was cancelled when its caller went away and ends at its next stage boundary.
  try {
    if (!engine_.await(id, kReclaimWait)) return;  // still ending: the engine answers ALREADY_EXISTS
  } catch (const EngineError&) {
    // Dropped meanwhile (janitor): the id is free.
  }
  spdlog::info("{}: a new call reuses the id of an abandoned, cancelled job; its result is dropped", id);
  deliver(id);
}

std::string ProvingService::submit(const v1::SubmitProofRequest& req, size_t* ahead) {
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
    refuse_if_full(count_active_locked());
  }
  engine::JobRequest job = to_job_request(req, engine_.config().max_partitions_per_job);
  if (!job.request_id.empty()) reclaim_abandoned(job.request_id);
  const std::string what = job.input ? job.input->describe()
                                     : fmt::format("synthetic, {} partition{} of {} constraints", job.partitions.size(),
                                                   job.partitions.size() == 1 ? "" : "s",
                                                   job.partitions.empty() ? 0 : job.partitions[0].constraints);
  const int priority = job.priority;
  std::shared_lock drain(drain_mutex_);
  if (draining_) throw EngineError(EngineError::Code::kUnavailable, "the daemon is shutting down; no new proofs");
  // The book lock spans the check and the submission so that concurrent callers cannot
  // overshoot max_queued_jobs together.
  std::lock_guard lock(book_mutex_);
  size_t active = count_active_locked();
  refuse_if_full(active);
  std::string id = engine_.submit(std::move(job));
  book_[id] = Entry{};
  if (ahead) *ahead = active;
  spdlog::info("accepted {} ({}; priority {})", id, what, priority);
  return id;
}

std::optional<engine::JobResult> ProvingService::wait(grpc::ServerContext* ctx, const std::string& id,
                                                      std::optional<Clock::time_point> until) {
  for (;;) {
    auto slice = std::chrono::duration_cast<std::chrono::milliseconds>(kWaitSlice);
    if (until) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*until - Clock::now());
      slice = std::clamp(left, std::chrono::milliseconds(0), slice);
    }
    if (auto r = engine_.await(id, slice)) return r;
    if (ctx->IsCancelled()) return std::nullopt;
    if (until && Clock::now() >= *until) return std::nullopt;
  }
}

void ProvingService::deliver(const std::string& id) {
  try {
    engine_.forget(id);
  } catch (const EngineError&) {
    // Already forgotten by a concurrent caller: nothing left to drop.
  }
  std::lock_guard lock(book_mutex_);
  book_.erase(id);
}

grpc::Status ProvingService::SubmitProof(grpc::ServerContext*, const v1::SubmitProofRequest* req,
                                         v1::SubmitProofResponse* resp) {
  return guarded("SubmitProof", [&] {
    size_t ahead = 0;
    std::string id = submit(*req, &ahead);
    resp->set_job_id(id);
    resp->set_queue_position(uint32_t(std::min<size_t>(ahead, UINT32_MAX)));
    try {
      resp->set_state(to_proto(engine_.peek(id).state));
    } catch (const EngineError& e) {
      if (e.code() != EngineError::Code::kNotFound) throw;
      // Already ended and delivered to a concurrent AwaitProof: accepted is all there is to say.
      resp->set_state(v1::JOB_STATE_QUEUED);
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
    if (!r) r = engine_.await(id, std::chrono::milliseconds(0));
    if (!r) {
      to_proto(engine_.peek(id), resp);  // still running: TIMEOUT, with its current state
      return grpc::Status::OK;
    }
    to_proto(*r, resp);
    deliver(id);
    return grpc::Status::OK;
  });
}

grpc::Status ProvingService::Prove(grpc::ServerContext* ctx, const v1::ProveRequest* req, v1::ProveResponse* resp) {
  return guarded("Prove", [&] {
    if (!req->has_submit()) throw InvalidRequest("ProveRequest.submit is missing: put the SubmitProofRequest there");
    WaiterSlot slot(*this);
    std::string id = submit(req->submit());
    std::optional<engine::JobResult> r = wait(ctx, id, std::nullopt);
    if (!r) {
      // The caller went away (or its deadline passed): nobody can receive this proof.
      try {
        engine_.cancel(id);
      } catch (const EngineError&) {
      }
      {
        std::lock_guard lock(book_mutex_);
        if (auto it = book_.find(id); it != book_.end()) it->second.abandoned = true;
      }
      spdlog::info("{}: the Prove caller went away; job cancelled", id);
      return grpc::Status(grpc::StatusCode::CANCELLED, "the call was cancelled; the job was cancelled with it");
    }
    to_proto(*r, resp->mutable_result());
    deliver(id);
    return grpc::Status::OK;
  });
}

grpc::Status ProvingService::CancelProof(grpc::ServerContext*, const v1::CancelProofRequest* req,
                                         v1::CancelProofResponse* resp) {
  return guarded("CancelProof", [&] {
    const std::string& id = req->job_id();
    check_request_id(id, false);
    bool cancelled = engine_.cancel(id);
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
      job = engine_.peek(req->job_id());  // NOT_FOUND for an unknown id
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
  return DaemonMetrics{counters_.rows(), draining_.load(), jobs_tracked()};
}

std::string ProvingService::status_json() const { return status_document(engine_.snapshot(), daemon_metrics()); }

std::string ProvingService::metrics_text() const { return render_prometheus(engine_.snapshot(), daemon_metrics()); }

void ProvingService::collect_expired() {
  std::vector<std::string> expired;
  {
    std::lock_guard lock(book_mutex_);
    count_active_locked();
    auto ttl = std::chrono::duration<double>(config_.result_ttl_seconds);
    std::vector<std::pair<Clock::time_point, std::string>> kept;  // ended, still retained
    for (const auto& [id, e] : book_) {
      if (!e.ended) continue;
      if (e.abandoned || Clock::now() - e.ended_at > ttl) {
        expired.push_back(id);
      } else {
        kept.emplace_back(e.ended_at, id);
      }
    }
    if (kept.size() > config_.max_retained_results) {
      size_t excess = kept.size() - config_.max_retained_results;
      std::partial_sort(kept.begin(), kept.begin() + ptrdiff_t(excess), kept.end());
      spdlog::warn("{} ended results were never collected (daemon.max_retained_results = {}); dropping the {} oldest",
                   kept.size(), config_.max_retained_results, excess);
      for (size_t i = 0; i < excess; ++i) expired.push_back(kept[i].second);
    }
  }
  for (const std::string& id : expired) {
    spdlog::info("{}: result dropped (never collected)", id);
    deliver(id);
  }
}

}  // namespace cuzk::server
