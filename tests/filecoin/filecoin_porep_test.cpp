// A real Commit1 output end to end on the CPU: the 8 MiB sector in ../shared/testdata (written by
// filecoin-proofs-api) passes the native check, its circuit has every constraint satisfied and
// its public inputs are the ones the verifier computes; one flipped byte of a label, a Merkle
// sibling, comm_r or the seed is refused with a message naming what does not hold.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include "filecoin/porep/challenges.hpp"
#include "filecoin/porep/circuit.hpp"
#include "filecoin/porep/commit1.hpp"
#include "filecoin/porep/commit1_check.hpp"
#include "filecoin/porep/public_inputs.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/shape.hpp"
#include "serial_only_cs.hpp"
#include "test_support.hpp"

namespace cuzk::filecoin {
namespace {

struct RealC1 {
  SealCommitPhase1Output c1;
  SealCommitIdentity identity;
};

// The real 8 MiB C1 and its prover and sector (from its .meta.json); nullopt when absent.
std::optional<RealC1> load_real_c1() {
  const std::filesystem::path dir = std::filesystem::path(test::testdata_dir()) / "filecoin" / "porep";
  const auto json = dir / "c1-8MiB-StackedDrg8MiBV1_1.json", meta = dir / "c1-8MiB-StackedDrg8MiBV1_1.meta.json";
  if (!std::filesystem::exists(json) || !std::filesystem::exists(meta)) return std::nullopt;
  RealC1 r{read_seal_commit_phase1_file(json), {}};
  const auto m = nlohmann::json::parse(std::ifstream(meta));
  r.identity.prover_id = test::bytes32_from_hex(m.at("prover_id_hex").get<std::string>());
  r.identity.sector_id = m.at("sector_id").get<uint64_t>();
  return r;
}

#define LOAD_REAL_C1_OR_SKIP(var)                                                 \
  auto var##_opt = load_real_c1();                                                \
  if (!var##_opt) GTEST_SKIP() << "no ../shared/testdata/filecoin/porep C1 file"; \
  auto& var = *var##_opt

TEST(FilecoinPoRepTest, RealCommit1PassesTheNativeCheck) {
  LOAD_REAL_C1_OR_SKIP(real);
  EXPECT_EQ(real.identity.prover_id, prover_id_from_actor_id(1006));
  EXPECT_NO_THROW(check_seal_commit_phase1(real.c1, real.identity));
  EXPECT_NO_THROW(check_seal_commit_phase1(real.c1));
  SealCommitIdentity other = real.identity;
  other.sector_id++;
  EXPECT_THROW(check_seal_commit_phase1(real.c1, other), SealCommitCheckError);
}

// The error message of the check, or "" when it passes.
std::string check_message(const SealCommitPhase1Output& c1) {
  try {
    check_seal_commit_phase1(c1);
  } catch (const SealCommitCheckError& e) {
    return e.what();
  }
  return "";
}

void flip_byte(Fr& x, size_t byte) {
  uint8_t b[32];
  x.to_bytes_le(b);
  b[byte] ^= 0x01;
  ASSERT_TRUE(Fr::from_bytes_le(b, x));
}

TEST(FilecoinPoRepTest, FlippedBytesAreRefusedByName) {
  LOAD_REAL_C1_OR_SKIP(real);
  {
    auto c1 = real.c1;  // a label of the challenged column
    flip_byte(c1.vanilla_proofs[0][1].replica_column_proofs.c_x.column.rows[0], 5);
    EXPECT_NE(check_message(c1).find("challenge 1 (node 237493) challenged column: the column's labels do not hash"),
              std::string::npos)
        << check_message(c1);
  }
  {
    // A label of a parent as the last layer's labeling proof holds it (each repetition, and the
    // encoding proof's copy): consistent in itself, but not the parent column's.
    auto c1 = real.c1;
    auto& proof = c1.vanilla_proofs[0][0];
    for (size_t j = 3; j < 37; j += 14) {
      flip_byte(proof.labeling_proofs[1].parents[j], 0);
      flip_byte(proof.encoding_proof.parents[j], 0);
    }
    EXPECT_NE(check_message(c1).find("layer 2: parent label 3 of the labeling proof is not the parent column's"),
              std::string::npos)
        << check_message(c1);
  }
  {
    auto c1 = real.c1;  // a Merkle sibling in tree D
    flip_byte(c1.vanilla_proofs[0][0].comm_d_proofs.base[4].hashes[0], 9);
    EXPECT_NE(check_message(c1).find("challenge 0 (node 151786) tree D (comm_d) proof: the path from the leaf reaches"),
              std::string::npos)
        << check_message(c1);
  }
  {
    auto c1 = real.c1;  // a Merkle sibling in tree R
    flip_byte(c1.vanilla_proofs[0][1].comm_r_last_proof.base[2].hashes[6], 1);
    EXPECT_NE(check_message(c1).find("tree R (comm_r_last) proof: the path from the leaf reaches"), std::string::npos)
        << check_message(c1);
  }
  {
    auto c1 = real.c1;
    c1.comm_r[7] ^= 1;
    EXPECT_NE(check_message(c1).find("is not Poseidon(comm_c, comm_r_last)"), std::string::npos) << check_message(c1);
  }
  {
    auto c1 = real.c1;
    c1.seed[0] ^= 1;
    EXPECT_NE(check_message(c1).find("but the challenge derived from the seed is node"), std::string::npos)
        << check_message(c1);
  }
  {
    auto c1 = real.c1;  // as filecoin-proofs' Commit2 refuses it
    c1.seed.fill(0);
    EXPECT_NE(check_message(c1).find("the seed is zero"), std::string::npos) << check_message(c1);
  }
  {
    auto c1 = real.c1;  // built in memory, never read: the structure is checked too
    c1.vanilla_proofs[0][1].comm_d_proofs.base.pop_back();
    EXPECT_NE(check_message(c1).find("[0][1].comm_d_proofs.data.Single.path.path: 17 levels, expected 18"),
              std::string::npos)
        << check_message(c1);
  }
}

// The circuit of the real sector: every constraint holds, and its public inputs are the
// verifier's (from comm_r, comm_d, replica_id and the seed alone); a changed comm_r breaks exactly
// the comm_r constraint.
TEST(FilecoinPoRepTest, RealCommit1SatisfiesTheCircuit) {
  LOAD_REAL_C1_OR_SKIP(real);
  const SealProofInfo& info = seal_proof_info(real.c1.registered_proof);
  const StackedBucketGraph graph(info);
  Bytes32 replica_id;
  real.c1.replica_id.to_bytes_le(replica_id.data());
  const auto inputs =
      porep_public_inputs(info, graph, replica_id, real.c1.comm_d, real.c1.comm_r, real.c1.seed, /*k=*/0);
  ASSERT_EQ(inputs.size(), 3 + 18 * info.challenges_per_partition);
  r1cs::TestChecker cs;
  StackedCircuit::from_commit_phase1(real.c1, 0).synthesize(cs);
  EXPECT_TRUE(cs.is_satisfied()) << *cs.first_unsatisfied();
  ASSERT_EQ(cs.inputs().size(), inputs.size() + 1);
  for (size_t i = 0; i < inputs.size(); i++) EXPECT_EQ(cs.inputs()[i + 1], inputs[i]) << "input " << i;

  auto bad = real.c1;
  bad.comm_r[3] ^= 1;
  r1cs::TestChecker bad_cs;
  StackedCircuit::from_commit_phase1(bad, 0).synthesize(bad_cs);
  ASSERT_FALSE(bad_cs.is_satisfied());
  EXPECT_EQ(bad_cs.first_unsatisfied()->rfind("enforce comm_r = H(comm_c || comm_r_last)", 0), 0u)
      << *bad_cs.first_unsatisfied();
}

// FNV-1a over a, b, c, aux, the inputs and the density bits of an assignment.
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
    for (uint64_t w : d->words()) word(w);
  }
  return h;
}

// The real sector's proving assignment, bit for bit: the digest was taken before the synthesis
// was optimised (the gadgets' packing and evaluation shortcuts must not change a value).
TEST(FilecoinPoRepTest, RealCommit1AssignmentIsFixed) {
  LOAD_REAL_C1_OR_SKIP(real);
  r1cs::ProvingAssignment pa;
  StackedCircuit::from_commit_phase1(real.c1, 0).synthesize(pa);
  EXPECT_EQ(pa.num_constraints(), 3844929u);
  EXPECT_EQ(digest(pa), 0x5836ea52dd1fea22ull) << std::hex << digest(pa);
}

// The witness-only path (issue 40) on a sector Filecoin's software sealed: the compiled circuit
// times the witness-only synthesis' aux and inputs gives the full synthesis' a, b and c, with the
// same aux, inputs and densities (serially and in parallel sections).
TEST(FilecoinPoRepTest, RealCommit1WitnessPathEqualsFullSynthesis) {
  LOAD_REAL_C1_OR_SKIP(real);
  test::expect_witness_path_equals_full(StackedCircuit::from_commit_phase1(real.c1, 0));
}

}  // namespace
}  // namespace cuzk::filecoin
