// Bits, words and numbers: every Boolean operation on every kind of operand (constant, bit,
// negated bit) against its truth table and bellperson's constraint cost; UInt32 against
// native arithmetic; multipacking; AllocatedNum and the selection gadgets.
#include <gtest/gtest.h>

#include "gadgets/multipack.hpp"
#include "gadgets/num.hpp"
#include "gadgets/uint32.hpp"
#include "gadgets_corrupt.hpp"
#include "r1cs/shape.hpp"
#include "test_support.hpp"

namespace cuzk::gadgets {
namespace {

// kind 0: constant, 1: allocated bit, 2: negation of an allocated bit
Boolean make(r1cs::ConstraintSystem& cs, int kind, bool value) {
  if (kind == 0) return Boolean::constant(value);
  if (kind == 1) return AllocatedBit::alloc(cs, value);
  return Boolean(AllocatedBit::alloc(cs, !value)).not_();
}

TEST(GadgetsBitsTest, BooleanOperationsOnAllOperandKinds) {
  for (int ka = 0; ka < 3; ka++) {
    for (int kb = 0; kb < 3; kb++) {
      for (int kc = 0; kc < 3; kc++) {
        for (int v = 0; v < 8; v++) {
          const bool a = v & 1, b = v & 2, c = v & 4;
          r1cs::TestChecker cs;
          Boolean A = make(cs, ka, a), B = make(cs, kb, b), C = make(cs, kc, c);
          const size_t base = cs.num_constraints();
          EXPECT_EQ(Boolean::xor_(cs, A, B).value(), a ^ b);
          EXPECT_EQ(Boolean::and_(cs, A, B).value(), a && b);
          EXPECT_EQ(Boolean::sha256_ch(cs, A, B, C).value(), (a && b) ^ (!a && c));
          EXPECT_EQ(Boolean::sha256_maj(cs, A, B, C).value(), (a && b) ^ (a && c) ^ (b && c));
          EXPECT_EQ(A.not_().value(), !a);
          ASSERT_TRUE(cs.is_satisfied()) << *cs.first_unsatisfied();
          // Costs: xor / and 1 unless an operand is constant; ch / maj 1 and 2 with no constants.
          if (ka && kb && kc) {
            EXPECT_EQ(cs.num_constraints() - base, 1u + 1u + 1u + 2u);
          }
          if (!ka && !kb && !kc) {
            EXPECT_EQ(cs.num_constraints(), 0u);
          }
          if (a == b || ka == 0 || kb == 0) {
            r1cs::TestChecker eq;
            Boolean X = make(eq, ka, a), Y = make(eq, kb, b);
            if (ka == 0 && kb == 0) {
              if (a == b) {
                Boolean::enforce_equal(eq, X, Y);
              } else {
                EXPECT_THROW(Boolean::enforce_equal(eq, X, Y), std::invalid_argument);
              }
            } else {
              Boolean::enforce_equal(eq, X, Y);
              EXPECT_EQ(eq.is_satisfied(), a == b);
            }
          }
        }
      }
    }
  }
}

TEST(GadgetsBitsTest, AllocatedBitConstraintNamesAndShapes) {
  r1cs::TestChecker cs;
  AllocatedBit a = AllocatedBit::alloc(cs, true);
  AllocatedBit b = AllocatedBit::alloc(cs, false);
  EXPECT_TRUE(AllocatedBit::xor_(cs, a, b).value);
  EXPECT_FALSE(AllocatedBit::and_(cs, a, b).value);
  EXPECT_TRUE(AllocatedBit::and_not(cs, a, b).value);
  EXPECT_FALSE(AllocatedBit::nor(cs, a, b).value);
  EXPECT_TRUE(cs.is_satisfied());
  EXPECT_EQ(cs.num_constraints(), 6u);
  test::CorruptingChecker bad(2);  // the xor result
  AllocatedBit x = AllocatedBit::alloc(bad, true), y = AllocatedBit::alloc(bad, true);
  AllocatedBit::xor_(bad, x, y);
  EXPECT_EQ(*bad.checker().first_unsatisfied(), "xor constraint (constraint #2)");
}

TEST(GadgetsBitsTest, UInt32MatchesNativeArithmetic) {
  auto rng = test::make_rng();
  for (int rep = 0; rep < 200; rep++) {
    const uint32_t a = uint32_t(rng()), b = uint32_t(rng()), c = uint32_t(rng());
    r1cs::TestChecker cs;
    UInt32 A = UInt32::alloc(cs, a), B = UInt32::constant(b), C = UInt32::alloc(cs, c);
    EXPECT_EQ(A.rotr(rep % 32).value(), (a >> (rep % 32)) | (rep % 32 ? a << (32 - rep % 32) : 0));
    EXPECT_EQ(A.shr(rep % 32).value(), a >> (rep % 32));
    UInt32 x = A.xor_(cs, B).xor_(cs, C);
    EXPECT_EQ(x.value(), a ^ b ^ c);
    UInt32 ch = UInt32::sha256_ch(cs, A, B, C), maj = UInt32::sha256_maj(cs, A, B, C);
    EXPECT_EQ(ch.value(), (a & b) ^ (~a & c));
    EXPECT_EQ(maj.value(), (a & b) ^ (a & c) ^ (b & c));
    UInt32 sum;
    {
      MultiEq meq(cs);
      const UInt32 ops[3] = {A, B, C};
      sum = UInt32::addmany(meq, ops);
    }
    EXPECT_EQ(sum.value(), a + b + c);
    uint32_t from_bits = 0;
    for (int i = 0; i < 32; i++) from_bits |= uint32_t(sum.bits()[i].value()) << i;
    EXPECT_EQ(from_bits, a + b + c);
    auto be = x.into_bits_be();
    EXPECT_EQ(UInt32::from_bits_be(be).value(), x.value());
    ASSERT_TRUE(cs.is_satisfied()) << *cs.first_unsatisfied();
  }
}

TEST(GadgetsBitsTest, AddmanyOfConstantsIsFreeAndMultiEqPacks) {
  r1cs::TestChecker cs;
  {
    MultiEq meq(cs);
    const UInt32 ops[2] = {UInt32::constant(7), UInt32::constant(0xffffffff)};
    EXPECT_EQ(UInt32::addmany(meq, ops).value(), 6u);
  }
  EXPECT_EQ(cs.num_constraints(), 0u);
  // Seven 2-operand additions (33 result bits each, 231 bits) share one packed constraint;
  // the eighth does not fit in 254 bits and starts a second one.
  r1cs::TestChecker cs2;
  UInt32 a = UInt32::alloc(cs2, 1), b = UInt32::alloc(cs2, 2);
  const size_t base = cs2.num_constraints();
  {
    MultiEq meq(cs2);
    const UInt32 ops[2] = {a, b};
    for (int i = 0; i < 8; i++) UInt32::addmany(meq, ops);
  }
  EXPECT_EQ(cs2.num_constraints() - base, 8u * 33u + 2u);
  EXPECT_TRUE(cs2.is_satisfied());
}

TEST(GadgetsBitsTest, MultipackingMatchesNative) {
  auto rng = test::make_rng();
  for (size_t n : {0, 1, 253, 254, 255, 600}) {
    r1cs::TestChecker cs;
    std::vector<bool> bits(n);
    std::vector<Boolean> circuit_bits;
    for (size_t i = 0; i < n; i++) {
      bits[i] = rng() & 1;
      circuit_bits.emplace_back(AllocatedBit::alloc(cs, bits[i]));
    }
    pack_into_inputs(cs, circuit_bits);
    ASSERT_TRUE(cs.is_satisfied());
    auto expect = compute_multipacking(bits);
    ASSERT_EQ(cs.inputs().size(), 1 + expect.size());
    for (size_t i = 0; i < expect.size(); i++) EXPECT_EQ(cs.inputs()[1 + i], expect[i]);
    if (n > 0) {
      auto packed = pack_bits(cs, circuit_bits);
      EXPECT_EQ(packed.value, expect[0]);
      EXPECT_TRUE(cs.is_satisfied());
    }
  }
}

TEST(GadgetsBitsTest, NumberBitsAndArithmetic) {
  auto rng = test::make_rng();
  for (int rep = 0; rep < 4; rep++) {
    const Fr r = rep == 0 ? -Fr::one() : Fr::random(rng);
    r1cs::TestChecker cs;
    auto n = AllocatedNum::alloc(cs, r);
    auto bits = n.to_bits_le(cs);
    auto strict = n.to_bits_le_strict(cs);
    ASSERT_EQ(bits.size(), 255u);
    ASSERT_EQ(strict.size(), 255u);
    const auto c = r.to_canonical();
    for (int i = 0; i < 255; i++) {
      EXPECT_EQ(bits[i].value(), bool((c.limb[i / 64] >> (i % 64)) & 1));
      EXPECT_EQ(strict[i].value(), bits[i].value());
    }
    auto sq = n.square(cs);
    auto prod = n.mul(cs, sq);
    EXPECT_EQ(prod.value, r * r * r);
    auto other = AllocatedNum::alloc(cs, Fr::random(rng));
    for (bool cond : {false, true}) {
      auto [x, y] = AllocatedNum::conditionally_reverse(cs, n, other, Boolean::constant(cond));
      EXPECT_EQ(x.value, cond ? other.value : n.value);
      EXPECT_EQ(y.value, cond ? n.value : other.value);
    }
    n.inputize(cs);
    EXPECT_EQ(cs.inputs().back(), r);
    ASSERT_TRUE(cs.is_satisfied()) << *cs.first_unsatisfied();
  }
  // The strict decomposition rejects the bits of the modulus (bellperson test_into_bits_strict).
  test::CorruptingChecker bad(255);  // aux 0 is the number; aux 255 is its least significant bit
  auto n = AllocatedNum::alloc(bad, -Fr::one());
  n.to_bits_le_strict(bad);
  ASSERT_FALSE(bad.checker().is_satisfied());
}

TEST(GadgetsBitsTest, PickSelectInsert) {
  auto rng = test::make_rng();
  for (size_t log = 1; log <= 4; log++) {
    const size_t size = size_t(1) << log;
    for (size_t index = 0; index < size; index++) {
      r1cs::TestChecker cs;
      std::vector<AllocatedNum> elements;
      for (size_t i = 0; i + 1 < size; i++) elements.push_back(AllocatedNum::alloc(cs, Fr::random(rng)));
      auto x = AllocatedNum::alloc(cs, Fr::random(rng));
      std::vector<Boolean> bits;
      for (size_t i = 0; i < log; i++) bits.emplace_back(AllocatedBit::alloc(cs, (index >> i) & 1));
      const size_t base = cs.num_constraints();
      auto inserted = insert(cs, x, bits, elements);
      const size_t cost = cs.num_constraints() - base;
      // storage-proofs: 2 for size 2, 8 for 4, 22 for 8, size * (size - 1) otherwise
      const size_t expect_cost = size == 2 ? 2 : size == 4 ? 8 : size == 8 ? 22 : size * (size - 1);
      EXPECT_EQ(cost, expect_cost) << "size " << size;
      ASSERT_EQ(inserted.size(), size);
      for (size_t p = 0; p < size; p++) {
        const Fr want = p < index ? elements[p].value : p == index ? x.value : elements[p - 1].value;
        EXPECT_EQ(inserted[p].value, want);
      }
      std::vector<AllocatedNum> from = elements;
      from.push_back(x);
      auto sel = select(cs, from, bits);
      EXPECT_EQ(sel.value, from[index].value);
      ASSERT_TRUE(cs.is_satisfied()) << *cs.first_unsatisfied();
    }
  }
}

}  // namespace
}  // namespace cuzk::gadgets
