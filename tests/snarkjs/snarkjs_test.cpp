// snarkjs interop (issue 28): the .r1cs/.wtns/.zkey readers, the JSON documents, the CPU prover
// with snarkjs' conventions and the verifier, against the fixtures snarkjs made in
// tests/data/snarkjs (see its README.md).
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include "ec/curves.hpp"
#include "interop/snarkjs/binary_file.hpp"
#include "interop/snarkjs/chain_circuit.hpp"
#include "interop/snarkjs/checked_keys.hpp"
#include "interop/snarkjs/encoding.hpp"
#include "interop/snarkjs/json_io.hpp"
#include "interop/snarkjs/known_waste_setup.hpp"
#include "interop/snarkjs/odd_coset.hpp"
#include "interop/snarkjs/prover.hpp"
#include "interop/snarkjs/r1cs_file.hpp"
#include "interop/snarkjs/verifier.hpp"
#include "interop/snarkjs/wtns_file.hpp"
#include "interop/snarkjs/zkey_file.hpp"
#include "ntt/domain.hpp"
#include "snarkjs_test_key.hpp"
#include "test_support.hpp"

namespace cuzk::snarkjs {
namespace {

using ff::Fr;

std::string fixture(const std::string& name) { return test::repo_testdata_dir() + "/snarkjs/" + name; }

std::vector<uint8_t> fixture_bytes(const std::string& name) { return test::read_file(fixture(name)); }

std::string fixture_text(const std::string& name) { return read_text_file(fixture(name)); }

// The message of the FormatError that f throws, or a failure when it throws none.
template <class F>
std::string format_error_of(F&& f) {
  try {
    f();
  } catch (const FormatError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a FormatError";
  return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class SnarkjsFixture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    zkey_ = new Zkey(read_zkey(fixture("chain.zkey")));
    witness_ = new std::vector<Fr>(read_witness(fixture("chain.wtns")));
  }
  static void TearDownTestSuite() {
    delete zkey_;
    delete witness_;
  }
  static Zkey* zkey_;
  static std::vector<Fr>* witness_;
};
Zkey* SnarkjsFixture::zkey_ = nullptr;
std::vector<Fr>* SnarkjsFixture::witness_ = nullptr;

TEST(SnarkjsOddCoset, RootsOfUnityAreRelatedByAnOddExponent) {
  const uint64_t k = OddCoset::root_exponent();
  EXPECT_EQ(k & 1, 1u);
  EXPECT_EQ(OddCoset::snarkjs_root_of_unity(32).pow(k), Fr::two_adic_root_of_unity());
  // ffjavascript's Fr.w[1] is -1 and Fr.w[3] its printed value (node: Fr.toString(Fr.w[3])).
  EXPECT_EQ(OddCoset::snarkjs_root_of_unity(1), -Fr::one());
  Fr w3;
  ff::BigInt<4> limbs;
  ASSERT_TRUE(
      from_decimal("28761180743467419819834788392525162889723178799021384024940474588120723734663", limbs.limb));
  ASSERT_TRUE(Fr::from_limbs_checked(limbs, w3));
  EXPECT_EQ(OddCoset::snarkjs_root_of_unity(3), w3);
  // Our domain's omega is snarkjs' root to the power k, so index i is snarkjs' k i mod n.
  for (unsigned log_n : {1u, 5u, 12u}) {
    const OddCoset coset(log_n);
    const ntt::EvaluationDomain domain(log_n);
    EXPECT_EQ(OddCoset::snarkjs_root_of_unity(log_n).pow(uint64_t(coset.snarkjs_index(1))), domain.omega());
    for (size_t i = 0; i < coset.size(); i += 7) EXPECT_EQ(coset.our_index(coset.snarkjs_index(i)), i);
  }
  EXPECT_THROW(OddCoset(32), std::invalid_argument);
}

TEST(SnarkjsDecimal, RoundTrips) {
  ff::BigInt<4> v;
  ASSERT_TRUE(from_decimal("0", v.limb));
  EXPECT_EQ(to_decimal(v.limb), "0");
  ASSERT_TRUE(from_decimal("340282366920938463463374607431768211457", v.limb));  // 2^128 + 1
  EXPECT_EQ(v.limb[0], 1u);
  EXPECT_EQ(v.limb[2], 1u);
  EXPECT_EQ(to_decimal(v.limb), "340282366920938463463374607431768211457");
  EXPECT_FALSE(from_decimal("-1", v.limb));
  EXPECT_FALSE(from_decimal("12a", v.limb));
  EXPECT_FALSE(from_decimal("", v.limb));
  EXPECT_FALSE(from_decimal(std::string(80, '9'), v.limb));  // beyond 256 bits
}

TEST_F(SnarkjsFixture, ReadsTheR1csWitnessAndKey) {
  const R1cs r1cs = read_r1cs(fixture("chain.r1cs"));
  // The README's `snarkjs r1cs info`.
  EXPECT_EQ(r1cs.wires, 28u);
  EXPECT_EQ(r1cs.constraints.size(), 24u);
  EXPECT_EQ(r1cs.outputs, 1u);
  EXPECT_EQ(r1cs.public_inputs, 2u);
  EXPECT_EQ(r1cs.private_inputs, 1u);
  EXPECT_EQ(r1cs.labels, 29u);
  EXPECT_EQ(r1cs.wire_labels.size(), r1cs.wires);
  EXPECT_EQ(witness_->size(), r1cs.wires);
  EXPECT_EQ(zkey_->vars, r1cs.wires);
  EXPECT_EQ(zkey_->publics, r1cs.public_signals());
  // Setup adds one constraint per public signal and the 1 wire.
  EXPECT_GE(zkey_->domain_size, r1cs.constraints.size() + r1cs.public_signals() + 1);
  EXPECT_EQ(zkey_->ic.size(), zkey_->publics + 1u);
  EXPECT_EQ(zkey_->h.size(), zkey_->domain_size);
  EXPECT_EQ(first_unsatisfied_constraint(r1cs, *witness_), std::nullopt);
}

TEST_F(SnarkjsFixture, WitnessCheckNamesTheFirstUnsatisfiedConstraint) {
  const R1cs r1cs = read_r1cs(fixture("chain.r1cs"));
  // Change the last wire (an internal signal): some constraint that uses it must fail, and the
  // one reported is the first that does.
  std::vector<Fr> bad = *witness_;
  bad.back() += Fr::one();
  const std::optional<size_t> index = first_unsatisfied_constraint(r1cs, bad);
  ASSERT_TRUE(index.has_value());
  auto uses_last_wire = [&](const R1csConstraint& c) {
    for (const auto* lc : {&c.a, &c.b, &c.c}) {
      for (const R1csTerm& t : *lc) {
        if (t.wire == r1cs.wires - 1) return true;
      }
    }
    return false;
  };
  size_t first_user = 0;
  while (!uses_last_wire(r1cs.constraints[first_user])) first_user++;
  EXPECT_EQ(*index, first_user);
  bad[0] = Fr::from_u64(2);
  EXPECT_THROW(first_unsatisfied_constraint(r1cs, bad), std::invalid_argument);
  bad.pop_back();
  EXPECT_THROW(first_unsatisfied_constraint(r1cs, bad), std::invalid_argument);
}

TEST_F(SnarkjsFixture, SnarkjsProofVerifies) {
  const VerifyingKey vk = verifying_key_from_json(fixture_text("verification_key.json"), "verification_key.json");
  const std::vector<Fr> inputs = public_signals_from_json(fixture_text("public.json"), "public.json");
  const Proof proof = proof_from_json(fixture_text("proof.json"), "proof.json");
  EXPECT_TRUE(verify(vk, inputs, proof));
  // Public signals: outputs, then public inputs (the README's list).
  ASSERT_EQ(inputs.size(), 3u);
  EXPECT_EQ(to_decimal(inputs[1]), "3");
  EXPECT_EQ(to_decimal(inputs[2]), "5");
  EXPECT_EQ(public_signals(*zkey_, *witness_), inputs);
}

TEST_F(SnarkjsFixture, TamperedProofOrInputsAreRefused) {
  const VerifyingKey vk = verifying_key_from_json(fixture_text("verification_key.json"), "verification_key.json");
  const std::vector<Fr> inputs = public_signals_from_json(fixture_text("public.json"), "public.json");
  const Proof proof = proof_from_json(fixture_text("proof.json"), "proof.json");
  for (size_t i = 0; i < inputs.size(); i++) {
    std::vector<Fr> changed = inputs;
    changed[i] += Fr::one();
    EXPECT_FALSE(verify(vk, changed, proof)) << "public signal " << i;
  }
  Proof swapped = proof;
  std::swap(swapped.a, swapped.c);
  EXPECT_FALSE(verify(vk, inputs, swapped));
  Proof doubled = proof;
  doubled.c = (ec::G1Jacobian::from_affine(proof.c) + ec::G1Jacobian::from_affine(proof.c)).to_affine();
  EXPECT_FALSE(verify(vk, inputs, doubled));
  Proof negated_b = proof;
  negated_b.b = -proof.b;
  EXPECT_FALSE(verify(vk, inputs, negated_b));
  std::vector<Fr> fewer(inputs.begin(), inputs.end() - 1);
  EXPECT_THROW(verify(vk, fewer, proof), std::invalid_argument);
}

TEST_F(SnarkjsFixture, VerifyingKeyFromZkeyIsSnarkjsExport) {
  const VerifyingKey vk = verifying_key_from_zkey(*zkey_);
  EXPECT_EQ(vk, verifying_key_from_json(fixture_text("verification_key.json"), "verification_key.json"));
  // The whole document, vk_alphabeta_12 = e(alpha, beta) included, is what snarkjs exported.
  EXPECT_EQ(nlohmann::json::parse(verifying_key_to_json(vk)),
            nlohmann::json::parse(fixture_text("verification_key.json")));
}

TEST_F(SnarkjsFixture, CpuProofVerifiesAndRoundTripsThroughJson) {
  const auto prover = make_cpu_prover();
  ProveTimings timings;
  const Proof proof = prover->prove(*zkey_, *witness_, &timings);
  EXPECT_GT(timings.total, 0);
  const VerifyingKey vk = verifying_key_from_zkey(*zkey_);
  const std::vector<Fr> inputs = public_signals(*zkey_, *witness_);
  EXPECT_TRUE(verify(vk, inputs, proof));
  const Proof parsed = proof_from_json(proof_to_json(proof), "our proof.json");
  EXPECT_EQ(parsed, proof);
  EXPECT_EQ(public_signals_from_json(public_signals_to_json(inputs), "our public.json"), inputs);
  // The documents look like snarkjs' (same keys, same shapes).
  const auto ours = nlohmann::json::parse(proof_to_json(proof));
  const auto theirs = nlohmann::json::parse(fixture_text("proof.json"));
  for (const char* key : {"pi_a", "pi_b", "pi_c", "protocol", "curve"}) {
    ASSERT_TRUE(ours.contains(key)) << key;
    EXPECT_EQ(ours[key].size(), theirs[key].size()) << key;
  }
  EXPECT_EQ(ours["pi_a"][2], "1");
  EXPECT_EQ(ours["pi_b"][2], nlohmann::json::array({"1", "0"}));
  // Fixed blinding factors give a fixed proof; different ones a different, valid one.
  const Proof p1 = prover->prove(*zkey_, *witness_, Fr::from_u64(3), Fr::from_u64(5));
  EXPECT_EQ(prover->prove(*zkey_, *witness_, Fr::from_u64(3), Fr::from_u64(5)), p1);
  const Proof p0 = prover->prove(*zkey_, *witness_, Fr::zero(), Fr::zero());
  EXPECT_NE(p0, p1);
  EXPECT_TRUE(verify(vk, inputs, p0));
  EXPECT_TRUE(verify(vk, inputs, p1));
}

TEST_F(SnarkjsFixture, UnsatisfyingWitnessGivesAnInvalidProof) {
  std::vector<Fr> bad = *witness_;
  bad.back() += Fr::one();
  const Proof proof = make_cpu_prover()->prove(*zkey_, bad);
  EXPECT_FALSE(verify(verifying_key_from_zkey(*zkey_), public_signals(*zkey_, bad), proof));
  bad.pop_back();
  EXPECT_THROW(make_cpu_prover()->prove(*zkey_, bad), std::invalid_argument);
}

// Keys made here the way snarkjs makes them, at larger domains than the fixtures' 2^5: proofs
// verify, a changed witness gives one that does not.
TEST(SnarkjsTestKey, CpuProofsVerifyAtLargerDomains) {
  auto rng = test::make_rng();
  for (size_t constraints : {60, 1000}) {
    const test_keys::TestKey key = test_keys::make_test_key(constraints, rng);
    const VerifyingKey vk = verifying_key_from_zkey(key.zkey);
    const auto prover = make_cpu_prover();
    const std::vector<Fr> inputs = public_signals(key.zkey, key.witness);
    EXPECT_TRUE(verify(vk, inputs, prover->prove(key.zkey, key.witness))) << constraints << " constraints";
    std::vector<Fr> bad = key.witness;
    bad[bad.size() / 2] += Fr::one();
    EXPECT_FALSE(verify(vk, inputs, prover->prove(key.zkey, bad))) << constraints << " constraints";
  }
}

// The constraint evaluations (section 4 summed into A and B, C = A .* B) equal a plain sum, both
// for snarkjs' order (by constraint: summed in parallel chunks, one constraint longer than a
// chunk included) and for any other order (summed in one pass).
TEST(SnarkjsProverSteps, ConstraintEvaluationsEqualAPlainSumInAnyOrder) {
  auto rng = test::make_rng();
  const unsigned log_n = 14;
  const OddCoset coset(log_n);
  const size_t n = coset.size();
  Zkey zkey;
  zkey.vars = 1000;
  zkey.domain_size = uint32_t(n);
  std::vector<Fr> witness(zkey.vars);
  for (Fr& w : witness) w = Fr::random(rng);
  for (uint32_t j = 0; j < n - 3; j++) {
    const size_t terms = j == 777 ? 40000 : rng() % 5;  // constraint 777 spans several chunks
    for (size_t t = 0; t < terms; t++) {
      zkey.coefficients.push_back({uint32_t(rng() % 2), j, uint32_t(rng() % zkey.vars), Fr::random(rng)});
    }
  }
  std::vector<Fr> want_a(n, Fr::zero()), want_b(n, Fr::zero()), want_c(n);
  for (const ZkeyCoefficient& k : zkey.coefficients) {
    (k.matrix == 0 ? want_a : want_b)[coset.our_index(k.constraint)] += k.value * witness[k.signal];
  }
  for (size_t i = 0; i < n; i++) want_c[i] = want_a[i] * want_b[i];

  for (const char* order : {"by constraint", "shuffled"}) {
    if (std::string(order) == "shuffled") std::shuffle(zkey.coefficients.begin(), zkey.coefficients.end(), rng);
    std::vector<Fr> a(n, Fr::one()), b(n, Fr::one()), c(n);  // stale values must be cleared
    detail::constraint_evaluations(zkey, witness, coset, a, b, c);
    EXPECT_TRUE(a == want_a && b == want_b && c == want_c) << order;
  }
}

// Every truncation of each binary file is refused with a message naming a section or the file
// header and an offset (or the missing section).
TEST(SnarkjsFiles, TruncatedFilesAreRefused) {
  struct Case {
    const char* file;
    const char* magic;
    uint32_t version;
    void (*parse)(const BinaryFile&);
  };
  const Case cases[] = {
      {"chain.r1cs", "r1cs", 1, [](const BinaryFile& f) { parse_r1cs(f); }},
      {"chain.wtns", "wtns", 2, [](const BinaryFile& f) { parse_witness(f); }},
      {"chain.zkey", "zkey", 2, [](const BinaryFile& f) { parse_zkey(f); }},
  };
  for (const Case& c : cases) {
    const std::vector<uint8_t> bytes = fixture_bytes(c.file);
    ASSERT_FALSE(bytes.empty());
    // Every cut in the first 200 bytes (headers), then every 13th.
    size_t tried = 0;
    for (size_t cut = 0; cut < bytes.size(); cut += cut < 200 ? 1 : 13) {
      std::vector<uint8_t> part(bytes.begin(), bytes.begin() + cut);
      const std::string message =
          format_error_of([&] { c.parse(BinaryFile::parse(std::move(part), c.file, c.magic, c.version)); });
      EXPECT_TRUE(contains(message, c.file)) << message;
      EXPECT_TRUE(contains(message, "offset")) << "cut at " << cut << ": " << message;
      EXPECT_TRUE(contains(message, "section") || contains(message, "file header")) << message;
      tried++;
    }
    EXPECT_GT(tried, 200u);
  }
}

// Overwrites bytes at offset in a copy of a fixture and returns the parse error.
template <class Parse>
std::string corrupted(const char* file, const char* magic, uint32_t version, size_t offset,
                      std::span<const uint8_t> replacement, Parse parse) {
  std::vector<uint8_t> bytes = fixture_bytes(file);
  EXPECT_LE(offset + replacement.size(), bytes.size());
  std::copy(replacement.begin(), replacement.end(), bytes.begin() + offset);
  return format_error_of([&] { parse(BinaryFile::parse(std::move(bytes), file, magic, version)); });
}

// The absolute offset of section type's contents in a fixture.
uint64_t section_offset(const char* file, const char* magic, uint32_t version, uint32_t type) {
  const BinaryFile f = BinaryFile::parse(fixture_bytes(file), file, magic, version);
  const SectionEntry* s = f.find(type, "");
  EXPECT_NE(s, nullptr);
  return s ? s->offset : 0;
}

TEST(SnarkjsFiles, CorruptedFilesAreRefusedWithSectionAndOffset) {
  auto r1cs = [](const BinaryFile& f) { parse_r1cs(f); };
  auto wtns = [](const BinaryFile& f) { parse_witness(f); };
  auto zkey = [](const BinaryFile& f) { parse_zkey(f); };
  const uint8_t ff4[] = {0xff, 0xff, 0xff, 0xff};
  const uint8_t big[32] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                           0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                           0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
  std::string m;

  m = corrupted("chain.r1cs", "r1cs", 1, 0, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>("wtns"), 4),
                r1cs);
  EXPECT_TRUE(contains(m, "expected magic \"r1cs\", found \"wtns\"")) << m;
  m = corrupted("chain.r1cs", "r1cs", 1, 4, std::span(ff4), r1cs);
  EXPECT_TRUE(contains(m, "version")) << m;

