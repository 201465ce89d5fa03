// The StackedDRG circuit: its shape against rust-fil-proofs' published counts (the stacked test
// circuits of storage-proofs-porep/tests/stacked_circuit.rs and a 32 GiB partition), and the
// real 8 MiB Commit1 output synthesized with every constraint satisfied.
#include <gtest/gtest.h>

#include "filecoin/registered_proof.hpp"
#include "filecoin/stacked_circuit.hpp"
#include "r1cs/proving_assignment.hpp"
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

// Forwards to a proving assignment but takes no sections: the serial synthesis.
class SerialOnly final : public r1cs::ConstraintSystem {
 public:
  explicit SerialOnly(r1cs::ProvingAssignment& pa) : pa_(pa) {}
  r1cs::Variable alloc(std::string_view n, const Fr& v) override { return pa_.alloc(n, v); }
  r1cs::Variable alloc_input(std::string_view n, const Fr& v) override { return pa_.alloc_input(n, v); }
  void enforce(std::string_view n, const r1cs::LC& a, const r1cs::LC& b, const r1cs::LC& c) override {
    pa_.enforce(n, a, b, c);
  }
  size_t num_constraints() const override { return pa_.num_constraints(); }
  size_t num_inputs() const override { return pa_.num_inputs(); }
  size_t num_aux() const override { return pa_.num_aux(); }

 private:
  r1cs::ProvingAssignment& pa_;
};

// The challenges' heads, labels and tails in parallel sections (labels after their head, the
// tail after the labels) give exactly the serial synthesis: a, b, c, variables and densities.
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
  }
}

}  // namespace
}  // namespace cuzk::filecoin
