// Field elements and points as snarkjs writes them. In .r1cs and .wtns files Fr elements are
// canonical little-endian integers; in a .zkey, Fq coordinates are Montgomery little-endian
// (x * 2^384 mod q; G1 x || y, G2 x.c0 || x.c1 || y.c0 || y.c1; the point at infinity is all
// zero bytes, ffjavascript's zeroAffine) and section 4's coefficients are stored as
// v * 2^512 mod r (zkey_new.js multiplies by R^2, so that one Montgomery product with a
// canonical witness value gives the product in Montgomery form). In JSON, numbers are decimal
// strings and points projective: [x, y, "1"] (G1), [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]] (G2),
// with [0, 1, 0] for infinity.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "ec/curves.hpp"
#include "ff/fr.hpp"
#include "interop/snarkjs/binary_file.hpp"

namespace cuzk::snarkjs {

using ec::G1Affine;
using ec::G2Affine;
using ff::Fp;
using ff::Fp2;
using ff::Fr;

inline constexpr size_t kFrBytes = 32;
inline constexpr size_t kFpBytes = 48;
inline constexpr size_t kG1Bytes = 2 * kFpBytes;
inline constexpr size_t kG2Bytes = 4 * kFpBytes;

// How much of a point read from a file is checked. Points read from JSON are always checked
// fully; a .zkey's bulk sections may skip the subgroup check (on-curve is always checked).
enum class PointCheck { kOnCurveAndSubgroup, kOnCurve };

// Decimal text of a little-endian integer of any width, and back: false when the text is not
// decimal digits (no sign, no leading "+") or exceeds the width.
std::string to_decimal(std::span<const uint64_t> limbs);
bool from_decimal(std::string_view text, std::span<uint64_t> limbs);
std::string to_decimal(const Fr& v);
std::string to_decimal(const Fp& v);

// Checks that the field described by (n8, prime bytes) at the reader is expected_name's
// (BLS12-381's r or q); other curves (bn128, ...) are refused with a message naming the prime.
void expect_prime(SectionReader& in, std::span<const uint64_t> expected, std::string_view expected_name,
                  std::string_view field);

Fr read_canonical_fr(SectionReader& in, std::string_view field);
// A .zkey section 4 coefficient (stored v R^2 mod r); returns v.
Fr decode_zkey_coefficient(const uint8_t* bytes, bool& ok);
void encode_zkey_coefficient(const Fr& v, uint8_t* out);
// A field's byte width and prime as a .zkey header or .wtns/.r1cs field section starts.
void write_prime(BinaryFileWriter& out, std::span<const uint64_t> prime);

// Decoding without a reader (bulk sections); ok is false for a coordinate not below q.
bool decode_fp_montgomery(const uint8_t* bytes, Fp& out);
// Why a point was refused, or nullptr when it was accepted.
const char* decode_g1(const uint8_t* bytes, PointCheck check, G1Affine& out);
const char* decode_g2(const uint8_t* bytes, PointCheck check, G2Affine& out);
G1Affine read_g1(SectionReader& in, std::string_view field, PointCheck check = PointCheck::kOnCurveAndSubgroup);
G2Affine read_g2(SectionReader& in, std::string_view field, PointCheck check = PointCheck::kOnCurveAndSubgroup);

// Writing (tests make corrupted files with these).
void encode_fp_montgomery(const Fp& v, uint8_t* out);
void encode_g1(const G1Affine& p, uint8_t* out);
void encode_g2(const G2Affine& p, uint8_t* out);

}  // namespace cuzk::snarkjs
