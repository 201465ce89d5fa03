#include "filecoin/post/challenges.hpp"

#include <array>
#include <stdexcept>

#include "filecoin/common/sha256_fast.hpp"

namespace cuzk::filecoin {
namespace {

std::array<uint8_t, 8> le64(uint64_t v) {
  std::array<uint8_t, 8> b{};
  for (size_t i = 0; i < 8; i++) b[i] = uint8_t(v >> (8 * i));
  return b;
}

uint64_t read_le64(const std::array<uint8_t, 32>& h) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; i++) v |= uint64_t(h[i]) << (8 * i);
  return v;
}

}  // namespace

uint64_t fallback_post_challenge_index(ApiVersion version, size_t sector_index, size_t challenge_count, size_t n) {
  if (version == ApiVersion::kV1_2_0) return uint64_t(n);
  return uint64_t(sector_index) * uint64_t(challenge_count) + uint64_t(n);
}

uint64_t fallback_post_leaf_challenge(const Bytes32& randomness, uint64_t sector_id, uint64_t challenge_index,
                                      uint64_t nodes) {
  if (nodes == 0) throw std::invalid_argument("fallback_post_leaf_challenge: a sector of 0 nodes");
  const auto id = le64(sector_id), index = le64(challenge_index);
  return read_le64(sha256_digest({randomness, id, index})) % nodes;
}

std::vector<uint64_t> fallback_post_leaf_challenges(const FallbackPoStParams& params, const Bytes32& randomness,
                                                    uint64_t sector_id, size_t sector_index) {
  std::vector<uint64_t> out;
  out.reserve(params.challenge_count);
  for (size_t n = 0; n < params.challenge_count; n++) {
    const uint64_t ci = fallback_post_challenge_index(params.api_version, sector_index, params.challenge_count, n);
    out.push_back(fallback_post_leaf_challenge(randomness, sector_id, ci, params.nodes()));
  }
  return out;
}

uint64_t fallback_post_sector_challenge(const Bytes32& randomness, size_t n, uint64_t sector_set_len,
                                        const Bytes32& prover_id) {
  if (sector_set_len == 0) throw std::invalid_argument("fallback_post_sector_challenge: an empty sector set");
  const auto nb = le64(uint64_t(n));  // usize::to_le_bytes on 64-bit hosts
  return read_le64(sha256_digest({prover_id, randomness, nb})) % sector_set_len;
}

std::vector<uint64_t> post_vanilla_challenges(const PoStProofInfo& proof, const Bytes32& randomness, uint64_t sector_id,
                                              size_t sector_index) {
  const FallbackPoStParams& params = proof.params;
  if (proof.type != PoStType::kWinning)
    return fallback_post_leaf_challenges(params, randomness, sector_id, sector_index);
  std::vector<uint64_t> leaves(params.sector_count);
  for (size_t n = 0; n < leaves.size(); n++)
    leaves[n] = fallback_post_leaf_challenges(params, randomness, sector_id, n)[0];
  return leaves;
}

}  // namespace cuzk::filecoin
