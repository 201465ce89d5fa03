#include "filecoin/porep/feistel.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

namespace cuzk::filecoin {
FeistelPrecomputed feistel_precompute(FeistelIndex num_elements) {
  if (num_elements > FeistelIndex(1) << 62)
    throw std::invalid_argument("Feistel: " + std::to_string(num_elements) + " elements do not fit a 64-bit domain");
  FeistelIndex next_pow4 = 4, log4 = 1;
  while (next_pow4 < num_elements) {
    next_pow4 *= 4;
    log4++;
  }
  const FeistelIndex right_mask = (FeistelIndex(1) << log4) - 1;
  return {right_mask << log4, right_mask, log4};
}

FeistelIndex feistel_round(FeistelIndex right, FeistelIndex key, FeistelIndex right_mask) {
  // One BLAKE2b-512 block holding 16 bytes: right and key big-endian, i.e. the byte-swapped words
  // as little-endian message words 0 and 1. Only output word 0 is read, big-endian.
  uint64_t h[8];
  blake2b_512_init(h);
  const uint64_t m[16] = {__builtin_bswap64(right), __builtin_bswap64(key)};
  blake2b_compress(h, m, 16, true);
  return __builtin_bswap64(h[0]) & right_mask;
}

FeistelIndex feistel_encode(FeistelIndex index, const FeistelKeys& keys, const FeistelPrecomputed& p) {
  FeistelIndex left = (index & p.left_mask) >> p.half_bits;
  FeistelIndex right = index & p.right_mask;
  for (size_t i = 0; i < kFeistelRounds; i++) {
    const FeistelIndex next_right = left ^ feistel_round(right, keys[i], p.right_mask);
    left = right;
    right = next_right;
  }
  return left << p.half_bits | right;
}

FeistelIndex feistel_decode(FeistelIndex index, const FeistelKeys& keys, const FeistelPrecomputed& p) {
  FeistelIndex left = (index & p.left_mask) >> p.half_bits;
  FeistelIndex right = index & p.right_mask;
  for (size_t i = kFeistelRounds; i-- > 0;) {
    const FeistelIndex next_left = right ^ feistel_round(left, keys[i], p.right_mask);
    right = left;
    left = next_left;
  }
  return left << p.half_bits | right;
}

FeistelIndex feistel_permute(FeistelIndex num_elements, FeistelIndex index, const FeistelKeys& keys,
                             const FeistelPrecomputed& p) {
  FeistelIndex u = feistel_encode(index, keys, p);
  while (u >= num_elements) u = feistel_encode(u, keys, p);
  return u;
}

FeistelIndex feistel_invert_permute(FeistelIndex num_elements, FeistelIndex index, const FeistelKeys& keys,
                                    const FeistelPrecomputed& p) {
  FeistelIndex u = feistel_decode(index, keys, p);
  while (u >= num_elements) u = feistel_decode(u, keys, p);
  return u;
}

FeistelNetwork::FeistelNetwork(FeistelIndex num_elements, const FeistelKeys& keys)
    : num_elements_(num_elements), p_(feistel_precompute(num_elements)) {
  if (p_.half_bits > 20)
    throw std::invalid_argument("Feistel: tabulating the round function of " + std::to_string(num_elements) +
                                " elements would need 3 * 2^" + std::to_string(p_.half_bits) + " entries");
  const size_t half = size_t(1) << p_.half_bits;
  auto table = std::make_shared<std::vector<uint32_t>>(kFeistelRounds * half);
  for (size_t i = 0; i < kFeistelRounds; i++)
    for (size_t r = 0; r < half; r++) (*table)[i * half + r] = uint32_t(feistel_round(r, keys[i], p_.right_mask));
  table_ = std::move(table);
}

FeistelIndex FeistelNetwork::decode(FeistelIndex index) const {
  const uint32_t* f = table_->data();
  FeistelIndex left = (index & p_.left_mask) >> p_.half_bits, right = index & p_.right_mask;
  for (size_t i = kFeistelRounds; i-- > 0;) {
    const FeistelIndex next_left = right ^ f[(i << p_.half_bits) + left];
    right = left;
    left = next_left;
  }
  return left << p_.half_bits | right;
}

FeistelIndex FeistelNetwork::invert_permute(FeistelIndex index) const {
  FeistelIndex u = decode(index);
  while (u >= num_elements_) u = decode(u);
  return u;
}

}  // namespace cuzk::filecoin
