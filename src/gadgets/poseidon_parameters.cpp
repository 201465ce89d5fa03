// The parameters of the Standard-strength instance as the Poseidon paper and neptune define them:
// partial-round counts, round constants from the Grain LFSR, the Cauchy MDS matrix.
#include <array>
#include <stdexcept>
#include <string>

#include "gadgets/poseidon.hpp"

namespace cuzk::gadgets {

namespace {

class Grain {
 public:
  explicit Grain(const std::vector<bool>& init) {
    for (size_t i = 0; i < 80; i++) state_[i] = init[i];
    for (int i = 0; i < 160; i++) step();
  }
  // Self-shrinking output: pairs (a, b), output b when a is 1.
  bool next() {
    bool first = step();
    while (!first) {
      step();
      first = step();
    }
    return step();
  }

 private:
  bool step() {
    const bool b = state_[(pos_ + 62) % 80] ^ state_[(pos_ + 51) % 80] ^ state_[(pos_ + 38) % 80] ^
                   state_[(pos_ + 23) % 80] ^ state_[(pos_ + 13) % 80] ^ state_[pos_];
    state_[pos_] = b;  // the oldest bit leaves, the new one enters at the end
    pos_ = (pos_ + 1) % 80;
    return b;
  }
  std::array<bool, 80> state_{};
  size_t pos_ = 0;
};

void append_bits(std::vector<bool>& v, size_t n, uint64_t x) {
  for (size_t i = n; i-- > 0;) v.push_back((x >> i) & 1);
}

}  // namespace

size_t poseidon_partial_rounds(size_t width) {
  switch (width) {
    case 3:
      return 55;
    case 5:
      return 56;
    case 9:
      return 57;
    case 12:
      return 57;
    default:
      throw std::invalid_argument("poseidon: no partial-round count for width " + std::to_string(width) +
                                  " (supported arities: 2, 4, 8, 11)");
  }
}

std::vector<Fr> poseidon_grain_round_constants(size_t width, size_t full_rounds, size_t partial_rounds) {
  constexpr size_t kFieldSize = 255;
  std::vector<bool> init;
  append_bits(init, 2, 1);  // prime field
  append_bits(init, 4, 1);  // s-box type as neptune passes it
  append_bits(init, 12, kFieldSize);
  append_bits(init, 12, width);
  append_bits(init, 10, full_rounds);
  append_bits(init, 10, partial_rounds);
  append_bits(init, 30, (uint64_t(1) << 30) - 1);
  Grain grain(init);
  std::vector<Fr> out;
  const size_t n = (full_rounds + partial_rounds) * width;
  while (out.size() < n) {
    // 255 bits, most significant first: 7 bits into the top byte, then 31 whole bytes.
    ff::BigInt<4> x = ff::BigInt<4>::zero();
    for (size_t i = 0; i < kFieldSize; i++) {
      const size_t bit = kFieldSize - 1 - i;
      if (grain.next()) x.limb[bit / 64] |= uint64_t(1) << (bit % 64);
    }
    Fr f;
    if (Fr::from_limbs_checked(x, f)) out.push_back(f);
  }
  return out;
}

Matrix poseidon_mds(size_t t) {
  Matrix m(t, std::vector<Fr>(t));
  for (size_t i = 0; i < t; i++) {
    for (size_t j = 0; j < t; j++) m[i][j] = Fr::from_u64(i + t + j).inverse();
  }
  return m;
}

}  // namespace cuzk::gadgets
