#include "filecoin/common/merkle_proof.hpp"

#include <bit>

namespace cuzk::filecoin {

std::vector<PathElement> MerkleProof::levels() const {
  std::vector<PathElement> all(base);
  all.insert(all.end(), sub.begin(), sub.end());
  all.insert(all.end(), top.begin(), top.end());
  return all;
}

uint64_t MerkleProof::path_index(const gadgets::PorTreeShape& shape) const {
  const auto arities = shape.level_arities();
  const auto all = levels();
  uint64_t index = 0;
  unsigned shift = 0;
  for (size_t l = 0; l < all.size() && l < arities.size(); l++) {
    index |= uint64_t(all[l].index) << shift;
    shift += unsigned(std::countr_zero(arities[l]));
  }
  return index;
}

}  // namespace cuzk::filecoin
