// Filecoin's registered PoSt proofs (filecoin-proofs-api registry.rs RegisteredPoStProof) and
// the FallbackPoSt public parameters each one proves with (storage-proofs-post fallback/vanilla.rs
// PublicParams, set up by filecoin-proofs parameters.rs winning_post_setup_params and
// window_post_setup_params):
//   - WinningPoSt: WINNING_POST_CHALLENGE_COUNT = 66 challenges of WINNING_POST_SECTOR_COUNT = 1
//     sector, which the circuit proves as 66 sectors (the sector repeated) x 1 challenge;
//   - WindowPoSt: WINDOW_POST_SECTOR_COUNT sectors (2, 2349 for 32 GiB, 2300 for 64 GiB) x 10
//     challenges per partition.
// Winning and WindowV1 use ApiVersion 1.0.0 (challenge indexes count across sectors), WindowV1_2
// uses 1.2.0 (every sector restarts at challenge index 0, the "grindability fix").
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "filecoin/porep/registered_proofs.hpp"
#include "gadgets/por.hpp"

namespace cuzk::filecoin {

// The value is the id in registry.rs order (append-only in Filecoin).
enum class RegisteredPoStProof : uint8_t {
  kStackedDrgWinning2KiBV1 = 0,
  kStackedDrgWinning8MiBV1,
  kStackedDrgWinning512MiBV1,
  kStackedDrgWinning32GiBV1,
  kStackedDrgWinning64GiBV1,
  kStackedDrgWindow2KiBV1,
  kStackedDrgWindow8MiBV1,
  kStackedDrgWindow512MiBV1,
  kStackedDrgWindow32GiBV1,
  kStackedDrgWindow64GiBV1,
  kStackedDrgWindow2KiBV1_2,
  kStackedDrgWindow8MiBV1_2,
  kStackedDrgWindow512MiBV1_2,
  kStackedDrgWindow32GiBV1_2,
  kStackedDrgWindow64GiBV1_2,
};
constexpr size_t kRegisteredPoStProofs = 15;

enum class PoStType : uint8_t { kWinning, kWindow };

// fallback/vanilla.rs PublicParams: what one FallbackPoSt circuit (one partition) proves.
struct FallbackPoStParams {
  uint64_t sector_size = 0;    // bytes
  size_t challenge_count = 0;  // challenges per sector
  size_t sector_count = 0;     // sectors per partition
  ApiVersion api_version = ApiVersion::kV1_0_0;
  gadgets::PorTreeShape tree_r;  // Poseidon 8-0-0, 8-8-0 or 8-8-2 for the sector size

  uint64_t nodes() const { return sector_size / 32; }
  // Partitions for `sectors` sectors: ceil(sectors / sector_count), at least 1
  // (filecoin-proofs get_partitions_for_window_post; WinningPoSt has one).
  size_t partitions(size_t sectors) const;
  // Throws std::invalid_argument when a count is zero or the tree does not cover nodes().
  void validate() const;
};

struct PoStProofInfo {
  RegisteredPoStProof proof;
  std::string_view name;  // as serde writes it: "StackedDrgWindow32GiBV1_2"
  PoStType type;
  // The seal proof of the same sector size whose trees the PoSt opens (V1_1: same shapes).
  RegisteredSealProof seal_proof;
  FallbackPoStParams params;

  uint64_t id() const { return uint64_t(proof); }
};

std::span<const PoStProofInfo> post_proofs();
const PoStProofInfo& post_proof_info(RegisteredPoStProof p);
// By serde name; throws std::invalid_argument naming the known ones.
const PoStProofInfo& post_proof_info(std::string_view name);
// By id 0..14; throws std::invalid_argument.
const PoStProofInfo& post_proof_info_by_id(uint64_t id);

}  // namespace cuzk::filecoin
