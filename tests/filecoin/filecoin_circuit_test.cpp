// The StackedDRG circuit: its shape against rust-fil-proofs' published counts (the stacked test
// circuits of storage-proofs-porep/tests/stacked_circuit.rs and a 32 GiB partition), and its
// synthesis in parallel sections equal to the serial one.
#include <optional>
#include <string_view>

#include <gtest/gtest.h>

#include "filecoin/porep/circuit.hpp"
#include "filecoin/porep/registered_proofs.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/shape.hpp"
#include "serial_only_cs.hpp"
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

r1cs::ShapeCounter::Counts count(const SealProofInfo& info) {
  r1cs::ShapeCounter cs;
  StackedCircuit::blank(info).synthesize(cs);
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

// Counts a circuit, and separately what it has before its first challenge (the serial synthesis
// opens namespace "challenge_0" there).
class CountsBeforeChallenges final : public r1cs::ConstraintSystem {
 public:
  r1cs::Variable alloc(std::string_view n, const Fr& v) override { return counter.alloc(n, v); }
  r1cs::Variable alloc_input(std::string_view n, const Fr& v) override { return counter.alloc_input(n, v); }
  void enforce(std::string_view n, const r1cs::LC& a, const r1cs::LC& b, const r1cs::LC& c) override {
    counter.enforce(n, a, b, c);
  }
  void push_namespace(std::string_view name) override {
    if (name == "challenge_0") before = counter.counts();
  }
  bool has_values() const override { return false; }
  size_t num_constraints() const override { return counter.num_constraints(); }
  size_t num_inputs() const override { return counter.num_inputs(); }
  size_t num_aux() const override { return counter.num_aux(); }

  r1cs::ShapeCounter counter;
  std::optional<r1cs::ShapeCounter::Counts> before;
};

// A 32 GiB partition (PR #1325's circuitinfo; curio's cuzk-project.md for the prover's view):
// counted as what precedes the challenges plus 18 times one challenge (every challenge has the
// same shape), so that no 130 M-constraint synthesis runs in a unit test. As the prover counts
// it, one constraint input_i * 0 = 0 per input is added (one nonzero in A each).
TEST(FilecoinCircuitTest, PoRep32GiBPartitionCounts) {
  SealProofInfo one = seal_proof_info(RegisteredSealProof::kStackedDrg32GiBV1_1);
  ASSERT_EQ(one.challenges_per_partition, 18u);
  one.challenges_per_partition = 1;
  CountsBeforeChallenges cs;
  StackedCircuit::blank(one).synthesize(cs);
  ASSERT_TRUE(cs.before.has_value());
  const auto& pre = *cs.before;
  const auto& all = cs.counter.counts();
  EXPECT_EQ(all.cancelled, 0u);
  auto total = [&](auto field) { return uint64_t(field(pre)) + 18 * (uint64_t(field(all)) - uint64_t(field(pre))); };
  const uint64_t inputs = total([](const auto& c) { return c.inputs; });
  const uint64_t constraints = total([](const auto& c) { return c.constraints; });
  EXPECT_EQ(inputs, 328u);
  EXPECT_EQ(constraints, 130278541u);
  EXPECT_EQ(constraints + inputs, 130278869u);
  EXPECT_EQ(total([](const auto& c) { return c.aux; }), 130169893u);
  EXPECT_EQ(total([](const auto& c) { return c.a; }) + inputs, 309405051u);
  EXPECT_EQ(total([](const auto& c) { return c.b; }), 130327340u);
  EXPECT_EQ(total([](const auto& c) { return c.c; }), 282656500u);
}

// A witness of random values (not satisfying the circuit): enough to compare two syntheses.
StackedCircuit random_circuit(const SealProofInfo& info, std::mt19937_64& rng) {
  auto path = [&](const PorTreeShape& shape) {
    gadgets::PorPath p;
    for (size_t arity : shape.level_arities()) {
      p.siblings.emplace_back();
      for (size_t i = 0; i + 1 < arity; i++) p.siblings.back().push_back(Fr::random(rng));
      p.indices.push_back(rng() % arity);
    }
    return p;
  };
  auto column = [&] {
    StackedChallengeWitness::ParentColumn c;
    for (size_t l = 0; l < info.layers; l++) c.rows.push_back(Fr::random(rng));
    c.path = path(info.tree_r);
    return c;
  };
  std::vector<StackedChallengeWitness> ws;
  for (size_t i = 0; i < info.challenges_per_partition; i++) {
    StackedChallengeWitness w;
    w.challenge = rng() % info.nodes;
    w.data_leaf = Fr::random(rng);
    w.comm_d_path = path(info.tree_d);
    w.comm_r_last_path = path(info.tree_r);
    w.comm_c_path = path(info.tree_r);
    for (int k = 0; k < 6; k++) w.drg_parents.push_back(column());
    for (int k = 0; k < 8; k++) w.exp_parents.push_back(column());
    ws.push_back(std::move(w));
  }
  return StackedCircuit(info, Fr::random(rng), Fr::random(rng), Fr::random(rng), Fr::random(rng), Fr::random(rng),
                        std::move(ws));
}

using test::SerialOnly;

// The challenges' heads, labels and tails in parallel sections (labels after their head, the
// tail after the labels) give exactly the serial synthesis: a, b, c, variables and densities; so
// does the witness-only synthesis with the compiled matrices.
TEST(FilecoinCircuitTest, ParallelSectionsEqualSerialSynthesis) {
  auto rng = test::make_rng();
  for (auto proof : {RegisteredSealProof::kStackedDrg2KiBV1_1}) {
    const StackedCircuit circuit = random_circuit(seal_proof_info(proof), rng);
    r1cs::ProvingAssignment serial, parallel;
    SerialOnly serial_cs(serial);
    circuit.synthesize(serial_cs);
    circuit.synthesize(parallel);
    const auto& shapes = StackedCircuit::part_shapes(circuit.info());
    size_t per_challenge = shapes.head.constraints + shapes.tail.constraints;
    for (const auto& s : shapes.labels) per_challenge += s.constraints;
    EXPECT_EQ(serial.num_constraints(), parallel.num_constraints());
    EXPECT_GT(serial.num_constraints(), circuit.info().challenges_per_partition * per_challenge);
    EXPECT_EQ(serial.a(), parallel.a());
    EXPECT_EQ(serial.b(), parallel.b());
    EXPECT_EQ(serial.c(), parallel.c());
    EXPECT_EQ(serial.aux(), parallel.aux());
    EXPECT_EQ(serial.inputs(), parallel.inputs());
    EXPECT_EQ(serial.a_aux_density().words(), parallel.a_aux_density().words());
    EXPECT_EQ(serial.b_aux_density().words(), parallel.b_aux_density().words());
    EXPECT_EQ(serial.b_input_density().words(), parallel.b_input_density().words());
    EXPECT_EQ(serial.a_aux_density().count_ones(), parallel.a_aux_density().count_ones());
    EXPECT_EQ(serial.b_aux_density().count_ones(), parallel.b_aux_density().count_ones());
    test::expect_witness_path_equals_full(circuit);
  }
}

}  // namespace
}  // namespace cuzk::filecoin
