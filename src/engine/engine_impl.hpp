// The engine's private state, shared by engine.cpp, admission.cpp and the workers' files
// (synthesis_worker.cpp, gpu_worker.cpp, finalizer_worker.cpp; stages.hpp says which runs what).
// Not part of the public API.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/budget.hpp"
#include "engine/compiled_circuits.hpp"
#include "engine/dealloc.hpp"
#include "engine/engine.hpp"
#include "engine/job_records.hpp"
#include "engine/kept_witnesses.hpp"
#include "engine/param_manager.hpp"
#include "engine/partition_queue.hpp"
#include "engine/stages.hpp"
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

// Bytes for errors and logs, rounded up: "4037 MiB".
inline std::string mib(uint64_t b) { return std::to_string((b + (1 << 20) - 1) >> 20) + " MiB"; }

inline bool ended(JobState s) {
  return s == JobState::kSucceeded || s == JobState::kFailed || s == JobState::kCancelled;
}

// The shape of one partition, known before synthesis, and the bytes it will hold.
struct PartitionShape {
  uint64_t domain = 0, aux = 0, inputs = 0;  // inputs includes ONE
  BufferBytes bytes{};                       // estimated, by buffer class
  uint64_t total() const;
  uint64_t abc() const { return uint64_t(bytes[size_t(BufferClass::kAbc)]); }
  uint64_t scratch() const { return uint64_t(bytes[size_t(BufferClass::kSynthScratch)]); }
};
// The bytes a partition of this circuit holds, by class: a/b/c at the domain's size, aux, inputs
// and densities; witness-only, the witness (aux and inputs) alone.
PartitionShape partition_shape(const CircuitShape& c, bool witness_only = false);

struct Job {
  std::string id;
  uint64_t seq = 0;
  JobRequest request;
  std::shared_ptr<const ProofInput> input;  // the parsed job (request.input, or the synthetic one)
  uint64_t input_bytes = 0;                 // charged to the budget and the tracker while the job lives
  std::string param_id;
  PartitionShape shape;       // witness-only when witness_only was set at submission
  PartitionShape full_shape;  // a full synthesis' (= shape when it is one)
  // Synthesized witness-only (Engine::Impl::witness_only); cleared when its circuit cannot be
  // compiled or its backends cannot form a/b/c on the device (witness_path_refused): then in full.
  std::atomic<bool> witness_only{false};
  Clock::time_point submitted;
  std::atomic<bool> stop{false};  // cancelled or failed: drop the remaining partitions
  bool urgent = false;            // priority >= EngineConfig::urgent_priority
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
  bool admits_after_load = false;     // and no more: its own bytes come once the set's host copy went
  bool on_urgent_lane = false;        // proved on the urgent lane (place_on_urgent_lane said so)
  bool witness_only = false;          // admitted for a witness-only synthesis (its job's, then)
  std::shared_ptr<const r1cs::CompiledCircuit> compiled;  // witness-only: its circuit, placed
  bool in_tracker = false;
  Stage stage = Stage::kSynthRunning;  // the tracked stage that counts its buffers
  BufferBytes tracked{};               // what the tracker counts for it in `stage`
  std::shared_ptr<const ParamSet> params;
  std::unique_ptr<r1cs::ProvingAssignment> assignment;
  // Witness-only: a finished partition's aux memory taken at admission for this one's (its charge
  // is in `reserved`), until the synthesis adopts it.
  std::optional<r1cs::KeptWitness> kept;
  groth16::PendingProof pending;
  Clock::time_point queued_at;
  // The bytes it is admitted for.
  const PartitionShape& shape() const { return witness_only ? job->shape : job->full_shape; }
  // For the status document: the stage it is in now (tracked or not) and the worker running it.
  std::mutex where_mutex;
  Stage where = Stage::kQueued;
  std::string worker;
  void set_where(Stage s, std::string by = {}) {
    std::lock_guard lock(where_mutex);
    where = s;
    worker = std::move(by);
  }
};

// Time with at least one partition in prove_start on a device: overlapping calls (a concurrent
// backend, several GPU workers) count once, so that its rate is the device's busy share.
class BusyClock {
 public:
  void enter() {
    std::lock_guard lock(mutex_);
    if (active_++ == 0) since_ = Clock::now();
  }
  void leave() {
    std::lock_guard lock(mutex_);
    if (--active_ == 0) total_ += Clock::now() - since_;
  }
  double seconds() const {
    std::lock_guard lock(mutex_);
    const Clock::duration t = active_ ? total_ + (Clock::now() - since_) : total_;
    return std::chrono::duration<double>(t).count();
  }

