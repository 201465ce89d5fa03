// The synthetic PoRep-profile circuit: satisfiable, of the requested size and densities,
// deterministic in its seed, and provable end to end.
#include <bit>

#include <gtest/gtest.h>

#include "circuits/synthetic.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "r1cs/shape.hpp"
#include "test_support.hpp"

namespace cuzk::circuits {
namespace {

using ff::Fr;

TEST(SyntheticCircuitTest, SatisfiedWithRequestedSizeAndProfile) {
  for (size_t n : {size_t(1) << 10, size_t(1) << 14, size_t(3000)}) {
    SyntheticCircuit circuit(n, 8, {}, test::run_seed());
    r1cs::TestChecker checker;
    circuit.synthesize(checker);
    ASSERT_TRUE(checker.is_satisfied()) << *checker.first_unsatisfied();
    auto pa = groth16::synthesize(circuit);
    EXPECT_EQ(pa.num_constraints(), n);
    EXPECT_EQ(pa.num_inputs(), 9u);
    // The parallel synthesis grew a, b and c once, to the domain (not twice when the input
    // constraints came after it).
    EXPECT_EQ(pa.a().capacity(), std::bit_ceil(n));
    if (n < (1 << 14)) continue;
    const double aux = double(pa.num_aux());
    EXPECT_NEAR(double(pa.a_aux_density().count_ones()) / aux, 0.997, 0.003);
    // ~16 k draws of a 0.254 share: sigma 0.0034, so 0.01 failed one seed in ~300; 0.015 is 4.4 sigma.
    EXPECT_NEAR(double(pa.b_aux_density().count_ones()) / aux, 0.254, 0.015);
    size_t zero_one = 0;
    for (const auto& v : pa.aux()) zero_one += v.is_zero() || v.is_one();
    EXPECT_NEAR(double(zero_one) / aux, 0.75, 0.02);
  }
}

TEST(SyntheticCircuitTest, CustomProfileAndErrors) {
  SyntheticProfile dense{1.0, 0.9, 0.95};
  SyntheticCircuit circuit(1 << 14, 2, dense, 7);
  auto pa = groth16::synthesize(circuit);
  EXPECT_EQ(pa.a_aux_density().count_ones(), pa.num_aux());
  EXPECT_NEAR(double(pa.b_aux_density().count_ones()) / double(pa.num_aux()), 0.9, 0.02);
  EXPECT_THROW(SyntheticCircuit(1 << 10, 8, {0.9, 0.5, 0.4}), std::invalid_argument);  // 0/1 share < b density
  EXPECT_THROW(SyntheticCircuit(1 << 10, 8, {1.5, 0.2, 0.5}), std::invalid_argument);
  EXPECT_THROW(SyntheticCircuit(10, 8), std::invalid_argument);
}

TEST(SyntheticCircuitTest, DeterministicInSeed) {
  auto a = groth16::synthesize(SyntheticCircuit(1 << 11, 4, {}, 5));
  auto b = groth16::synthesize(SyntheticCircuit(1 << 11, 4, {}, 5));
  auto c = groth16::synthesize(SyntheticCircuit(1 << 11, 4, {}, 6));
  EXPECT_EQ(a.aux(), b.aux());
  EXPECT_EQ(a.a(), b.a());
  EXPECT_NE(a.aux(), c.aux());
}

// FNV-1a over the Montgomery limbs of every vector of an assignment and its density bits.
uint64_t digest(const r1cs::ProvingAssignment& pa) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto word = [&](uint64_t w) {
    for (int k = 0; k < 8; k++) h = (h ^ ((w >> (8 * k)) & 0xff)) * 0x100000001b3ull;
  };
  const std::span<const Fr> vectors[] = {pa.a(), pa.b(), pa.c(), pa.aux(), pa.inputs()};
  for (const auto& v : vectors) {
    word(v.size());
    for (const Fr& x : v)
      for (uint64_t w : x.mont.limb) word(w);
  }
  for (const auto* d : {&pa.a_aux_density(), &pa.b_aux_density(), &pa.b_input_density()}) {
    word(d->size());
    word(d->count_ones());
    for (uint64_t w : d->words()) word(w);
  }
  return h;
}

// The shape (and so a cached parameter set's id) and the witness are a fixed function of the
// sizes and seeds: this digest was taken before synthesize() streamed the body in windows, on a
// circuit of two windows whose public inputs span two blocks.
TEST(SyntheticCircuitTest, ShapeAndWitnessAreFixed) {
  SyntheticCircuit circuit(1200000, 5000, {}, 11);
  circuit.set_witness_seed(12);
  EXPECT_EQ(digest(groth16::synthesize(circuit)), 0x79e33464aa8fe76bull);
}

TEST(SyntheticCircuitTest, ProvesAndVerifies) {
  auto rng = test::make_rng();
  SyntheticCircuit circuit(1 << 10, 8, {}, test::run_seed());
  groth16::Parameters params = groth16::generate_parameters(
      circuit, {Fr::random(rng), Fr::random(rng), Fr::random(rng), Fr::random(rng), Fr::random(rng)});
  EXPECT_EQ(params.h.size(), (1u << 10) - 1);
  groth16::Proof proof = groth16::prove(params, circuit);
  r1cs::TestChecker checker;
  circuit.synthesize(checker);
  std::vector<Fr> inputs(checker.inputs().begin() + 1, checker.inputs().end());
  groth16::PreparedVerifyingKey pvk(params.vk);
  EXPECT_TRUE(groth16::verify_proof(pvk, proof, inputs));
  inputs[3] += Fr::one();
  EXPECT_FALSE(groth16::verify_proof(pvk, proof, inputs));
}

}  // namespace
}  // namespace cuzk::circuits
