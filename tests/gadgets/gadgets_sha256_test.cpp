// SHA-256 gadget: bellperson's constraint counts, OpenSSL's digests in bellperson's bit
// order, native twin equality, and the test checker on good and bad witnesses.
#include <openssl/sha.h>
#include <random>

#include <gtest/gtest.h>

#include "gadgets/sha256.hpp"
#include "gadgets_corrupt.hpp"
#include "r1cs/shape.hpp"
#include "test_support.hpp"

namespace cuzk::gadgets {
namespace {

std::vector<Boolean> alloc_bits(r1cs::ConstraintSystem& cs, const std::vector<bool>& bits) {
  std::vector<Boolean> out;
  r1cs::Namespace ns(cs, "input");
  for (bool b : bits) out.emplace_back(AllocatedBit::alloc(cs, b));
  return out;
}

std::vector<bool> random_bits(std::mt19937_64& rng, size_t n) {
  std::vector<bool> v(n);
  for (size_t i = 0; i < n; i++) v[i] = rng() & 1;
  return v;
}

std::vector<bool> values(const std::vector<Boolean>& bits) {
  std::vector<bool> v;
  for (const auto& b : bits) v.push_back(b.value());
  return v;
}

TEST(GadgetsSha256Test, CompressionOf512AllocatedBitsCosts25840) {
  auto rng = test::make_rng();
  r1cs::TestChecker cs;
  auto bits = alloc_bits(cs, random_bits(rng, 512));
  ASSERT_EQ(cs.num_constraints(), 512u);
  auto iv = sha256_iv();
  auto out = sha256_compression_function(cs, bits, iv);
  EXPECT_TRUE(cs.is_satisfied()) << *cs.first_unsatisfied();
  EXPECT_EQ(cs.num_constraints() - 512, 25840u);
}

TEST(GadgetsSha256Test, BlankHashIsFreeAndCorrect) {
  // bellperson test_blank_hash: the padded empty message as constants costs nothing.
  r1cs::TestChecker cs;
  std::vector<Boolean> block(512, Boolean::constant(false));
  block[0] = Boolean::constant(true);
  auto out = sha256_block_no_padding(cs, block);
  EXPECT_EQ(cs.num_constraints(), 0u);
  auto bytes = bits_be_to_bytes(values(out));
  uint8_t expect[32];
  SHA256(nullptr, 0, expect);
  EXPECT_EQ(std::vector<uint8_t>(expect, expect + 32), bytes);
}

TEST(GadgetsSha256Test, Sha256Of512BitsCount) {
  auto rng = test::make_rng();
  r1cs::TestChecker cs;
  auto bits = alloc_bits(cs, random_bits(rng, 512));
  auto out = sha256(cs, bits);
  EXPECT_TRUE(cs.is_satisfied());
  EXPECT_EQ(cs.num_constraints(), 44874u + 512u) << "without the 512 bit constraints: " << cs.num_constraints() - 512;
}

TEST(GadgetsSha256Test, MatchesOpenSslAndNative) {
  auto rng = test::make_rng();
  // bellperson test_against_vectors: lengths 0..31 and 32..255 step 8 bytes (here a subset
  // of the long ones to keep the test fast).
  std::vector<size_t> lens;
  for (size_t n = 0; n < 32; n++) lens.push_back(n);
  for (size_t n = 32; n < 256; n += 40) lens.push_back(n);
  for (size_t len : lens) {
    std::vector<uint8_t> data(len);
    for (auto& b : data) b = uint8_t(rng());
    uint8_t expect[32];
    SHA256(data.data(), data.size(), expect);
    const std::vector<uint8_t> want(expect, expect + 32);
    auto native = sha256_native(data);
    EXPECT_EQ(std::vector<uint8_t>(native.begin(), native.end()), want) << "len " << len;
    r1cs::TestChecker cs;
    auto bits = alloc_bits(cs, bytes_to_bits_be(data));
    auto out = sha256(cs, bits);
    ASSERT_TRUE(cs.is_satisfied()) << *cs.first_unsatisfied();
    ASSERT_EQ(out.size(), 256u);
    EXPECT_EQ(bits_be_to_bytes(values(out)), want) << "len " << len;
  }
}

TEST(GadgetsSha256Test, CheckerNamesTheBrokenConstraint) {
  auto rng = test::make_rng();
  // Aux 600 is allocated inside the first message-schedule xor of block 0.
  test::CorruptingChecker cs(600);
  auto bits = alloc_bits(cs, random_bits(rng, 512));
  sha256(cs, bits);
  ASSERT_FALSE(cs.checker().is_satisfied());
  const std::string& name = *cs.checker().first_unsatisfied();
  EXPECT_NE(name.find("block 0/w extension 16/"), std::string::npos) << name;
  // A corrupted input bit breaks its boolean constraint.
  test::CorruptingChecker cs2(3);
  auto bits2 = alloc_bits(cs2, random_bits(rng, 512));
  ASSERT_FALSE(cs2.checker().is_satisfied());
  EXPECT_EQ(*cs2.checker().first_unsatisfied(), "input/boolean constraint (constraint #3)");
}

TEST(GadgetsSha256Test, ShapeRecorderSeesTheSameCount) {
  r1cs::ShapeRecorder cs;
  std::vector<Boolean> bits;
  for (int i = 0; i < 512; i++) bits.emplace_back(AllocatedBit::alloc(cs, false));
  auto iv = sha256_iv();
  sha256_compression_function(cs, bits, iv);
  EXPECT_EQ(cs.num_constraints(), 25840u + 512u);
}

}  // namespace
}  // namespace cuzk::gadgets
