// FallbackPoSt challenges, bit-exact with rust-fil-proofs storage-proofs-post fallback/vanilla.rs
// (generate_sector_challenge, generate_leaf_challenge_inner) and fallback/utils.rs
// (get_challenge_index). The randomness is the 32 bytes the chain gives, with the top two bits of
// byte 31 already cleared by the caller (Lotus and Curio do it before calling the FFI).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "filecoin/post/registered_proofs.hpp"

namespace cuzk::filecoin {

// get_challenge_index: challenge n of the sector at sector_index (its position among all the
// proof's sectors, k * sector_count + i for sector i of partition k). 1.0.0 and 1.1.0 number the
// challenges across sectors (sector_index * challenge_count + n), 1.2.0 restarts at n.
uint64_t fallback_post_challenge_index(ApiVersion version, size_t sector_index, size_t challenge_count, size_t n);

// generate_leaf_challenge_inner: LE-u64(SHA-256(randomness || sector_id u64 LE || challenge_index
// u64 LE)[0..8]) mod nodes. Throws std::invalid_argument when nodes is 0.
uint64_t fallback_post_leaf_challenge(const Bytes32& randomness, uint64_t sector_id, uint64_t challenge_index,
                                      uint64_t nodes);

// The challenge_count leaves challenged in one sector at sector_index.
std::vector<uint64_t> fallback_post_leaf_challenges(const FallbackPoStParams& params, const Bytes32& randomness,
                                                    uint64_t sector_id, size_t sector_index);

// The leaves one sector's vanilla proof (generate_single_vanilla_proof) opens, in order:
// WinningPoSt's 66 (opening n is circuit sector n's single challenge), WindowPoSt's 10 for the
// sector at sector_index among all the proof's sectors (partition k, sector i: k * sector_count + i).
std::vector<uint64_t> post_vanilla_challenges(const PoStProofInfo& proof, const Bytes32& randomness, uint64_t sector_id,
                                              size_t sector_index);

// generate_sector_challenge (WinningPoSt's choice of sectors): LE-u64(SHA-256(prover_id ||
// randomness || n as u64 LE)[0..8]) mod sector_set_len. Throws std::invalid_argument when
// sector_set_len is 0.
uint64_t fallback_post_sector_challenge(const Bytes32& randomness, size_t n, uint64_t sector_set_len,
                                        const Bytes32& prover_id);

}  // namespace cuzk::filecoin
