// What the Filecoin kinds charge for a request beside its assignment: the synthesis' scratch and
// the heap bytes of the vanilla proofs' Merkle paths (the tracker's `input` class).
#pragma once

#include <cstdint>

#include "filecoin/common/merkle_proof.hpp"

namespace cuzk::kinds {

// Bytes a synthesis holds besides the assignment: the circuit's witness copies and each
// section's bits and combinations (a few MB); a generous bound, the same for every kind.
inline constexpr uint64_t kSynthesisScratchBytes = uint64_t(64) << 20;

// A Merkle path's heap bytes with its own.
inline uint64_t merkle_bytes(const filecoin::MerkleProof& p) {
  uint64_t b = sizeof(p);
  for (const auto* levels : {&p.base, &p.sub, &p.top}) {
    for (const auto& e : *levels) b += sizeof(e) + e.hashes.size() * sizeof(ff::Fr);
  }
  return b;
}

}  // namespace cuzk::kinds
