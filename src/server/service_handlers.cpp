// ProvingService's RPC handlers: each maps its call onto the job book (service_job_book.cpp) or the
// engine, inside guarded(), which turns every exception into a status and counts the call.
#include <algorithm>
#include <cstdint>
#include <fmt/format.h>
#include <new>
#include <spdlog/spdlog.h>

#include "kinds/filecoin_kinds.hpp"
#include "server/convert.hpp"
#include "server/service.hpp"
#include "server/status_codes.hpp"
#include "server/status_document.hpp"

namespace cuzk::server {

namespace v1 = cuzk::v1;
using engine::EngineError;
using Clock = std::chrono::steady_clock;

namespace {

// AwaitProofRequest.timeout_ms beyond this (30 days) waits this long.
constexpr uint64_t kMaxAwaitMs = uint64_t(30) * 24 * 3600 * 1000;

}  // namespace

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

DaemonMetrics ProvingService::daemon_metrics() const {
  std::lock_guard lock(listener_mutex_);
  return DaemonMetrics{counters_.rows(), draining_.load(), jobs_tracked(), listener_};
}

std::string ProvingService::status_json() const { return status_document(engine_.snapshot(), daemon_metrics()); }

std::string ProvingService::metrics_text() const { return render_prometheus(engine_.snapshot(), daemon_metrics()); }

}  // namespace cuzk::server
