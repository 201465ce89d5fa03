// The public inputs of one FallbackPoSt partition as the verifier computes them
// (storage-proofs-post fallback/compound.rs FallbackPoStCompound::generate_public_inputs), in the
// order the circuit allocates them, ONE excluded: for each sector of partition k, its comm_r,
// then the leaf index of each of its challenge_count tree R inclusion proofs (one packed input
// each: the root is private). When the partition has fewer than sector_count sectors, the last
// sector's inputs are repeated to fill it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ff/fr.hpp"
#include "filecoin/post/registered_proofs.hpp"

namespace cuzk::filecoin {

// fallback/vanilla.rs PublicSector.
struct PoStPublicSector {
  uint64_t id = 0;
  ff::Fr comm_r;
};

// `sectors` are all the proof's sectors in the verifier's order (sorted by sector id for
// WindowPoSt; for WinningPoSt the challenged sector repeated sector_count times). Throws
// std::invalid_argument when partition k has no sector.
std::vector<ff::Fr> fallback_post_public_inputs(const FallbackPoStParams& params, const Bytes32& randomness,
                                                std::span<const PoStPublicSector> sectors, size_t k);

}  // namespace cuzk::filecoin
