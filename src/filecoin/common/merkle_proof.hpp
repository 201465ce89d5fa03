// A Merkle path as rust-fil-proofs' vanilla proofs hold it (storage-proofs-core merkle/proof.rs
// MerkleProof, PathElement): the openings of every protocol's vanilla proofs (PoRep's columns and
// replicas, PoSt's sectors, SnapDeals' challenges), already checked to hold canonical field elements.
#pragma once

#include <cstdint>
#include <vector>

#include "ff/fr.hpp"
#include "gadgets/por.hpp"

namespace cuzk::filecoin {

using ff::Fr;

// One level of a Merkle path: the arity - 1 siblings and the position of the climbing node
// among the arity children (merkle/proof.rs PathElement).
struct PathElement {
  std::vector<Fr> hashes;
  uint32_t index = 0;
};

// merkle/proof.rs MerkleProof: ProofData::Single (base levels only), ::Sub (base levels and one
// sub-tree level) or ::Top (base, sub and top levels).
struct MerkleProof {
  enum class Kind : uint8_t { kSingle, kSub, kTop };
  Kind kind = Kind::kSingle;
  Fr root, leaf;
  std::vector<PathElement> base;
  std::vector<PathElement> sub;  // one element for kSub and kTop, else empty
  std::vector<PathElement> top;  // one element for kTop, else empty

  // Every level, base first (the order of the circuit's path).
  std::vector<PathElement> levels() const;
  // The leaf index the path encodes: the levels' indices in mixed radix, base first.
  uint64_t path_index(const gadgets::PorTreeShape& shape) const;
};

}  // namespace cuzk::filecoin
