#include "gadgets/multieq.hpp"

#include <array>
#include <string>

namespace cuzk::gadgets {

// Built once (a packed equality shifts by up to 253 bits).
const ff::Fr& MultiEq::pow2(size_t k) {
  static const auto table = [] {
    std::array<ff::Fr, 256> t;
    t[0] = ff::Fr::one();
    for (size_t i = 1; i < t.size(); i++) t[i] = t[i - 1].dbl();
    return t;
  }();
  return table[k];
}

void MultiEq::accumulate() {
  cs_.enforce("multieq " + std::to_string(ops_), lhs_, r1cs::LC(r1cs::Variable::one()), rhs_);
  lhs_ = r1cs::LC();
  rhs_ = r1cs::LC();
  bits_used_ = 0;
  ops_++;
}

void MultiEq::enforce_shifted(size_t num_bits, const r1cs::LC& lhs, const r1cs::LC& rhs) {
  if (kCapacity <= bits_used_ + num_bits) accumulate();
  if (cs_.reads_combinations()) {  // a witness-only system counts the packed constraints alone
    lhs_ += lhs;
    rhs_ += rhs;
  }
  bits_used_ += num_bits;
}

void MultiEq::enforce_equal(size_t num_bits, const r1cs::LC& lhs, const r1cs::LC& rhs) {
  if (kCapacity <= bits_used_ + num_bits) accumulate();
  if (!cs_.reads_combinations()) {
    bits_used_ += num_bits;
    return;
  }
  const ff::Fr& coeff = pow2(bits_used_);
  lhs_ += lhs.scaled(coeff);
  rhs_ += rhs.scaled(coeff);
  bits_used_ += num_bits;
}

}  // namespace cuzk::gadgets
