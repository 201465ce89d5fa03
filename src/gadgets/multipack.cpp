#include "gadgets/multipack.hpp"

#include <string>

namespace cuzk::gadgets {

void pack_into_inputs(ConstraintSystem& cs, std::span<const Boolean> bits) {
  for (size_t i = 0, start = 0; start < bits.size(); i++, start += kFrCapacity) {
    Num num;
    Fr coeff = Fr::one();
    for (size_t j = start; j < std::min(bits.size(), start + kFrCapacity); j++) {
      num.add_bool_with_coeff(bits[j], coeff);
      coeff = coeff.dbl();
    }
    Variable input = cs.alloc_input("input " + std::to_string(i), num.value);
    cs.enforce("packing constraint " + std::to_string(i), num.lc, LC(Variable::one()), LC(input));
  }
}

std::vector<Fr> compute_multipacking(const std::vector<bool>& bits) {
  std::vector<Fr> out;
  for (size_t start = 0; start < bits.size(); start += kFrCapacity) {
    Fr cur = Fr::zero(), coeff = Fr::one();
    for (size_t j = start; j < std::min(bits.size(), start + kFrCapacity); j++) {
      if (bits[j]) cur += coeff;
      coeff = coeff.dbl();
    }
    out.push_back(cur);
  }
  return out;
}

AllocatedNum pack_bits(ConstraintSystem& cs, std::span<const Boolean> bits) {
  Num num;
  Fr coeff = Fr::one();
  for (size_t j = 0; j < std::min(bits.size(), kFrCapacity); j++) {
    num.add_bool_with_coeff(bits[j], coeff);
    coeff = coeff.dbl();
  }
  AllocatedNum n;
  {
    r1cs::Namespace ns(cs, "input");
    n = AllocatedNum::alloc(cs, num.value);
  }
  cs.enforce("packing constraint", num.lc, LC(Variable::one()), LC(n.var));
  return n;
}

}  // namespace cuzk::gadgets
