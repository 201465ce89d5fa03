// Compiled circuits (r1cs/compiled_circuit.hpp) and the witness-only path: the matrices times the
// witness are the full synthesis' a, b and c; proofs from both paths with the same r and s are
// identical and verify; the file round-trips (its digest of blocks too), and a file of another
// format, circuit or code version, truncated or corrupted, is refused by name and recorded again,
// never used.
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "circuits/synthetic.hpp"
#include "groth16/backend.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "r1cs/compiled_circuit_file.hpp"
#include "r1cs/shape.hpp"
#include "serial_only_cs.hpp"
#include "test_support.hpp"

namespace cuzk::groth16 {
namespace {

using r1cs::CompiledCircuit;
using r1cs::LC;
using r1cs::Variable;

// Combinations that merge (a variable twice, terms that cancel), zero coefficients, a
// coefficient that is neither 1 nor -1, and inputs in A, B and C.
struct MergingCircuit : r1cs::Circuit {
  Fr x = Fr::from_u64(3);
  void synthesize(r1cs::ConstraintSystem& cs) const override {
    const Variable in = cs.alloc_input("in", x + Fr::one());
    const Variable v = cs.alloc("v", x);
    const Variable w = cs.alloc("w", x * x);
    const Variable z = cs.alloc("z", Fr::zero());  // only in cancelling terms
    cs.enforce("square", LC(v).add(v).sub(v), v, w);
    cs.enforce("input", LC(in).sub(Variable::one()), Variable::one(), LC(v).add(z, Fr::zero()));
    cs.enforce("cancel", LC(z).sub(z).add(v, Fr::from_u64(5)), LC(in).add(z).sub(z),
               LC(v).scaled(Fr::from_u64(5)).add(w, Fr::from_u64(5)).add(v, Fr::from_u64(5)));
  }
};

std::filesystem::path temp_dir(const char* name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("cuzk_compiled_" + std::string(name) + "_" + std::to_string(test::run_seed()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(CompiledCircuitTest, MatricesTimesWitnessAreTheFullSynthesis) {
  test::expect_witness_path_equals_full(MergingCircuit{});
  const CompiledCircuit cc = r1cs::compile_circuit(MergingCircuit{});
  EXPECT_EQ(cc.constraints, 5u);  // three, and the input constraints of ONE and in
  EXPECT_EQ(cc.a.row_start[1], 1u) << "v + v - v is one entry";
  EXPECT_EQ(cc.b.nonzeros(), 3u) << "B: v; ONE; in (z - z dropped)";
  EXPECT_TRUE(cc.b_aux_density.test(2)) << "z's cancelled terms still set its B bit, as the full synthesis does";
  for (size_t n : {size_t(1) << 10, size_t(3000)}) {
    test::expect_witness_path_equals_full(circuits::SyntheticCircuit(n, 8, {}, test::run_seed() + n));
  }
}

TEST(CompiledCircuitTest, WitnessPathProvesTheSameAndVerifies) {
  auto rng = test::make_rng();
  const circuits::SyntheticCircuit circuit(1 << 12, 8, {}, test::run_seed());
  const Parameters params = generate_parameters(
      circuit, {Fr::random(rng), Fr::random(rng), Fr::random(rng), Fr::random(rng), Fr::random(rng)});
  const PreparedVerifyingKey pvk(params.vk);
  r1cs::TestChecker checker;
  circuit.synthesize(checker);
  const std::vector<Fr> inputs(checker.inputs().begin() + 1, checker.inputs().end());
  const auto compiled = std::make_shared<const CompiledCircuit>(r1cs::compile_circuit(circuit));
  auto cpu = make_cpu_backend();
  const Fr r = Fr::random(rng), s = Fr::random(rng);
  auto full = synthesize(circuit);
  auto witness = synthesize_witness(circuit, compiled);
  EXPECT_TRUE(witness.abc_pending());
  const auto want = cpu->prove_start(params, full, r, s);
  ProveTimings t;
  const auto got = cpu->prove_start(params, witness, r, s, &t);
  EXPECT_GT(t.abc, 0.0);
  const Proof p_full = prove_finish(params, full, want);
  const Proof p_witness = prove_finish(params, witness, got);
  EXPECT_EQ(encode_proof(p_witness), encode_proof(p_full));
  EXPECT_TRUE(verify_proof(pvk, p_witness, inputs));
  Proof tampered = p_witness;
  tampered.a = (G1Jacobian::from_affine(tampered.a) + G1Jacobian::from_affine(params.vk.alpha_g1)).to_affine();
  EXPECT_FALSE(verify_proof(pvk, tampered, inputs));
}

TEST(CompiledCircuitTest, AnotherShapeIsRefusedByTheWitnessPath) {
  const circuits::SyntheticCircuit small(1 << 10, 8, {}, 1), large(1 << 11, 8, {}, 1);
  const auto compiled = std::make_shared<const CompiledCircuit>(r1cs::compile_circuit(small));
  try {
    synthesize_witness(large, compiled);
    ADD_FAILURE() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("record it again"), std::string::npos) << e.what();
  }
  EXPECT_THROW(r1cs::ProvingAssignment(nullptr), std::invalid_argument);
}

// Two sections that close out of order (the second first), each using a variable allocated
// before they opened, its own, an input and a coefficient of its own; fault 1: the first closes
// a constraint short; fault 2: it uses an aux variable of its range not yet allocated.
struct SectionedCircuit : r1cs::Circuit {
  int fault = 0;
  void synthesize(r1cs::ConstraintSystem& cs) const override {
    const Variable in = cs.alloc_input("in", Fr::from_u64(9));
    const Variable x = cs.alloc("x", Fr::from_u64(2));
    auto part = [&](r1cs::ConstraintSystem& s, uint64_t k) {
      const Fr y_value = Fr::from_u64(k + 5);
      const Variable y = s.alloc("y", y_value);
      if (fault == 2 && k == 0) {
        s.enforce("ahead", LC(Variable::aux(y.index + 1)), x, x);  // z, not yet allocated
        return;
      }
      const Variable z = s.alloc("z", y_value * Fr::from_u64(2));
      s.enforce("z = x y", LC(x), LC(y), LC(z));
      if (fault == 1 && k == 0) return;
      s.enforce("scaled", LC(y).add(in, Fr::from_u64(k + 7)), Variable::one(), LC(y).add(in, Fr::from_u64(k + 7)));
    };
    const r1cs::SectionShape shapes[2] = {{2, 2, 0}, {2, 2, 0}};
    auto sections = cs.open_sections(shapes);
    if (sections.empty()) {
      part(cs, 0);
      part(cs, 1);
      return;
    }
    part(*sections[1], 1);
    sections[1]->close();
    part(*sections[0], 0);
    sections[0]->close();
  }
};

TEST(CompiledCircuitTest, SectionsRecordTheSerialMatricesOrAreRefused) {
  test::expect_witness_path_equals_full(SectionedCircuit{});  // parallel and serial recordings equal too
  const CompiledCircuit cc = r1cs::compile_circuit(SectionedCircuit{});
  EXPECT_EQ(cc.constraints, 6u);  // two a section, and the input constraints of ONE and in
  EXPECT_EQ(cc.coefficients.size(), 4u) << "1, -1, and each section's own";
  for (int fault : {1, 2}) {
    SectionedCircuit bad;
    bad.fault = fault;
    try {
      r1cs::compile_circuit(bad);
      ADD_FAILURE() << "fault " << fault << " recorded";
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find(fault == 1 ? "closed with 1 constraints" : "does not exist"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(CompiledCircuitTest, FileRoundTripsAndRefusesWhatItCannotUse) {
  const auto dir = temp_dir("file");
  const circuits::SyntheticCircuit circuit(1 << 10, 8, {}, test::run_seed());
  const CompiledCircuit cc = r1cs::compile_circuit(circuit);
  const auto path = dir / "synthetic.r1cs";
  r1cs::write_compiled_circuit(path, "synthetic-1024-c1", cc);
  const CompiledCircuit back = r1cs::read_compiled_circuit(path, "synthetic-1024-c1");
  EXPECT_EQ(back.constraints, cc.constraints);
  EXPECT_EQ(back.inputs, cc.inputs);
  EXPECT_EQ(back.aux, cc.aux);
  EXPECT_EQ(back.coefficients, cc.coefficients);
  EXPECT_TRUE(back.a == cc.a && back.b == cc.b && back.c == cc.c);
  EXPECT_EQ(back.a_aux_density.words(), cc.a_aux_density.words());
  EXPECT_EQ(back.b_aux_density.count_ones(), cc.b_aux_density.count_ones());
  EXPECT_EQ(back.b_input_density.words(), cc.b_input_density.words());

  const auto bytes = test::read_file(path.string());
  auto refused = [&](const std::string& content, const std::string& id, const std::string& why) {
    const auto bad = dir / "bad.r1cs";
    test::write_file(bad.string(), content);
    try {
      r1cs::read_compiled_circuit(bad, id);
      ADD_FAILURE() << "accepted: " << why;
    } catch (const r1cs::CompiledCircuitFileError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(bad.string()), std::string::npos) << what;
      EXPECT_NE(what.find(why), std::string::npos) << what;
    }
  };
  const std::string good(bytes.begin(), bytes.end());
  refused(good, "synthetic-1024-c2", "not synthetic-1024-c2");  // another code version
  refused(good.substr(0, good.size() / 2), "synthetic-1024-c1", "truncated");
  refused(good.substr(0, 20), "synthetic-1024-c1", "truncated");
  std::string flipped = good;
  flipped[good.size() / 2] ^= 0x10;
  refused(flipped, "synthetic-1024-c1", "corrupted");
  std::string other_format = good;
  other_format[8] ^= 0x7f;
  refused(other_format, "synthetic-1024-c1", "format");
  refused("not a compiled circuit at all, just some text to fill forty bytes", "synthetic-1024-c1", "CUZKR1CS");
  // A file refused as it is opened (too short for its digest) leaves no descriptor open.
  auto open_descriptors = [] {
    return std::distance(std::filesystem::directory_iterator("/proc/self/fd"), std::filesystem::directory_iterator{});
  };
  const auto before = open_descriptors();
  for (int i = 0; i < 64; i++) refused(good.substr(0, 20), "synthetic-1024-c1", "truncated");
  EXPECT_EQ(open_descriptors(), before);
  std::filesystem::remove_all(dir);
}

// A hold that counts its own end (a page-lock's release, for the CUDA backend's AuxLock).
struct CountingHold final : r1cs::WitnessHold {
  explicit CountingHold(std::shared_ptr<int> gone) : gone(std::move(gone)) {}
  ~CountingHold() override { ++*gone; }
  std::shared_ptr<int> gone;
};

// A witness-only assignment's aux memory leaves it with its hold (release_witness) and a fresh
// assignment of the shape synthesizes into that memory (adopt_witness), keeping the hold, and gets
// the same aux; the hold goes before the memory moves (aux grown past its capacity); adoption and
// release are refused where they do not belong.
TEST(CompiledCircuitTest, AKeptWitnessIsSynthesizedIntoWithItsHold) {
  const circuits::SyntheticCircuit circuit(1 << 10, 8, {}, test::run_seed());
  const auto cc = std::make_shared<const CompiledCircuit>(r1cs::compile_circuit(circuit));
  auto synthesized = [&](r1cs::ProvingAssignment& pa) {
    pa.reserve(0, cc->aux);
    circuit.synthesize(pa);
    pa.enforce_input_constraints();
    pa.check_matches_compiled();
  };
  r1cs::ProvingAssignment first(cc);
  synthesized(first);
  const r1cs::FrVector values = first.aux();
  auto gone = std::make_shared<int>(0);
  first.set_aux_hold(std::make_shared<CountingHold>(gone));
  const Fr* memory = first.aux().data();
  r1cs::KeptWitness kept = first.release_witness();
  EXPECT_EQ(kept.aux.data(), memory);
  EXPECT_GE(kept.bytes(), values.size() * sizeof(Fr));
  EXPECT_TRUE(kept.hold);

  r1cs::ProvingAssignment second(cc);
  second.adopt_witness(std::move(kept));
  synthesized(second);
  EXPECT_EQ(second.aux().data(), memory) << "synthesized into the kept memory";
  EXPECT_TRUE(second.aux() == values);
  EXPECT_TRUE(second.aux_hold());
  EXPECT_EQ(*gone, 0);
  EXPECT_THROW(second.adopt_witness(r1cs::KeptWitness()), std::logic_error) << "not a fresh assignment";

  r1cs::ProvingAssignment third(cc);
  third.adopt_witness(second.release_witness());
  third.reserve(0, 2 * cc->aux);  // past the kept capacity: the memory moves
  EXPECT_EQ(*gone, 1) << "the hold went before its memory";
  EXPECT_FALSE(third.aux_hold());
  r1cs::ProvingAssignment full;
  EXPECT_THROW(full.release_witness(), std::logic_error) << "a full synthesis keeps no witness";
}

// The digest is of blocks (format 2), read on every core: with 4 KiB blocks a small circuit's
// file has dozens, its arrays cross block (and slice) boundaries, and a flipped bit in any block is
// caught; a block size outside 2^12..2^30 is refused by name.
TEST(CompiledCircuitTest, ADigestOfManyBlocksRoundTripsAndCatchesAFlipInEachBlock) {
  const auto dir = temp_dir("blocks");
  const circuits::SyntheticCircuit circuit(1 << 12, 8, {}, test::run_seed());
  const CompiledCircuit cc = r1cs::compile_circuit(circuit);
  const auto path = dir / "synthetic.r1cs";
  r1cs::write_compiled_circuit(path, "synthetic-4096-c1", cc, 12);
  const CompiledCircuit back = r1cs::read_compiled_circuit(path, "synthetic-4096-c1");
  EXPECT_TRUE(back == cc);
  EXPECT_THROW(r1cs::write_compiled_circuit(dir / "x.r1cs", "synthetic-4096-c1", cc, 11), std::invalid_argument);

  const auto bytes = test::read_file(path.string());
  const std::string good(bytes.begin(), bytes.end());
  const size_t body = good.size() - 32, blocks = (body + 4095) / 4096;
  ASSERT_GE(blocks, 20u) << good.size();
  const auto bad = dir / "bad.r1cs";
  auto refused_because = [&](const std::string& content, const std::string& why) {
    test::write_file(bad.string(), content);
    try {
      r1cs::read_compiled_circuit(bad, "synthetic-4096-c1");
      ADD_FAILURE() << "accepted: " << why;
    } catch (const r1cs::CompiledCircuitFileError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  // A bit in the first block after the header's fields, the middle one, the last (short) one, and
  // the digest itself.
  for (const size_t at : {size_t(200), (blocks / 2) * 4096 + 17, body - 1, body + 5}) {
    std::string flipped = good;
    flipped[at] ^= 0x01;
    refused_because(flipped, "corrupted");
  }
  std::string odd_block = good;
  odd_block[12] = 40;  // the u32 after the format: log2 of the block
  refused_because(odd_block, "digest blocks of 2^40");
  std::filesystem::remove_all(dir);
}

TEST(CompiledCircuitTest, LoadOrCompileRecordsOnceAndAgainWhenTheFileCannotBeUsed) {
  const auto dir = temp_dir("load");
  const circuits::SyntheticCircuit circuit(1 << 10, 8, {}, test::run_seed());
  const auto path = dir / "synthetic.r1cs";
  int recorded = 0;
  std::vector<std::string> lines;
  auto compile = [&] {
    recorded++;
    return r1cs::compile_circuit(circuit);
  };
  auto log = [&](const std::string& line) { lines.push_back(line); };
  const auto first = r1cs::load_or_compile(path, "synthetic-c1", compile, log);
  EXPECT_EQ(recorded, 1);
  ASSERT_TRUE(std::filesystem::exists(path));
  const auto second = r1cs::load_or_compile(path, "synthetic-c1", compile, log);
  EXPECT_EQ(recorded, 1) << "a sound file is read, not recorded again";
  EXPECT_TRUE(second->a == first->a);
  EXPECT_NE(lines.back().find("read from"), std::string::npos) << lines.back();
  // A new version of the circuit code: recorded again (and the file replaced).
  r1cs::load_or_compile(path, "synthetic-c2", compile, log);
  EXPECT_EQ(recorded, 2);
  EXPECT_NE(lines.back().find("not synthetic-c2"), std::string::npos) << lines.back();
  // Corrupted: refused, recorded again, and the proof path gets a sound circuit.
  auto bytes = test::read_file(path.string());
  bytes[bytes.size() - 40] ^= 1;
  test::write_file(path.string(), std::string(bytes.begin(), bytes.end()));
  const auto again = r1cs::load_or_compile(path, "synthetic-c2", compile, log);
  EXPECT_EQ(recorded, 3);
  EXPECT_NE(lines.back().find("corrupted"), std::string::npos) << lines.back();
  EXPECT_TRUE(again->c == first->c);
  EXPECT_NO_THROW(r1cs::read_compiled_circuit(path, "synthetic-c2"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cuzk::groth16
