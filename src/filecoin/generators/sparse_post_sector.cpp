#include "filecoin/generators/sparse_post_sector.hpp"

#include "filecoin/generators/post_vanilla_prover.hpp"
#include "filecoin/generators/sparse_sector.hpp"
#include "filecoin/post/challenges.hpp"

namespace cuzk::filecoin {
namespace {

// Distinct pseudo-random values per (seed, sector, role, node); sparse_label's "layer" argument
// carries the role: 0 the default leaf, 1 comm_c, 2 a challenged leaf.
Fr value(uint64_t seed, uint64_t sector_id, size_t role, uint64_t node) {
  return sparse_label(seed ^ (sector_id * 0x9e3779b97f4a7c15ull), role, node);
}

}  // namespace

FallbackPoStSectorProof sparse_post_vanilla_proof(const PoStProofInfo& proof, const Bytes32& randomness,
                                                  uint64_t sector_id, size_t sector_index, uint64_t seed) {
  const auto leaves = post_vanilla_challenges(proof, randomness, sector_id, sector_index);
  SparseMerkleTree tree(proof.params.tree_r, value(seed, sector_id, 0, 0));
  std::vector<std::pair<uint64_t, Fr>> set;
  set.reserve(leaves.size());
  for (uint64_t leaf : leaves) set.emplace_back(leaf, value(seed, sector_id, 2, leaf));
  tree.set_leaves(set);
  return post_vanilla_proof_of_tree(proof, tree, value(seed, sector_id, 1, 0), sector_id, randomness, sector_index);
}

}  // namespace cuzk::filecoin
