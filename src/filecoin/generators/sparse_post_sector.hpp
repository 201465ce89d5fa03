// Sparse sectors for PoSt tests and benchmarks of any size (32 GiB and 64 GiB included): tree R
// holds a pseudo-random leaf at every node the PoSt challenges and one default leaf elsewhere
// (SparseMerkleTree hashes only the touched paths), comm_c is pseudo-random and comm_r =
// Poseidon(comm_c, comm_r_last). PoSt challenges depend on the randomness and the sector id, not on
// the replica, so such a sector answers any randomness consistently (unlike PoRep's synthetic
// challenges, generators/sparse_sector.hpp). Its vanilla proofs are what generate_single_vanilla_proof would
// give for a replica with those leaves; no sealed replica has them.
#pragma once

#include <cstdint>
#include <vector>

#include "filecoin/post/registered_proofs.hpp"
#include "filecoin/post/vanilla_proof.hpp"

namespace cuzk::filecoin {

// One sparse sector's vanilla proof (one SectorProof) for `randomness`; `seed` picks the leaves,
// comm_c and the default leaf.
FallbackPoStSectorProof sparse_post_vanilla_proof(const PoStProofInfo& proof, const Bytes32& randomness,
                                                  uint64_t sector_id, size_t sector_index, uint64_t seed);

}  // namespace cuzk::filecoin
