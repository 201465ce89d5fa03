// Groth16 end to end on the CPU: setup, the split prover, the verifier and batch verifier,
// proof bytes; tampered proofs and wrong public inputs are rejected.
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "r1cs/shape.hpp"
#include "test_support.hpp"

namespace cuzk::groth16 {
namespace {

using r1cs::ConstraintSystem;
using r1cs::LC;
using r1cs::Variable;

// x^3 + x + 5 = y with y public.
struct CubicCircuit : r1cs::Circuit {
  Fr x;
  void synthesize(ConstraintSystem& cs) const override {
    Fr x2 = x.sqr(), x3 = x2 * x;
    Fr y = x3 + x + Fr::from_u64(5);
    Variable vx = cs.alloc("x", x);
    Variable vx2 = cs.alloc("x^2", x2);
    Variable vx3 = cs.alloc("x^3", x3);
    Variable vy = cs.alloc_input("y", y);
    cs.enforce("square", vx, vx, vx2);
    cs.enforce("cube", vx2, vx, vx3);
    cs.enforce("sum", LC(vx3).add(vx).add(Variable::one(), Fr::from_u64(5)), Variable::one(), vy);
  }
  Fr output() const { return x.sqr() * x + x + Fr::from_u64(5); }
};

// Many public inputs x_i with private squares, a product chain, and aux variables that occur
// only in C (zero A and B density) or only in B.
struct WideCircuit : r1cs::Circuit {
  std::vector<Fr> xs;
  void synthesize(ConstraintSystem& cs) const override {
    r1cs::Namespace ns(cs, "wide");
    std::vector<Variable> in;
    for (size_t i = 0; i < xs.size(); i++) in.push_back(cs.alloc_input("x", xs[i]));
    Fr acc = Fr::one();
    Variable acc_var = Variable::one();
    for (size_t i = 0; i < xs.size(); i++) {
      Variable sq = cs.alloc("sq", xs[i].sqr());
      cs.enforce("square", in[i], in[i], sq);  // sq only in C: A/B density zero
      acc *= xs[i];
      Variable next = cs.alloc("acc", acc);
      cs.enforce("product", acc_var, in[i], next);
      acc_var = next;
    }
    // A variable that occurs only in B.
    Variable b_only = cs.alloc("b_only", Fr::from_u64(3));
    cs.enforce("b only", Variable::one(), b_only, LC::constant(Fr::from_u64(3)));
  }
};

ToxicWaste fixed_waste(std::mt19937_64& rng) {
  return {Fr::random(rng), Fr::random(rng), Fr::random(rng), Fr::random(rng), Fr::random(rng)};
}

TEST(Groth16Test, CubicProofVerifiesAndRejectsTampering) {
  auto rng = test::make_rng();
  CubicCircuit circuit;
  circuit.x = Fr::from_u64(3);
  Parameters params = generate_parameters(circuit, fixed_waste(rng));
  PreparedVerifyingKey pvk(params.vk);
  circuit.x = Fr::random(rng);
  Proof proof = prove(params, circuit);
  std::vector<Fr> inputs = {circuit.output()};
  EXPECT_TRUE(verify_proof(pvk, proof, inputs));
  // Wrong public input.
  std::vector<Fr> wrong = {circuit.output() + Fr::one()};
  EXPECT_FALSE(verify_proof(pvk, proof, wrong));
  EXPECT_THROW(verify_proof(pvk, proof, std::vector<Fr>{}), std::invalid_argument);
  // Any flipped byte: either the bytes no longer decode, or the proof fails.
  auto bytes = encode_proof(proof);
  EXPECT_EQ(decode_proof(bytes), proof);
  for (size_t i = 0; i < kProofBytes; i += 7) {
    auto bad = bytes;
    bad[i] ^= uint8_t(1u << (i % 8));
    bool rejected = false;
    try {
      rejected = !verify_proof(pvk, decode_proof(bad), inputs);
    } catch (const std::invalid_argument&) {
      rejected = true;
    }
    EXPECT_TRUE(rejected) << "byte " << i;
  }
}

TEST(Groth16Test, SplitProverIsDeterministicGivenRS) {
  auto rng = test::make_rng();
  WideCircuit circuit;
  for (int i = 0; i < 5; i++) circuit.xs.push_back(Fr::random(rng));
  Parameters params = generate_parameters(circuit, fixed_waste(rng));
  const Fr r = Fr::random(rng), s = Fr::random(rng);
  auto run = [&] {
    auto assignment = synthesize(circuit);
    PendingProof pending = prove_start(params, assignment, r, s);
    EXPECT_EQ(assignment.bytes().a, 0u) << "a/b/c released after prove_start";
    return prove_finish(params, assignment, pending);
  };
  Proof p1 = run(), p2 = run();
  EXPECT_EQ(p1, p2);
  EXPECT_TRUE(verify_proof(PreparedVerifyingKey(params.vk), p1, circuit.xs));
}

TEST(Groth16Test, ManyInputsAndSparseDensities) {
  auto rng = test::make_rng();
  WideCircuit circuit;
  for (int i = 0; i < 40; i++) circuit.xs.push_back(Fr::random(rng));
  Parameters params = generate_parameters(circuit, fixed_waste(rng));
  // Variables outside A and B have no a/b_g1/b_g2 entries.
  auto assignment = synthesize(circuit);
  EXPECT_LT(params.a.size(), assignment.num_inputs() + assignment.num_aux());
  EXPECT_LT(params.b_g1.size(), assignment.num_inputs() + assignment.num_aux());
  EXPECT_EQ(params.b_g1.size(), params.b_g2.size());
  PreparedVerifyingKey pvk(params.vk);
  Proof proof = prove(params, circuit);
  EXPECT_TRUE(verify_proof(pvk, proof, circuit.xs));
  auto wrong = circuit.xs;
  wrong[17] += Fr::one();
  EXPECT_FALSE(verify_proof(pvk, proof, wrong));
}

TEST(Groth16Test, BatchVerification) {
  auto rng = test::make_rng();
  CubicCircuit circuit;
  circuit.x = Fr::one();
  Parameters params = generate_parameters(circuit, fixed_waste(rng));
  PreparedVerifyingKey pvk(params.vk);
  std::vector<Proof> proofs;
  std::vector<std::vector<Fr>> inputs;
  for (int i = 0; i < 4; i++) {
    circuit.x = Fr::random(rng);
    proofs.push_back(prove(params, circuit));
    inputs.push_back({circuit.output()});
  }
  EXPECT_TRUE(verify_proofs_batch(pvk, proofs, inputs));
  auto bad_inputs = inputs;
  bad_inputs[2][0] += Fr::one();
  EXPECT_FALSE(verify_proofs_batch(pvk, proofs, bad_inputs));
  auto swapped = proofs;
  std::swap(swapped[0].c, swapped[1].c);
  EXPECT_FALSE(verify_proofs_batch(pvk, swapped, inputs));
  // Multi-partition bytes round-trip.
  auto bytes = encode_proofs(proofs);
  EXPECT_EQ(bytes.size(), 4 * kProofBytes);
  EXPECT_EQ(decode_proofs(bytes), proofs);
  EXPECT_THROW(decode_proofs(std::span(bytes).first(bytes.size() - 1)), std::invalid_argument);
  EXPECT_THROW(decode_proofs({}), std::invalid_argument);
}

TEST(Groth16Test, MismatchedParametersAreReported) {
  auto rng = test::make_rng();
  CubicCircuit cubic;
  cubic.x = Fr::one();
  WideCircuit wide;
  wide.xs = {Fr::one(), Fr::from_u64(2)};
  Parameters params = generate_parameters(cubic, fixed_waste(rng));
  auto assignment = synthesize(wide);
  EXPECT_THROW(prove_start(params, assignment, Fr::one(), Fr::one()), std::invalid_argument);
}

TEST(Groth16Test, UnsatisfiedWitnessFailsVerification) {
  auto rng = test::make_rng();
  CubicCircuit circuit;
  circuit.x = Fr::from_u64(2);
  Parameters params = generate_parameters(circuit, fixed_waste(rng));
  // A circuit whose witness breaks the last constraint: claims y = output + 1.
  struct Lying : r1cs::Circuit {
    Fr x;
    void synthesize(ConstraintSystem& cs) const override {
      Fr x2 = x.sqr(), x3 = x2 * x;
      Variable vx = cs.alloc("x", x), vx2 = cs.alloc("x^2", x2), vx3 = cs.alloc("x^3", x3);
      Variable vy = cs.alloc_input("y", x3 + x + Fr::from_u64(6));
      cs.enforce("square", vx, vx, vx2);
      cs.enforce("cube", vx2, vx, vx3);
      cs.enforce("sum", LC(vx3).add(vx).add(Variable::one(), Fr::from_u64(5)), Variable::one(), vy);
    }
  } lying;
  lying.x = Fr::from_u64(2);
  r1cs::TestChecker checker;
  lying.synthesize(checker);
  ASSERT_FALSE(checker.is_satisfied());
  EXPECT_EQ(*checker.first_unsatisfied(), "sum (constraint #2)");
  Proof proof = prove(params, lying);
  const std::vector<Fr> public_inputs(checker.inputs().begin() + 1, checker.inputs().end());  // without ONE
  EXPECT_FALSE(verify_proof(PreparedVerifyingKey(params.vk), proof, public_inputs));
}

TEST(ConstraintSystemTest, CheckerNamesNamespacesAndShapeCounts) {
  WideCircuit circuit;
  circuit.xs = {Fr::from_u64(2), Fr::from_u64(3)};
  r1cs::TestChecker ok;
  circuit.synthesize(ok);
  EXPECT_TRUE(ok.is_satisfied());
  r1cs::ShapeRecorder shape;
  circuit.synthesize(shape);
  EXPECT_EQ(shape.num_constraints(), ok.num_constraints());
  EXPECT_EQ(shape.num_inputs(), 3u);  // ONE + 2
  EXPECT_EQ(shape.num_aux(), 5u);
  // Break one constraint inside the namespace.
  struct Broken : r1cs::Circuit {
    void synthesize(ConstraintSystem& cs) const override {
      r1cs::Namespace outer(cs, "outer");
      Variable v = cs.alloc("v", Fr::from_u64(2));
      cs.enforce("fine", v, v, LC::constant(Fr::from_u64(4)));
      r1cs::Namespace inner(cs, "inner");
      cs.enforce("wrong", v, v, LC::constant(Fr::from_u64(5)));
    }
  } broken;
  r1cs::TestChecker bad;
  broken.synthesize(bad);
  EXPECT_EQ(*bad.first_unsatisfied(), "outer/inner/wrong (constraint #1)");
  // The proving assignment reports its buffers.
  auto pa = synthesize(circuit);
  auto bytes = pa.bytes();
  EXPECT_GE(bytes.a, pa.num_constraints() * sizeof(Fr));
  EXPECT_GE(bytes.aux, pa.num_aux() * sizeof(Fr));
  EXPECT_GT(bytes.total(), bytes.a + bytes.b + bytes.c);
}

// Linear combinations keep up to four terms inline and the rest on the heap: terms stay in the
// order added across the spill, copies and moves are independent, a combination added to itself
// doubles, and the proving assignment evaluates coefficients 1, -1 and others alike.
TEST(ConstraintSystemTest, LinearCombinationsInlineAndSpilled) {
  auto rng = test::make_rng();
  std::vector<Fr> coeffs;
  LC lc;
  for (uint32_t i = 0; i < 9; i++) {
    coeffs.push_back(i % 3 == 0 ? Fr::one() : i % 3 == 1 ? -Fr::one() : Fr::random(rng));
    lc.add(Variable::aux(i), coeffs.back());
    ASSERT_EQ(lc.terms().size(), i + 1);
    for (uint32_t k = 0; k <= i; k++) {
      EXPECT_EQ(lc.terms()[k].var, Variable::aux(k));
      EXPECT_EQ(lc.terms()[k].coeff, coeffs[k]);
    }
    LC copy = lc;
    copy.add(Variable::one());
    EXPECT_EQ(lc.terms().size(), i + 1);  // the copy has its own terms
    LC moved = std::move(copy);
    EXPECT_EQ(moved.terms().size(), i + 2);
    EXPECT_TRUE(copy.empty());  // NOLINT(bugprone-use-after-move): a moved-from combination is empty
    LC doubled = lc;
    doubled += doubled;
    ASSERT_EQ(doubled.terms().size(), 2 * (i + 1));
    EXPECT_EQ(doubled.terms()[i + 1].coeff, coeffs[0]);
  }
  r1cs::ProvingAssignment pa;
  std::vector<Fr> values;
  for (uint32_t i = 0; i < 9; i++) values.push_back(Fr::random(rng)), pa.alloc("x", values.back());
  Fr expected = Fr::zero();
  for (uint32_t i = 0; i < 9; i++) expected += coeffs[i] * values[i];
  pa.enforce("sum", lc, Variable::one(), lc.scaled(Fr::from_u64(3)));
  EXPECT_EQ(pa.a().back(), expected);
  EXPECT_EQ(pa.b().back(), Fr::one());
  EXPECT_EQ(pa.c().back(), expected * Fr::from_u64(3));
  EXPECT_EQ((lc - lc).terms().size(), 18u);
}

// A parallel synthesis into sections of a proving assignment gives the assignment a serial one
// gives (values, densities), with sections of any size filled on several threads, and refuses
// what would break it: a section over- or under-filled, a variable outside the section, an
// input allocated in a section, the assignment used while sections are open.
TEST(ConstraintSystemTest, SectionsGiveTheSerialAssignment) {
  auto rng = test::make_rng();
  // Section k: aux variables x_0..x_{m-1} (random values), constraints x_i * (x_{i-1} + ONE) =
  // 3 x_i + input_1 (any values: the assignment records a, b and c whether or not satisfied).
  const std::vector<size_t> sizes = {1, 63, 64, 65, 200, 7};
  std::vector<std::vector<Fr>> values;
  for (size_t m : sizes) {
    values.emplace_back();
    for (size_t i = 0; i < m; i++) values.back().push_back(i % 5 == 0 ? Fr::one() : Fr::random(rng));
  }
  auto fill = [&](ConstraintSystem& cs, size_t k) {
    Variable prev = Variable::one();
    for (size_t i = 0; i < sizes[k]; i++) {
      const Variable x = cs.alloc("x", values[k][i]);
      cs.enforce("c", x, LC(prev).add(Variable::one()), LC().add(x, Fr::from_u64(3)).add(Variable::input(1)));
      prev = x;
    }
  };
  r1cs::ProvingAssignment serial;
  serial.alloc_input("in", Fr::from_u64(5));
  serial.alloc("before", Fr::from_u64(9));
  for (size_t k = 0; k < sizes.size(); k++) fill(serial, k);
  serial.enforce("after", Variable::aux(0), Variable::input(1), Variable::one());

  r1cs::ProvingAssignment parallel;
  parallel.alloc_input("in", Fr::from_u64(5));
  parallel.alloc("before", Fr::from_u64(9));
  std::vector<r1cs::SectionShape> shapes;
  for (size_t m : sizes) shapes.push_back({m, m});
  auto sections = parallel.open_sections(shapes);
  ASSERT_EQ(sections.size(), sizes.size());
  EXPECT_THROW(parallel.enforce("now", Variable::one(), Variable::one(), Variable::one()), std::logic_error);
  std::vector<std::thread> threads;
  for (size_t k = 0; k < sizes.size(); k++) {
    threads.emplace_back([&, k] {
      fill(*sections[k], k);
      sections[k]->close();
    });
  }
  for (auto& t : threads) t.join();
  parallel.enforce("after", Variable::aux(0), Variable::input(1), Variable::one());
  EXPECT_EQ(parallel.a(), serial.a());
  EXPECT_EQ(parallel.b(), serial.b());
  EXPECT_EQ(parallel.c(), serial.c());
  EXPECT_EQ(parallel.aux(), serial.aux());
  for (auto d : {&r1cs::ProvingAssignment::a_aux_density, &r1cs::ProvingAssignment::b_aux_density,
                 &r1cs::ProvingAssignment::b_input_density}) {
    EXPECT_EQ((parallel.*d)().words(), (serial.*d)().words());
    EXPECT_EQ((parallel.*d)().count_ones(), (serial.*d)().count_ones());
    EXPECT_EQ((parallel.*d)().size(), (serial.*d)().size());
  }

  {
    r1cs::ProvingAssignment bad;
    auto s = bad.open_sections(std::vector<r1cs::SectionShape>{{2, 2}, {1, 1}});
    const Variable x = s[0]->alloc("x", Fr::one());
    EXPECT_THROW(s[0]->alloc_input("in", Fr::one()), std::logic_error);
    EXPECT_THROW(s[1]->enforce("outside", x, x, x), std::logic_error);  // x is section 0's
    EXPECT_THROW(s[0]->enforce("unallocated", Variable::aux(1), x, x), std::logic_error);
    s[0]->enforce("ok", x, x, x);
    s[0]->alloc("y", Fr::one());
    s[0]->enforce("ok", x, x, x);
    EXPECT_THROW(s[0]->enforce("more", x, x, x), std::logic_error);
    EXPECT_THROW(s[0]->alloc("more", Fr::one()), std::logic_error);
    s[0]->close();
    EXPECT_THROW(bad.alloc("while open", Fr::one()), std::logic_error);
    EXPECT_THROW(bad.aux(), std::logic_error);  // being written by the sections
    EXPECT_THROW(bad.release_abc(), std::logic_error);
    s[1]->alloc("z", Fr::one());
    s[1]->enforce("ok", Variable::one(), Variable::one(), Variable::one());
    s[1]->close();
    EXPECT_NO_THROW(bad.alloc("after", Fr::one()));  // all closed: usable again
  }
  {
    // A section closed short, or abandoned, leaves the assignment incomplete: refused from then on.
    r1cs::ProvingAssignment shortfall;
    auto s = shortfall.open_sections(std::vector<r1cs::SectionShape>{{1, 1}});
    EXPECT_THROW(s[0]->close(), std::logic_error);
    s.clear();
    EXPECT_THROW(shortfall.alloc("after", Fr::one()), std::logic_error);
    r1cs::ProvingAssignment abandoned;
    abandoned.open_sections(std::vector<r1cs::SectionShape>{{1, 1}});  // dropped unclosed
    EXPECT_THROW(abandoned.enforce("after", Variable::one(), Variable::one(), Variable::one()), std::logic_error);
    // Their unfilled ranges were never written: reading them is refused too, also in a copy.
    EXPECT_THROW(shortfall.a(), std::logic_error);
    EXPECT_THROW(abandoned.aux(), std::logic_error);
    r1cs::ProvingAssignment copy = abandoned;
    EXPECT_THROW(copy.c(), std::logic_error);
    const r1cs::ProvingAssignment moved = std::move(copy);
    EXPECT_THROW(moved.b_aux_density(), std::logic_error);
  }
}

// Sections may allocate public inputs in their ranges and use the variables of sections closed
// before them (their density bits merged at close); a section not closed yet is refused. A zero
// coefficient sets no density bit (bellperson skips it).
TEST(ConstraintSystemTest, SectionsWithInputsAndDependencies) {
  auto fill0 = [](ConstraintSystem& cs) {
    const Variable x = cs.alloc("x", Fr::from_u64(3));
    const Variable in = cs.alloc_input("in", Fr::from_u64(3));
    cs.enforce("x is in", x, Variable::one(), in);
    return x;
  };
  auto fill1 = [](ConstraintSystem& cs, Variable x) {
    const Variable y = cs.alloc("y", Fr::from_u64(9));
    cs.enforce("y = x^2", x, x, y);
    const Variable in = cs.alloc_input("in", Fr::from_u64(9));
    cs.enforce("y is in", y, LC(Variable::one()).add(y, Fr::zero()), in);
  };
  r1cs::ProvingAssignment serial;
  fill1(serial, fill0(serial));
  EXPECT_FALSE(serial.b_aux_density().test(1));  // y only with a zero coefficient in B

  r1cs::ProvingAssignment parallel;
  auto s = parallel.open_sections(std::vector<r1cs::SectionShape>{{1, 1, 1}, {2, 1, 1}});
  ASSERT_EQ(s.size(), 2u);
  Variable x;
  std::thread([&] {
    x = fill0(*s[0]);
    s[0]->close();
  }).join();
  std::thread([&] {
    fill1(*s[1], x);
    s[1]->close();
  }).join();
  EXPECT_EQ(parallel.a(), serial.a());
  EXPECT_EQ(parallel.b(), serial.b());
  EXPECT_EQ(parallel.c(), serial.c());
  EXPECT_EQ(parallel.aux(), serial.aux());
  EXPECT_EQ(parallel.inputs(), serial.inputs());
  EXPECT_EQ(parallel.a_aux_density().words(), serial.a_aux_density().words());
  EXPECT_EQ(parallel.b_aux_density().words(), serial.b_aux_density().words());
  EXPECT_EQ(parallel.b_input_density().words(), serial.b_input_density().words());

  r1cs::ProvingAssignment early;
  auto e = early.open_sections(std::vector<r1cs::SectionShape>{{1, 1, 1}, {2, 1, 1}});
  const Variable ex = fill0(*e[0]);
  EXPECT_THROW(e[1]->enforce("section 0 is open", ex, ex, ex), std::logic_error);
  EXPECT_THROW(e[0]->alloc_input("one too many", Fr::one()), std::logic_error);
  const Variable later = e[1]->alloc_input("in", Fr::one());
  EXPECT_THROW(e[0]->enforce("section 1's input", later, Variable::one(), later), std::logic_error);
}

// A backend's preparation of a/b/c (ProvingAssignment::set_abc_preparation: a page-lock on
// their memory, compact copies) goes wherever their memory goes, and is dropped whenever that
// memory may be freed, grown or changed: here a stand-in counts its releases. (That it goes
// before the memory is structural: it is declared after the vectors in ProvingAssignment and
// reset first in ~ReleasedAbc.)
TEST(ConstraintSystemTest, AbcPreparationIsReleasedWithTheVectors) {
  WideCircuit circuit;
  circuit.xs = {Fr::from_u64(2), Fr::from_u64(3)};
  int released = 0;
  struct Counted final : r1cs::AbcPreparation {
    int* released;
    explicit Counted(int* r) : released(r) {}
    ~Counted() override { ++*released; }
    size_t host_bytes() const override { return 1000; }
  };
  auto preparation = [&released] { return std::make_shared<const Counted>(&released); };

  // release_abc hands the preparation to the sink with the vectors; destroying that drops it.
  auto pa = synthesize(circuit);
  const size_t m = pa.num_constraints();
  const size_t unprepared_total = pa.bytes().total();
  pa.set_abc_preparation(preparation());
  EXPECT_TRUE(pa.abc_prepared());
  EXPECT_EQ(pa.bytes().abc_prepared, 1000u) << "its host bytes are counted with the assignment's";
  EXPECT_EQ(pa.bytes().total(), unprepared_total + 1000);
  {
    const auto copy = pa;  // a copy's vectors are new memory: no preparation
    EXPECT_FALSE(copy.abc_prepared());
  }
  EXPECT_EQ(released, 0);
  std::optional<r1cs::ReleasedAbc> parked;
  pa.set_abc_sink([&](r1cs::ReleasedAbc&& abc) { parked.emplace(std::move(abc)); });
  pa.release_abc();
  EXPECT_FALSE(pa.abc_prepared());
  ASSERT_TRUE(parked.has_value());
  EXPECT_TRUE(parked->preparation != nullptr);
  EXPECT_EQ(parked->a.size(), m);
  EXPECT_EQ(released, 0);
  parked.reset();
  EXPECT_EQ(released, 1);

  // Without a sink release_abc frees at once, the preparation with it.
  auto pb = synthesize(circuit);
  pb.set_abc_preparation(preparation());
  pb.release_abc();
  EXPECT_EQ(released, 2);
  // Anything that may grow the vectors drops it first; so does the destructor.
  auto pc = synthesize(circuit);
  pc.set_abc_preparation(preparation());
  pc.a_mut();
  EXPECT_EQ(released, 3);
  pc.set_abc_preparation(preparation());
  pc.enforce("more", LC::zero(), LC::zero(), LC::zero());
  EXPECT_EQ(released, 4);
  pc.set_abc_preparation(preparation());
  pc.b_mut();
  pc.set_abc_preparation(preparation());
  pc.c_mut();
  pc.set_abc_preparation(preparation());
  pc.reserve(m + 10, 4);
  EXPECT_EQ(released, 7);
  {
    auto pd = synthesize(circuit);
    pd.set_abc_preparation(preparation());
  }
  EXPECT_EQ(released, 8);
  // A move carries the preparation with the buffers it moves.
  auto pe = synthesize(circuit);
  pe.set_abc_preparation(preparation());
  auto moved = std::move(pe);
  EXPECT_TRUE(moved.abc_prepared());
  EXPECT_EQ(released, 8);
  moved.release_abc();
  EXPECT_EQ(released, 9);
}

}  // namespace
}  // namespace cuzk::groth16
