// ZCash serialization of BLS12-381 points (the format of bellperson parameter files,
// Filecoin proofs and the ZCash test vectors).
//
// Big-endian coordinates; the three top bits of the first byte are flags:
//   bit 7 (0x80) compression: set for the compressed form, clear for the uncompressed;
//   bit 6 (0x40) infinity: the point at infinity, all other bits zero;
//   bit 5 (0x20) sign: in compressed form, set when y is lexicographically largest.
// G2 coordinates are written c1 first, then c0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "ec/curves.hpp"

namespace cuzk::ec {

inline constexpr size_t kG1CompressedBytes = 48;
inline constexpr size_t kG1UncompressedBytes = 96;
inline constexpr size_t kG2CompressedBytes = 96;
inline constexpr size_t kG2UncompressedBytes = 192;

enum class DecodeError {
  kOk = 0,
  kWrongLength,           // input is not the size of the encoding
  kBadCompressionFlag,    // compression bit disagrees with the encoding being decoded
  kBadInfinityEncoding,   // infinity bit set but other bits non-zero
  kSignFlagNotAllowed,    // sign bit set in an uncompressed or infinity encoding
  kCoordinateNotInField,  // a coordinate is >= p
  kNotOnCurve,            // no such point on the curve (x^3 + b is not a square, or y^2 != x^3 + b)
  kNotInSubgroup,         // on the curve but outside the prime-order subgroup
};

// A short, user-facing description of the error.
const char* describe(DecodeError e);

// How much of a decoded point to check. Parameter files from a trusted source may be
// loaded with kOnCurve or kNone for speed; anything from the network needs kFull.
enum class PointCheck { kFull, kOnCurve, kNone };

void g1_encode_compressed(const G1Affine& p, std::span<uint8_t, kG1CompressedBytes> out);
void g1_encode_uncompressed(const G1Affine& p, std::span<uint8_t, kG1UncompressedBytes> out);
void g2_encode_compressed(const G2Affine& p, std::span<uint8_t, kG2CompressedBytes> out);
void g2_encode_uncompressed(const G2Affine& p, std::span<uint8_t, kG2UncompressedBytes> out);

// Decoders take any span and reject a wrong length. With PointCheck::kNone a compressed
// point still needs its square root, so only the subgroup check is skipped there.
DecodeError g1_decode_compressed(std::span<const uint8_t> in, G1Affine& out, PointCheck check = PointCheck::kFull);
DecodeError g1_decode_uncompressed(std::span<const uint8_t> in, G1Affine& out, PointCheck check = PointCheck::kFull);
DecodeError g2_decode_compressed(std::span<const uint8_t> in, G2Affine& out, PointCheck check = PointCheck::kFull);
DecodeError g2_decode_uncompressed(std::span<const uint8_t> in, G2Affine& out, PointCheck check = PointCheck::kFull);

}  // namespace cuzk::ec
