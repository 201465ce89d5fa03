// The gRPC service ProvingEngine (proto/cuzk/v1/proving.proto: Curio's API plus cuzk's own
// fields and methods) over one Engine. Synchronous handlers: gRPC runs each call on a thread of
// its pool, and waiting calls poll the engine in short slices so that a caller that goes away (or
// a daemon shutdown) frees the thread.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <utility>

#include "cuzk/v1/proving.grpc.pb.h"
#include "engine/engine.hpp"
#include "server/daemon_config.hpp"
#include "server/metrics.hpp"
#include "server/rpc_counters.hpp"

namespace cuzk::server {

class ProvingService final : public cuzk::v1::ProvingEngine::Service {
 public:
  ProvingService(engine::Engine& engine, const DaemonConfig& config);

  // Curio's methods (proto/cuzk/v1/proving.proto).
  grpc::Status SubmitProof(grpc::ServerContext* ctx, const cuzk::v1::SubmitProofRequest* req,
                           cuzk::v1::SubmitProofResponse* resp) override;
  grpc::Status AwaitProof(grpc::ServerContext* ctx, const cuzk::v1::AwaitProofRequest* req,
                          cuzk::v1::AwaitProofResponse* resp) override;
  grpc::Status Prove(grpc::ServerContext* ctx, const cuzk::v1::ProveRequest* req,
                     cuzk::v1::ProveResponse* resp) override;
  grpc::Status CancelProof(grpc::ServerContext* ctx, const cuzk::v1::CancelProofRequest* req,
                           cuzk::v1::CancelProofResponse* resp) override;
  grpc::Status GetStatus(grpc::ServerContext* ctx, const cuzk::v1::GetStatusRequest* req,
                         cuzk::v1::GetStatusResponse* resp) override;
  grpc::Status GetMetrics(grpc::ServerContext* ctx, const cuzk::v1::GetMetricsRequest* req,
                          cuzk::v1::GetMetricsResponse* resp) override;
  grpc::Status PreloadSRS(grpc::ServerContext* ctx, const cuzk::v1::PreloadSrsRequest* req,
                          cuzk::v1::PreloadSrsResponse* resp) override;
  grpc::Status EvictSRS(grpc::ServerContext* ctx, const cuzk::v1::EvictSrsRequest* req,
                        cuzk::v1::EvictSrsResponse* resp) override;
  // cuzk's own.
  grpc::Status PreloadParams(grpc::ServerContext* ctx, const cuzk::v1::PreloadParamsRequest* req,
                             cuzk::v1::PreloadParamsResponse* resp) override;
  grpc::Status EvictParams(grpc::ServerContext* ctx, const cuzk::v1::EvictParamsRequest* req,
                           cuzk::v1::EvictParamsResponse* resp) override;

  // From now on new proofs are refused with UNAVAILABLE; returns once no submission is in flight.
  void begin_drain();
  bool draining() const { return draining_.load(); }
  // Jobs accepted whose result has not been delivered (ended ones included).
  size_t jobs_tracked() const;
  // The /status document and the /metrics text (also served over HTTP).
  std::string status_json() const;
  std::string metrics_text() const;

  // Forgets the results of jobs that ended more than result_ttl ago and were never awaited, and
  // the oldest ended ones beyond max_retained_results.
  void collect_expired();
  // Prove/AwaitProof calls that may wait at once: max_rpc_threads (at least 4) less a reserve of
  // min(16, half) threads kept for CancelProof, GetStatus and the other short calls.
  static size_t max_waiters(unsigned max_rpc_threads);

 private:
  // Submits under the drain lock and the max_queued_jobs limit; returns the job id and sets
  // *ahead to the jobs accepted and not yet ended before it.
  std::string submit(const cuzk::v1::SubmitProofRequest& req, size_t* ahead = nullptr);
  // A job id whose Prove caller went away (its job cancelled, nobody to collect it) is free again
  // for a retry with the same id (Curio's ids are "porep-<miner>-<sector>"): waits a little for
  // the cancelled job to end and drops it.
  void reclaim_abandoned(const std::string& id);
  // Loads a parameter set (PreloadSRS, PreloadParams); returns its host bytes and whether it was
  // resident before.
  std::pair<int64_t, bool> preload(const std::string& param_id);
  // Evicts an idle parameter set; returns whether it was resident and the bytes it held.
  std::pair<bool, uint64_t> evict(const std::string& param_id);
  // Waits until the job ends, the timeout passes or the call is cancelled; nullopt if still running.
  std::optional<engine::JobResult> wait(grpc::ServerContext* ctx, const std::string& id,
                                        std::optional<std::chrono::steady_clock::time_point> until);
  // Entries not yet ended, after refreshing them from the engine (book_mutex_ held).
  size_t count_active_locked();
  DaemonMetrics daemon_metrics() const;
  // Runs a handler body, maps every exception to a status and counts the call.
  template <class F>
  grpc::Status guarded(const char* method, F&& body) const;
  // Drops a delivered result from the engine and from the book.
  void deliver(const std::string& id);

  // Holds one of max_waiters() places for a waiting call; throws RESOURCE_EXHAUSTED when none is left.
  class WaiterSlot {
   public:
    explicit WaiterSlot(ProvingService& s);
    ~WaiterSlot();
    WaiterSlot(const WaiterSlot&) = delete;
    WaiterSlot& operator=(const WaiterSlot&) = delete;

   private:
    ProvingService& service_;
  };

  engine::Engine& engine_;
  const DaemonConfig& config_;
  std::atomic<size_t> waiters_{0};  // Prove/AwaitProof calls in flight
  mutable RpcCounters counters_;

  std::shared_mutex drain_mutex_;  // held shared by submissions, exclusively by begin_drain
  std::atomic<bool> draining_{false};

  struct Entry {
    bool ended = false;
    bool abandoned = false;  // its Prove caller went away: nobody will collect it
    std::chrono::steady_clock::time_point ended_at;
  };
  mutable std::mutex book_mutex_;
  std::map<std::string, Entry> book_;  // accepted, not yet delivered
};

}  // namespace cuzk::server
