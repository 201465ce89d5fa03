#include "ec/encoding.hpp"

#include <algorithm>
#include <type_traits>

namespace cuzk::ec {
namespace {

constexpr uint8_t kCompressionBit = 0x80;
constexpr uint8_t kInfinityBit = 0x40;
constexpr uint8_t kSignBit = 0x20;
constexpr uint8_t kFlagMask = kCompressionBit | kInfinityBit | kSignBit;

// Field elements as big-endian bytes; G2 puts c1 before c0.
void put(const Fp& a, uint8_t* out) { a.to_bytes_be(out); }
void put(const Fp2& a, uint8_t* out) {
  a.c1.to_bytes_be(out);
  a.c0.to_bytes_be(out + Fp::kBytes);
}
bool get(const uint8_t* in, Fp& out) { return Fp::from_bytes_be(in, out); }
bool get(const uint8_t* in, Fp2& out) {
  return Fp::from_bytes_be(in, out.c1) && Fp::from_bytes_be(in + Fp::kBytes, out.c0);
}

template <class Curve>
bool in_subgroup(const AffinePoint<Curve>& p) {
  if constexpr (std::is_same_v<Curve, G1Curve>) {
    return g1_is_in_subgroup(p);
  } else {
    return g2_is_in_subgroup(p);
  }
}

template <class Curve>
void encode(const AffinePoint<Curve>& p, bool compressed, uint8_t* out) {
  using Field = typename Curve::Field;
  constexpr size_t coord = std::is_same_v<Field, Fp> ? Fp::kBytes : 2 * Fp::kBytes;
  const size_t len = compressed ? coord : 2 * coord;
  if (p.is_infinity()) {
    std::fill(out, out + len, 0);
    out[0] = kInfinityBit | (compressed ? kCompressionBit : 0);
    return;
  }
  put(p.x, out);
  if (compressed) {
    out[0] |= kCompressionBit | (p.y.is_lexicographically_largest() ? kSignBit : 0);
  } else {
    put(p.y, out + coord);
  }
}

template <class Curve>
DecodeError decode(std::span<const uint8_t> in, bool compressed, PointCheck check, AffinePoint<Curve>& out) {
  using Field = typename Curve::Field;
  constexpr size_t coord = std::is_same_v<Field, Fp> ? Fp::kBytes : 2 * Fp::kBytes;
  const size_t len = compressed ? coord : 2 * coord;
  if (in.size() != len) return DecodeError::kWrongLength;
  const uint8_t flags = in[0] & kFlagMask;
  if (bool(flags & kCompressionBit) != compressed) return DecodeError::kBadCompressionFlag;
  if (flags & kInfinityBit) {
    if (flags & kSignBit) return DecodeError::kSignFlagNotAllowed;
    if ((in[0] & ~kFlagMask) != 0 || std::any_of(in.begin() + 1, in.end(), [](uint8_t b) { return b != 0; })) {
      return DecodeError::kBadInfinityEncoding;
    }
    out = AffinePoint<Curve>::infinity();
    return DecodeError::kOk;
  }
  if (!compressed && (flags & kSignBit)) return DecodeError::kSignFlagNotAllowed;

  uint8_t x_bytes[coord];
  std::copy(in.begin(), in.begin() + coord, x_bytes);
  x_bytes[0] &= uint8_t(~kFlagMask);
  AffinePoint<Curve> p;
  if (!get(x_bytes, p.x)) return DecodeError::kCoordinateNotInField;
  if (compressed) {
    Field rhs = p.x.sqr() * p.x + Curve::b();
    if (!rhs.sqrt(p.y)) return DecodeError::kNotOnCurve;
    if (p.y.is_lexicographically_largest() != bool(flags & kSignBit)) p.y = -p.y;
  } else {
    if (!get(in.data() + coord, p.y)) return DecodeError::kCoordinateNotInField;
    if (check != PointCheck::kNone && !p.is_on_curve()) return DecodeError::kNotOnCurve;
  }
  // (0, 0) means infinity in memory; it is not on either curve, so a decoded point never is.
  if (p.is_infinity()) return DecodeError::kNotOnCurve;
  if (check == PointCheck::kFull && !in_subgroup(p)) return DecodeError::kNotInSubgroup;
  out = p;
  return DecodeError::kOk;
}

}  // namespace

const char* describe(DecodeError e) {
  switch (e) {
    case DecodeError::kOk:
      return "ok";
    case DecodeError::kWrongLength:
      return "wrong length for this point encoding";
    case DecodeError::kBadCompressionFlag:
      return "compression flag does not match the encoding";
    case DecodeError::kBadInfinityEncoding:
      return "point at infinity with non-zero coordinate bits";
    case DecodeError::kSignFlagNotAllowed:
      return "sign flag set in an uncompressed or infinity encoding";
    case DecodeError::kCoordinateNotInField:
      return "coordinate is not below the field modulus";
    case DecodeError::kNotOnCurve:
      return "point is not on the curve";
    case DecodeError::kNotInSubgroup:
      return "point is not in the prime-order subgroup";
  }
  return "unknown decode error";
}

void g1_encode_compressed(const G1Affine& p, std::span<uint8_t, kG1CompressedBytes> out) {
  encode<G1Curve>(p, true, out.data());
}
void g1_encode_uncompressed(const G1Affine& p, std::span<uint8_t, kG1UncompressedBytes> out) {
  encode<G1Curve>(p, false, out.data());
}
void g2_encode_compressed(const G2Affine& p, std::span<uint8_t, kG2CompressedBytes> out) {
  encode<G2Curve>(p, true, out.data());
}
void g2_encode_uncompressed(const G2Affine& p, std::span<uint8_t, kG2UncompressedBytes> out) {
  encode<G2Curve>(p, false, out.data());
}

DecodeError g1_decode_compressed(std::span<const uint8_t> in, G1Affine& out, PointCheck check) {
  return decode<G1Curve>(in, true, check, out);
}
DecodeError g1_decode_uncompressed(std::span<const uint8_t> in, G1Affine& out, PointCheck check) {
  return decode<G1Curve>(in, false, check, out);
}
DecodeError g2_decode_compressed(std::span<const uint8_t> in, G2Affine& out, PointCheck check) {
  return decode<G2Curve>(in, true, check, out);
}
DecodeError g2_decode_uncompressed(std::span<const uint8_t> in, G2Affine& out, PointCheck check) {
  return decode<G2Curve>(in, false, check, out);
}

}  // namespace cuzk::ec
