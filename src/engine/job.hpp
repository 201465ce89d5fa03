// What a client asks the engine to prove, and what it gets back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cuzk::engine {

// The circuit of one partition. Today: the synthetic PoRep-profile circuit family; Filecoin's
// circuits (C1 outputs) will add kinds here.
struct CircuitDescription {
  std::string kind = "synthetic";
  uint64_t constraints = uint64_t(1) << 16;  // including the input constraints
  uint32_t public_inputs = 8;                // excluding ONE
  uint64_t seed = 1;
};

struct JobRequest {
  std::string request_id;  // chosen by the client; empty: the engine makes one
  std::string proof_kind = "synthetic";
  // Parameter set; empty: derived from the circuit ("synthetic-<constraints>-<inputs>-seed<seed>").
  std::string param_id;
  int priority = 0;  // higher runs first
  // One circuit per partition; all partitions of a job share the parameter set.
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

}  // namespace cuzk::engine
