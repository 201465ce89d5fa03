#include "filecoin/post/public_inputs.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "filecoin/post/challenges.hpp"

namespace cuzk::filecoin {

std::vector<ff::Fr> fallback_post_public_inputs(const FallbackPoStParams& params, const Bytes32& randomness,
                                                std::span<const PoStPublicSector> sectors, size_t k) {
  params.validate();
  const size_t first = k * params.sector_count;
  if (first >= sectors.size()) {
    throw std::invalid_argument("FallbackPoSt public inputs: partition " + std::to_string(k) + " of " +
                                std::to_string(sectors.size()) + " sectors at " + std::to_string(params.sector_count) +
                                " per partition has no sector");
  }
  const size_t n = std::min(params.sector_count, sectors.size() - first);
  std::vector<ff::Fr> in;
  in.reserve(params.sector_count * (1 + params.challenge_count));
  for (size_t i = 0; i < params.sector_count; i++) {
    // Past the partition's last sector, that sector again (its challenges unchanged).
    const size_t j = std::min(i, n - 1);
    const PoStPublicSector& s = sectors[first + j];
    in.push_back(s.comm_r);
    for (uint64_t leaf : fallback_post_leaf_challenges(params, randomness, s.id, first + j)) {
      in.push_back(ff::Fr::from_u64(leaf));
    }
  }
  return in;
}

}  // namespace cuzk::filecoin
