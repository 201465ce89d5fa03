// SHA-256 over bit vectors, constraint for constraint with bellperson (gadgets/sha256.rs):
// bits are big-endian within each byte and bytes in message order (bellperson's order),
// the message schedule and rounds use UInt32 with deferred additions packed through
// MultiEq. One compression of 512 allocated bits costs 25,840 constraints.
// The native twins work on bytes and on the same bit order.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "gadgets/boolean.hpp"
#include "gadgets/uint32.hpp"

namespace cuzk::gadgets {

// ---- circuits ----------------------------------------------------------------------------
// The IV as constant words.
std::vector<UInt32> sha256_iv();
// One compression of a 512-bit block (big-endian bit order) into the 8-word state.
std::vector<UInt32> sha256_compression_function(ConstraintSystem& cs, std::span<const Boolean> block,
                                                std::span<const UInt32> state);
// The compression of one block with the IV and no padding; 256 output bits, big-endian.
std::vector<Boolean> sha256_block_no_padding(ConstraintSystem& cs, std::span<const Boolean> block);
// SHA-256 of a message of whole bytes given as bits (big-endian per byte); 256 output bits in
// the same order (bit 0 is the top bit of the digest's first byte). Blocks get namespaces
// "block i" as in bellperson.
std::vector<Boolean> sha256(ConstraintSystem& cs, std::span<const Boolean> message);

// ---- native twins ------------------------------------------------------------------------
void sha256_compress_native(std::array<uint32_t, 8>& state, const uint8_t block[64]);
std::array<uint8_t, 32> sha256_native(std::span<const uint8_t> message);
// Bytes to bits in bellperson's order (most significant bit of each byte first) and back.
std::vector<bool> bytes_to_bits_be(std::span<const uint8_t> bytes);
std::vector<uint8_t> bits_be_to_bytes(const std::vector<bool>& bits);

}  // namespace cuzk::gadgets
