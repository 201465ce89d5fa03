// Poseidon as neptune defines it: the published native vectors, the optimised schedule equal
// to the plain permutation, the circuit's counts (311 for hash2, 598 for an 11-label column)
// and circuit == native on random inputs.
#include <gtest/gtest.h>

#include "gadgets/poseidon.hpp"
#include "gadgets_corrupt.hpp"
#include "r1cs/shape.hpp"
#include "test_support.hpp"

namespace cuzk::gadgets {
namespace {

std::array<uint64_t, 4> limbs(const Fr& x) {
  auto c = x.to_canonical();
  return {c.limb[0], c.limb[1], c.limb[2], c.limb[3]};
}

Fr poseidon_of_counting(size_t arity) {
  std::vector<Fr> in;
  for (size_t i = 0; i < arity; i++) in.push_back(Fr::from_u64(i));
  return poseidon_hash(in, poseidon_constants(arity));
}

TEST(GadgetsPoseidonTest, NativeVectorsOfNeptune) {
  EXPECT_EQ(limbs(poseidon_of_counting(2)),
            (std::array<uint64_t, 4>{0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b}));
  EXPECT_EQ(limbs(poseidon_of_counting(8)),
            (std::array<uint64_t, 4>{0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9, 0x1201004211677077, 0x2394611da3a5de55}));
  EXPECT_EQ(limbs(poseidon_of_counting(11)),
            (std::array<uint64_t, 4>{0xcee3bbc32b693163, 0x09f3dcd8ccb08fc1, 0x6ca537e232ebe87a, 0x0c0fc1b2e5227f28}));
}

TEST(GadgetsPoseidonTest, ConstantsHaveTheExpectedShape) {
  for (size_t arity : {2, 4, 8, 11}) {
    const auto& c = poseidon_constants(arity);
    const size_t t = arity + 1;
    EXPECT_EQ(c.round_constants.size(), (8 + c.partial_rounds) * t);
    // t (first pre-add) + 4t (first half) + R_P + 3t (second half, the last round has none)
    EXPECT_EQ(c.compressed_round_constants.size(), 8 * t + c.partial_rounds);
    EXPECT_EQ(c.sparse_matrices.size(), c.partial_rounds);
    for (size_t i = 0; i < t; i++) {
      for (size_t j = 0; j < t; j++) EXPECT_EQ(c.m[i][j], c.m[j][i]);
    }
  }
  EXPECT_EQ(poseidon_constants(2).partial_rounds, 55u);
  EXPECT_EQ(poseidon_constants(4).partial_rounds, 56u);
  EXPECT_EQ(poseidon_constants(8).partial_rounds, 57u);
  EXPECT_EQ(poseidon_constants(11).partial_rounds, 57u);
  EXPECT_THROW(PoseidonConstants::create(3), std::invalid_argument);
}

TEST(GadgetsPoseidonTest, OptimizedScheduleEqualsPlainPermutation) {
  auto rng = test::make_rng();
  for (size_t arity : {2, 4, 8, 11}) {
    std::vector<Fr> in;
    for (size_t i = 0; i < arity; i++) in.push_back(Fr::random(rng));
    const auto& c = poseidon_constants(arity);
    EXPECT_EQ(poseidon_hash(in, c), poseidon_hash_optimized(in, c)) << "arity " << arity;
  }
}

TEST(GadgetsPoseidonTest, ConstantLengthPadsWithZeros) {
  auto rng = test::make_rng();
  auto c = PoseidonConstants::create(4, PoseidonConstants::HashType::kConstantLength, 3);
  std::vector<Fr> in = {Fr::random(rng), Fr::random(rng), Fr::random(rng)};
  const Fr h = poseidon_hash(in, c);
  EXPECT_EQ(h, poseidon_hash_optimized(in, c));
  // Differs from MerkleTree hashing of the zero-padded input (the domain tag separates them).
  std::vector<Fr> padded = {in[0], in[1], in[2], Fr::zero()};
  EXPECT_NE(h, poseidon_hash(padded, poseidon_constants(4)));
  EXPECT_THROW(poseidon_hash(padded, c), std::invalid_argument);
}

// The hash circuit of `arity` random inputs: satisfied, equal to the native hash; its constraints.
size_t circuit_count(size_t arity, std::mt19937_64& rng) {
  r1cs::TestChecker cs;
  std::vector<AllocatedNum> nums;
  std::vector<Fr> vals;
  for (size_t i = 0; i < arity; i++) {
    vals.push_back(Fr::random(rng));
    r1cs::Namespace ns(cs, "num_" + std::to_string(i));
    nums.push_back(AllocatedNum::alloc(cs, vals.back()));
  }
  const size_t before = cs.num_constraints();
  AllocatedNum out;
  {
    r1cs::Namespace ns(cs, "hash");
    out = poseidon_hash_circuit(cs, nums, poseidon_constants(arity));
  }
  EXPECT_TRUE(cs.is_satisfied()) << *cs.first_unsatisfied();
  EXPECT_EQ(out.value, poseidon_hash(vals, poseidon_constants(arity))) << "arity " << arity;
  return cs.num_constraints() - before;
}

TEST(GadgetsPoseidonTest, CircuitCountsOfRustFilProofs) {
  auto rng = test::make_rng();
  EXPECT_EQ(circuit_count(2, rng), 311u);   // PoseidonHasher::hash2_circuit
  EXPECT_EQ(circuit_count(11, rng), 598u);  // hash_single_column of 11 labels
  // neptune's own table for the Standard strength
  EXPECT_EQ(circuit_count(4, rng), 377u);
  EXPECT_EQ(circuit_count(8, rng), 505u);
}

// Each repetition on other inputs: one generator for all.
TEST(GadgetsPoseidonTest, CircuitEqualsNativeOnRandomInputs) {
  auto rng = test::make_rng();
  for (int rep = 0; rep < 3; rep++) {
    for (size_t arity : {2, 8, 11}) circuit_count(arity, rng);
  }
}

TEST(GadgetsPoseidonTest, CheckerNamesTheBrokenConstraint) {
  auto rng = test::make_rng();
  // aux 0, 1: the inputs; 2: the first s-box's (l+rk)^2 of element 1, 3: its l^4.
  test::CorruptingChecker cs(3);
  auto a = AllocatedNum::alloc(cs, Fr::random(rng));
  auto b = AllocatedNum::alloc(cs, Fr::random(rng));
  const AllocatedNum pre[2] = {a, b};
  {
    r1cs::Namespace ns(cs, "hash2");
    poseidon_hash_circuit(cs, pre, poseidon_constants(2));
  }
  ASSERT_FALSE(cs.checker().is_satisfied());
  EXPECT_EQ(*cs.checker().first_unsatisfied(),
            "hash2/first round/quintic s-box 1/l^4/squaring constraint (constraint #1)");
}

TEST(GadgetsPoseidonTest, ConstantLengthCircuitOfFullLength) {
  // The legacy circuit supports ConstantLength(arity) only (no padding), as neptune's.
  auto rng = test::make_rng();
  auto c = PoseidonConstants::create(4, PoseidonConstants::HashType::kConstantLength, 4);
  r1cs::TestChecker cs;
  std::vector<Fr> v;
  std::vector<AllocatedNum> n;
  for (int i = 0; i < 4; i++) {
    v.push_back(Fr::random(rng));
    n.push_back(AllocatedNum::alloc(cs, v.back()));
  }
  EXPECT_EQ(poseidon_hash_circuit(cs, n, c).value, poseidon_hash(v, c));
  EXPECT_NE(poseidon_hash(v, c), poseidon_hash(v, poseidon_constants(4)));
  EXPECT_TRUE(cs.is_satisfied());
  EXPECT_EQ(cs.num_constraints(), 377u);
  n.pop_back();
  EXPECT_THROW(poseidon_hash_circuit(cs, n, c), std::invalid_argument);
}

TEST(GadgetsPoseidonTest, ShapeRecorderCount) {
  r1cs::ShapeRecorder cs;
  const AllocatedNum pre[2] = {AllocatedNum::alloc(cs, Fr::zero()), AllocatedNum::alloc(cs, Fr::zero())};
  poseidon_hash_circuit(cs, pre, poseidon_constants(2));
  EXPECT_EQ(cs.num_constraints(), 311u);
}

}  // namespace
}  // namespace cuzk::gadgets
