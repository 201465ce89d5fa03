// Every setting of the proving engine, with the defaults a storage provider gets when it
// configures nothing. The daemon fills this from its TOML file and command line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/job.hpp"
#include "engine/proof_input.hpp"

namespace cuzk::groth16 {
class ProverBackend;
struct Parameters;
}  // namespace cuzk::groth16

namespace cuzk::engine {

// How synthesis is admitted and handed to the GPU workers. Only kBudget bounds host memory;
// the other three are the designs cuzk's predecessors used, kept for comparison in the bench.
enum class Policy {
  kBudget,                       // reserve the partition's bytes from the budget before synthesis
  kSemaphoreReleaseAfterSynth,   // N permits, released right after synthesis; one-slot GPU channel
  kSemaphoreHoldUntilDelivered,  // N permits, held until a GPU worker takes the partition
  kChannelCapacityWorkers,       // N synthesis workers feeding a GPU channel of capacity N
};
std::string_view policy_name(Policy p);
// Throws std::invalid_argument listing the valid names.
Policy parse_policy(std::string_view name);

// "cpu", "cuda" or "auto" (CUDA when built with it and a device is present, else the CPU).
enum class BackendKind { kAuto, kCpu, kCuda };
std::string_view backend_name(BackendKind b);
BackendKind parse_backend(std::string_view name);

// How urgent jobs (WinningPoSt) take host memory under the budget policy: kBeside charges their
// bytes beyond the budget when it is full (no cost to other work; the budget is exceeded by at
// most the urgent partitions in flight), kReserve makes ordinary work leave urgent_reserve_bytes
// of the budget free for them.
enum class UrgentAdmission { kBeside, kReserve };
std::string_view urgent_admission_name(UrgentAdmission a);
// Throws std::invalid_argument listing the valid names ("beside", "reserve").
UrgentAdmission parse_urgent_admission(std::string_view name);

// Whether partitions are synthesized witness-only (values alone; a/b/c made by the backend from
// the circuit's compiled matrices: on the device for CUDA) or in full (a/b/c, densities and the
// witness on the host). kAuto: witness-only when every device is a CUDA backend.
enum class WitnessSynthesis { kAuto, kOn, kOff };
std::string_view witness_synthesis_name(WitnessSynthesis w);
// Throws std::invalid_argument listing the valid names ("auto", "on", "off").
WitnessSynthesis parse_witness_synthesis(std::string_view name);

struct EngineConfig {
  // Host-memory budget. 0 = auto: MemTotal minus safety_margin_bytes.
  uint64_t budget_bytes = 0;
  uint64_t safety_margin_bytes = uint64_t(5) << 30;
  // 0 = auto: a quarter of the cores, 2 to 16 (the budget then bounds how many synthesize at once).
  unsigned synthesis_workers = 0;
  BackendKind backend = BackendKind::kAuto;
  // When set, the engine's devices are the backends this makes, instead of `backend` and
  // `devices` (tests; embedders with a backend of their own): make_backend_devices of them, one
  // call each.
  std::function<std::unique_ptr<groth16::ProverBackend>()> make_backend;
  unsigned make_backend_devices = 1;
  std::vector<int> devices;  // CUDA devices to use; empty = all visible
  unsigned gpu_workers_per_device = 1;
  // Precomputed copies of H's bases per parameter set on each device (groth16::
  // CudaBackendOptions::h_copies): 0 = as many as device memory allows, 1 = none, k = at most k.
  unsigned gpu_h_copies = 0;
  // Device memory each CUDA backend plans with (groth16::CudaBackendOptions::device_memory_bytes):
  // 0 = the whole card; less leaves the rest to other processes, or proves as a smaller card would.
  uint64_t device_memory_limit = 0;
  // With one CUDA device: a parameter set's host copy goes back to the OS once the device holds
  // all its bases (groth16::CudaBackendOptions::release_host_bases), so the host budget holds it
  // once; written back from the device when it must be read again.
  bool release_host_parameters = true;
  unsigned finalizer_threads = 1;
  // Witness-only partitions' aux memory kept, with the backend's page-lock on it, for the next
  // synthesis of the shape (engine/kept_witnesses.hpp), at most this many at once; charged to the
  // budget, and dropped when room is needed or no job is left. 0: every witness is freed. Budget
  // policy only.
  unsigned kept_witnesses = 2;
  // Capacity of the GPU queue in partitions (synthesized partitions waiting for a GPU worker)
  // under the budget policy; the budget, not this, is the real bound there.
  size_t gpu_queue_capacity = 64;
  // Most partitions queued (not yet synthesizing) across all jobs; beyond it submit() says busy.
  size_t max_queued_partitions = 4096;
  size_t max_partitions_per_job = 64;
  Policy policy = Policy::kBudget;
  // Jobs of this priority or higher are urgent (the daemon gives WinningPoSt's CRITICAL 4000 with
  // offsets of up to +-999): a synthesis worker of their own, admission as urgent_admission says,
  // the head of the GPU queue even when it is full, and synthesis in a high-priority task arena.
  int urgent_priority = 3001;
  // With the CUDA backend: device memory of the first device set aside for the urgent jobs' own
  // prover, the card's urgent lane (groth16::CudaBackendOptions::urgent_lane: streams of the
  // greatest priority, MSMs beside the ordinary ones), so that an urgent partition is proved
  // beside an ordinary partition's prove_start instead of after it; the ordinary prover plans
  // with the rest of the card. 0, the default: no lane (urgent partitions go first in the GPU
  // queue). Sets of more than half of it are proved on the devices. A 32 GiB WinningPoSt needs
  // 2 GiB (1 GiB is too little). On an 80 GB card the lane's memory leaves a 32 GiB C2 set's plan
  // no room for its separate layout, so C2 goes by full synthesis (docs/PERF.md): for cards with
  // room beside the largest set.
  uint64_t urgent_lane_memory = 0;
  // When set, the urgent lane's backend is the one this makes, whatever `backend` says; sets of
  // at most half urgent_lane_memory go to it (tests; embedders).
  std::function<std::unique_ptr<groth16::ProverBackend>()> make_urgent_backend;
  UrgentAdmission urgent_admission = UrgentAdmission::kBeside;
  uint64_t urgent_reserve_bytes = uint64_t(1) << 30;  // kReserve only
  std::string param_cache_dir = "params-cache";
  WitnessSynthesis witness_synthesis = WitnessSynthesis::kAuto;
  std::string compiled_dir;  // compiled circuits' folder; empty: <param_cache_dir>/compiled
  // Generate parameters for synthetic circuits that are not in the cache (demo and bench).
  bool allow_synthetic_setup = true;
  // When set, asked for a parameter set the cache does not hold, before any synthetic setup:
  // a set to use (kept in memory, not written to the cache) or nullptr to go on as without it
  // (embedders with parameters of their own; the bench's pseudo-random parameters of a
  // circuit's shape, which prove speed, not validity). Called on the thread that loads the set.
  std::function<std::unique_ptr<groth16::Parameters>(const std::string& id)> make_parameters;
  // Where parameter sets of other kinds come from (Filecoin's published files, src/kinds/), asked
  // in order before param_cache_dir.
  std::vector<ParameterSource> parameter_sources;
  bool verify_before_return = true;
  std::string timeline_path;  // empty: no timeline
  bool log_events = true;     // one log line per tracker event
  // Threads of the CPU backend's and the synthesis' inner parallelism (0 = all cores).
  unsigned cpu_threads = 0;
  // When set, told of every job that ends (the daemon's WinningPoSt latency history); called on
  // an engine thread holding no engine lock, and must not block.
  std::function<void(const JobStatus&)> on_job_ended;
};

// MemTotal from /proc/meminfo in bytes (0 when unreadable).
uint64_t host_memory_total();

}  // namespace cuzk::engine
