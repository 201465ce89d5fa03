// Filecoin's proof kinds for the engine (engine/proof_input.hpp): PoRep Commit2 from a Commit1
// output (as Curio sends it, or the raw JSON), WinningPoSt and WindowPoSt (one partition) and
// SnapDeals (EmptySectorUpdate) from Curio's vanilla proofs, and the parameter source that finds
// Filecoin's published parameter files.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/proof_input.hpp"
#include "filecoin/parameter_search.hpp"

namespace cuzk::kinds {

// The engine kinds (ProofInput::kind()) of Filecoin's proofs. The daemon's per-kind metrics
// declare each from the start, so that a scraper sees a kind's first job as an increase.
inline constexpr std::string_view kPoRepKind = "porep", kWinningPoStKind = "winning-post",
                                  kWindowPoStKind = "window-post", kSnapDealsKind = "snap-deals";
inline constexpr std::array<std::string_view, 4> kFilecoinKinds = {kPoRepKind, kWinningPoStKind, kWindowPoStKind,
                                                                   kSnapDealsKind};

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

// Parses and checks the Commit1 output (porep/commit1_check.hpp: replica_id from the miner and
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

struct SnapRequest {
  // One bincode PartitionProof per partition, in partition order (filecoin-ffi's
  // GenerateUpdateVanillaProofs, as Curio's ProveUpdateCuzk sends them).
  std::vector<std::string_view> vanilla_proofs;
  uint64_t registered_proof = 0;  // the RegisteredUpdateProof id (0..4: 2 KiB .. 64 GiB)
  // The raw 32-byte commitments (not CIDs): the sector key's comm_r, the updated replica's
  // comm_r and the new data's comm_d.
  std::string_view comm_r_old, comm_r_new, comm_d_new;
  uint64_t sector_size = 0;  // 0: not checked; else must be the registered proof's
  uint64_t miner_id = 0;     // for logs (the proof does not depend on them)
  uint64_t sector_number = 0;
};

// Parses the vanilla proofs and checks each partition as the verifier does (commitments,
// challenges of comm_r_new, openings, encoding, apex path). Throws InvalidProofRequest naming what
// is wrong (a commitment that is not 32 bytes of a field element, a partition count other than the
// registered proof's, a malformed proof, one that does not fit the commitments or its partition).
// partitions() is the registered proof's (1 at 2 KiB, 4 at 8 MiB, 16 from 512 MiB); the proof
// returned is filecoin-ffi's GenerateUpdateProofWithVanilla bytes: 192 per partition, concatenated.
std::shared_ptr<const engine::ProofInput> make_snap_input(const SnapRequest& request);
// The shape of one partition of a registered update proof's circuit (what the engine budgets per
// partition), without synthesizing the whole blank circuit; throws InvalidProofRequest for an
// unknown id.
engine::CircuitShape snap_partition_shape(uint64_t registered_proof);

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

// Serves the parameter ids (the published stems) of the published sizes: PoRep
// ("v28-stacked-proof-of-replication-..."), WinningPoSt and WindowPoSt ("v28-proof-of-spacetime-
// fallback-...") and SnapDeals ("v28-empty-sector-update-..."). Curio's circuit ids are mapped to
// them by param_id_for_circuit_id, not served (a set under two ids would be resident twice).
engine::ParameterSource filecoin_parameter_source(const FilecoinParameterOptions& options);
// The search those options describe (for the daemon's log line and the client's lookups).
filecoin::ParameterSearch parameter_search(const FilecoinParameterOptions& options);

// The parameter id behind one of Curio's SRS circuit ids (PreloadSRS / EvictSRS), or the id
// itself when it already is one of ours; nullopt otherwise. Curio's ids are "<kind>-<size>":
// kinds porep, wpost, winning and snap; sizes 32g and 64g (Curio's), and 2k, 8m and 512m (ours,
// for the test sizes).
std::optional<std::string> param_id_for_circuit_id(std::string_view circuit_id);
// Every circuit id param_id_for_circuit_id maps, with its parameter id.
const std::vector<std::pair<std::string, std::string>>& circuit_ids();

}  // namespace cuzk::kinds