 private:
  mutable std::mutex mutex_;
  unsigned active_ = 0;
  Clock::time_point since_;
  Clock::duration total_{};
};

struct Device {
  std::unique_ptr<groth16::ProverBackend> backend;
  std::mutex serial;  // held around prove_start when the backend is not concurrent
  BusyClock busy;     // devices[].busy_seconds and cuzk_device_busy_seconds_total
};

// The GPU workers' names (threads, timeline tracks, the status' current partitions) are this
// and their index: "gpu-<backend>-N", the urgent lane's "gpu-urgent-<backend>-N".
std::string gpu_worker_prefix(const groth16::ProverBackend& backend, bool urgent_lane);

struct Engine::Impl {
  explicit Impl(EngineConfig cfg);
  ~Impl();

  // The workers, one file each: run_*_worker pops partitions and hands each to its *_partition
  // function, which passes it on or retires it; an exception leaves the partition with the
  // worker, which fails it. `name` is the worker's thread and timeline track name.
  // `queue` is work_queue, or urgent_queue for the urgent worker (its synthesis runs in a
  // high-priority task arena, so the shared threads turn to it first).
  void run_synthesis_worker(PartitionQueue& queue, const std::string& name, bool urgent);
  void synthesize_partition(std::shared_ptr<Partition>& p, const std::string& name);
  // After synthesis: the partition's reservation becomes what its assignment holds (the scratch
  // share goes back; bytes beyond the estimate are charged within the budget, or the backend's
  // preparation is dropped) and it moves to synth_done_waiting_gpu.
  void settle_synthesized(Partition& p);
  void run_gpu_worker(Device& device, unsigned index, PartitionQueue& queue);
  // next: the partition the worker proves after p, held back for the backend (run_gpu_worker).
  void prove_start_partition(std::shared_ptr<Partition>& p, Device& device, ff::OsRng& rng, const std::string& name,
                             const r1cs::ProvingAssignment* next = nullptr);
  // The held partition, or what came into the queue since that goes before it (held goes back).
  std::shared_ptr<Partition> held_or_before(PartitionQueue& queue, std::shared_ptr<Partition>& held);
  void run_finalizer_worker(unsigned index);
  void finish_partition(std::shared_ptr<Partition>& p, const std::string& name);
  // Fails the partition's job with the error of the work `what_failed` and retires the partition.
  void fail(std::shared_ptr<Partition> p, const char* what_failed, const std::string& what);

