// PoRep Commit2 end to end on the CPU (label slow: each parameter set is a setup at 2^22 the first
// time, minutes on two cores, then cached in the build tree, by the params_porep fixture): generated
// sectors prove and verify against the public inputs computed from comm_r, comm_d, replica_id
// (recomputed from the miner and sector) and the seed, and fail with another seed. The real 8 MiB
// Commit1 output is proved against Filecoin's published parameters and verifying key when the
// parameter cache ($FIL_PROOFS_PARAMETER_CACHE) has them; with TEST parameters only with
// CUZK_PROVE_REAL_8MIB=1, since curio_interop proves that Commit1 with them in every run. The real
// seal proofs of rust-fil-proofs' regression records verify with the published keys (skipped when
// absent).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include <gtest/gtest.h>

#include "ff/os_rng.hpp"
#include "filecoin/generators/test_sector.hpp"
#include "filecoin/parameter_files.hpp"
#include "filecoin/porep/challenges.hpp"
#include "filecoin/porep/circuit.hpp"
#include "filecoin/porep/commit1.hpp"
#include "filecoin/porep/parameters.hpp"
#include "filecoin/porep/verify.hpp"
#include "groth16/param_file.hpp"
#include "groth16/prover.hpp"
#include "groth16/verifier.hpp"
#include "r1cs/shape.hpp"
#include "test_support.hpp"