  // The first constraint's first wire index: section 2 starts with A's term count.
  const uint64_t constraints = section_offset("chain.r1cs", "r1cs", 1, 2);
  m = corrupted("chain.r1cs", "r1cs", 1, constraints + 4, std::span(ff4), r1cs);
  EXPECT_TRUE(contains(m, "section 2 (constraints) at offset " + std::to_string(constraints + 4))) << m;
  EXPECT_TRUE(contains(m, "out of range")) << m;
  m = corrupted("chain.r1cs", "r1cs", 1, constraints + 8, std::span(big), r1cs);
  EXPECT_TRUE(contains(m, "offset " + std::to_string(constraints + 8))) << m;
  EXPECT_TRUE(contains(m, "modulus")) << m;

  const uint64_t values = section_offset("chain.wtns", "wtns", 2, 2);
  m = corrupted("chain.wtns", "wtns", 2, values + 32, std::span(big), wtns);
  EXPECT_TRUE(contains(m, "section 2 (witness values) at offset " + std::to_string(values + 32))) << m;
  EXPECT_TRUE(contains(m, "value 1")) << m;
  const uint64_t wtns_header = section_offset("chain.wtns", "wtns", 2, 1);
  m = corrupted("chain.wtns", "wtns", 2, wtns_header + 36, std::span(ff4), wtns);  // the value count
  EXPECT_TRUE(contains(m, "section 2 (witness values)")) << m;