  // admission.cpp: what a partition takes from the budget and gives back.
  // Admission under the configured policy (urgent work: at once, config.urgent_admission); false
  // when the partition was dropped meanwhile.
  bool admit(Partition& p, const std::string& worker);
  // The second step of a partition that paid for its set's load alone (sets_leave_host): its own
  // bytes, once the set is on the devices. Throws EngineError when the set's host copy stayed (the
  // device could not hold every base) and the partition can never fit beside it. When it must
  // wait it lets go of p.params first: the caller acquires the set again.
  bool admit_after_set_load(Partition& p, const std::string& worker);
  // Undoes p's admission before its synthesis (its reservation and permit back), so that it is
  // admitted again: its set was evicted meanwhile, or it goes by full synthesis now.
  void unadmit(Partition& p);
  // With sets_leave_host: the error for p when its set is on the devices but what stays of its
  // host copy leaves no room for p within the whole budget; empty otherwise (also while the set
  // is not loaded or not yet placed). Reads the backends without their locks.
  std::string never_fits_beside_set(const Partition& p) const;
  // Hands a partition's buffers to the deallocation thread; when they are freed the
  // reservation returns to the budget and the partition counts as ended for its job.
  void retire(std::shared_ptr<Partition> p, bool completed);
  // Stops a job (first error wins) and pulls its queued partitions out; false when it had
  // already ended or stopped.
  bool stop_job(Job& job, const std::string& error, bool cancelled);
  void partition_ended(Partition& p);
  // Keeps the budget charged with what the backends hold between assignments
  // (ProverBackend::idle_host_bytes); called where that changes. Only within the budget: idle
  // memory that grew is paid first from `from` (a reservation being given back whose memory
  // went idle: a partition's a/b/c with their compact copies; what is left stays in *from for
  // the caller to release), then from the budget's free room, and beyond it the backends trim
  // it. Idle memory that shrank because a preparation took it moves to `to` (that partition's
  // reservation), up to `to_most` (what the preparation holds), the rest back to the budget.
  // trim_backends frees it all.
  void charge_idle_host_memory(uint64_t* from = nullptr, uint64_t* to = nullptr, uint64_t to_most = 0);
  void trim_backends();
  // Follows the parameters' host bytes the backends gave back to the OS while their devices hold
  // the sets (ProverBackend::released_host_bytes): returned to the budget when given back, charged
  // again (beyond the budget if need be: the memory is in use) when written back or before the
  // parameter manager releases an evicted set's whole charge; the tracker's host bytes follow.
  // Called after every backend call that may change them.
  void charge_released_parameters();
  // The backends' parameter bytes, all devices: resident on the devices, and host copies given
  // back (ProverBackend::resident_bytes, released_host_bytes).
  struct BackendParameterBytes {
    int64_t device = 0, released = 0;
  };
  BackendParameterBytes backend_parameter_bytes() const;
  // The resident sets' bytes still in host memory: their charge less the copies given back (the
  // devices hold those); what the tracker shows as the parameters' host bytes.
  uint64_t parameters_host_bytes(const BackendParameterBytes& b) const;
  uint64_t parameters_host_bytes() const { return parameters_host_bytes(backend_parameter_bytes()); }
  // Makes the set ready on every device (load_parameters: the CUDA backend uploads its bases and,
  // one device holding them all, gives its host copy back), then charges what was given back.
  // Throws std::runtime_error naming the set and the device.
  void load_on_devices(const ParamSet& set);
  // Puts the set on the urgent lane, once: the devices keep its host copy from then on
  // (ProverBackend::keep_host_copy: the lane uploads from it), and the lane loads it. False when
  // the set is too large for the lane (more than half its urgent_lane_memory) or the lane could
  // not load it (logged once): its urgent partitions are proved on the devices, first in line.
  bool place_on_urgent_lane(const ParamSet& set);
  // What ordinary work leaves free in the budget for urgent work.
  uint64_t urgent_room() const;
  // p's compiled circuit for a witness-only synthesis (synthesis_worker.cpp); null: in full.
  std::shared_ptr<const r1cs::CompiledCircuit> compiled_circuit(Partition& p);
  // Why p, admitted for a witness-only synthesis with its set placed, cannot have one (empty: it
  // can): its compiled
  // circuit (recorded now by the first partition of its shape, p.compiled) and the backends that
  // prove it forming a/b/c on the device (place_matrices, then ProverBackend::abc_off_device for
  // the plan in force now). When not, its job is proved by full synthesis from here on (logged
  // once, with why).
  std::string witness_path_refused(Partition& p);
  // Gets p.compiled and places its matrices beside p's set on the backends that prove p (the
  // urgent lane, or every device), once a set (ProverBackend::place_matrices): empty, or why a/b/c
  // cannot be formed there (then the compiled circuit is let go, and its charge with it).
  std::string place_matrices(Partition& p);
  // Whether the devices refuse witness-only proofs of the resident set param_id (place_matrices
  // said so, or, once it accepted, the plan in force overlays: abc_off_device): a job of it
  // submitted now is synthesized in full from the start. Takes no lock a placement holds.
  bool witness_refused(const std::string& param_id) const;
  // Why a partition of this shape can never be admitted under the budget policy (empty: it can).
  std::string never_fits_budget(const Job& job, const PartitionShape& shape, uint64_t params_bytes) const;
  // trim_backends and drop_kept_witnesses, when what they free would let `need` bytes fit in the
  // budget.
  void trim_backends_if_that_fits(uint64_t need);
  // Kept witness memory (kept_witnesses.hpp), under the budget policy. take_kept_witness: one of
  // p's shape for its synthesis (p.kept), returning the budget bytes it brings. keep_witness: w
  // waits for the next synthesis of its shape, charged with up to its bytes taken from
  // *reservation; give_back_kept_witness does so with p.kept (p never synthesized). An entry
  // displaced, and those drop_kept_witnesses takes, are freed and their charge released after:
  // on the deallocation thread, or here when the caller runs on it (here = true). A kept one makes
  // the head of the budget line look again (recheck), unless the head itself gave it back.
  uint64_t take_kept_witness(Partition& p);
  // At the head of the budget line: one of p's shape, when its charge lets `need` in (the
  // caller's reservation takes the charge over: MemoryBudget::reserve's on_pressure); its charge,
  // or 0 (none taken).
  uint64_t take_kept_witness_if_that_fits(Partition& p, uint64_t need);
  void show_kept_witnesses();  // the tracker's witness_kept_bytes
  void keep_witness(r1cs::KeptWitness&& w, uint64_t* reservation, bool here = false, bool recheck = true);
  void give_back_kept_witness(Partition& p, uint64_t* reservation, bool here = false, bool recheck = true);
  void drop_kept_witnesses(bool here = false);
  void free_kept_witness(KeptWitnesses::Entry&& e, bool here);
  // Moves p's buffers to a tracked stage (its first: enters the tracker); the event is logged
  // under the stage's name, or `event` when given.
  void move_stage(Partition& p, Stage to, const BufferBytes& bytes, const char* event = nullptr);
  // Time spent in a stage: its phase histogram, and its timeline span (if it has one) on the
  // worker's track.
  // args go to the timeline's span (Timeline::span).
  void observe_stage(Stage s, const std::string& worker, const Partition& p, Clock::time_point a, Clock::time_point b,
                     const std::vector<std::pair<std::string, double>>& args = {});

