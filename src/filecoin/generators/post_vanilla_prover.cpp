#include "filecoin/generators/post_vanilla_prover.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace cuzk::filecoin {

FallbackPoStSectorProof post_vanilla_proof_from_replica(const PoStProofInfo& proof, std::span<const uint8_t> replica,
                                                        const Fr& comm_c, uint64_t sector_id, const Bytes32& randomness,
                                                        size_t sector_index) {
  const uint64_t size = proof.params.sector_size;
  if (replica.size() != size) {
    throw std::invalid_argument("the replica is " + std::to_string(replica.size()) + " bytes; " +
                                std::string(proof.name) + " seals " + std::to_string(size));
  }
  if (size > (uint64_t(512) << 20)) {
    throw std::invalid_argument(std::string(proof.name) +
                                ": tree R of sectors above 512 MiB is not rebuilt in memory (use Filecoin's "
                                "tree-r-last cache files, or a sparse test sector)");
  }
  std::vector<Fr> leaves(size / 32);
  for (size_t i = 0; i < leaves.size(); i++) {
    if (!Fr::from_bytes_le(replica.data() + 32 * i, leaves[i])) {
      throw std::invalid_argument("replica node " + std::to_string(i) +
                                  " is not a field element (not a sealed replica?)");
    }
  }
  const MerkleTree tree(proof.params.tree_r, std::move(leaves));
  return post_vanilla_proof_of_tree(proof, tree, comm_c, sector_id, randomness, sector_index);
}

}  // namespace cuzk::filecoin