namespace cuzk::filecoin {
namespace {

std::filesystem::path params_cache() {
  if (const char* dir = std::getenv("CUZK_PARAMS_CACHE")) return dir;
  return CUZK_TEST_PARAMS_CACHE;
}

// Filecoin's published files where this machine has them, else the fixtures' TEST setups.
ParameterSearch test_search() {
  ParameterSearch search;
  search.test_dir = params_cache();
  search.allow_test = true;
  return search;
}

ParameterLoadOptions logged() {
  ParameterLoadOptions o;
  o.log = [](const std::string& s) { std::fprintf(stderr, "%s\n", s.c_str()); };
  return o;
}

std::vector<uint8_t> prove_all(const groth16::Parameters& params, const SealCommitPhase1Output& c1) {
  const SealProofInfo& info = seal_proof_info(c1.registered_proof);
  std::vector<groth16::Proof> proofs;
  for (size_t k = 0; k < info.partitions; k++) {
    proofs.push_back(groth16::prove(params, StackedCircuit::from_commit_phase1(c1, k)));
  }
  return groth16::encode_proofs(proofs);
}

TEST(FilecoinProveTest, Real8MiBCommit1ProvesAndVerifies) {
  const auto dir = std::filesystem::path(test::testdata_dir()) / "filecoin" / "porep";
  const auto json = dir / "c1-8MiB-StackedDrg8MiBV1_1.json", meta_path = dir / "c1-8MiB-StackedDrg8MiBV1_1.meta.json";
  if (!std::filesystem::exists(json) || !std::filesystem::exists(meta_path)) GTEST_SKIP() << "no real C1 file";
  const SealCommitPhase1Output c1 = read_seal_commit_phase1_file(json);
  const auto meta = nlohmann::json::parse(std::ifstream(meta_path));
  const SealProofInfo& info = seal_proof_info(c1.registered_proof);
  const FoundParameters p = load_porep_parameters(info, test_search(), logged());
  if (!p.published && !std::getenv("CUZK_PROVE_REAL_8MIB")) {
    GTEST_SKIP() << "no published 8 MiB parameters: curio_interop proves this Commit1 with the TEST ones "
                    "(CUZK_PROVE_REAL_8MIB=1 proves it here too)";
  }
  const auto proof = prove_all(p.params, c1);
  ASSERT_EQ(proof.size(), 192u);
  const groth16::PreparedVerifyingKey pvk(p.params.vk);
  SealVerifyInputs in;
  in.prover_id = test::bytes32_from_hex(meta.at("prover_id_hex").get<std::string>());
  in.sector_id = meta.at("sector_id").get<uint64_t>();
  in.ticket = c1.ticket;
  in.seed = c1.seed;
  in.comm_r = c1.comm_r;
  in.comm_d = c1.comm_d;
  EXPECT_TRUE(verify_seal(pvk, info, in, proof));
  auto other = in;
  other.seed[4] ^= 1;
  EXPECT_FALSE(verify_seal(pvk, info, other, proof));
  other = in;
  other.comm_r[2] ^= 1;
  EXPECT_FALSE(verify_seal(pvk, info, other, proof));
  other = in;
  other.sector_id++;
  EXPECT_FALSE(verify_seal(pvk, info, other, proof));
  auto tampered = proof;
  tampered[100] ^= 1;  // inside B: either not a point, or another one
  bool rejected = true;
  try {
    rejected = !verify_seal(pvk, info, in, tampered);
  } catch (const std::invalid_argument&) {
  }
  EXPECT_TRUE(rejected);
  // With Filecoin's published files, the proof also verifies against the published .vk.
  if (p.published) {
    if (auto vk = ParameterSearch{}.find_published(porep_parameter_id(info).vk_name())) {
      EXPECT_TRUE(
          verify_seal(groth16::PreparedVerifyingKey(groth16::read_verifying_key(vk->string())), info, in, proof));
    }
  }
}

// A generated sector's circuits, partition by partition: every constraint holds for the sector's
// witness, and the inputs it allocates are the verifier's (seal_public_inputs, from the prover id,
// sector id, ticket, seed, comm_r and comm_d), and not those of another seed. That is what the
// verification of a proof of it rests on; the Groth16 proof itself is made for the other sectors.
void expect_generated_sector_satisfies_the_verifiers_inputs(RegisteredSealProof proof) {
  const SealProofInfo& info = seal_proof_info(proof);
  TestSectorOptions o;
  o.miner_actor_id = 1234;
  o.sector_id = 8;
  o.data = SectorData::kRandom;
  o.rng_seed = test::run_seed() + 1;
  for (size_t i = 0; i < 31; i++) o.ticket[i] = uint8_t(i * 3 + 2), o.seed[i] = uint8_t(i * 11 + 5);
  const TestSector s = generate_test_sector(info, o);
  SealVerifyInputs in{s.prover_id, s.sector_id, s.c1.ticket, s.c1.seed, s.comm_r, s.comm_d};
  const auto inputs = seal_public_inputs(info, in);
  // Another seed whose challenges differ (with 64 nodes a changed seed may select the same ones).
  SealVerifyInputs other = in;
  for (uint8_t flip = 1; seal_public_inputs(info, other) == inputs; flip++) {
    ASSERT_NE(flip, 0) << "no seed of 255 changes the challenges";
    other.seed = in.seed;
    other.seed[0] ^= flip;
  }
  const auto other_seed = seal_public_inputs(info, other);
  ASSERT_EQ(inputs.size(), info.partitions) << info.name;
  for (size_t k = 0; k < info.partitions; k++) {
    r1cs::TestChecker cs;
    StackedCircuit::from_commit_phase1(s.c1, k).synthesize(cs);
    EXPECT_TRUE(cs.is_satisfied()) << info.name << " partition " << k << ": " << *cs.first_unsatisfied();
    const std::vector<ff::Fr> allocated(cs.inputs().begin() + 1, cs.inputs().end());  // after ONE
    EXPECT_EQ(allocated, inputs[k]) << info.name << " partition " << k;
    EXPECT_NE(allocated, other_seed[k]) << info.name << " partition " << k;
  }
}

// Generated test sectors (filecoin/generators/test_sector.hpp), sealed for real, prove and verify.
void expect_generated_sectors_prove_and_verify(std::initializer_list<RegisteredSealProof> proofs) {
  for (auto proof : proofs) {
    const SealProofInfo& info = seal_proof_info(proof);
    TestSectorOptions o;
    o.miner_actor_id = 1234;
    o.sector_id = 7;
    o.data = SectorData::kRandom;
    o.rng_seed = test::run_seed();
    for (size_t i = 0; i < 31; i++) o.ticket[i] = uint8_t(i * 7 + 1), o.seed[i] = uint8_t(i * 5 + 3);
    const TestSector s = generate_test_sector(info, o);
    const FoundParameters p = load_porep_parameters(info, test_search(), logged());
    const auto proof_bytes = prove_all(p.params, s.c1);
    SealVerifyInputs in{s.prover_id, s.sector_id, s.c1.ticket, s.c1.seed, s.comm_r, s.comm_d};
    const groth16::PreparedVerifyingKey pvk(p.params.vk);
    EXPECT_TRUE(verify_seal(pvk, info, in, proof_bytes)) << info.name;
    // Another seed: one whose challenges differ (a 2 KiB sector has 64 nodes, so a changed seed
    // selects the same synthetic challenges now and then, and then the same proof is valid).
    const auto inputs = seal_public_inputs(info, in);
    SealVerifyInputs other = in;
    for (uint8_t flip = 1; seal_public_inputs(info, other) == inputs; flip++) {
      ASSERT_NE(flip, 0) << "no seed of 255 changes the challenges";
      other.seed = in.seed;
      other.seed[0] ^= flip;
    }
    EXPECT_FALSE(verify_seal(pvk, info, other, proof_bytes)) << info.name;
  }
}

// 2 KiB with synthetic challenges proves and verifies (interactive V1_1 sectors are proved by
// EnginePoRepTest and curio_interop); V1_1 and V1 (the V1_0_0 parent order, which every size has:
// the predecessor's position among the base parents) satisfy their circuits with the verifier's
// inputs.
TEST(FilecoinProveTest, GeneratedSectorsProveAndVerify) {
  expect_generated_sectors_prove_and_verify({RegisteredSealProof::kStackedDrg2KiBV1_1_Feat_SyntheticPoRep});
  expect_generated_sector_satisfies_the_verifiers_inputs(RegisteredSealProof::kStackedDrg2KiBV1_1);
  expect_generated_sector_satisfies_the_verifiers_inputs(RegisteredSealProof::kStackedDrg2KiBV1);
}

// The V1 order at 8 MiB (a real 8 MiB seal, then a proof with the 8 MiB TEST parameters the real
// Commit1's test shares): about two minutes on 2 cores, so outside CI, which proves the real
// 8 MiB Commit1 above. Run it with --gtest_also_run_disabled_tests.
TEST(FilecoinProveTest, DISABLED_Generated8MiBV1SectorProvesAndVerifies) {
  expect_generated_sectors_prove_and_verify({RegisteredSealProof::kStackedDrg8MiBV1});
}

// rust-fil-proofs' seal regression records (real proofs of every version, made under arbitrary
// porep_ids), verified with the published verifying keys when the parameter cache has them.
TEST(FilecoinProveTest, RegressionRecordsVerifyWithPublishedKeys) {
  const auto dir = std::filesystem::path(test::testdata_dir()) / "filecoin" / "porep";
  size_t verified = 0, skipped_ni = 0, no_key = 0;
  for (const char* name : {"seal_regression_records-v16.json", "seal_regression_records-v18.json"}) {
    std::ifstream in(dir / name);
    if (!in) continue;
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      const auto r = nlohmann::json::parse(line);
      const auto& cfg = r.at("porep_config");
      const uint64_t size = cfg.at("sector_size").get<uint64_t>();
      const auto features = cfg.at("api_features").get<std::vector<std::string>>();
      if (!features.empty() && features[0] == "NonInteractivePoRep") {
        skipped_ni++;  // SnarkPack aggregates
        continue;
      }
      const auto vk_path = ParameterSearch{}.find_published(porep_parameter_id(size).vk_name());
      if (!vk_path) {
        no_key++;
        continue;
      }
      // The registered proof of the size, under the record's porep_id, API version and feature.
      SealProofInfo info =
          seal_proof_info(std::string("StackedDrg") + std::string(seal_proof_info_by_id(0).sector_size_name()) + "V1");
      for (const auto& i : seal_proofs()) {
        if (i.sector_size == size && i.api_version == ApiVersion::kV1_1_0) info = i;
      }
      const std::string api = cfg.at("api_version").get<std::string>();
      info.api_version = api == "V1_0_0"   ? ApiVersion::kV1_0_0
                         : api == "V1_1_0" ? ApiVersion::kV1_1_0
                                           : ApiVersion::kV1_2_0;
      info.feature = features.empty() ? SealFeature::kInteractive : SealFeature::kSynthetic;
      const auto porep_id = cfg.at("porep_id").get<std::vector<uint8_t>>();
      std::copy(porep_id.begin(), porep_id.end(), info.porep_id_bytes.begin());
      SealVerifyInputs v;
      auto bytes32 = [&](const char* key) {
        Bytes32 b{};
        const auto x = r.at(key).get<std::vector<uint8_t>>();
        std::copy(x.begin(), x.end(), b.begin());
        return b;
      };
      v.prover_id = bytes32("prover_id");
      v.sector_id = r.at("sector_id").get<uint64_t>();
      v.ticket = bytes32("ticket");
      v.seed = bytes32("seed");
      v.comm_r = bytes32("comm_r");
      v.comm_d = bytes32("comm_d");
      const auto proof = r.at("proof").get<std::vector<uint8_t>>();
      const groth16::PreparedVerifyingKey pvk(groth16::read_verifying_key(vk_path->string()));
      EXPECT_TRUE(verify_seal(pvk, info, v, proof)) << name << " sector " << v.sector_id;
      v.seed[0] ^= 1;
      EXPECT_FALSE(verify_seal(pvk, info, v, proof)) << name << " sector " << v.sector_id;
      verified++;
    }
  }
  std::fprintf(stderr, "regression records: %zu verified, %zu without a published key here, %zu NI (aggregates)\n",
               verified, no_key, skipped_ni);
  if (verified == 0) GTEST_SKIP() << "no published PoRep .vk in " << ParameterSearch{}.describe();
}

}  // namespace
}  // namespace cuzk::filecoin
