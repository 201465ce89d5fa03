// Filecoin's proof kinds for the engine (engine/proof_input.hpp): PoRep Commit2 from a Commit1
// output (as Curio sends it, or the raw JSON), WinningPoSt and WindowPoSt (one partition) from
// Curio's vanilla proofs, and the parameter source that finds Filecoin's published parameter
// files. The SnapDeals kind will join them here.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/proof_input.hpp"

namespace cuzk::kinds {

// A request the kind cannot take (the message names the field and what is wrong): the daemon
// answers INVALID_ARGUMENT.
class InvalidProofRequest : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};
// A proof this build cannot make (e.g. non-interactive PoRep, which needs SnarkPack): the daemon
// answers UNIMPLEMENTED.
class UnsupportedProof : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PoRepRequest {
  // Curio's envelope {"SectorNum": n, "Phase1Out": base64 of the Commit1 JSON, "SectorSize": s}
  // (curio lib/ffi/cuzk_funcs.go), or the Commit1 JSON itself.
  std::string_view vanilla_proof;
  // The RegisteredSealProof id (0..19); must be the Commit1 output's registered_proof.
  uint64_t registered_proof = 0;
  uint64_t miner_id = 0;       // the miner's actor id: the prover_id of replica_id
  uint64_t sector_number = 0;  // must equal the envelope's SectorNum when both are given
  uint64_t sector_size = 0;    // 0: not checked; else must be the registered proof's
};

// Parses and checks the Commit1 output (seal_commit_check.hpp: replica_id from the miner and
// sector, the challenges, roots, labels). Throws InvalidProofRequest naming what is wrong, or
// UnsupportedProof for non-interactive PoRep. partitions() is the proof's (1 or 10); the proof
// returned is filecoin-ffi's seal_commit_phase2 bytes: 192 per partition, concatenated.
std::shared_ptr<const engine::ProofInput> make_porep_input(const PoRepRequest& request);

struct PoStRequest {
  bool winning = false;  // WinningPoSt; else one WindowPoSt partition
  // One bincode FallbackPoStSectorProof per sector (filecoin-ffi's GenerateSingleVanillaProof):
  // WinningPoSt the challenged sector's; WindowPoSt 1 .. WINDOW_POST_SECTOR_COUNT, the partition's.
  std::vector<std::string_view> vanilla_proofs;
  uint64_t registered_proof = 0;  // the RegisteredPoStProof id (0..14), of the request's type
  uint64_t miner_id = 0;          // for logs (the proof does not depend on it)
  std::string_view randomness;    // 32 bytes; the top two bits of byte 31 are cleared, as Lotus does
  uint32_t partition_index = 0;   // WindowPoSt: the partition's index in the deadline; WinningPoSt 0
  uint64_t sector_size = 0;       // 0: not checked; else must be the registered proof's
};

// Parses and checks the vanilla proofs: format, tree R's shape, one SectorProof each, no sector
// twice, every opening the leaf the verifier challenges for this randomness, sector and
// partition. Throws InvalidProofRequest naming what is wrong. The sectors are proved in the
// verifier's order (sorted by sector id); one partition, whose proof is the 192 bytes of
// filecoin-ffi's GenerateSinglePartitionWindowPoStWithVanilla / GenerateWinningPoStWithVanilla.
std::shared_ptr<const engine::ProofInput> make_post_input(const PoStRequest& request);

struct FilecoinParameterOptions {
  // The parameter cache directory (the configuration's [srs] param_cache); empty:
  // $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters.
  std::string param_cache;
  // Check each published file's BLAKE2b digest against parameters.json on its first load in this
  // process (about a second per GB).
  bool verify_digest = true;
  // When the published file is absent: a TEST setup of our own for the circuit's shape (random
  // toxic waste; its proofs never verify on chain), cached in test_dir. Off unless configured.
  bool allow_test_parameters = false;
  std::string test_dir = "params-cache";
  std::function<void(const std::string&)> log;  // loud lines (test parameters, digest checks)
};

// Serves the PoRep parameter ids (the published stems, "v28-stacked-proof-of-replication-...")
// and Curio's circuit ids for them ("porep-2k", "porep-8m", "porep-512m", "porep-32g",
// "porep-64g"), and the WinningPoSt and WindowPoSt parameter ids ("v28-proof-of-spacetime-
// fallback-...") of the published sizes.
engine::ParameterSource filecoin_parameter_source(const FilecoinParameterOptions& options);

// The parameter id behind one of Curio's SRS circuit ids (PreloadSRS / EvictSRS), or the id
// itself when it already is one of ours; nullopt for circuit ids of kinds not built yet.
std::optional<std::string> param_id_for_circuit_id(std::string_view circuit_id);

}  // namespace cuzk::kinds
