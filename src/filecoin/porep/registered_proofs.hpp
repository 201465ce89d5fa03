// Filecoin's registered seal proofs (filecoin-proofs-api registry.rs, filecoin-proofs
// constants.rs and parameters.rs): for each of the 20 ids, the sector size, SDR layers,
// partitions, challenges per partition, tree shapes, porep_id, API version and feature.
// The numbers are restated in ../shared/filecoin/PUBLIC_INPUTS.md with their sources.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "gadgets/por.hpp"

namespace cuzk::filecoin {

using Bytes32 = std::array<uint8_t, 32>;

// RegisteredSealProof; the value is the id written into porep_id (append-only in Filecoin).
enum class RegisteredSealProof : uint8_t {
  kStackedDrg2KiBV1 = 0,
  kStackedDrg8MiBV1,
  kStackedDrg512MiBV1,
  kStackedDrg32GiBV1,
  kStackedDrg64GiBV1,
  kStackedDrg2KiBV1_1,
  kStackedDrg8MiBV1_1,
  kStackedDrg512MiBV1_1,
  kStackedDrg32GiBV1_1,
  kStackedDrg64GiBV1_1,
  kStackedDrg2KiBV1_1_Feat_SyntheticPoRep,
  kStackedDrg8MiBV1_1_Feat_SyntheticPoRep,
  kStackedDrg512MiBV1_1_Feat_SyntheticPoRep,
  kStackedDrg32GiBV1_1_Feat_SyntheticPoRep,
  kStackedDrg64GiBV1_1_Feat_SyntheticPoRep,
  kStackedDrg2KiBV1_2_Feat_NonInteractivePoRep,
  kStackedDrg8MiBV1_2_Feat_NonInteractivePoRep,
  kStackedDrg512MiBV1_2_Feat_NonInteractivePoRep,
  kStackedDrg32GiBV1_2_Feat_NonInteractivePoRep,
  kStackedDrg64GiBV1_2_Feat_NonInteractivePoRep,
};
constexpr size_t kRegisteredSealProofs = 20;

// storage-proofs-core ApiVersion. V1_0_0 puts the DRG predecessor last among a node's base
// parents, later versions first.
enum class ApiVersion : uint8_t { kV1_0_0, kV1_1_0, kV1_2_0 };
std::string_view api_version_name(ApiVersion v);  // "1.0.0", ...

// How the challenges of a partition are derived (stacked/vanilla/challenges.rs).
enum class SealFeature : uint8_t { kInteractive, kSynthetic, kNonInteractive };

struct SealProofInfo {
  RegisteredSealProof proof;
  std::string_view name;  // as serde writes it: "StackedDrg32GiBV1_1"
  uint64_t sector_size;   // bytes
  uint64_t nodes;         // sector_size / 32
  size_t layers;
  size_t partitions;
  size_t challenges_per_partition;
  size_t minimum_challenges;
  ApiVersion api_version;
  SealFeature feature;
  // Trees R and C (Poseidon, arity 8 base, sub and top as the sector size needs) and tree D
  // (binary SHA-256), each with its base level count for `nodes` leaves.
  gadgets::PorTreeShape tree_r;
  gadgets::PorTreeShape tree_d;

  // registry.rs porep_id: the id as u64 little-endian, the nonce 0 as u64 little-endian, then 16
  // zero bytes. A field, so that proofs made under other porep_ids (rust-fil-proofs' tests use
  // arbitrary ones) can be described by a copy.
  Bytes32 porep_id_bytes{};

  uint64_t id() const { return uint64_t(proof); }
  const Bytes32& porep_id() const { return porep_id_bytes; }
  // The sector size as Filecoin names it: "2KiB", "8MiB", "512MiB", "32GiB", "64GiB".
  std::string_view sector_size_name() const;
  size_t total_challenges() const { return partitions * challenges_per_partition; }
};

// The 20 registered seal proofs, in id order.
std::span<const SealProofInfo> seal_proofs();
const SealProofInfo& seal_proof_info(RegisteredSealProof p);
// By serde name ("StackedDrg8MiBV1_1"); throws std::invalid_argument naming the known ones.
const SealProofInfo& seal_proof_info(std::string_view name);
// By id 0..19; throws std::invalid_argument.
const SealProofInfo& seal_proof_info_by_id(uint64_t id);

}  // namespace cuzk::filecoin
