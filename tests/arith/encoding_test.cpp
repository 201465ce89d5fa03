// ZCash encodings: the shared test vectors (i G for i = 0..999, G1 and G2, compressed
// and uncompressed) decode to i G and re-encode byte for byte; every rejection path of
// the decoders is hit by a crafted input.
#include "ec/encoding.hpp"

#include <array>
#include <vector>

#include <gtest/gtest.h>

#include "ec/scalar_mul.hpp"
#include "test_support.hpp"

namespace cuzk::ec {
namespace {

constexpr size_t kVectorCount = 1000;

template <class Affine, class Jacobian, size_t Size, class Encode, class Decode>
void check_vectors(const char* file, Affine generator, Encode encode, Decode decode) {
  auto bytes = test::read_file(test::testdata_dir() + "/bls12_381/" + file);
  ASSERT_EQ(bytes.size(), kVectorCount * Size) << file;
  Jacobian acc = Jacobian::infinity();
  const Jacobian g = Jacobian::from_affine(generator);
  for (size_t i = 0; i < kVectorCount; i++) {
    std::span<const uint8_t> expected(bytes.data() + i * Size, Size);
    Affine want = acc.to_affine();
    std::array<uint8_t, Size> got{};
    encode(want, std::span<uint8_t, Size>(got));
    ASSERT_TRUE(std::equal(got.begin(), got.end(), expected.begin())) << file << ": encoding of " << i << " G differs";
    Affine decoded;
    ASSERT_EQ(decode(expected, decoded, PointCheck::kFull), DecodeError::kOk) << file << ": " << i << " G";
    ASSERT_EQ(decoded, want) << file << ": decoding of " << i << " G differs";
    acc += g;
  }
}

TEST(EncodingVectors, G1Compressed) {
  check_vectors<G1Affine, G1Jacobian, kG1CompressedBytes>("g1_compressed_valid.dat", kG1Generator, g1_encode_compressed,
                                                          g1_decode_compressed);
}
TEST(EncodingVectors, G1Uncompressed) {
  check_vectors<G1Affine, G1Jacobian, kG1UncompressedBytes>("g1_uncompressed_valid.dat", kG1Generator,
                                                            g1_encode_uncompressed, g1_decode_uncompressed);
}
TEST(EncodingVectors, G2Compressed) {
  check_vectors<G2Affine, G2Jacobian, kG2CompressedBytes>("g2_compressed_valid.dat", kG2Generator, g2_encode_compressed,
                                                          g2_decode_compressed);
}
TEST(EncodingVectors, G2Uncompressed) {
  check_vectors<G2Affine, G2Jacobian, kG2UncompressedBytes>("g2_uncompressed_valid.dat", kG2Generator,
                                                            g2_encode_uncompressed, g2_decode_uncompressed);
}

// ---- crafted rejections -----------------------------------------------------

template <size_t N>
std::vector<uint8_t> vec(const std::array<uint8_t, N>& a) {
  return std::vector<uint8_t>(a.begin(), a.end());
}

// p as 48 big-endian bytes.
std::vector<uint8_t> modulus_be() {
  std::vector<uint8_t> out(48);
  auto m = Fp::modulus();
  for (size_t k = 0; k < 48; k++) out[47 - k] = uint8_t(m.limb[k / 8] >> (8 * (k % 8)));
  return out;
}

// Smallest x >= start for which x^3 + b is (want_square ? a square : not a square).
template <class Field, class Curve>
Field find_x(bool want_square, uint64_t start = 0) {
  for (uint64_t i = start;; i++) {
    Field x = Field{};
    if constexpr (std::is_same_v<Field, Fp>) {
      x = Fp::from_u64(i);
    } else {
      x = {Fp::from_u64(i), Fp::one()};
    }
    Field y;
    if ((x.sqr() * x + Curve::b()).sqrt(y) == want_square) return x;
  }
}

TEST(EncodingRejects, G1) {
  std::array<uint8_t, 48> c{};
  std::array<uint8_t, 96> u{};
  g1_encode_compressed(kG1Generator, c);
  g1_encode_uncompressed(kG1Generator, u);
  G1Affine out;
  auto dc = [&](const std::vector<uint8_t>& b) { return g1_decode_compressed(b, out); };
  auto du = [&](const std::vector<uint8_t>& b) { return g1_decode_uncompressed(b, out); };

  // Lengths.
  EXPECT_EQ(dc(std::vector<uint8_t>(c.begin(), c.end() - 1)), DecodeError::kWrongLength);
  EXPECT_EQ(du(vec(c)), DecodeError::kWrongLength);
  EXPECT_EQ(dc({}), DecodeError::kWrongLength);
  // Compression flag.
  auto b = vec(c);
  b[0] &= 0x7f;
  EXPECT_EQ(dc(b), DecodeError::kBadCompressionFlag);
  b = vec(u);
  b[0] |= 0x80;
  EXPECT_EQ(du(b), DecodeError::kBadCompressionFlag);
  // Infinity with stray bits, and with the sign bit.
  std::vector<uint8_t> inf_c(48, 0), inf_u(96, 0);
  inf_c[0] = 0xc0;
  inf_u[0] = 0x40;
  EXPECT_EQ(dc(inf_c), DecodeError::kOk);
  EXPECT_TRUE(out.is_infinity());
  EXPECT_EQ(du(inf_u), DecodeError::kOk);
  EXPECT_TRUE(out.is_infinity());
  b = inf_c;
  b[47] = 1;
  EXPECT_EQ(dc(b), DecodeError::kBadInfinityEncoding);
  b = inf_c;
  b[0] |= 0x01;
  EXPECT_EQ(dc(b), DecodeError::kBadInfinityEncoding);
  b = inf_u;
  b[60] = 0x80;
  EXPECT_EQ(du(b), DecodeError::kBadInfinityEncoding);
  b = inf_c;
  b[0] |= 0x20;
  EXPECT_EQ(dc(b), DecodeError::kSignFlagNotAllowed);
  // Sign flag in an uncompressed encoding.
  b = vec(u);
  b[0] |= 0x20;
  EXPECT_EQ(du(b), DecodeError::kSignFlagNotAllowed);
  // x = p, and y = y + p (both >= p).
  b = modulus_be();
  b[0] |= 0x80;
  EXPECT_EQ(dc(b), DecodeError::kCoordinateNotInField);
  b = vec(u);
  {
    auto m = modulus_be();
    std::copy(m.begin(), m.end(), b.begin());  // x = p, no flags
    EXPECT_EQ(du(b), DecodeError::kCoordinateNotInField);
    b = vec(u);
    BigInt<6> y = kG1Generator.y.to_canonical();
    y.add_in_place(Fp::modulus());
    for (size_t k = 0; k < 48; k++) b[95 - k] = uint8_t(y.limb[k / 8] >> (8 * (k % 8)));
    EXPECT_EQ(du(b), DecodeError::kCoordinateNotInField);
  }
  // Off the curve: x^3 + 4 not a square (compressed), y perturbed (uncompressed).
  Fp bad_x = find_x<Fp, G1Curve>(false);
  g1_encode_compressed(G1Affine{bad_x, Fp::one()}, c);  // y is only used for the sign bit
  EXPECT_EQ(dc(vec(c)), DecodeError::kNotOnCurve);
  g1_encode_uncompressed(G1Affine{kG1Generator.x, kG1Generator.y + Fp::one()}, u);
  EXPECT_EQ(du(vec(u)), DecodeError::kNotOnCurve);
  // (0, 0) written out uncompressed without the infinity flag is not a point.
  EXPECT_EQ(du(std::vector<uint8_t>(96, 0)), DecodeError::kNotOnCurve);
  // On the curve, outside the subgroup.
  Fp good_x = find_x<Fp, G1Curve>(true, 1);
  Fp y;
  ASSERT_TRUE((good_x.sqr() * good_x + G1Curve::b()).sqrt(y));
  G1Affine outside{good_x, y};
  ASSERT_FALSE(g1_is_in_subgroup(outside));
  g1_encode_compressed(outside, c);
  g1_encode_uncompressed(outside, u);
  EXPECT_EQ(dc(vec(c)), DecodeError::kNotInSubgroup);
  EXPECT_EQ(du(vec(u)), DecodeError::kNotInSubgroup);
  // ... which the cheaper modes accept, as documented.
  EXPECT_EQ(g1_decode_compressed(vec(c), out, PointCheck::kOnCurve), DecodeError::kOk);
  EXPECT_EQ(out, outside);
  EXPECT_EQ(g1_decode_uncompressed(vec(u), out, PointCheck::kNone), DecodeError::kOk);
  // Every error has its own message.
  for (int e = 0; e <= int(DecodeError::kNotInSubgroup); e++) {
    for (int f = 0; f < e; f++) EXPECT_STRNE(describe(DecodeError(e)), describe(DecodeError(f)));
  }
}

TEST(EncodingRejects, G2) {
  std::array<uint8_t, 96> c{};
  std::array<uint8_t, 192> u{};
  g2_encode_compressed(kG2Generator, c);
  g2_encode_uncompressed(kG2Generator, u);
  G2Affine out;
  auto dc = [&](const std::vector<uint8_t>& b) { return g2_decode_compressed(b, out); };
  auto du = [&](const std::vector<uint8_t>& b) { return g2_decode_uncompressed(b, out); };

  EXPECT_EQ(dc(std::vector<uint8_t>(95, 0)), DecodeError::kWrongLength);
  EXPECT_EQ(du(vec(c)), DecodeError::kWrongLength);
  auto b = vec(c);
  b[0] &= 0x7f;
  EXPECT_EQ(dc(b), DecodeError::kBadCompressionFlag);
  b = vec(u);
  b[0] |= 0x80;
  EXPECT_EQ(du(b), DecodeError::kBadCompressionFlag);
  std::vector<uint8_t> inf_c(96, 0);
  inf_c[0] = 0xc0;
  EXPECT_EQ(dc(inf_c), DecodeError::kOk);
  EXPECT_TRUE(out.is_infinity());
  b = inf_c;
  b[50] = 2;
  EXPECT_EQ(dc(b), DecodeError::kBadInfinityEncoding);
  b = inf_c;
  b[0] |= 0x20;
  EXPECT_EQ(dc(b), DecodeError::kSignFlagNotAllowed);
  b = vec(u);
  b[0] |= 0x20;
  EXPECT_EQ(du(b), DecodeError::kSignFlagNotAllowed);
  // x.c1 = p (first half), then x.c0 = p (second half).
  auto m = modulus_be();
  b = vec(c);
  std::copy(m.begin(), m.end(), b.begin());
  b[0] |= 0x80;
  EXPECT_EQ(dc(b), DecodeError::kCoordinateNotInField);
  b = vec(c);
  std::copy(m.begin(), m.end(), b.begin() + 48);
  EXPECT_EQ(dc(b), DecodeError::kCoordinateNotInField);
  b = vec(u);
  std::copy(m.begin(), m.end(), b.begin() + 144);  // y.c0 = p
  EXPECT_EQ(du(b), DecodeError::kCoordinateNotInField);
  // Off the curve.
  Fp2 bad_x = find_x<Fp2, G2Curve>(false);
  g2_encode_compressed(G2Affine{bad_x, Fp2::one()}, c);
  EXPECT_EQ(dc(vec(c)), DecodeError::kNotOnCurve);
  g2_encode_uncompressed(G2Affine{kG2Generator.x, kG2Generator.y + Fp2::one()}, u);
  EXPECT_EQ(du(vec(u)), DecodeError::kNotOnCurve);
  // Outside the subgroup.
  Fp2 good_x = find_x<Fp2, G2Curve>(true, 1);
  Fp2 y;
  ASSERT_TRUE((good_x.sqr() * good_x + G2Curve::b()).sqrt(y));
  G2Affine outside{good_x, y};
  ASSERT_TRUE(outside.is_on_curve());
  ASSERT_FALSE(g2_is_in_subgroup(outside));
  g2_encode_compressed(outside, c);
  g2_encode_uncompressed(outside, u);
  EXPECT_EQ(dc(vec(c)), DecodeError::kNotInSubgroup);
  EXPECT_EQ(du(vec(u)), DecodeError::kNotInSubgroup);
  EXPECT_EQ(g2_decode_compressed(vec(c), out, PointCheck::kOnCurve), DecodeError::kOk);
  EXPECT_EQ(out, outside);
}

TEST(EncodingRoundTrip, RandomPointsBothSigns) {
  auto rng = test::make_rng();
  for (int i = 0; i < 30; i++) {
    Fr k = Fr::random(rng);
    G1Affine p = g1_mul(kG1Generator, k).to_affine();
    G2Affine q = g2_mul(kG2Generator, k).to_affine();
    for (int neg = 0; neg < 2; neg++) {
      std::array<uint8_t, 48> c1{};
      std::array<uint8_t, 96> c2{};
      g1_encode_compressed(p, c1);
      g2_encode_compressed(q, c2);
      G1Affine p2;
      G2Affine q2;
      ASSERT_EQ(g1_decode_compressed(c1, p2), DecodeError::kOk);
      ASSERT_EQ(g2_decode_compressed(c2, q2), DecodeError::kOk);
      EXPECT_EQ(p2, p);
      EXPECT_EQ(q2, q);
      p = -p;
      q = -q;
    }
  }
}

}  // namespace
}  // namespace cuzk::ec