  // zkey: protocol, a header point, a bulk point, a coefficient, section sizes.
  const uint64_t protocol = section_offset("chain.zkey", "zkey", 2, 1);
  const uint8_t plonk[] = {2, 0, 0, 0};
  m = corrupted("chain.zkey", "zkey", 2, protocol, std::span(plonk), zkey);
  EXPECT_TRUE(contains(m, "not Groth16")) << m;
  const uint64_t header = section_offset("chain.zkey", "zkey", 2, 2);
  const uint64_t alpha = header + 4 + 48 + 4 + 32 + 12;
  const uint8_t one[] = {1};
  m = corrupted("chain.zkey", "zkey", 2, alpha + 50, std::span(one), zkey);
  EXPECT_TRUE(contains(m, "section 2 (Groth16 header) at offset " + std::to_string(alpha))) << m;
  EXPECT_TRUE(contains(m, "alpha_1")) << m;
  EXPECT_TRUE(contains(m, "not on the curve")) << m;
  const uint64_t a_points = section_offset("chain.zkey", "zkey", 2, 5);
  m = corrupted("chain.zkey", "zkey", 2, a_points + 3 * kG1Bytes + 7, std::span(one), zkey);
  EXPECT_TRUE(contains(m, "section 5 (A points) at offset " + std::to_string(a_points + 3 * kG1Bytes))) << m;
  EXPECT_TRUE(contains(m, "A point 3")) << m;
  const uint64_t coefficients = section_offset("chain.zkey", "zkey", 2, 4);
  m = corrupted("chain.zkey", "zkey", 2, coefficients + 4 + 44 + 8, std::span(ff4), zkey);
  EXPECT_TRUE(contains(m, "section 4 (coefficients) at offset " + std::to_string(coefficients + 4 + 44 + 8))) << m;
  EXPECT_TRUE(contains(m, "coefficient 1")) << m;
  m = corrupted("chain.zkey", "zkey", 2, coefficients, std::span(ff4), zkey);
  EXPECT_TRUE(contains(m, "section 4 (coefficients)")) << m;
  // A domain size that disagrees with section 9's size.
  const uint64_t domain = header + 4 + 48 + 4 + 32 + 8;
  const uint8_t domain_1024[] = {0, 4, 0, 0};
  m = corrupted("chain.zkey", "zkey", 2, domain, std::span(domain_1024), zkey);
  EXPECT_TRUE(contains(m, "section 9 (H points)")) << m;
}

TEST(SnarkjsFiles, OtherCurvesAreRefused) {
  // BN254's scalar field r (bn128, circom's default prime), little-endian.
  ff::BigInt<4> bn254_r;
  ASSERT_TRUE(
      from_decimal("21888242871839275222246405745257275088548364400416034343698204186575808495617", bn254_r.limb));
  uint8_t bn254[32];
  for (size_t i = 0; i < 32; i++) bn254[i] = uint8_t(bn254_r.limb[i / 8] >> (8 * (i % 8)));
  const uint64_t r1cs_header = section_offset("chain.r1cs", "r1cs", 1, 1);
  std::string m =
      corrupted("chain.r1cs", "r1cs", 1, r1cs_header + 4, std::span(bn254), [](const BinaryFile& f) { parse_r1cs(f); });
  EXPECT_TRUE(contains(m, "not BLS12-381")) << m;
  EXPECT_TRUE(contains(m, "21888242871839275222246405745257275088548364400416034343698204186575808495617")) << m;
  EXPECT_TRUE(contains(m, "section 1 (header) at offset " + std::to_string(r1cs_header))) << m;
  const uint64_t wtns_header = section_offset("chain.wtns", "wtns", 2, 1);
  m = corrupted("chain.wtns", "wtns", 2, wtns_header + 4, std::span(bn254),
                [](const BinaryFile& f) { parse_witness(f); });
  EXPECT_TRUE(contains(m, "not BLS12-381")) << m;
  // A zkey whose base field is 32 bytes wide (bn128's q is).
  const uint64_t zkey_header = section_offset("chain.zkey", "zkey", 2, 2);
  const uint8_t n8_32[] = {32, 0, 0, 0};
  m = corrupted("chain.zkey", "zkey", 2, zkey_header, std::span(n8_32), [](const BinaryFile& f) { parse_zkey(f); });
  EXPECT_TRUE(contains(m, "not BLS12-381's base field q")) << m;
  // JSON documents of another curve.
  auto vk = nlohmann::json::parse(fixture_text("verification_key.json"));
  vk["curve"] = "bn128";
  m = format_error_of([&] { verifying_key_from_json(vk.dump(), "vk.json"); });
  EXPECT_TRUE(contains(m, ".curve")) << m;
  auto proof = nlohmann::json::parse(fixture_text("proof.json"));
  proof["curve"] = "bn128";
  m = format_error_of([&] { proof_from_json(proof.dump(), "proof.json"); });
  EXPECT_TRUE(contains(m, "bls12381")) << m;
}

// A point of E(Fp) (or E'(Fp2)) outside the prime-order subgroup.
template <class Affine, class Field, class InSubgroup>
Affine point_outside_subgroup(const Field& b, InSubgroup in_subgroup, Field x) {
  for (;;) {
    x = x + Field::one();
    Field y;
    if (!(x * x * x + b).sqrt(y)) continue;
    const Affine p{x, y};
    if (p.is_on_curve() && !in_subgroup(p)) return p;
  }
}

TEST(SnarkjsJson, PointsOffTheCurveOrOutsideTheSubgroupAreRefused) {
  const auto proof = nlohmann::json::parse(fixture_text("proof.json"));
  const auto vk = nlohmann::json::parse(fixture_text("verification_key.json"));
  std::string m;

  auto off_curve = proof;
  off_curve["pi_a"][1] = "5";
  m = format_error_of([&] { proof_from_json(off_curve.dump(), "proof.json"); });
  EXPECT_TRUE(contains(m, "proof.json: .pi_a: the point is not on the curve")) << m;
  auto off_curve_g2 = proof;
  off_curve_g2["pi_b"][0][1] = "5";
  m = format_error_of([&] { proof_from_json(off_curve_g2.dump(), "proof.json"); });
  EXPECT_TRUE(contains(m, ".pi_b: the point is not on the curve")) << m;

  const ec::G1Affine bad1 =
      point_outside_subgroup<ec::G1Affine>(ec::G1Curve::b(), ec::g1_is_in_subgroup, ff::Fp::from_u64(10));
  auto outside = proof;
  outside["pi_c"] = nlohmann::json::array({to_decimal(bad1.x), to_decimal(bad1.y), "1"});
  m = format_error_of([&] { proof_from_json(outside.dump(), "proof.json"); });
  EXPECT_TRUE(contains(m, ".pi_c: the G1 point is not in the prime-order subgroup")) << m;

  const ec::G2Affine bad2 = point_outside_subgroup<ec::G2Affine>(ec::G2Curve::b(), ec::g2_is_in_subgroup,
                                                                 ff::Fp2{ff::Fp::from_u64(3), ff::Fp::from_u64(1)});
  auto outside2 = vk;
  outside2["vk_delta_2"] = nlohmann::json::array({nlohmann::json::array({to_decimal(bad2.x.c0), to_decimal(bad2.x.c1)}),
                                                  nlohmann::json::array({to_decimal(bad2.y.c0), to_decimal(bad2.y.c1)}),
                                                  nlohmann::json::array({"1", "0"})});
  m = format_error_of([&] { verifying_key_from_json(outside2.dump(), "vk.json"); });
  EXPECT_TRUE(contains(m, "vk.json: .vk_delta_2: the G2 point is not in the prime-order subgroup")) << m;

  // The same point in a zkey's IC section.
  std::vector<uint8_t> zkey = fixture_bytes("chain.zkey");
  const uint64_t ic = section_offset("chain.zkey", "zkey", 2, 3);
  encode_g1(bad1, zkey.data() + ic + kG1Bytes);
  m = format_error_of([&] { parse_zkey(BinaryFile::parse(std::move(zkey), "chain.zkey", "zkey", 2)); });
  EXPECT_TRUE(contains(m, "section 3 (IC) at offset " + std::to_string(ic + kG1Bytes))) << m;
  EXPECT_TRUE(contains(m, "not in the prime-order subgroup")) << m;
}

std::vector<uint32_t> section_types(const BinaryFile& f) {
  std::vector<uint32_t> types;
  for (const SectionEntry& s : f.sections()) types.push_back(s.type);
  return types;
}

std::span<const uint8_t> section_bytes(const BinaryFile& f, uint32_t type) {
  const SectionEntry* s = f.find(type, "");
  EXPECT_NE(s, nullptr);
  return s ? f.bytes().subspan(s->offset, s->size) : std::span<const uint8_t>{};
}

groth16::ToxicWaste waste_from(std::mt19937_64& rng) {
  groth16::ToxicWaste w;
  for (Fr* x : {&w.tau, &w.alpha, &w.beta, &w.gamma, &w.delta}) *x = Fr::random(rng);
  return w;
}

// The setup from known toxic waste over the fixture's circuit gives snarkjs' own layout: the
// counts, the coefficient section byte for byte and the section order of snarkjs' chain.zkey; the
// file reads back with every point checked, and proves and verifies with snarkjs' witness.
TEST(SnarkjsSetup, KeyForTheFixtureCircuitHasSnarkjsLayoutAndProves) {
  auto rng = test::make_rng();
  const R1cs r1cs = read_r1cs(fixture("chain.r1cs"));
  const Zkey made = setup_from_toxic_waste(r1cs, waste_from(rng));
  const BinaryFile theirs = BinaryFile::parse(fixture_bytes("chain.zkey"), "chain.zkey", "zkey", 2);
  const Zkey snarkjs_key = parse_zkey(theirs);
  EXPECT_EQ(made.vars, snarkjs_key.vars);
  EXPECT_EQ(made.publics, snarkjs_key.publics);
  EXPECT_EQ(made.domain_size, snarkjs_key.domain_size);

  const BinaryFile ours = BinaryFile::parse(serialize_zkey(made), "made.zkey", "zkey", 2);
  EXPECT_EQ(section_types(ours), section_types(theirs));
  const std::span<const uint8_t> c_ours = section_bytes(ours, 4), c_theirs = section_bytes(theirs, 4);
  EXPECT_TRUE(std::equal(c_ours.begin(), c_ours.end(), c_theirs.begin(), c_theirs.end()))
      << "section 4 (coefficients) differs from snarkjs'";
  for (uint32_t type = 1; type <= 9; type++) {
    EXPECT_EQ(section_bytes(ours, type).size(), section_bytes(theirs, type).size()) << "section " << type;
  }

  const Zkey read_back = parse_zkey(ours);
  const std::vector<uint8_t> again = serialize_zkey(read_back);
  EXPECT_TRUE(std::equal(again.begin(), again.end(), ours.bytes().begin(), ours.bytes().end()));

  const std::vector<Fr> witness = read_witness(fixture("chain.wtns"));
  const VerifyingKey vk = verifying_key_from_zkey(read_back);
  std::vector<Fr> inputs = public_signals(read_back, witness);
  const Proof proof = make_cpu_prover()->prove(read_back, witness);
  EXPECT_TRUE(verify(vk, inputs, proof));
  inputs[1] += Fr::one();
  EXPECT_FALSE(verify(vk, inputs, proof));
  // snarkjs' key is another setup: the proof is not valid under its verification key.
  EXPECT_FALSE(verify(verifying_key_from_zkey(snarkjs_key), public_signals(read_back, witness), proof));
}

// The Chain(24) of the fixtures, generated without circom: the same .r1cs and .wtns bytes as
// circom and snarkjs wrote (inputs a=3, b=5, x=7 as in input.json); the witness satisfies it.
TEST(SnarkjsChain, GeneratedChainEqualsCircomsFiles) {
  const ChainCircuit c = make_chain_circuit(24, Fr::from_u64(3), Fr::from_u64(5), Fr::from_u64(7));
  EXPECT_EQ(serialize_r1cs(c.r1cs), fixture_bytes("chain.r1cs"));
  EXPECT_EQ(serialize_witness(c.witness), fixture_bytes("chain.wtns"));
  EXPECT_EQ(first_unsatisfied_constraint(c.r1cs, c.witness), std::nullopt);
  std::vector<Fr> bad = c.witness;
  bad[10] += Fr::one();
  EXPECT_NE(first_unsatisfied_constraint(c.r1cs, bad), std::nullopt);
  const ChainCircuit one = make_chain_circuit(1, Fr::from_u64(3), Fr::from_u64(5), Fr::from_u64(7));
  EXPECT_EQ(one.r1cs.wires, 5u);
  EXPECT_EQ(one.witness[1], Fr::from_u64(21));
  EXPECT_THROW(make_chain_circuit(0, Fr::one(), Fr::one(), Fr::one()), std::invalid_argument);
}

TEST(SnarkjsSetup, RefusesBadWaste) {
  const R1cs r1cs = read_r1cs(fixture("chain.r1cs"));
  auto rng = test::make_rng();
  groth16::ToxicWaste w = waste_from(rng);
  w.delta = Fr::zero();
  EXPECT_THROW(setup_from_toxic_waste(r1cs, w), std::invalid_argument);
  w = waste_from(rng);
  w.tau = OddCoset::snarkjs_root_of_unity(6).pow(uint64_t(3));  // a 64th root: the domain has 32 points
  EXPECT_THROW(setup_from_toxic_waste(r1cs, w), std::invalid_argument);
}

// A key whose digest is recorded skips the bulk subgroup checks; a changed byte is a new key,
// checked in full; a key that fails them is not recorded; a directory that cannot be written
// is reported, and the key is still read.
TEST(SnarkjsCheckedKeys, RemembersOnlyFullyCheckedFiles) {
  test::TempDir dir("cuzk-snarkjs-checked");
  const std::string keys = dir.path + "/keys";
  const std::string zkey_path = dir.path + "/chain.zkey";
  std::vector<uint8_t> bytes = fixture_bytes("chain.zkey");
  auto write = [&](const std::vector<uint8_t>& b) {
    std::ofstream(zkey_path, std::ios::binary)
        .write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
  };
  write(bytes);
  ZkeyReadOptions options;
  options.checked_keys_dir = keys;
  ZkeyReadReport first, second;
  const Zkey a = read_zkey(zkey_path, options, &first);
  EXPECT_FALSE(first.remembered);
  EXPECT_EQ(first.not_recorded, "");
  EXPECT_EQ(first.sha256, CheckedKeys::digest(bytes));
  EXPECT_TRUE(std::filesystem::is_regular_file(keys + "/" + first.sha256));
  const Zkey b = read_zkey(zkey_path, options, &second);
  EXPECT_TRUE(second.remembered);
  EXPECT_EQ(serialize_zkey(a), serialize_zkey(b));

  // An A point replaced by one on the curve but outside the subgroup: a new digest, so the full
  // checks run and refuse it, and nothing is recorded.
  const ec::G1Affine bad =
      point_outside_subgroup<ec::G1Affine>(ec::G1Curve::b(), ec::g1_is_in_subgroup, ff::Fp::from_u64(10));
  encode_g1(bad, bytes.data() + section_offset("chain.zkey", "zkey", 2, 5) + kG1Bytes);
  write(bytes);
  const std::string m = format_error_of([&] { read_zkey(zkey_path, options); });
  EXPECT_TRUE(contains(m, "section 5 (A points)") && contains(m, "not in the prime-order subgroup")) << m;
  EXPECT_FALSE(CheckedKeys(keys).contains(CheckedKeys::digest(bytes)));

  // A checked-keys "directory" that is a file: reported, the key still read.
  write(fixture_bytes("chain.zkey"));
  std::ofstream(dir.path + "/not-a-dir") << "x";
  options.checked_keys_dir = dir.path + "/not-a-dir";
  ZkeyReadReport third;
  read_zkey(zkey_path, options, &third);
  EXPECT_FALSE(third.remembered);
  EXPECT_TRUE(contains(third.not_recorded, "not-a-dir")) << third.not_recorded;
}

TEST(SnarkjsJson, MalformedDocumentsAreRefused) {
  const std::string proof = fixture_text("proof.json");
  std::string m = format_error_of([&] { proof_from_json(proof.substr(0, proof.size() / 2), "proof.json"); });
  EXPECT_TRUE(contains(m, "proof.json: not valid JSON at byte offset")) << m;
  auto j = nlohmann::json::parse(proof);
  j.erase("pi_c");
  m = format_error_of([&] { proof_from_json(j.dump(), "proof.json"); });
  EXPECT_TRUE(contains(m, ".pi_c: missing")) << m;
  j = nlohmann::json::parse(proof);
  j["pi_a"][0] =
      "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559"
      "788";
  m = format_error_of([&] { proof_from_json(j.dump(), "proof.json"); });  // q + 1
  EXPECT_TRUE(contains(m, ".pi_a[0]")) << m;
  m = format_error_of([&] { public_signals_from_json("[\"1\", \"x\"]", "public.json"); });
  EXPECT_TRUE(contains(m, "public.json: [1]")) << m;
  m = format_error_of([&] {
    public_signals_from_json("[\"52435875175126190479447740508185965837690552500527637822603658699938581184513\"]",
                             "public.json");
  });  // r
  EXPECT_TRUE(contains(m, "below the field modulus")) << m;
  auto vk = nlohmann::json::parse(fixture_text("verification_key.json"));
  vk["nPublic"] = 7;
  m = format_error_of([&] { verifying_key_from_json(vk.dump(), "vk.json"); });
  EXPECT_TRUE(contains(m, ".nPublic")) << m;
}

}  // namespace
}  // namespace cuzk::snarkjs
