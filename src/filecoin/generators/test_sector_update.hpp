// SnapDeals updates of test sectors, in memory (filecoin-proofs api/update.rs encode_into and
// generate_partition_proofs; storage-proofs-update vanilla.rs encode_into and prove_inner): over
// a sealed replica (the sector key, tree R old) and new data, tree D new (binary SHA-256; for the
// Poseidon variant a Poseidon tree of tree R's shape) gives comm_d_new, phi = H(comm_d_new,
// comm_r_old), the new replica label_new = label_old + data_new * rho(high bits of the node),
// tree R new over it and comm_r_new = H(comm_c, comm_r_last_new); then every partition's vanilla
// proof: its apex leaves (tree D's row apex_leaf_bit_len + partition_bit_len below the root,
// nodes k * apex_leaf_count onwards) and, per challenge of comm_r_new, the openings of tree R old,
// tree D new and tree R new.
//
// Everything is held in memory (full trees), so this is for sectors up to a few hundred MiB.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "filecoin/common/merkle_tree.hpp"
#include "filecoin/generators/sdr_seal.hpp"
#include "filecoin/snap/public_inputs.hpp"
#include "filecoin/snap/registered_proofs.hpp"
#include "filecoin/snap/vanilla_proof.hpp"

namespace cuzk::filecoin {

struct TestSectorUpdate : SectorUpdateProofs {
  std::vector<uint8_t> new_data;     // the staged data, sector_size bytes
  std::vector<uint8_t> new_replica;  // the updated replica, sector_size bytes
  std::shared_ptr<const MerkleTree> tree_r_old, tree_d_new, tree_r_new;
};

// sector_size bytes of new data: zeros, or pseudo-random nodes from seed (top two bits of each
// node clear).
std::vector<uint8_t> test_update_data(const EmptySectorUpdateParams& params, uint64_t seed, bool zeros = false);

// The update of a replica whose nodes are replica_old (tree R old's leaves, sector_nodes of
// them) and whose tree C root is comm_c, with new_data (sector_size bytes of canonical nodes),
// encoded with h (0: params.h_default). Throws std::invalid_argument for wrong sizes, a
// non-canonical node or an h the size does not allow.
TestSectorUpdate generate_test_sector_update(const EmptySectorUpdateParams& params, std::span<const Fr> replica_old,
                                             const Fr& comm_c, std::span<const uint8_t> new_data, size_t h = 0);
// The same over a real sealed sector (generators/sdr_seal.hpp); its size must be params' size.
TestSectorUpdate generate_test_sector_update(const EmptySectorUpdateParams& params, const SealedSector& sealed,
                                             std::span<const uint8_t> new_data, size_t h = 0);

// vanilla.rs prove_inner: partition k's proof from the three trees.
EmptySectorUpdatePartitionProof empty_sector_update_partition_proof(const EmptySectorUpdateParams& params,
                                                                    const MerkleTree& tree_r_old,
                                                                    const MerkleTree& tree_d_new,
                                                                    const MerkleTree& tree_r_new, const Fr& comm_c,
                                                                    const Fr& comm_r_new, size_t k);

}  // namespace cuzk::filecoin
