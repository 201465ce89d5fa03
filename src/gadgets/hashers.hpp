// Filecoin's node hashers (filecoin-hashers): SHA-256 truncated to a field element and
// Poseidon, each native and as a circuit with the exact gadget sequence of rust-fil-proofs.
//
// SHA-256: a node is the 32-byte little-endian encoding of an Fr; the hash of nodes is
// SHA-256 of their concatenation with the top two bits of the last byte cleared, read back
// as a little-endian Fr. In circuits each number is unpacked to 255 bits (to_bits_le), padded
// to 256, and fed byte by byte (bit order reversed within each byte, i.e. bellperson's
// big-endian bytes); the digest is repacked from its first 254 little-endian bits.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "gadgets/num.hpp"

namespace cuzk::gadgets {

// ---- SHA-256 ----
std::array<uint8_t, 32> fr_to_bytes_le(const Fr& x);
// Throws std::invalid_argument when the bytes are not a canonical element.
Fr fr_from_bytes_le(const std::array<uint8_t, 32>& bytes);
Fr sha256_node_hash(std::span<const Fr> nodes);                                         // native
Fr sha256_truncated(std::span<const uint8_t> data);                                     // SHA-256 with 2 bits cleared
AllocatedNum sha256_hash_circuit(ConstraintSystem& cs, std::span<const Boolean> bits);  // hash_circuit
AllocatedNum sha256_hash2_circuit(ConstraintSystem& cs, const AllocatedNum& a, const AllocatedNum& b);
AllocatedNum sha256_hash_leaf_bits_circuit(ConstraintSystem& cs, std::span<const Boolean> left,
                                           std::span<const Boolean> right);
AllocatedNum sha256_hash_multi_leaf_circuit(ConstraintSystem& cs, std::span<const AllocatedNum> leaves);

// ---- Poseidon (MerkleTree hash type) ----
Fr poseidon_node_hash(std::span<const Fr> nodes);  // arity = nodes.size() (2, 4, 8 or 11)
AllocatedNum poseidon_hash_multi_leaf_circuit(ConstraintSystem& cs, std::span<const AllocatedNum> leaves);

// The tree hashers por and the circuits are generic over.
enum class TreeHasher { kSha256, kPoseidon };
Fr node_hash(TreeHasher h, std::span<const Fr> nodes);
AllocatedNum node_hash_circuit(TreeHasher h, ConstraintSystem& cs, std::span<const AllocatedNum> leaves);

}  // namespace cuzk::gadgets
