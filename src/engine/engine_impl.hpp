// The engine's private state, shared by the stage files (synthesis.cpp, gpu_worker.cpp,
// finalizer.cpp) and engine.cpp. Not part of the public API.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/budget.hpp"
#include "engine/dealloc.hpp"
#include "engine/engine.hpp"
#include "engine/param_manager.hpp"
#include "engine/partition_queue.hpp"
#include "engine/timeline.hpp"
#include "engine/tracker.hpp"
#include "ff/os_rng.hpp"
#include "groth16/backend.hpp"
#include "groth16/prover.hpp"
#include "r1cs/proving_assignment.hpp"

namespace cuzk::engine {

using Clock = std::chrono::steady_clock;
using ff::Fr;

inline double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// The shape of one partition, known before synthesis, and the bytes it will hold.
struct PartitionShape {
  uint64_t domain = 0, aux = 0, inputs = 0;  // inputs includes ONE
  BufferBytes bytes{};                       // estimated, by buffer class
  uint64_t total() const;
  uint64_t abc() const { return uint64_t(bytes[size_t(BufferClass::kAbc)]); }
  uint64_t scratch() const { return uint64_t(bytes[size_t(BufferClass::kSynthScratch)]); }
};
// The bytes a partition of this circuit holds, by class (a/b/c at the domain's size).
PartitionShape partition_shape(const CircuitShape& c);

struct Job {
  std::string id;
  uint64_t seq = 0;
  JobRequest request;
  std::shared_ptr<const ProofInput> input;  // the parsed job (request.input, or the synthetic one)
  uint64_t input_bytes = 0;                 // charged to the budget and the tracker while the job lives
  std::string param_id;
  PartitionShape shape;
  Clock::time_point submitted;
  std::atomic<bool> stop{false};  // cancelled or failed: drop the remaining partitions
  // Guarded by Engine::Impl::mutex.
  JobState state = JobState::kQueued;
  bool cancel_requested = false;
  std::string error;
  std::vector<std::vector<uint8_t>> proofs;  // per partition
  size_t ended_partitions = 0;
  bool all_verified = true;
  JobTimings timings;
};

struct Partition {
  std::shared_ptr<Job> job;
  uint32_t index = 0;
  QueueKey key;
  std::string label;                  // "<job>/<index>" for logs and the timeline
  std::atomic<uint64_t> reserved{0};  // bytes of the budget this partition holds
  bool holds_permit = false;          // semaphore policies
  bool in_tracker = false;
  Stage stage = Stage::kSynthRunning;
  BufferBytes tracked{};  // what the tracker counts for it in `stage`
  std::shared_ptr<const ParamSet> params;
  std::unique_ptr<r1cs::ProvingAssignment> assignment;
  groth16::PendingProof pending;
  Clock::time_point queued_at;
  // For the status document.
  std::mutex where_mutex;
  std::string where = "queued", worker;
  void set_where(std::string w, std::string by = {}) {
    std::lock_guard lock(where_mutex);
    where = std::move(w);
    worker = std::move(by);
  }
};

struct Device {
  std::unique_ptr<groth16::ProverBackend> backend;
  std::mutex serial;  // held around prove_start when the backend is not concurrent
};

struct Engine::Impl {
  explicit Impl(EngineConfig cfg);
  ~Impl();

  // Stages (each in its own file). Each *_one hands its partition on or retires it; an
  // exception leaves the partition with the caller, which fails it.
  void synthesis_loop(unsigned worker);
  void synthesize_one(std::shared_ptr<Partition>& p, const std::string& track);
  void gpu_loop(Device& device, unsigned worker);
  void prove_start_one(std::shared_ptr<Partition>& p, Device& device, ff::OsRng& rng, const std::string& track);
  void finalizer_loop(unsigned worker);
  void finish_one(std::shared_ptr<Partition>& p, const std::string& track);
  // Fails the partition's job with the stage's error and retires the partition.
  void fail(std::shared_ptr<Partition> p, const char* stage, const std::string& what);

  // Admission under the configured policy; false when the partition was dropped meanwhile.
  bool admit(Partition& p);
  // Hands a partition's buffers to the deallocation thread; when they are freed the
  // reservation returns to the budget and the partition counts as ended for its job.
  void retire(std::shared_ptr<Partition> p, bool completed);
  // Stops a job (first error wins) and pulls its queued partitions out; false when it had
  // already ended or stopped.
  bool stop_job(Job& job, const std::string& error, bool cancelled);
  void partition_ended(Partition& p);
  // Keeps the budget charged with what the backends hold between assignments
  // (ProverBackend::idle_host_bytes); called where that changes. trim_backends frees it.
  void charge_idle_host_memory();
  void trim_backends();
  // trim_backends, when what it frees would let `need` bytes fit in the budget.
  void trim_backends_if_that_fits(uint64_t need);
  void move_stage(Partition& p, Stage to, const BufferBytes& bytes, const std::string& event);
  void observe_phase(const std::string& phase, double seconds);
  void span(const std::string& track, const std::string& name, Clock::time_point a, Clock::time_point b);

  EngineConfig config;
  Clock::time_point started = Clock::now();
  std::unique_ptr<Timeline> timeline;
  MemoryBudget budget;
  MemoryBudget permits;  // the semaphore of the semaphore policies (a FIFO allowance of N)
  BufferTracker tracker;
  ParameterManager params;
  PartitionQueue work_queue;
  PartitionQueue gpu_queue;
  PartitionQueue finalize_queue;
  std::vector<std::unique_ptr<Device>> devices;
  std::mutex idle_charge_mutex;
  uint64_t idle_charged = 0;  // budget bytes charged for the backends' idle host memory

  mutable std::mutex mutex;
  std::condition_variable job_ended;
  std::map<std::string, std::shared_ptr<Job>> jobs;
  std::vector<std::weak_ptr<Partition>> live;  // for the status document
  uint64_t next_seq = 1;
  bool accepting = true;
  std::atomic<bool> stopping{false};
  std::mutex shutdown_mutex;  // one shutdown at a time
  bool stopped = false;       // guarded by shutdown_mutex
  uint64_t jobs_completed = 0, jobs_failed = 0, jobs_cancelled = 0, partitions_proved = 0;
  std::map<std::string, Histogram> phases;
  std::atomic<int64_t> gpu_busy_micros{0};
  unsigned synthesis_workers = 0, gpu_workers = 0;
  std::vector<std::thread> threads;
  // Last, so destroyed first: its remaining tasks use everything above.
  std::unique_ptr<Deallocator> dealloc;
};

}  // namespace cuzk::engine
