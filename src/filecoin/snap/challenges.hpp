// SnapDeals randomness, native side (storage-proofs-update challenges.rs, vanilla.rs phi / rho,
// constants.rs POSEIDON_CONSTANTS_GEN_RANDOMNESS):
//   - Poseidon of arity 2 with neptune's custom domain tag CType::Arbitrary(1) = 1 * 2^40
//     (neptune 11 hash_type.rs), everything else as the MerkleTree arity-2 hash;
//   - challenges of partition k: digest_j = H(comm_r_new, k * digests_per_partition + j), its
//     little-endian bits cut into random_bits_per_challenge-bit chunks, each with k appended as
//     the high bits (so partition k's challenges lie in its k-th chunk of nodes); the Poseidon
//     variant takes challenge_count chunks of challenge_bit_len bits, no partition;
//   - phi = H(comm_d_new, comm_r_old); rho(high) = H(phi, high) where high = c >> (bit_len - h);
//     the new replica's node c is label_r_old + data_new * rho.
#pragma once

#include <cstdint>
#include <vector>

#include "filecoin/snap/registered_proofs.hpp"
#include "gadgets/poseidon.hpp"

namespace cuzk::filecoin {

using ff::Fr;

// POSEIDON_CONSTANTS_GEN_RANDOMNESS (shared, built once).
const gadgets::PoseidonConstants& gen_randomness_poseidon_constants();
// H(a, b) with those constants.
Fr gen_randomness_hash(const Fr& a, const Fr& b);

// challenges.rs Challenges::new (params not Poseidon) or ::new_poseidon (k must be 0); throws
// std::invalid_argument for k >= partition_count.
std::vector<uint32_t> empty_sector_update_challenges(const EmptySectorUpdateParams& params, const Fr& comm_r_new,
                                                     size_t k);

// vanilla.rs phi and rho.
Fr empty_sector_update_phi(const Fr& comm_d_new, const Fr& comm_r_old);
Fr empty_sector_update_rho(const Fr& phi, uint32_t high);
// The h high bits of node c (Rhos::get's index).
uint32_t empty_sector_update_high(const EmptySectorUpdateParams& params, size_t h, uint64_t c);
// Rho of every possible high value (2^h of them), for encoding a whole sector.
std::vector<Fr> empty_sector_update_rhos(const Fr& phi, size_t h);

}  // namespace cuzk::filecoin
