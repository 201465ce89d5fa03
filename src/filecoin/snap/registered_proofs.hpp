// SnapDeals (EmptySectorUpdate) numbers: the registered update proofs (filecoin-proofs-api
// registry.rs RegisteredUpdateProof, ids as Curio sends them) and, per sector size, the public
// parameters of the circuit (storage-proofs-update constants.rs, vanilla.rs PublicParams):
// partitions, challenges per partition, the h values the circuit may select, the apex-tree leaf
// count and tree R's shape. Test sizes (1 KiB .. 32 KiB, 16 MiB) are included: rust-fil-proofs'
// circuit tests use them; only 2 KiB, 8 MiB, 512 MiB, 32 GiB and 64 GiB are registered.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "filecoin/parameter_files.hpp"
#include "filecoin/porep/registered_proofs.hpp"
#include "gadgets/por.hpp"

namespace cuzk::filecoin {

// RegisteredUpdateProof; the value is the id Curio sends (uint64(abi.RegisteredUpdateProof)).
enum class RegisteredUpdateProof : uint8_t {
  kStackedDrg2KiBV1 = 0,
  kStackedDrg8MiBV1,
  kStackedDrg512MiBV1,
  kStackedDrg32GiBV1,
  kStackedDrg64GiBV1,
};
constexpr size_t kRegisteredUpdateProofs = 5;

// Number of h values hard-coded in the circuit (constants.rs hs).
constexpr size_t kUpdateHsCount = 6;

// vanilla.rs PublicParams (from_sector_size, or from_sector_size_poseidon for the Poseidon
// variant: one partition of challenge_count * partitions challenges, no apex tree), plus the
// sector size's hs, h_default and tree shapes.
struct EmptySectorUpdateParams {
  bool poseidon = false;
  uint64_t sector_nodes = 0;
  size_t challenge_count = 0;    // per partition
  size_t challenge_bit_len = 0;  // log2(sector_nodes): tree D's height
  size_t partition_count = 0;
  size_t partition_bit_len = 0;
  size_t apex_leaf_count = 0;  // 0 for Poseidon
  size_t apex_leaf_bit_len = 0;
  std::array<size_t, kUpdateHsCount> hs{};
  size_t h_default = 0;  // hs[3]: what filecoin-proofs uses (SectorUpdateConfig::h)
  // Tree R (old and new replica, Poseidon); tree D (new data): binary SHA-256, or for the
  // Poseidon variant a Poseidon tree of tree R's shape.
  gadgets::PorTreeShape tree_r, tree_d;

  // Throws std::invalid_argument for a size outside constants.rs ALLOWED_SECTOR_SIZES.
  static EmptySectorUpdateParams from_sector_size(uint64_t sector_bytes);
  static EmptySectorUpdateParams from_sector_size_poseidon(uint64_t sector_bytes);

  uint64_t sector_size() const { return sector_nodes * 32; }
  // constants.rs h_select: 1 << (index of h in hs); throws std::invalid_argument for an h the
  // sector size does not allow.
  uint64_t h_select(size_t h) const;
  bool h_allowed(size_t h) const;
  // Challenge bits taken at random per challenge (the partition index fills the rest).
  size_t random_bits_per_challenge() const { return challenge_bit_len - partition_bit_len; }
  // Fr::CAPACITY / random_bits_per_challenge, and digests per partition (challenges.rs).
  size_t challenges_per_digest() const;
  size_t digests_per_partition() const;
  // The identifier and file names of the published parameters (parameter_files.hpp).
  ParameterId parameter_id() const;
};

struct UpdateProofInfo {
  RegisteredUpdateProof proof;
  std::string_view name;  // as serde writes it: "StackedDrg32GiBV1"
  uint64_t sector_size;
  // The seal proof of the same size at the update proof's ApiVersion V1_1 (PUBLIC_INPUTS.md section
  // 1): what the test sectors it updates are sealed with.
  RegisteredSealProof seal_proof;
  EmptySectorUpdateParams params;

  uint64_t id() const { return uint64_t(proof); }
};

std::span<const UpdateProofInfo> update_proofs();
const UpdateProofInfo& update_proof_info(RegisteredUpdateProof p);
// By id 0..4 (what Curio sends); throws std::invalid_argument.
const UpdateProofInfo& update_proof_info_by_id(uint64_t id);
// By serde name; throws std::invalid_argument naming the known ones.
const UpdateProofInfo& update_proof_info(std::string_view name);

}  // namespace cuzk::filecoin
