#include "filecoin/generators/sparse_sector_update.hpp"

#include "filecoin/common/merkle_tree.hpp"
#include "filecoin/generators/sparse_sector.hpp"
#include "filecoin/snap/challenges.hpp"
#include "gadgets/hashers.hpp"

namespace cuzk::filecoin {
namespace {

// Pseudo-random values of the seed; sparse_label's "layer" argument carries the role (0 the
// default leaf, 1 comm_c), offset so they differ from a sparse sector's labels of the same seed.
Fr value(uint64_t seed, size_t role) { return sparse_label(seed, 1000 + role, 0); }

}  // namespace

SparseSectorUpdate make_sparse_sector_update(const EmptySectorUpdateParams& params, uint64_t seed, size_t h) {
  SparseSectorUpdate u;
  u.params = params;
  u.h = h ? h : params.h_default;
  (void)params.h_select(u.h);
  u.default_leaf = value(seed, 0);
  u.comm_c = value(seed, 1);

  // No leaf is set: each tree is its per-level defaults, and tree R new is tree R old (the
  // encoding adds 0 * rho), so one tree serves both.
  const SparseMerkleTree tree_r(params.tree_r, u.default_leaf);
  const SparseMerkleTree tree_d(params.tree_d, Fr::zero());
  u.comm_r_last_old = u.comm_r_last_new = tree_r.root();
  u.comm_r_old = u.comm_r_new = gadgets::poseidon_node_hash(std::vector<Fr>{u.comm_c, tree_r.root()});
  u.comm_d_new = tree_d.root();

  // vanilla.rs prove_inner (as generators/test_sector_update.cpp's empty_sector_update_partition_proof):
  // partition k's apex leaves are tree D's nodes k * A .. k * A + A - 1 of the row
  // challenge_bit_len - partition_bit_len - apex_leaf_bit_len above the leaves, all that row's
  // default.
  const size_t apex_height = params.challenge_bit_len - params.partition_bit_len - params.apex_leaf_bit_len;
  for (size_t k = 0; k < params.partition_count; k++) {
    EmptySectorUpdatePartitionProof p;
    p.comm_c = u.comm_c;
    if (!params.poseidon) p.apex_leafs.assign(params.apex_leaf_count, tree_d.default_node(apex_height));
    const auto challenges = empty_sector_update_challenges(params, u.comm_r_new, k);
    p.challenge_proofs.reserve(challenges.size());
    for (uint32_t c : challenges) {
      MerkleProof r = tree_r.proof(c);
      p.challenge_proofs.push_back({r, tree_d.proof(c), r});
    }
    u.partitions.push_back(std::move(p));
  }
  return u;
}

}  // namespace cuzk::filecoin
