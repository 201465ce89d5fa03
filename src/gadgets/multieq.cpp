#include "gadgets/multieq.hpp"

#include <string>

namespace cuzk::gadgets {

namespace {
constexpr size_t kCapacity = 254;  // Fr::CAPACITY: bits that always fit below the modulus

ff::Fr pow2(size_t k) {
  ff::Fr r = ff::Fr::one();
  for (size_t i = 0; i < k; i++) r = r.dbl();
  return r;
}
}  // namespace

void MultiEq::accumulate() {
  cs_.enforce("multieq " + std::to_string(ops_), lhs_, r1cs::LC(r1cs::Variable::one()), rhs_);
  lhs_ = r1cs::LC();
  rhs_ = r1cs::LC();
  bits_used_ = 0;
  ops_++;
}

void MultiEq::enforce_equal(size_t num_bits, const r1cs::LC& lhs, const r1cs::LC& rhs) {
  if (kCapacity <= bits_used_ + num_bits) accumulate();
  const ff::Fr coeff = pow2(bits_used_);
  lhs_ += lhs.scaled(coeff);
  rhs_ += rhs.scaled(coeff);
  bits_used_ += num_bits;
}

}  // namespace cuzk::gadgets
