// The Feistel permutation of storage-proofs-core/src/crypto/feistel.rs, which places the expander
// parents of the SDR graph (storage-proofs-porep/src/stacked/vanilla/graph.rs), with BLAKE2b-512
// (common/blake2b.hpp) as its round function.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "filecoin/common/blake2b.hpp"

namespace cuzk::filecoin {

using FeistelIndex = uint64_t;
using FeistelKeys = std::array<FeistelIndex, 4>;
inline constexpr size_t kFeistelRounds = 3;  // feistel.rs FEISTEL_ROUNDS; keys[3] is unused

// feistel.rs `precompute`: the domain is the smallest power of 4 (at least 4) holding
// num_elements, split into two halves of half_bits bits.
struct FeistelPrecomputed {
  FeistelIndex left_mask;
  FeistelIndex right_mask;
  FeistelIndex half_bits;
};
FeistelPrecomputed feistel_precompute(FeistelIndex num_elements);

// The round function F(right, key): the first 8 bytes of BLAKE2b-512(right as u64 big-endian ||
// key as u64 big-endian), read big-endian, masked with right_mask.
FeistelIndex feistel_round(FeistelIndex right, FeistelIndex key, FeistelIndex right_mask);

// One pass of the network over the power-of-4 domain (feistel.rs `encode` / `decode`): a
// bijection of [0, 4^half_bits), decode inverting encode.
FeistelIndex feistel_encode(FeistelIndex index, const FeistelKeys& keys, const FeistelPrecomputed& p);
FeistelIndex feistel_decode(FeistelIndex index, const FeistelKeys& keys, const FeistelPrecomputed& p);

// feistel.rs `permute`: encode, re-encoding while the value is >= num_elements (cycle walking),
// so a permutation of [0, num_elements). `invert_permute` is its inverse.
FeistelIndex feistel_permute(FeistelIndex num_elements, FeistelIndex index, const FeistelKeys& keys,
                             const FeistelPrecomputed& p);
FeistelIndex feistel_invert_permute(FeistelIndex num_elements, FeistelIndex index, const FeistelKeys& keys,
                                    const FeistelPrecomputed& p);

// The same permutation with the round function tabulated. Every value a round hashes is a half,
// below 2^half_bits (at most 2^18 for a graph of up to 2^32 nodes), so the three round functions
// F(r, keys[i]) fit in a table of 3 * 2^half_bits words, which turns the ~6 BLAKE2b compressions
// of an expander parent into ~6 lookups. Building it hashes 3 * 2^half_bits times (6,144 for an
// 8 MiB sector, 393,216 for 32 and 64 GiB); copies share the table.
class FeistelNetwork {
 public:
  FeistelNetwork(FeistelIndex num_elements, const FeistelKeys& keys);

  FeistelIndex num_elements() const { return num_elements_; }
  const FeistelPrecomputed& precomputed() const { return p_; }
  FeistelIndex encode(FeistelIndex index) const {
    const uint32_t* f = table_->data();
    FeistelIndex left = (index & p_.left_mask) >> p_.half_bits, right = index & p_.right_mask;
    for (size_t i = 0; i < kFeistelRounds; i++, f += size_t(1) << p_.half_bits) {
      const FeistelIndex next_right = left ^ f[right];
      left = right;
      right = next_right;
    }
    return left << p_.half_bits | right;
  }
  FeistelIndex decode(FeistelIndex index) const;
  // feistel_permute / feistel_invert_permute over [0, num_elements()).
  FeistelIndex permute(FeistelIndex index) const {
    FeistelIndex u = encode(index);
    while (u >= num_elements_) u = encode(u);
    return u;
  }
  FeistelIndex invert_permute(FeistelIndex index) const;

 private:
  FeistelIndex num_elements_;
  FeistelPrecomputed p_;
  std::shared_ptr<const std::vector<uint32_t>> table_;  // round i at [i << half_bits, (i+1) << half_bits)
};

}  // namespace cuzk::filecoin
