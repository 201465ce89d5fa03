#include "filecoin/porep/registered_proofs.hpp"

#include <array>
#include <bit>
#include <stdexcept>
#include <string>

namespace cuzk::filecoin {
namespace {

struct SizeRow {
  const char* name;
  uint64_t sector_size;
  size_t layers, partitions, min_challenges, ni_partitions, ni_min_challenges;
  size_t sub_arity, top_arity;
};

// filecoin-proofs constants.rs: POREP_PARTITIONS, LAYERS, the minimum challenges, the
// non-interactive partitions, and the tree shapes (SectorShape2KiB .. SectorShape64GiB).
constexpr SizeRow kSizes[5] = {
    {"2KiB", uint64_t(1) << 11, 2, 1, 2, 13, 26, 0, 0},
    {"8MiB", uint64_t(1) << 23, 2, 1, 2, 13, 26, 0, 0},
    {"512MiB", uint64_t(1) << 29, 2, 1, 2, 13, 26, 0, 0},
    {"32GiB", uint64_t(1) << 35, 11, 10, 176, 126, 2253, 8, 0},
    {"64GiB", uint64_t(1) << 36, 11, 10, 176, 126, 2253, 8, 2},
};
constexpr size_t kMaxChallengesPerPartition = 18;  // parameters.rs

gadgets::PorTreeShape tree_r_shape(uint64_t nodes, size_t sub, size_t top) {
  uint64_t base_leaves = nodes / (sub ? sub : 1) / (top ? top : 1);
  gadgets::PorTreeShape s{gadgets::TreeHasher::kPoseidon, 8, size_t(std::countr_zero(base_leaves)) / 3, sub, top};
  return s;
}

std::array<SealProofInfo, kRegisteredSealProofs> make_seal_table() {
  std::array<SealProofInfo, kRegisteredSealProofs> t{};
  static const char* const kVersions[4] = {"V1", "V1_1", "V1_1_Feat_SyntheticPoRep", "V1_2_Feat_NonInteractivePoRep"};
  static std::array<std::string, kRegisteredSealProofs> names;
  for (size_t v = 0; v < 4; v++) {
    for (size_t s = 0; s < 5; s++) {
      const size_t id = v * 5 + s;
      const SizeRow& r = kSizes[s];
      names[id] = std::string("StackedDrg") + r.name + kVersions[v];
      SealProofInfo& i = t[id];
      i.proof = RegisteredSealProof(id);
      i.name = names[id];
      i.sector_size = r.sector_size;
      i.nodes = r.sector_size / 32;
      i.layers = r.layers;
      const bool ni = v == 3;
      i.partitions = ni ? r.ni_partitions : r.partitions;
      i.minimum_challenges = ni ? r.ni_min_challenges : r.min_challenges;
      // parameters.rs: ceil(minimum / partitions), at most 18.
      i.challenges_per_partition =
          std::min(kMaxChallengesPerPartition, (i.minimum_challenges + i.partitions - 1) / i.partitions);
      i.api_version = v == 0 ? ApiVersion::kV1_0_0 : v == 1 ? ApiVersion::kV1_1_0 : ApiVersion::kV1_2_0;
      i.feature = v == 2 ? SealFeature::kSynthetic : v == 3 ? SealFeature::kNonInteractive : SealFeature::kInteractive;
      i.tree_r = tree_r_shape(i.nodes, r.sub_arity, r.top_arity);
      i.tree_d = gadgets::PorTreeShape{gadgets::TreeHasher::kSha256, 2, size_t(std::countr_zero(i.nodes)), 0, 0};
      for (int b = 0; b < 8; b++) i.porep_id_bytes[b] = uint8_t(uint64_t(id) >> (8 * b));
    }
  }
  return t;
}

const std::array<SealProofInfo, kRegisteredSealProofs>& seal_table() {
  static const auto t = make_seal_table();
  return t;
}

}  // namespace

std::string_view api_version_name(ApiVersion v) {
  switch (v) {
    case ApiVersion::kV1_0_0:
      return "1.0.0";
    case ApiVersion::kV1_1_0:
      return "1.1.0";
    default:
      return "1.2.0";
  }
}

std::string_view SealProofInfo::sector_size_name() const {
  for (const SizeRow& r : kSizes) {
    if (r.sector_size == sector_size) return r.name;
  }
  return "?";
}

std::span<const SealProofInfo> seal_proofs() { return seal_table(); }

const SealProofInfo& seal_proof_info(RegisteredSealProof p) {
  const size_t id = size_t(p);
  if (id >= kRegisteredSealProofs)
    throw std::invalid_argument("unknown registered seal proof id " + std::to_string(id));
  return seal_table()[id];
}

const SealProofInfo& seal_proof_info_by_id(uint64_t id) {
  if (id >= kRegisteredSealProofs) {
    throw std::invalid_argument("unknown registered seal proof id " + std::to_string(id) + " (known: 0.." +
                                std::to_string(kRegisteredSealProofs - 1) + ")");
  }
  return seal_table()[id];
}

const SealProofInfo& seal_proof_info(std::string_view name) {
  for (const SealProofInfo& i : seal_table()) {
    if (i.name == name) return i;
  }
  std::string known;
  for (const SealProofInfo& i : seal_table()) known += (known.empty() ? "" : ", ") + std::string(i.name);
  throw std::invalid_argument("unknown registered seal proof \"" + std::string(name) + "\" (known: " + known + ")");
}

}  // namespace cuzk::filecoin
