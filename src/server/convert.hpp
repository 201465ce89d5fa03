// Between the wire messages (proto/cuzk/v1/proving.proto, Curio's API plus cuzk's own fields)
// and the engine's types. Requests are validated here so that the engine only sees well-formed
// ones and the client gets a message it can act on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cuzk/v1/proving.pb.h"
#include "engine/engine.hpp"

namespace cuzk::server {

inline constexpr size_t kMaxRequestIdBytes = 200;
// Parameter ids name cache files (<id>.params, "cuzk-TEST-ONLY-<id>.params"); Filecoin's PoRep
// stems alone are 144 characters.
inline constexpr size_t kMaxParamIdBytes = 224;
// SubmitProofRequest.priority_offset: order within a priority level.
inline constexpr int32_t kMaxPriorityOffset = 999;

// The request as the engine takes it: the parsed input of its proof kind (PoRep: the Commit1
// output; PoSt and SnapDeals: the vanilla proofs; each checked) or a synthetic job. Throws
// InvalidRequest for a missing or malformed field (kinds::InvalidProofRequest is turned into it),
// Unimplemented for a kind this daemon does not know or a proof it cannot make
// (kinds::UnsupportedProof). max_partitions bounds a synthetic job before anything is allocated
// for it.
engine::JobRequest to_job_request(const cuzk::v1::SubmitProofRequest& req, size_t max_partitions);
// The engine's priority: the level (Priority, or the kind's default) x 1000 plus the offset.
int engine_priority(const cuzk::v1::SubmitProofRequest& req);
// Empty is fine when allowed (the engine picks one); otherwise the engine's rule: 1-200 letters,
// digits, '.', '_' or '-', not starting with '.'.
void check_request_id(const std::string& id, bool allow_empty);
// Parameter ids name cache files: printable ASCII, no '/', not "." or "..", <= kMaxParamIdBytes.
void check_param_id(const std::string& id);
// The circuit of one partition of a synthetic job.
engine::CircuitDescription to_circuit(const cuzk::v1::SyntheticInputs& in);

// The kind's name on the wire (QueueStatus.proof_kind, GPUStatus.current_proof_kind): Curio's
// Rust daemon's names where it has the kind ("porep" -> "porep-c2", "snap-deals" ->
// "snap-update"), else the engine's.
std::string wire_kind_name(std::string_view engine_kind);
// The parameter id behind a circuit id of PreloadSRS / EvictSRS (Curio's "porep-32g",
// "wpost-32g", "winning-32g", "snap-32g", ... (kinds::param_id_for_circuit_id), or one of our
// parameter ids, passed through). Throws EngineError(kNotFound) for an unknown id with one of
// Curio's prefixes ("porep-1t"), InvalidRequest for an id that cannot name a parameter set.
std::string param_id_for_circuit(const std::string& circuit_id);
// Curio's circuit id of a parameter set ("porep-32g"), nullopt when it has none.
std::optional<std::string> circuit_id_for_param(const std::string& param_id);

cuzk::v1::JobState to_proto(engine::JobState s);
void to_proto(const engine::JobTimings& t, cuzk::v1::Timings* out);
// A result: COMPLETED / FAILED / CANCELLED for an ended job (the proof only when completed),
// TIMEOUT for one still queued or running (its current state in `state`).
void to_proto(const engine::JobResult& r, cuzk::v1::AwaitProofResponse* out);
// The engine's part of GetStatus: Curio's fields (devices, resident parameters, queues per kind,
// totals, uptime, page-locked memory) and cuzk's (counts, budget, parameter sets).
void to_proto(const engine::EngineSnapshot& s, cuzk::v1::GetStatusResponse* out);

}  // namespace cuzk::server
