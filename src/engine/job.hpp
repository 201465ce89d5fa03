// What a client asks the engine to prove, and what it gets back.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/proof_input.hpp"

namespace cuzk::engine {

// The circuit of one partition of the engine's synthetic kind (the synthetic PoRep-profile
// circuit family; engine/synthetic_input.hpp).
struct CircuitDescription {
  std::string kind = "synthetic";
  uint64_t constraints = uint64_t(1) << 16;  // including the input constraints
  uint32_t public_inputs = 8;                // excluding ONE
  uint64_t seed = 1;
};

struct JobRequest {
  std::string request_id;  // chosen by the client; empty: the engine makes one
  // The job's parameter set; empty: the input's. When given it must be the input's.
  std::string param_id;
  int priority = 0;  // higher runs first
  // The job, parsed by its proof kind (engine/proof_input.hpp): Filecoin's kinds and any other.
  std::shared_ptr<const ProofInput> input;
  // Or, when input is null, a synthetic job: one circuit per partition, all of one shape (they
  // share the parameter set).
  std::vector<CircuitDescription> partitions;
};

enum class JobState { kQueued, kRunning, kSucceeded, kFailed, kCancelled };
const char* job_state_name(JobState s);

// Seconds spent by the job; for a multi-partition job the phases are summed over partitions
// and total is the wall time from submission to the end.
struct JobTimings {
  double queue_wait = 0, param_load = 0, synthesis = 0, gpu = 0, finalize = 0, verify = 0, total = 0;
};

struct JobResult {
  std::string request_id;
  JobState state = JobState::kQueued;
  std::string error;           // set when failed or cancelled
  std::vector<uint8_t> proof;  // 192 bytes per partition, concatenated, when succeeded
  JobTimings timings;
  bool verified = false;  // verified before return
};

// One job as the status document lists it ("job_list": the status page and `cuzk status
// --watch`; engine/job_records.hpp keeps them).
struct JobStatus {
  std::string request_id, kind;
  std::string what;  // ProofInput::describe(): e.g. "StackedDrg32GiBV1_1, miner t01000, sector 7"
  int priority = 0;  // JobRequest::priority (the daemon's: level * 1000 + offset)
  JobState state = JobState::kQueued;
  uint32_t partitions = 0;
  uint32_t partitions_ended = 0;  // proved, failed or dropped
  int64_t submitted_unix_ms = 0;
  double elapsed_seconds = 0;              // submission to its end, or to now
  std::optional<double> expected_seconds;  // unknown until a job of its kind and size succeeded
  std::string error;                       // failed or cancelled
};

}  // namespace cuzk::engine