  EngineConfig config;
  Clock::time_point started = Clock::now();
  std::unique_ptr<Timeline> timeline;
  MemoryBudget budget;
  MemoryBudget permits;  // the semaphore of the semaphore policies (a FIFO allowance of N)
  BufferTracker tracker;
  ParameterManager params;
  CompiledCircuits compiled;
  bool witness_only = false;  // partitions are synthesized witness-only (EngineConfig::witness_synthesis)
  // Every backend gives a set's host copy back once its device holds the set
  // (ProverBackend::gives_back_host_copies): a partition and its set need not fit the budget
  // together, since the set loads, goes to the device and leaves the host before the partition's
  // own bytes are reserved (admit, admit_after_set_load).
  bool sets_leave_host = false;
  PartitionQueue work_queue;
  PartitionQueue urgent_queue;  // urgent jobs' partitions, for the urgent synthesis worker
  PartitionQueue gpu_queue;
  PartitionQueue urgent_gpu_queue;  // urgent partitions for the urgent lane (when there is one)
  PartitionQueue finalize_queue;
  std::vector<std::unique_ptr<Device>> devices;
  // The card's urgent lane (EngineConfig::urgent_lane_memory): a backend of its own for urgent
  // partitions, beside the first device's; null when there is none. It is not one of `devices`:
  // it holds only the sets urgent partitions use (place_on_urgent_lane).
  std::unique_ptr<Device> urgent_lane;
  // f(ProverBackend&) for every backend: the devices', then the urgent lane's (what they keep of
  // host memory and pin counts for the budget and the tracker, whichever proves).
  template <class F>
  void for_each_backend(F&& f) const {
    for (const auto& d : devices) f(*d->backend);
    if (urgent_lane) f(*urgent_lane->backend);
  }
  // The devices that may prove p: the urgent lane for a partition on it, else every device.
  template <class F>
  void for_each_prover(const Partition& p, F&& f) const {
    if (p.on_urgent_lane) return f(*urgent_lane);
    for (const auto& d : devices) f(*d);
  }
  KeptWitnesses kept_witnesses{config.policy == Policy::kBudget ? config.kept_witnesses : 0};
  std::mutex kept_witnesses_shown;
  std::mutex idle_charge_mutex;
  uint64_t idle_charged = 0;     // budget bytes charged for the backends' idle host memory
  uint64_t released_credit = 0;  // parameters' host bytes the backends gave back, returned to the budget

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
  std::array<Histogram, kPhaseCount> phases;      // by Phase
  std::map<std::string, KindTotals> kind_totals;  // by kind; ended jobs
  JobRecords records;  // the status document's job list and each job's stage spans (engine/job_records.hpp)
  std::atomic<int64_t> gpu_busy_micros{0};
  unsigned synthesis_workers = 0, gpu_workers = 0;
  std::vector<std::thread> threads;
  // Last, so destroyed first: its remaining tasks use everything above.
  std::unique_ptr<Deallocator> dealloc;
};

}  // namespace cuzk::engine
