// The gRPC service ProvingEngine (proto/cuzk/v1/proving.proto: Curio's API plus cuzk's own
// fields and methods) over one Engine. Synchronous handlers: gRPC runs each call on a thread of
// its pool, and waiting calls poll the engine in short slices so that a caller that goes away (or
// a daemon shutdown) frees the thread.
//
// With a journal (daemon.spool_dir) every accepted job is written to the spool before the client
// hears of it, its result when it ends, and its file is removed when the result is delivered or
// expires; resume_from_spool() brings a restarted daemon's jobs back. A request repeating the id of
// a job still tracked (running, or ended and not collected) attaches to that job when it is the
// same request, and is refused (ALREADY_EXISTS) when it is another.
//
// Defined in three files by job: service_handlers.cpp (the RPC handlers), service_job_book.cpp
// (the jobs accepted and not yet delivered) and service_spool.cpp (recording results, resuming).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <utility>

#include "cuzk/v1/proving.grpc.pb.h"
#include "engine/engine.hpp"
#include "server/daemon_config.hpp"
#include "server/journal.hpp"
#include "server/metrics.hpp"
#include "server/rpc_counters.hpp"

namespace cuzk::server {

class ProvingService final : public cuzk::v1::ProvingEngine::Service {
 public:
  // journal: the spool (nullptr: none); it must outlive the service.
  ProvingService(engine::Engine& engine, const DaemonConfig& config, Journal* journal = nullptr);
  ~ProvingService() override;
  ProvingService(const ProvingService&) = delete;
  ProvingService& operator=(const ProvingService&) = delete;

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

  // Before serving: resubmits the spool's unfinished jobs in their original order (same ids and
  // priorities) and keeps its ended, uncollected results for AwaitProof/Prove. Each is logged; an
  // entry that can no longer be proved becomes a FAILED result saying why.
  void resume_from_spool();
  // Journals the results of the jobs that ended since the last look and stops doing so; the
  // daemon calls it once the engine has stopped, before destroying it.
  void close_journal();

  // From now on new proofs are refused with UNAVAILABLE; returns once no submission is in flight.
  void begin_drain();
  bool draining() const { return draining_.load(); }
  // The listener /status and /metrics describe (once its port is bound).
  void set_listener(ListenerInfo listener) {
    std::lock_guard lock(listener_mutex_);
    listener_ = std::move(listener);
  }
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
  // A request taken: its job id, whether it attached to a job already tracked under that id, and
  // the jobs accepted and not yet ended before it.
  struct Accepted {
    std::string id;
    bool attached = false;
    size_t ahead = 0;
  };
  // Submits under the drain lock and the max_queued_jobs limit, journaled first when there is a
  // spool; or attaches to the job of the same request under the same request id. Another request
  // under an id in use gets a job of its own, "<id>.2", "<id>.3", ... by_prove: a Prove call that
  // will wait for the result.
  Accepted submit(const cuzk::v1::SubmitProofRequest& req, bool by_prove);
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
  // Drops a delivered or expired result from the engine, the book and the spool. seq: the
  // entry's (a job accepted later under the same id is not touched); 0: whichever is there.
  void deliver(const std::string& id, uint64_t seq = 0);
  // A caller took the job's result: delivers it unless Prove callers are still waiting for it.
  void result_taken(const std::string& id, bool by_prove);
  // A Prove caller went away before the job ended: the job is cancelled (and its spool entry
  // dropped) when it was a Prove's own job and no other Prove waits for it.
  void prove_caller_left(const std::string& id);
  // The result of a job that ended before a restart (the engine does not know it); nullopt if none.
  std::optional<engine::JobResult> restored_result(const std::string& id) const;
  // A result, waiting at most slice: a restored one at once, else the engine's.
  std::optional<engine::JobResult> poll(const std::string& id, std::chrono::milliseconds slice);
  // Writes the results of ended jobs to the spool (the recorder thread, every kRecordInterval).
  void record_results();

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
  mutable std::mutex listener_mutex_;
  ListenerInfo listener_;

  struct Entry {
    bool ended = false;
    bool abandoned = false;  // its Prove caller went away: nobody will collect it
    std::chrono::steady_clock::time_point ended_at;
    uint64_t seq = 0;  // accept order (the spool's too)
    int64_t submitted_unix_ms = 0;
    int32_t priority = 0;
    bool by_prove = false;                      // accepted by a Prove call (rather than SubmitProof)
    unsigned prove_waiters = 0;                 // Prove calls waiting for its result now
    bool client_cancelled = false;              // CancelProof ended it
    bool result_settled = false;                // its result is in the spool, or is not to be written there
    RequestDigest digest{};                     // of the serialized request
    std::optional<engine::JobResult> restored;  // ended before a restart: the engine does not know it
  };
  mutable std::mutex book_mutex_;
  std::map<std::string, Entry> book_;  // accepted, not yet delivered, by job id
  // The job of this request among the jobs of a request id (the id, then "<id>.<n>"), not one
  // whose caller went away; book_.end() if none. Under book_mutex_.
  std::map<std::string, Entry>::iterator find_request_locked(const std::string& base, const RequestDigest& digest);

  // The spool. Lock order: accept_mutex_, then journal_mutex_, then book_mutex_.
  Journal* journal_ = nullptr;
  std::mutex accept_mutex_;   // one acceptance at a time: id check, journal write, engine submit
  std::mutex journal_mutex_;  // every write and removal of a spool file
  uint64_t next_seq_ = 1;     // under accept_mutex_
  std::mutex recorder_mutex_;
  std::condition_variable recorder_cv_;
  bool recorder_stop_ = false;
  std::thread recorder_;  // writes ended jobs' results to the spool
};

}  // namespace cuzk::server
