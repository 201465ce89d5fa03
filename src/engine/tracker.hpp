// The buffer tracker: for every tracked stage (stages.hpp), how many partitions are in it and how
// many bytes of each large buffer class they hold; plus the parameters resident in host and device
// memory, the pinned staging pool and the budget. Every stage change is one event: the tracker
// logs one line with all counters, feeds the timeline, and keeps the peaks the bench reports.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "engine/stages.hpp"

namespace cuzk::engine {

class Timeline;

// kSynthScratch: what the circuit's synthesis holds besides the assignment (only while
// synth_running).
// kWitness: aux and inputs of a witness-only synthesis (its a/b/c are made on the device from the
// compiled circuit, so the partition holds no kAbc, kAux, kInputs or kDensities bytes).
enum class BufferClass : uint8_t { kAbc, kAux, kInputs, kDensities, kSynthScratch, kWitness, kCount };
inline constexpr size_t kBufferClassCount = size_t(BufferClass::kCount);
const char* buffer_class_name(BufferClass c);

// The bytes one partition holds, by class.
using BufferBytes = std::array<int64_t, kBufferClassCount>;

struct StageCounters {
  int64_t partitions = 0;
  BufferBytes bytes{};
  int64_t total_bytes() const;
};

struct TrackerSnapshot {
  std::array<StageCounters, kTrackedStageCount> stages;  // by tracked Stage
  int64_t done_partitions = 0;                           // cumulative, not live
  int64_t parameters_host_bytes = 0, parameters_device_bytes = 0, pinned_pool_bytes = 0;
  // Parameters' host bytes given back to the OS while a device holds the sets (not in
  // parameters_host_bytes; groth16::CudaBackendOptions::release_host_bases). Set by snapshots.
  int64_t parameters_released_bytes = 0;
  // Compiled circuits (A, B, C of each shape proved by the witness-only path) in host memory.
  int64_t compiled_circuit_bytes = 0;
  // a/b/c page-locked by the backends for their uploads (part of the kAbc bytes above, but for
  // the kept copies below).
  int64_t abc_pinned_bytes = 0;
  // Host bytes the backends keep between partitions for later ones (the CUDA backend's compact
  // a/b/c copies: page-locked, so also in abc_pinned_bytes; charged to the budget; in no stage).
  int64_t abc_kept_bytes = 0;
  // Witness-only partitions' aux memory the engine keeps for the next synthesis of the shape
  // (engine/kept_witnesses.hpp; page-locked with the CUDA backend, so also in abc_pinned_bytes;
  // charged to the budget; in no stage).
  int64_t witness_kept_bytes = 0;
  int64_t budget_total = 0, budget_used = 0;
  int64_t rss_bytes = 0;
  // The jobs' parsed inputs (the class `input`: a Commit1 output, vanilla proofs) while their jobs
  // live; per job, in no stage.
  int64_t input_jobs = 0, input_bytes = 0;
  // Peaks since start (or since reset_peaks).
  int64_t peak_tracked_bytes = 0, peak_waiting_gpu = 0, peak_budget_used = 0, peak_rss_bytes = 0;
  int64_t tracked_bytes() const;  // all live partition buffers and the jobs' inputs
  bool idle() const;              // no partition and no job holds anything
};

class BufferTracker {
 public:
  BufferTracker(bool log_events, Timeline* timeline);

  // A partition enters its first stage, moves between stages, and leaves (buffers freed); only
  // tracked stages.
  void enter(Stage s, const BufferBytes& bytes, const std::string& what);
  void move(Stage from, Stage to, const BufferBytes& from_bytes, const BufferBytes& to_bytes, const std::string& what);
  void leave(Stage s, const BufferBytes& bytes, const std::string& what, bool completed);
  // Part of a partition's buffers changes stage without the partition (a/b/c released by the
  // prover go to dealloc_pending while the partition stays on the GPU), and is later freed.
  void move_bytes(Stage from, Stage to, const BufferBytes& bytes, const std::string& what);
  void leave_bytes(Stage s, const BufferBytes& bytes, const std::string& what);
  // A job's parsed input arrives (submit) and goes (the job ended).
  void input_enter(int64_t bytes, const std::string& what);
  void input_leave(int64_t bytes, const std::string& what);

  void set_parameters_bytes(int64_t host, int64_t device, const std::string& what);
  void set_compiled_circuit_bytes(int64_t host, const std::string& what);
  // Host bytes owned by the backends: the staging buffers and the a/b/c locked for their upload
  // (page-locked), and what they keep between partitions. The tracker asks at every event and
  // snapshot (the probe must not block).
  struct PinnedBytes {
    int64_t staging = 0, abc = 0, abc_kept = 0;
  };
  void set_pinned_probe(std::function<PinnedBytes()> probe);
  void set_budget(int64_t total, int64_t used);
  // The engine's kept witness memory (TrackerSnapshot::witness_kept_bytes); shown by the next event.
  void set_kept_witness_bytes(int64_t bytes);

  TrackerSnapshot snapshot() const;
  void reset_peaks();

 private:
  void event_locked(const std::string& what);
  void read_pinned_probe_locked(TrackerSnapshot& into) const;

  mutable std::mutex mutex_;
  TrackerSnapshot s_;
  bool log_events_;
  Timeline* timeline_;
  std::function<PinnedBytes()> pinned_probe_;
};

// Resident set size of this process in bytes (from /proc/self/statm).
int64_t process_rss_bytes();

}  // namespace cuzk::engine
