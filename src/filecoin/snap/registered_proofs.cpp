#include "filecoin/snap/registered_proofs.hpp"

#include <bit>
#include <stdexcept>
#include <string>

namespace cuzk::filecoin {
namespace {

constexpr uint64_t kKiB = 1024 / 32, kMiB = (uint64_t(1) << 20) / 32, kGiB = (uint64_t(1) << 30) / 32;

// constants.rs validate_tree_r_shape: (base, sub, top) arities per sector size in nodes.
struct Shape {
  uint64_t nodes;
  size_t sub, top;
};
constexpr Shape kShapes[] = {
    {1 * kKiB, 4, 0}, {2 * kKiB, 0, 0},  {4 * kKiB, 2, 0},   {8 * kKiB, 4, 0},  {16 * kKiB, 8, 0}, {32 * kKiB, 8, 2},
    {8 * kMiB, 0, 0}, {16 * kMiB, 2, 0}, {512 * kMiB, 0, 0}, {32 * kGiB, 8, 0}, {64 * kGiB, 8, 2},
};

const Shape& shape_of(uint64_t sector_bytes) {
  for (const Shape& s : kShapes) {
    if (s.nodes * 32 == sector_bytes) return s;
  }
  throw std::invalid_argument("EmptySectorUpdate: sector size " + std::to_string(sector_bytes) +
                              " bytes is not allowed (1, 2, 4, 8, 16, 32 KiB, 8, 16, 512 MiB, 32, 64 GiB)");
}

size_t log2_exact(uint64_t x) { return size_t(std::countr_zero(x)); }

// constants.rs partition_count, challenge_count, hs, apex_leaf_count.
size_t partitions_of(uint64_t nodes) {
  return nodes <= 8 * kKiB ? 1 : nodes <= 32 * kKiB ? 2 : nodes <= 16 * kMiB ? 4 : 16;
}
size_t challenges_of(uint64_t nodes) { return nodes <= 16 * kMiB ? 10 : 86; }
std::array<size_t, kUpdateHsCount> hs_of(uint64_t nodes) {
  if (nodes <= 32 * kKiB) return {1, 1, 1, 1, 1, 1};
  return {7, 8, 9, 10, 11, 12};
}
size_t apex_leaves_of(uint64_t nodes) { return nodes <= 8 * kKiB ? 8 : 128; }

EmptySectorUpdateParams common(uint64_t sector_bytes) {
  const Shape& s = shape_of(sector_bytes);
  EmptySectorUpdateParams p;
  p.sector_nodes = s.nodes;
  p.challenge_bit_len = log2_exact(s.nodes);
  p.hs = hs_of(s.nodes);
  p.h_default = p.hs[3];
  p.tree_r.hasher = gadgets::TreeHasher::kPoseidon;
  p.tree_r.base_arity = 8;
  p.tree_r.sub_arity = s.sub;
  p.tree_r.top_arity = s.top;
  const size_t upper = (s.sub ? log2_exact(s.sub) : 0) + (s.top ? log2_exact(s.top) : 0);
  p.tree_r.base_levels = (p.challenge_bit_len - upper) / 3;
  p.tree_r.validate();
  return p;
}

}  // namespace

EmptySectorUpdateParams EmptySectorUpdateParams::from_sector_size(uint64_t sector_bytes) {
  EmptySectorUpdateParams p = common(sector_bytes);
  p.challenge_count = challenges_of(p.sector_nodes);
  p.partition_count = partitions_of(p.sector_nodes);
  p.partition_bit_len = log2_exact(p.partition_count);
  p.apex_leaf_count = apex_leaves_of(p.sector_nodes);
  p.apex_leaf_bit_len = log2_exact(p.apex_leaf_count);
  p.tree_d.hasher = gadgets::TreeHasher::kSha256;
  p.tree_d.base_arity = 2;
  p.tree_d.base_levels = p.challenge_bit_len;
  return p;
}

EmptySectorUpdateParams EmptySectorUpdateParams::from_sector_size_poseidon(uint64_t sector_bytes) {
  EmptySectorUpdateParams p = common(sector_bytes);
  p.poseidon = true;
  // constants.rs challenge_count_poseidon: every partition's challenges in one proof.
  p.challenge_count = challenges_of(p.sector_nodes) * partitions_of(p.sector_nodes);
  p.partition_count = 1;
  p.tree_d = p.tree_r;
  return p;
}

bool EmptySectorUpdateParams::h_allowed(size_t h) const {
  for (size_t x : hs) {
    if (x == h) return true;
  }
  return false;
}

uint64_t EmptySectorUpdateParams::h_select(size_t h) const {
  for (size_t i = 0; i < hs.size(); i++) {
    if (hs[i] == h) return uint64_t(1) << i;
  }
  throw std::invalid_argument("EmptySectorUpdate: h = " + std::to_string(h) + " is not allowed for " +
                              std::to_string(sector_size()) + "-byte sectors");
}

size_t EmptySectorUpdateParams::challenges_per_digest() const { return 254 / random_bits_per_challenge(); }

size_t EmptySectorUpdateParams::digests_per_partition() const {
  const size_t per = challenges_per_digest();
  return (challenge_count + per - 1) / per;
}

ParameterId EmptySectorUpdateParams::parameter_id() const {
  return empty_sector_update_parameter_id(sector_size(), poseidon);
}

namespace {

UpdateProofInfo make(RegisteredUpdateProof p, std::string_view name, uint64_t bytes, RegisteredSealProof seal) {
  return {p, name, bytes, seal, EmptySectorUpdateParams::from_sector_size(bytes)};
}

const std::array<UpdateProofInfo, kRegisteredUpdateProofs>& update_table() {
  using R = RegisteredUpdateProof;
  using S = RegisteredSealProof;
  static const std::array<UpdateProofInfo, kRegisteredUpdateProofs> t = {
      make(R::kStackedDrg2KiBV1, "StackedDrg2KiBV1", 2 << 10, S::kStackedDrg2KiBV1_1),
      make(R::kStackedDrg8MiBV1, "StackedDrg8MiBV1", 8 << 20, S::kStackedDrg8MiBV1_1),
      make(R::kStackedDrg512MiBV1, "StackedDrg512MiBV1", 512 << 20, S::kStackedDrg512MiBV1_1),
      make(R::kStackedDrg32GiBV1, "StackedDrg32GiBV1", uint64_t(32) << 30, S::kStackedDrg32GiBV1_1),
      make(R::kStackedDrg64GiBV1, "StackedDrg64GiBV1", uint64_t(64) << 30, S::kStackedDrg64GiBV1_1),
  };
  return t;
}

}  // namespace

std::span<const UpdateProofInfo> update_proofs() { return update_table(); }

const UpdateProofInfo& update_proof_info(RegisteredUpdateProof p) { return update_table().at(size_t(p)); }

const UpdateProofInfo& update_proof_info_by_id(uint64_t id) {
  if (id >= kRegisteredUpdateProofs) {
    throw std::invalid_argument("unknown RegisteredUpdateProof id " + std::to_string(id) + " (0..4: 2KiB..64GiB)");
  }
  return update_table()[id];
}

const UpdateProofInfo& update_proof_info(std::string_view name) {
  std::string known;
  for (const UpdateProofInfo& i : update_table()) {
    if (i.name == name) return i;
    known += (known.empty() ? "" : ", ") + std::string(i.name);
  }
  throw std::invalid_argument("unknown RegisteredUpdateProof \"" + std::string(name) + "\" (known: " + known + ")");
}

}  // namespace cuzk::filecoin
