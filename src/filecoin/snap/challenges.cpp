#include "filecoin/snap/challenges.hpp"

#include <stdexcept>
#include <string>

namespace cuzk::filecoin {

const gadgets::PoseidonConstants& gen_randomness_poseidon_constants() {
  static const gadgets::PoseidonConstants c = [] {
    gadgets::PoseidonConstants x = gadgets::poseidon_constants(2);
    // HashType::Custom(CType::Arbitrary(1)): the tag only; round constants and matrices depend
    // on the width alone.
    x.domain_tag = Fr::from_u64(uint64_t(1) << 40);
    return x;
  }();
  return c;
}

Fr gen_randomness_hash(const Fr& a, const Fr& b) {
  const Fr pre[2] = {a, b};
  return gadgets::poseidon_hash(pre, gen_randomness_poseidon_constants());
}

std::vector<uint32_t> empty_sector_update_challenges(const EmptySectorUpdateParams& params, const Fr& comm_r_new,
                                                     size_t k) {
  if (k >= params.partition_count) {
    throw std::invalid_argument("EmptySectorUpdate challenges: partition " + std::to_string(k) + " of " +
                                std::to_string(params.partition_count));
  }
  const size_t bits = params.random_bits_per_challenge();
  const size_t per_digest = params.challenges_per_digest();
  const uint32_t partition_bits = uint32_t(k) << bits;
  uint64_t digest_index = uint64_t(k) * params.digests_per_partition();
  std::vector<uint32_t> out;
  out.reserve(params.challenge_count);
  uint8_t digest[32];
  size_t i = 0;
  while (out.size() < params.challenge_count) {
    if (i == 0) gen_randomness_hash(comm_r_new, Fr::from_u64(digest_index)).to_bytes_le(digest);
    uint32_t c = 0;
    for (size_t b = 0; b < bits; b++) {
      const size_t at = i * bits + b;
      if ((digest[at / 8] >> (at % 8)) & 1) c |= uint32_t(1) << b;
    }
    out.push_back(c | partition_bits);
    if (++i == per_digest) {
      i = 0;
      digest_index++;
    }
  }
  return out;
}

Fr empty_sector_update_phi(const Fr& comm_d_new, const Fr& comm_r_old) {
  return gen_randomness_hash(comm_d_new, comm_r_old);
}

Fr empty_sector_update_rho(const Fr& phi, uint32_t high) { return gen_randomness_hash(phi, Fr::from_u64(high)); }

uint32_t empty_sector_update_high(const EmptySectorUpdateParams& params, size_t h, uint64_t c) {
  return uint32_t(c >> (params.challenge_bit_len - h));
}

std::vector<Fr> empty_sector_update_rhos(const Fr& phi, size_t h) {
  std::vector<Fr> out(size_t(1) << h);
  for (size_t i = 0; i < out.size(); i++) out[i] = empty_sector_update_rho(phi, uint32_t(i));
  return out;
}

}  // namespace cuzk::filecoin
