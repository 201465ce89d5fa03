// The pipelined proving engine (see docs/ARCHITECTURE.md, "Engine"):
//   queue -> admission (budget) -> synthesis workers -> GPU queue -> GPU workers (prove_start)
//   -> finalizer workers (prove_finish, verify) -> deallocation thread,
// with the buffer tracker counting every large buffer by stage (stages.hpp names them all). Thread-safe: any number of
// threads may submit, await, cancel and read status at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/config.hpp"
#include "engine/job.hpp"
#include "engine/tracker.hpp"

namespace cuzk::engine {

// Errors a caller can act on; code says which (the daemon maps it to a gRPC status).
class EngineError : public std::runtime_error {
 public:
  enum class Code {
    kInvalidArgument,
    kResourceExhausted,
    kNotFound,
    kAlreadyExists,
    kFailedPrecondition,
    kUnavailable
  };
  EngineError(Code code, const std::string& message) : std::runtime_error(message), code_(code) {}
  Code code() const { return code_; }

 private:
  Code code_;
};

// Fixed-bucket histogram of durations in seconds (Prometheus style: counts are per bucket,
// not cumulative; the last bucket is +Inf).
struct Histogram {
  static const std::vector<double>& bounds();  // upper bounds, seconds
  std::vector<uint64_t> counts = std::vector<uint64_t>(bounds().size() + 1, 0);
  double sum = 0;
  uint64_t count = 0;
  void observe(double seconds);
};

struct PartitionStatus {
  std::string request_id;
  std::string kind;
  uint32_t partition = 0;
  std::string stage;   // a stage name (stages.hpp): queued, waiting_budget, ..., dealloc_pending
  std::string worker;  // the worker running it, e.g. "synthesis-2", "gpu-cuda:0-0", "finalizer-0"; may be empty
};

struct ParamStatus {
  std::string param_id;
  int64_t host_bytes = 0;
  // The backends count device memory per device, not per set: known only while the set is the
  // one resident (then every device-resident parameter byte is its own; 0 on the CPU).
  std::optional<int64_t> device_bytes;
  bool in_use = false;
  uint32_t jobs = 0;  // jobs not yet ended that prove with this set (Curio's ref_count)
};

// Jobs of one proof kind not yet ended (Curio's GetStatus queues).
struct KindQueue {
  std::string kind;
  uint32_t pending = 0;      // queued, no partition started
  uint32_t in_progress = 0;  // some partition admitted
};

// One proving device and what it is doing (Curio's GetStatus GPUs).
struct DeviceStatus {
  int ordinal = 0;
  std::string name;                            // e.g. "NVIDIA H200", or "cpu"
  uint64_t memory_total = 0, memory_free = 0;  // device memory; 0 for the CPU
  std::string current_job, current_kind;       // a partition on it now; empty when idle
  // Its device memory plan (groth16::DeviceInfo): a line, and bytes by use; empty on the CPU.
  std::string memory_plan;
  std::vector<std::pair<std::string, uint64_t>> memory_plan_bytes;
  // Time with a partition in prove_start on it since start, overlapping partitions counted once:
  // its growth over wall time is the device's busy share.
  double busy_seconds = 0;
  // The card's urgent lane (EngineConfig::urgent_lane_memory), on the first device only: its own
  // busy seconds and the urgent partition on it now (empty when idle).
  struct UrgentLane {
    double busy_seconds = 0;
    std::string current_job, current_kind;
  };
  std::optional<UrgentLane> urgent_lane;
};

// Jobs of one proof kind that ended since the engine started.
struct KindTotals {
  std::string kind;
  uint64_t completed = 0, failed = 0;
  Histogram seconds;  // succeeded jobs, submission to end (the total phase of this kind)
};

struct EngineSnapshot {
  std::string backend;  // "cpu" or "cuda:0,cuda:1"
  std::string policy;
  unsigned synthesis_workers = 0, gpu_workers = 0, finalizer_threads = 0;
  size_t queued_partitions = 0;  // waiting for admission
  size_t gpu_queue_depth = 0;    // synthesized, waiting for a GPU worker
  size_t jobs_active = 0;
  uint64_t jobs_completed = 0, jobs_failed = 0, jobs_cancelled = 0;
  uint64_t partitions_proved = 0;
  TrackerSnapshot buffers;
  std::vector<PartitionStatus> partitions;  // every partition not yet done
  std::vector<KindQueue> kinds;             // every kind with jobs not yet ended
  std::vector<KindTotals> kind_totals;      // every kind with an ended job, by name
  // The jobs not yet ended (oldest first), then the last ended ones, latest first, kept after
  // the daemon has delivered them (engine/job_records.hpp).
  std::vector<JobStatus> job_list;
  std::vector<DeviceStatus> devices;
  std::vector<ParamStatus> params;
  // Per phase (stages.hpp's Phase, in its order): queue_wait, param_load, synthesis, gpu,
  // finalize, verify, total.
  std::vector<std::pair<std::string, Histogram>> phase_seconds;
  double gpu_busy_seconds = 0;  // summed over GPU workers
  // Parameter set loads that failed for a reason other than a missing file (ParameterManager).
  uint64_t param_files_refused = 0;
  double uptime_seconds = 0;
};

// The status document served by the daemon's /status endpoint.
std::string snapshot_to_json(const EngineSnapshot& s);

class Engine {
 public:
  // Starts the workers. Throws EngineError(kFailedPrecondition) when the configuration cannot
  // work (e.g. CUDA requested but absent, a budget smaller than the safety margin).
  explicit Engine(EngineConfig config);
  // Cancels what is left and joins every thread.
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Queues the job and returns its request id. Throws EngineError: kInvalidArgument (bad
  // circuit description, no partitions, too many), kAlreadyExists (request id in use),
  // kResourceExhausted (queue full), kFailedPrecondition (a partition can never fit the
  // budget), kUnavailable (shutting down).
  std::string submit(JobRequest request);
  // The job's result once it has ended, waiting at most timeout; nullopt when still running.
  // Throws EngineError(kNotFound) for an unknown id. Ended jobs are kept until forget().
  std::optional<JobResult> await(const std::string& request_id, std::chrono::milliseconds timeout);
  // Current state without waiting (state kQueued/kRunning while in flight).
  JobResult peek(const std::string& request_id) const;
  // Cancels a job at whatever stage it is; its buffers and reservations are freed. Returns
  // false when the job had already ended. Throws kNotFound for an unknown id.
  bool cancel(const std::string& request_id);
  // Drops an ended job's result (the daemon calls it after delivering the result).
  void forget(const std::string& request_id);

  EngineSnapshot snapshot() const;
  // The Chrome trace (Perfetto) of the newest job under this request id: a track per partition
  // with a span per stage. nullopt when the engine keeps no such job (engine/job_records.hpp).
  std::optional<std::string> job_trace(const std::string& request_id) const;
  // The devices whose workers prove partitions, as EngineSnapshot::backend names them ("cpu",
  // "cuda:0,cuda:1"): fixed when the engine starts.
  std::string device_names() const;

  // Loads a parameter set into host memory (and accounts it); throws EngineError on failure.
  void preload_params(const std::string& param_id);
  // Evicts an idle parameter set; false when it is not resident; throws kFailedPrecondition
  // when a job is using it.
  bool evict_params(const std::string& param_id);

  // Stops accepting jobs; with cancel_in_flight cancels everything, else waits for the jobs
  // in flight to end. Idempotent; the destructor calls it with cancel_in_flight = true.
  void shutdown(bool cancel_in_flight);

  const EngineConfig& config() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// The parameter id of a circuit description (what the cache file is named after).
std::string default_param_id(const CircuitDescription& c);

}  // namespace cuzk::engine
