// Between the wire messages (proto/cuzk/v1/proving.proto) and the engine's types. Requests are
// validated here so that the engine only sees well-formed ones and the client gets a message it
// can act on.
#pragma once

#include <cstddef>

#include "cuzk/v1/proving.pb.h"
#include "engine/engine.hpp"

namespace cuzk::server {

inline constexpr size_t kMaxRequestIdBytes = 200;
inline constexpr size_t kMaxParamIdBytes = 128;

// Throws InvalidRequest for a missing or malformed field. max_partitions bounds the job before
// anything is allocated for it.
engine::JobRequest to_job_request(const cuzk::v1::ProofRequest& req, size_t max_partitions);
// Empty is fine (the engine picks one); otherwise the engine's rule: 1-200 letters, digits, '.',
// '_' or '-', not starting with '.'.
void check_request_id(const std::string& id, bool allow_empty);
// Parameter ids name cache files: printable ASCII, no '/', not "." or "..", <= 128 bytes.
void check_param_id(const std::string& id);
// The circuit of one partition of a synthetic job.
engine::CircuitDescription to_circuit(const cuzk::v1::SyntheticInputs& in);

cuzk::v1::JobState to_proto(engine::JobState s);
void to_proto(const engine::JobTimings& t, cuzk::v1::Timings* out);
void to_proto(const engine::JobResult& r, cuzk::v1::ProofResult* out);

}  // namespace cuzk::server
