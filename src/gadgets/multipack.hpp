// Packing bits into field elements: bellperson's multipack (pack_into_inputs: chunks of 254
// bits, least significant first, each a public input with one packing constraint;
// compute_multipacking is its native twin) and storage-proofs-core's pack_bits (one aux
// number from at most 254 bits).
#pragma once

#include <span>
#include <vector>

#include "gadgets/num.hpp"

namespace cuzk::gadgets {

constexpr size_t kFrCapacity = 254;

void pack_into_inputs(ConstraintSystem& cs, std::span<const Boolean> bits);
std::vector<Fr> compute_multipacking(const std::vector<bool>& bits);
AllocatedNum pack_bits(ConstraintSystem& cs, std::span<const Boolean> bits);

}  // namespace cuzk::gadgets
