// FallbackPoSt's vanilla prover for one sector (storage-proofs-post fallback/vanilla.rs prove_all
// for one sector, as filecoin-proofs generate_single_vanilla_proof calls it): tree R opened at the
// leaves the verifier challenges (post_vanilla_challenges), with comm_c and comm_r_last, and
// comm_r = Poseidon(comm_c, comm_r_last).
//
// From a sealed replica file, tree R is rebuilt in memory from its nodes (each 32-byte node a
// canonical field element): sectors up to 512 MiB (2^24 nodes, ~0.6 GiB of tree). Filecoin keeps
// larger sectors' tree R in cache files this does not read; generators/sparse_post_sector.hpp makes test
// sectors of those sizes.
#pragma once

#include <cstdint>
#include <span>

#include "filecoin/common/merkle_tree.hpp"
#include "filecoin/post/challenges.hpp"
#include "filecoin/post/vanilla_proof.hpp"

namespace cuzk::filecoin {

// The vanilla proof of a sector whose tree R is `tree_r` (MerkleTree or SparseMerkleTree).
template <class Tree>
FallbackPoStSectorProof post_vanilla_proof_of_tree(const PoStProofInfo& proof, const Tree& tree_r, const Fr& comm_c,
                                                   uint64_t sector_id, const Bytes32& randomness, size_t sector_index) {
  PoStSectorProof sector;
  for (uint64_t leaf : post_vanilla_challenges(proof, randomness, sector_id, sector_index)) {
    sector.inclusion_proofs.push_back(tree_r.proof(leaf));
  }
  sector.comm_c = comm_c;
  sector.comm_r_last = tree_r.root();
  FallbackPoStSectorProof out;
  out.sector_id = sector_id;
  const Fr pair[2] = {comm_c, sector.comm_r_last};
  out.comm_r = tree_node_hash(gadgets::TreeHasher::kPoseidon, pair);
  out.sectors.push_back(std::move(sector));
  return out;
}

// From the replica's bytes (the sealed sector file, proof's sector size exactly). Throws
// std::invalid_argument naming the size or the first node that is not a field element.
FallbackPoStSectorProof post_vanilla_proof_from_replica(const PoStProofInfo& proof, std::span<const uint8_t> replica,
                                                        const Fr& comm_c, uint64_t sector_id, const Bytes32& randomness,
                                                        size_t sector_index);

}  // namespace cuzk::filecoin
