// Stacked-DRG labeling and encoding (storage-proofs-porep stacked/circuit/create_label.rs,
// storage-proofs-core gadgets/encode.rs).
//
// A label is SHA-256 over replica_id (32 bytes) ‖ layer (u32, big-endian) ‖ node (u64,
// big-endian) ‖ zeros to 64 bytes ‖ 37 parent labels (32 bytes each), truncated to a field
// element (top two bits cleared). The circuit takes the bits in bellperson's order (big-endian
// per byte), hashes the 9,984 bits (20 blocks) and packs the first 254 bits of the digest
// in little-endian bit numbering into one number. rust-fil-proofs' test set-up (256 id bits
// and 37 x 256 parent bits allocated, layer and node constant) totals 532,025 constraints.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "gadgets/num.hpp"
#include "gadgets/uint32.hpp"
#include "gadgets/uint64.hpp"

namespace cuzk::gadgets {

constexpr size_t kLabelParents = 37;  // 6 base + 8 expander parents, repeated to 37

// Native label from the 32-byte replica id and parent labels.
Fr create_label(const std::array<uint8_t, 32>& replica_id, uint32_t layer, uint64_t node,
                std::span<const std::array<uint8_t, 32>> parents);

// replica_id: 32..256 bits; parents: 37 vectors of at most 256 bits each (big-endian per byte).
AllocatedNum create_label_circuit(ConstraintSystem& cs, std::span<const Boolean> replica_id,
                                  const std::vector<std::vector<Boolean>>& parents, const UInt32& layer,
                                  const UInt64& node);

// encode: key + value ("encode_add"); decode: value - key ("decode_sub").
AllocatedNum encode(ConstraintSystem& cs, const AllocatedNum& key, const AllocatedNum& value);
AllocatedNum decode(ConstraintSystem& cs, const AllocatedNum& key, const AllocatedNum& value);

}  // namespace cuzk::gadgets
