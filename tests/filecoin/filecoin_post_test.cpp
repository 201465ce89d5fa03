// The FallbackPoSt circuit (WinningPoSt and WindowPoSt): its shape against rust-fil-proofs'
// published counts (storage-proofs-post tests/fallback_circuit.rs and a 32 GiB WindowPoSt
// partition), the registered PoSt proofs, and satisfaction with the verifier's public inputs over
// the four real 2 KiB presealed sectors (tree R rebuilt from each sealed replica) and over
// generated trees, refused when a path element, a leaf or comm_r is tampered.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "filecoin/common/merkle_tree.hpp"
#include "filecoin/generators/post_vanilla_prover.hpp"
#include "filecoin/generators/sparse_post_sector.hpp"
#include "filecoin/parameter_files.hpp"
#include "filecoin/post/challenges.hpp"
#include "filecoin/post/circuit.hpp"
#include "filecoin/post/public_inputs.hpp"
#include "filecoin/post/registered_proofs.hpp"
#include "filecoin/post/vanilla_proof.hpp"
#include "gadgets/hashers.hpp"
#include "groth16/param_file.hpp"
#include "groth16/verifier.hpp"
#include "post_vanilla.hpp"
#include "r1cs/proving_assignment.hpp"
#include "r1cs/shape.hpp"
#include "serial_only_cs.hpp"
#include "test_support.hpp"

namespace cuzk::filecoin {
namespace {

using gadgets::PorTreeShape;
using gadgets::TreeHasher;
constexpr TreeHasher P = TreeHasher::kPoseidon;

FallbackPoStParams test_params(PorTreeShape tree, size_t sectors, size_t challenges, ApiVersion v) {
  FallbackPoStParams p;
  p.tree_r = tree;
  p.sector_size = tree.leaves() * 32;
  p.sector_count = sectors;
  p.challenge_count = challenges;
  p.api_version = v;
  return p;
}

r1cs::ShapeCounter::Counts count(const FallbackPoStParams& p) {
  r1cs::ShapeCounter cs;
  FallbackPoStCircuit::blank(p).synthesize(cs);
  return cs.counts();
}

TEST(FilecoinPostTest, RegisteredPoStProofs) {
  ASSERT_EQ(post_proofs().size(), kRegisteredPoStProofs);
  for (size_t id = 0; id < kRegisteredPoStProofs; id++) EXPECT_EQ(post_proof_info_by_id(id).id(), id);
  const auto& win = post_proof_info("StackedDrgWinning32GiBV1");
  EXPECT_EQ(win.id(), 3u);
  EXPECT_EQ(win.type, PoStType::kWinning);
  EXPECT_EQ(win.params.sector_count, 66u);
  EXPECT_EQ(win.params.challenge_count, 1u);
  EXPECT_EQ(win.params.api_version, ApiVersion::kV1_0_0);
  const auto& w32 = post_proof_info("StackedDrgWindow32GiBV1_2");
  EXPECT_EQ(w32.id(), 13u);
  EXPECT_EQ(w32.params.sector_count, 2349u);
  EXPECT_EQ(w32.params.challenge_count, 10u);
  EXPECT_EQ(w32.params.api_version, ApiVersion::kV1_2_0);
  EXPECT_EQ(w32.params.tree_r.sub_arity, 8u);
  EXPECT_EQ(post_proof_info("StackedDrgWindow32GiBV1").params.api_version, ApiVersion::kV1_0_0);
  EXPECT_EQ(post_proof_info(RegisteredPoStProof::kStackedDrgWindow64GiBV1).params.sector_count, 2300u);
  EXPECT_EQ(post_proof_info(RegisteredPoStProof::kStackedDrgWindow64GiBV1).params.tree_r.top_arity, 2u);
  EXPECT_EQ(post_proof_info(RegisteredPoStProof::kStackedDrgWindow2KiBV1_2).params.sector_count, 2u);
  for (const auto& i : post_proofs()) {
    EXPECT_NO_THROW(i.params.validate()) << i.name;
    // The parameter file identifier's numbers are the circuit's.
    const ParameterId id = i.type == PoStType::kWinning ? winning_post_parameter_id(i.params.sector_size)
                                                        : window_post_parameter_id(i.params.sector_size);
    EXPECT_NE(id.identifier.find("challenge_count: " + std::to_string(i.params.challenge_count) +
                                 ", sector_count: " + std::to_string(i.params.sector_count) + "}"),
              std::string::npos)
        << i.name << ": " << id.identifier;
  }
  EXPECT_EQ(post_proof_info_by_id(5).params.partitions(5), 3u);
  EXPECT_THROW(post_proof_info_by_id(15), std::invalid_argument);
  EXPECT_THROW(post_proof_info("StackedDrgWindow1KiBV1"), std::invalid_argument);
}

// storage-proofs-post tests/fallback_circuit.rs: 64 leaves per base tree, 5 challenges, Poseidon
// trees base-8 / 8-4 / 8-4-2, 3 or 2 sectors per partition; and its BenchCS count of a 32 GiB
// base-8 tree with 5 sectors of 10 challenges.
TEST(FilecoinPostTest, FallbackTestCircuitCountsOfRustFilProofs) {
  struct Case {
    PorTreeShape tree;
    size_t sectors, challenges, inputs, constraints;
  };
  const Case cases[] = {
      {{P, 8, 2, 0, 0}, 3, 5, 19, 16869}, {{P, 8, 2, 0, 0}, 2, 5, 13, 11246},    {{P, 8, 2, 4, 0}, 3, 5, 19, 22674},
      {{P, 8, 2, 4, 2}, 3, 5, 19, 27384}, {{P, 8, 10, 0, 0}, 5, 10, 56, 266665},
  };
  for (const Case& c : cases) {
    const auto n = count(test_params(c.tree, c.sectors, c.challenges, ApiVersion::kV1_1_0));
    EXPECT_EQ(n.constraints, c.constraints) << c.tree.name() << " x" << c.sectors;
    EXPECT_EQ(n.inputs, c.inputs) << c.tree.name() << " x" << c.sectors;
    EXPECT_EQ(n.cancelled, 0u) << c.tree.name();
  }
}

// A 32 GiB WindowPoSt partition (PR #1325's circuitinfo: 125,279,217 constraints, 25,840 inputs),
// counted as 2,349 times one sector (sectors are independent and of one shape; checked on three),
// so that no 125 M-constraint synthesis runs in a unit test. Every registered proof's partition
// is counted the same way.
TEST(FilecoinPostTest, WindowPoSt32GiBPartitionCounts) {
  const FallbackPoStParams full = post_proof_info(RegisteredPoStProof::kStackedDrgWindow32GiBV1_2).params;
  FallbackPoStParams one = full, three = full;
  one.sector_count = 1;
  three.sector_count = 3;
  const auto c1 = count(one), c3 = count(three);
  EXPECT_EQ(c1.cancelled, 0u);
  EXPECT_EQ(c3.constraints, 3 * c1.constraints);
  EXPECT_EQ(c3.inputs - 1, 3 * (c1.inputs - 1));
  EXPECT_EQ(c3.aux, 3 * c1.aux);
  EXPECT_EQ(c1.inputs - 1, 11u);
  EXPECT_EQ(uint64_t(c1.constraints) * full.sector_count, 125279217u);
  EXPECT_EQ(1 + (c1.inputs - 1) * full.sector_count, 25840u);
  for (const auto& i : post_proofs()) {
    FallbackPoStParams p1 = i.params;
    p1.sector_count = 1;
    const auto c = count(p1);
    EXPECT_EQ(c.inputs - 1, 1 + i.params.challenge_count) << i.name;
    // Sector counts of the published circuits, for the record.
    RecordProperty(std::string(i.name), std::to_string(uint64_t(c.constraints) * i.params.sector_count));
  }
}

// ---- satisfaction ----

using test::post::fr_from_hex;

struct TestSector {
  uint64_t id = 0;
  Fr comm_r, comm_c;
  std::unique_ptr<MerkleTree> tree;
};

// The vanilla proof of one sector as fallback/vanilla.rs makes it: an opening per challenge.
FallbackPoStSectorWitness sector_witness(const FallbackPoStParams& p, const TestSector& s, const Bytes32& randomness,
                                         size_t sector_index) {
  PoStSectorProof proof;
  proof.comm_c = s.comm_c;
  proof.comm_r_last = s.tree->root();
  for (uint64_t leaf : fallback_post_leaf_challenges(p, randomness, s.id, sector_index)) {
    proof.inclusion_proofs.push_back(s.tree->proof(leaf));
    EXPECT_TRUE(merkle_proof_valid(p.tree_r, proof.inclusion_proofs.back(), leaf));
  }
  return FallbackPoStSectorWitness::from_vanilla(s.comm_r, proof);
}

// Every partition of `sectors` satisfies the circuit with the verifier's public inputs.
void check_partitions(const FallbackPoStParams& p, const std::vector<const TestSector*>& sectors,
                      const Bytes32& randomness) {
  std::vector<PoStPublicSector> pub;
  std::vector<FallbackPoStSectorWitness> ws;
  for (size_t i = 0; i < sectors.size(); i++) {
    pub.push_back({sectors[i]->id, sectors[i]->comm_r});
    ws.push_back(sector_witness(p, *sectors[i], randomness, i));
  }
  for (size_t k = 0; k < p.partitions(sectors.size()); k++) {
    const auto circuit = FallbackPoStCircuit::partition(p, ws, k);
    r1cs::TestChecker cs;
    circuit.synthesize(cs);
    ASSERT_TRUE(cs.is_satisfied()) << "partition " << k << ": " << *cs.first_unsatisfied();
    const auto expected = fallback_post_public_inputs(p, randomness, pub, k);
    ASSERT_EQ(cs.inputs().size(), expected.size() + 1);
    for (size_t i = 0; i < expected.size(); i++) EXPECT_EQ(cs.inputs()[i + 1], expected[i]) << "input " << i;
  }
}

// A tampered witness leaves some constraint unsatisfied.
void expect_unsatisfied(const FallbackPoStCircuit& c, const char* what) {
  r1cs::TestChecker cs;
  c.synthesize(cs);
  EXPECT_FALSE(cs.is_satisfied()) << what;
}

void check_tampering(const FallbackPoStParams& p, const FallbackPoStSectorWitness& w) {
  {
    auto t = w;
    t.paths[0].siblings[0][3] += Fr::one();
    expect_unsatisfied(FallbackPoStCircuit::partition(p, std::vector{t}, 0), "path element");
  }
  {
    auto t = w;
    t.paths.back().siblings.back().back() += Fr::one();
    expect_unsatisfied(FallbackPoStCircuit::partition(p, std::vector{t}, 0), "top path element");
  }
  {
    auto t = w;
    t.leafs[0] += Fr::one();
    expect_unsatisfied(FallbackPoStCircuit::partition(p, std::vector{t}, 0), "leaf");
  }
  {
    auto t = w;
    t.comm_r += Fr::one();
    expect_unsatisfied(FallbackPoStCircuit::partition(p, std::vector{t}, 0), "comm_r");
  }
  {
    auto t = w;
    t.comm_c += Fr::one();
    expect_unsatisfied(FallbackPoStCircuit::partition(p, std::vector{t}, 0), "comm_c");
  }
}

Bytes32 test_randomness(std::mt19937_64& rng) {
  Bytes32 r{};
  for (auto& b : r) b = uint8_t(rng());
  r[31] &= 0x3f;
  return r;
}

// The four real 2 KiB sectors of lotus-seed: tree R rebuilt from each sealed replica has the
// stored comm_r_last, Poseidon(comm_c, comm_r_last) is the stored comm_r; WindowPoSt (V1 and V1_2,
// one partition of a miner's 2 sectors, and one padded from a single sector) and WinningPoSt over
// them satisfy the circuit with the verifier's inputs.
TEST(FilecoinPostTest, Preseal2KiBSectorsSatisfyTheCircuit) {
  const std::string dir = test::testdata_dir() + "/filecoin/post/preseal-2KiB";
  if (!std::filesystem::exists(dir + "/sectors.json")) GTEST_SKIP() << "no " << dir;
  const auto j = nlohmann::json::parse(std::ifstream(dir + "/sectors.json"));
  const PorTreeShape tree_r = post_proof_info(RegisteredPoStProof::kStackedDrgWindow2KiBV1_2).params.tree_r;
  std::vector<std::vector<TestSector>> miners;
  for (const auto& m : j.at("miners")) {
    const std::string miner = m.at("miner");
    miners.emplace_back();
    for (const auto& s : m.at("sectors")) {
      TestSector t;
      t.id = s.at("sector_number");
      t.comm_r = fr_from_hex(s.at("comm_r_hex"));
      t.comm_c = fr_from_hex(s.at("p_aux_comm_c_hex"));
      const auto replica = test::read_file(dir + "/" + miner + "/sealed/s-" + miner + "-" + std::to_string(t.id));
      ASSERT_EQ(replica.size(), 2048u);
      std::vector<Fr> leaves(64);
      for (size_t i = 0; i < 64; i++) ASSERT_TRUE(Fr::from_bytes_le(replica.data() + 32 * i, leaves[i]));
      t.tree = std::make_unique<MerkleTree>(tree_r, std::move(leaves));
      ASSERT_EQ(t.tree->root(), fr_from_hex(s.at("p_aux_comm_r_last_hex"))) << miner << " sector " << t.id;
      const Fr pair[2] = {t.comm_c, t.tree->root()};
      ASSERT_EQ(gadgets::poseidon_node_hash(pair), t.comm_r) << miner << " sector " << t.id;
      // The vanilla prover from the replica file gives the same roots and opens the challenges.
      const auto& window = post_proof_info(RegisteredPoStProof::kStackedDrgWindow2KiBV1_2);
      const auto vanilla = post_vanilla_proof_from_replica(window, replica, t.comm_c, t.id, Bytes32{}, 0);
      EXPECT_EQ(vanilla.comm_r, t.comm_r);
      EXPECT_EQ(vanilla.sectors.at(0).comm_r_last, t.tree->root());
      const auto opened = post_vanilla_challenges(window, Bytes32{}, t.id, 0);
      for (size_t n = 0; n < opened.size(); n++) {
        EXPECT_EQ(vanilla.sectors[0].inclusion_proofs.at(n).leaf, t.tree->leaf(opened[n]));
      }
      auto flipped = replica;
      flipped[100] ^= 1;
      EXPECT_NE(post_vanilla_proof_from_replica(window, flipped, t.comm_c, t.id, Bytes32{}, 0).comm_r, t.comm_r);
      EXPECT_THROW(
          post_vanilla_proof_from_replica(window, std::span(replica).first(2016), t.comm_c, t.id, Bytes32{}, 0),
          std::invalid_argument);
      miners.back().push_back(std::move(t));
    }
  }
  ASSERT_EQ(miners.size(), 2u);
  auto rng = test::make_rng();
  const Bytes32 randomness = test_randomness(rng);
  for (auto proof : {RegisteredPoStProof::kStackedDrgWindow2KiBV1, RegisteredPoStProof::kStackedDrgWindow2KiBV1_2}) {
    const FallbackPoStParams& p = post_proof_info(proof).params;
    for (const auto& sectors : miners) {
      ASSERT_EQ(sectors.size(), 2u);
      check_partitions(p, {&sectors[0], &sectors[1]}, randomness);
      check_partitions(p, {&sectors[1]}, randomness);  // padded
    }
    // Three sectors (two miners' sectors mixed, as a test): partition 1 is padded.
    check_partitions(p, {&miners[0][0], &miners[0][1], &miners[1][0]}, randomness);
  }
  // WinningPoSt: the challenged sector repeated 66 times, copy i with challenge index i.
  const FallbackPoStParams& win = post_proof_info(RegisteredPoStProof::kStackedDrgWinning2KiBV1).params;
  const uint64_t chosen = fallback_post_sector_challenge(randomness, 0, 2, Bytes32{0xe8, 0x07});
  const TestSector& ws = miners[0][chosen];
  check_partitions(win, std::vector<const TestSector*>(win.sector_count, &ws), randomness);
  // As Curio sends it: one SectorProof opening 66 leaves (vanilla challenge indexes 0..65), which
  // the circuit takes as 66 sectors.
  FallbackPoStSectorProof vanilla{ws.id, ws.comm_r, {PoStSectorProof{{}, ws.comm_c, ws.tree->root()}}};
  FallbackPoStParams win_vanilla = win;
  win_vanilla.challenge_count = win.sector_count;
  win_vanilla.sector_count = 1;
  for (uint64_t leaf : fallback_post_leaf_challenges(win_vanilla, randomness, ws.id, 0)) {
    vanilla.sectors[0].inclusion_proofs.push_back(ws.tree->proof(leaf));
  }
  const auto circuit = FallbackPoStCircuit::partition(
      win, sector_witnesses(post_proof_info(RegisteredPoStProof::kStackedDrgWinning2KiBV1), vanilla), 0);
  r1cs::TestChecker cs;
  circuit.synthesize(cs);
  ASSERT_TRUE(cs.is_satisfied()) << *cs.first_unsatisfied();
  const std::vector<PoStPublicSector> pub(win.sector_count, PoStPublicSector{ws.id, ws.comm_r});
  const auto expected = fallback_post_public_inputs(win, randomness, pub, 0);
  ASSERT_EQ(cs.inputs().size(), expected.size() + 1);
  for (size_t i = 0; i < expected.size(); i++) EXPECT_EQ(cs.inputs()[i + 1], expected[i]) << "input " << i;
  vanilla.sectors[0].inclusion_proofs.pop_back();
  EXPECT_THROW(sector_witnesses(post_proof_info(RegisteredPoStProof::kStackedDrgWinning2KiBV1), vanilla),
               std::invalid_argument);
  check_tampering(post_proof_info(RegisteredPoStProof::kStackedDrgWindow2KiBV1_2).params,
                  sector_witness(post_proof_info(RegisteredPoStProof::kStackedDrgWindow2KiBV1_2).params, miners[1][0],
                                 randomness, 0));
}

// Sparse sectors (the benchmark's PoSt inputs at every size): their vanilla proofs round-trip
// through bincode, open the leaves the verifier challenges, and satisfy the circuit with the
// verifier's public inputs; WinningPoSt at 32 GiB (tree 8-8-0) and WindowPoSt 2 KiB with a padded
// partition.
TEST(FilecoinPostTest, SparseSectorsSatisfyTheCircuit) {
  Bytes32 randomness{};
  for (size_t i = 0; i < 32; i++) randomness[i] = uint8_t(3 * i + 1);
  randomness[31] &= 0x3f;
  for (auto proof : {RegisteredPoStProof::kStackedDrgWinning32GiBV1, RegisteredPoStProof::kStackedDrgWindow2KiBV1_2}) {
    const PoStProofInfo& info = post_proof_info(proof);
    SCOPED_TRACE(std::string(info.name));
    const bool winning = info.type == PoStType::kWinning;
    const size_t sectors = winning ? 1 : 3;  // WindowPoSt 2 KiB: 2 partitions, the second padded
    std::vector<PoStPublicSector> pub;
    std::vector<FallbackPoStSectorWitness> witnesses;
    for (size_t i = 0; i < sectors; i++) {
      const auto vanilla = sparse_post_vanilla_proof(info, randomness, 10 + i, i, 7);
      const auto bytes = write_fallback_post_sector_proof(vanilla);
      const auto back = read_fallback_post_sector_proof(bytes, info);
      EXPECT_EQ(write_fallback_post_sector_proof(back), bytes);
      const auto opened = post_vanilla_challenges(info, randomness, 10 + i, i);
      ASSERT_EQ(back.sectors.at(0).inclusion_proofs.size(), opened.size());
      for (size_t n = 0; n < opened.size(); n++) {
        EXPECT_EQ(back.sectors[0].inclusion_proofs[n].path_index(info.params.tree_r), opened[n]);
      }
      for (auto& w : sector_witnesses(info, back)) {
        witnesses.push_back(std::move(w));
        pub.push_back(PoStPublicSector{10 + i, back.comm_r});
      }
    }
    for (size_t k = 0; k < info.params.partitions(witnesses.size()); k++) {
      const auto circuit = FallbackPoStCircuit::partition(info.params, witnesses, k);
      r1cs::TestChecker cs;
      circuit.synthesize(cs);
      ASSERT_TRUE(cs.is_satisfied()) << "partition " << k << ": " << *cs.first_unsatisfied();
      const auto expected = fallback_post_public_inputs(info.params, randomness, pub, k);
      ASSERT_EQ(cs.inputs().size(), expected.size() + 1);
      for (size_t i = 0; i < expected.size(); i++) EXPECT_EQ(cs.inputs()[i + 1], expected[i]) << "input " << i;
    }
  }
}

// rust-fil-proofs' fallback_circuit.rs set-up on generated trees (5 challenges, random leaves and
// comm_c), for the three tree shapes, two partitions with the second padded, and the tampering
// checks on the 8-4-2 tree (sub and top levels).
TEST(FilecoinPostTest, GeneratedTreesSatisfyTheCircuit) {
  auto rng = test::make_rng();
  const Bytes32 randomness = test_randomness(rng);
  for (const PorTreeShape& tree :
       {PorTreeShape{P, 8, 2, 0, 0}, PorTreeShape{P, 8, 2, 4, 0}, PorTreeShape{P, 8, 2, 4, 2}}) {
    for (ApiVersion v : {ApiVersion::kV1_1_0, ApiVersion::kV1_2_0}) {
      const FallbackPoStParams p = test_params(tree, 2, 5, v);
      std::vector<TestSector> sectors(3);
      for (size_t i = 0; i < sectors.size(); i++) {
        std::vector<Fr> leaves(tree.leaves());
        for (Fr& l : leaves) l = Fr::random(rng);
        sectors[i].id = 100 + 7 * i;
        sectors[i].comm_c = Fr::random(rng);
        sectors[i].tree = std::make_unique<MerkleTree>(tree, std::move(leaves));
        const Fr pair[2] = {sectors[i].comm_c, sectors[i].tree->root()};
        sectors[i].comm_r = gadgets::poseidon_node_hash(pair);
      }
      check_partitions(p, {&sectors[0], &sectors[1], &sectors[2]}, randomness);
      if (tree.top_arity && v == ApiVersion::kV1_2_0) check_tampering(p, sector_witness(p, sectors[2], randomness, 2));
    }
  }
}

TEST(FilecoinPostTest, ChallengesFollowTheApiVersion) {
  EXPECT_EQ(fallback_post_challenge_index(ApiVersion::kV1_0_0, 3, 10, 4), 34u);
  EXPECT_EQ(fallback_post_challenge_index(ApiVersion::kV1_1_0, 3, 10, 4), 34u);
  EXPECT_EQ(fallback_post_challenge_index(ApiVersion::kV1_2_0, 3, 10, 4), 4u);
  const Bytes32 r{};
  const uint64_t nodes = uint64_t(1) << 30;
  EXPECT_LT(fallback_post_leaf_challenge(r, 1, 0, nodes), nodes);
  EXPECT_NE(fallback_post_leaf_challenge(r, 1, 0, nodes), fallback_post_leaf_challenge(r, 1, 1, nodes));
  EXPECT_NE(fallback_post_leaf_challenge(r, 1, 0, nodes), fallback_post_leaf_challenge(r, 2, 0, nodes));
  EXPECT_THROW(fallback_post_leaf_challenge(r, 1, 0, 0), std::invalid_argument);
  EXPECT_THROW(fallback_post_sector_challenge(r, 0, 0, r), std::invalid_argument);
}

TEST(FilecoinPostTest, BadShapesAreRefused) {
  const FallbackPoStParams p = test_params({P, 8, 2, 0, 0}, 2, 5, ApiVersion::kV1_2_0);
  auto w = FallbackPoStSectorWitness::blank(p);
  EXPECT_THROW(FallbackPoStCircuit(p, {w}), std::invalid_argument);  // one sector of two
  auto t = w;
  t.leafs.pop_back();
  EXPECT_THROW(FallbackPoStCircuit(p, {w, t}), std::invalid_argument);
  t = w;
  t.paths[1].siblings.pop_back();
  EXPECT_THROW(FallbackPoStCircuit(p, {w, t}), std::invalid_argument);
  t = w;
  t.paths[1].indices[0] = 8;
  EXPECT_THROW(FallbackPoStCircuit(p, {w, t}), std::invalid_argument);
  EXPECT_THROW(FallbackPoStCircuit::partition(p, std::vector{w, w}, 1), std::invalid_argument);
  EXPECT_THROW(fallback_post_public_inputs(p, Bytes32{}, std::vector<PoStPublicSector>(2), 1), std::invalid_argument);
  FallbackPoStParams bad = p;
  bad.sector_size *= 2;  // the tree does not cover it
  EXPECT_THROW(FallbackPoStCircuit::blank(bad), std::invalid_argument);
}

using test::SerialOnly;

// Sectors synthesized in parallel sections give exactly the serial synthesis, and so does the
// witness-only synthesis with the compiled matrices.
TEST(FilecoinPostTest, ParallelSectionsEqualSerialSynthesis) {
  auto rng = test::make_rng();
  const FallbackPoStParams p = test_params({P, 8, 2, 4, 2}, 5, 3, ApiVersion::kV1_2_0);
  std::vector<FallbackPoStSectorWitness> ws(p.sector_count, FallbackPoStSectorWitness::blank(p));
  for (auto& w : ws) {
    w.comm_r = Fr::random(rng);
    w.comm_c = Fr::random(rng);
    w.comm_r_last = Fr::random(rng);
    for (auto& l : w.leafs) l = Fr::random(rng);
    for (auto& path : w.paths) {
      for (size_t l = 0; l < path.siblings.size(); l++) {
        for (auto& x : path.siblings[l]) x = Fr::random(rng);
        path.indices[l] = rng() % (path.siblings[l].size() + 1);
      }
    }
  }
  const FallbackPoStCircuit circuit(p, ws);
  r1cs::ProvingAssignment serial, parallel;
  SerialOnly serial_cs(serial);
  circuit.synthesize(serial_cs);
  circuit.synthesize(parallel);
  EXPECT_EQ(serial.num_constraints(), count(p).constraints);
  EXPECT_EQ(serial.num_constraints(), parallel.num_constraints());
  EXPECT_EQ(serial.a(), parallel.a());
  EXPECT_EQ(serial.b(), parallel.b());
  EXPECT_EQ(serial.c(), parallel.c());
  EXPECT_EQ(serial.aux(), parallel.aux());
  EXPECT_EQ(serial.inputs(), parallel.inputs());
  EXPECT_EQ(serial.a_aux_density().words(), parallel.a_aux_density().words());
  EXPECT_EQ(serial.b_aux_density().words(), parallel.b_aux_density().words());
  EXPECT_EQ(serial.b_input_density().words(), parallel.b_input_density().words());
  test::expect_witness_path_equals_full(circuit);
}

// ---- the real 32 GiB WindowPoSt vanilla proof Curio sends ----

// A CID's bytes from its multibase base32 text ('b', RFC 4648 lower case, no padding).
std::vector<uint8_t> cid_bytes(const std::string& cid) {
  std::vector<uint8_t> out;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 1; i < cid.size(); i++) {
    const char c = cid[i];
    const int v = c >= 'a' && c <= 'z' ? c - 'a' : c >= '2' && c <= '7' ? c - '2' + 26 : -1;
    if (v < 0) throw std::invalid_argument("not base32: " + cid);
    acc = (acc << 5) | uint32_t(v);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(uint8_t(acc >> bits));
    }
  }
  return out;
}

struct Golden {
  std::vector<uint8_t> bytes;
  Bytes32 randomness{};
  uint64_t sector = 0;
  Fr comm_r;
};

std::optional<Golden> read_golden() {
  const std::string base = test::testdata_dir() + "/filecoin/post/curio-golden-window-32GiB";
  if (!std::filesystem::exists(base + ".vproof")) return std::nullopt;
  Golden g;
  g.bytes = test::read_file(base + ".vproof");
  const auto j = nlohmann::json::parse(std::ifstream(base + ".pub.json"));
  EXPECT_EQ(j.at("Randomness"), "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");  // 32 zero bytes
  EXPECT_EQ(j.at("Prover"), 1000);
  const auto& s = j.at("ChallengedSectors").at(0);
  EXPECT_EQ(j.at("Proofs").at(0).at("PoStProof"), 8);  // StackedDrgWindow32GiBV1
  g.sector = s.at("SectorNumber");
  // fil-commitment-sealed CID: the Poseidon multihash's 32-byte digest ends it.
  const auto cid = cid_bytes(s.at("SealedCID").at("/"));
  EXPECT_GE(cid.size(), 32u);
  if (cid.size() < 32 || !Fr::from_bytes_le(cid.data() + cid.size() - 32, g.comm_r)) return std::nullopt;
  return g;
}

// The proof reads, its comm_r is the sealed CID's, comm_r = Poseidon(comm_c, comm_r_last), its
// openings are the challenges recomputed for sector 1 and randomness 0 and reach comm_r_last, and
// the circuit of its sector is satisfied with the verifier's inputs. A partition repeats the
// sector 2,349 times: its inputs are those of the sector repeated, and its constraints those of
// the sector's (WindowPoSt32GiBPartitionCounts), so the one-sector circuit stands for it.
TEST(FilecoinPostTest, CurioGoldenWindowPoSt32GiBSatisfiesTheCircuit) {
  const auto g = read_golden();
  if (!g) GTEST_SKIP() << "no curio-golden-window-32GiB";
  for (auto proof : {RegisteredPoStProof::kStackedDrgWindow32GiBV1, RegisteredPoStProof::kStackedDrgWindow32GiBV1_2}) {
    const FallbackPoStParams& full = post_proof_info(proof).params;
    const FallbackPoStSectorProof vp = read_fallback_post_sector_proof(g->bytes, post_proof_info(proof));
    EXPECT_EQ(vp.sector_id, g->sector);
    EXPECT_EQ(vp.comm_r, g->comm_r);
    ASSERT_EQ(vp.sectors.size(), 1u);
    const PoStSectorProof& sp = vp.sectors[0];
    const Fr pair[2] = {sp.comm_c, sp.comm_r_last};
    EXPECT_EQ(gadgets::poseidon_node_hash(pair), vp.comm_r);
    // Sector index 0: V1 and V1_2 give the same challenges.
    const auto leaves = fallback_post_leaf_challenges(full, g->randomness, vp.sector_id, 0);
    for (size_t i = 0; i < leaves.size(); i++) {
      EXPECT_TRUE(merkle_proof_valid(full.tree_r, sp.inclusion_proofs[i], leaves[i])) << "challenge " << i;
      EXPECT_EQ(merkle_proof_root(full.tree_r, sp.inclusion_proofs[i]), sp.comm_r_last) << "challenge " << i;
    }
    const std::vector<PoStPublicSector> pub{{vp.sector_id, vp.comm_r}};
    FallbackPoStParams one = full;
    one.sector_count = 1;
    const auto ws = sector_witnesses(post_proof_info(proof), vp);
    ASSERT_EQ(ws.size(), 1u);
    const auto& w = ws[0];
    r1cs::TestChecker cs;
    FallbackPoStCircuit::partition(one, std::vector{w}, 0).synthesize(cs);
    ASSERT_TRUE(cs.is_satisfied()) << *cs.first_unsatisfied();
    const auto in1 = fallback_post_public_inputs(one, g->randomness, pub, 0);
    ASSERT_EQ(cs.inputs().size(), in1.size() + 1);
    for (size_t i = 0; i < in1.size(); i++) EXPECT_EQ(cs.inputs()[i + 1], in1[i]);
    const auto in = fallback_post_public_inputs(full, g->randomness, pub, 0);
    ASSERT_EQ(in.size(), 25839u);
    for (size_t i = 0; i < in.size(); i++) ASSERT_EQ(in[i], in1[i % in1.size()]) << "input " << i;
    if (proof == RegisteredPoStProof::kStackedDrgWindow32GiBV1_2) check_tampering(one, w);
  }
}

// The real calibnet 32 GiB WindowPoSt proof of rust-filecoin-proofs-api's test (one sector, padded
// to the partition's 2,349) verifies against Filecoin's published verifying key with the public
// inputs computed here, as StackedDrgWindow32GiBV1 and V1_2, and fails with another randomness or
// sector. Skips without the published .vk ($FIL_PROOFS_PARAMETER_CACHE or
// /var/tmp/filecoin-proof-parameters).
TEST(FilecoinPostTest, CalibnetWindowPoSt32GiBVerifiesWithThePublishedKey) {
  const std::string file = test::testdata_dir() + "/filecoin/post/window_post_32GiB_calibnet.json";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << "no " << file;
  const char* env = std::getenv("FIL_PROOFS_PARAMETER_CACHE");
  const std::filesystem::path dir = env && *env ? env : "/var/tmp/filecoin-proof-parameters";
  const auto vk_path = dir / window_post_parameter_id(uint64_t(32) << 30).vk_name();
  if (!std::filesystem::exists(vk_path)) GTEST_SKIP() << "no published verifying key " << vk_path;
  const auto j = nlohmann::json::parse(std::ifstream(file));
  const auto r = test::hex_bytes(j.at("randomness_hex"));
  Bytes32 randomness{};
  std::copy(r.begin(), r.end(), randomness.begin());
  const std::vector<PoStPublicSector> pub{{j.at("sector_id").get<uint64_t>(), fr_from_hex(j.at("comm_r_hex"))}};
  const auto proof = groth16::decode_proof(test::hex_bytes(j.at("proof_hex")));
  const groth16::PreparedVerifyingKey pvk(groth16::read_verifying_key(vk_path.string()));
  for (auto id : {RegisteredPoStProof::kStackedDrgWindow32GiBV1, RegisteredPoStProof::kStackedDrgWindow32GiBV1_2}) {
    const FallbackPoStParams& p = post_proof_info(id).params;
    SCOPED_TRACE(std::string(post_proof_info(id).name));
    EXPECT_TRUE(groth16::verify_proof(pvk, proof, fallback_post_public_inputs(p, randomness, pub, 0)));
    Bytes32 other = randomness;
    other[0] ^= 1;
    EXPECT_FALSE(groth16::verify_proof(pvk, proof, fallback_post_public_inputs(p, other, pub, 0)));
    auto moved = pub;
    moved[0].id++;
    EXPECT_FALSE(groth16::verify_proof(pvk, proof, fallback_post_public_inputs(p, randomness, moved, 0)));
  }
}

// The whole 32 GiB partition (125,279,217 constraints; the TestChecker holds its ~125 M aux
// values, 4 GB, and takes minutes on one core): run with --gtest_also_run_disabled_tests.
TEST(FilecoinPostTest, DISABLED_CurioGoldenWindowPoSt32GiBWholePartition) {
  const auto g = read_golden();
  if (!g) GTEST_SKIP() << "no curio-golden-window-32GiB";
  const PoStProofInfo& info = post_proof_info(RegisteredPoStProof::kStackedDrgWindow32GiBV1_2);
  const FallbackPoStParams& p = info.params;
  const FallbackPoStSectorProof vp = read_fallback_post_sector_proof(g->bytes, info);
  const std::vector w{FallbackPoStSectorWitness::from_vanilla(vp.comm_r, vp.sectors.at(0))};
  r1cs::TestChecker cs;
  FallbackPoStCircuit::partition(p, w, 0).synthesize(cs);
  ASSERT_TRUE(cs.is_satisfied()) << *cs.first_unsatisfied();
  EXPECT_EQ(cs.num_constraints(), 125279217u);
  const std::vector<PoStPublicSector> pub{{vp.sector_id, vp.comm_r}};
  const auto in = fallback_post_public_inputs(p, g->randomness, pub, 0);
  ASSERT_EQ(cs.inputs().size(), 25840u);
  for (size_t i = 0; i < in.size(); i++) ASSERT_EQ(cs.inputs()[i + 1], in[i]) << "input " << i;
}

TEST(FilecoinPostTest, MalformedVanillaProofsAreRefused) {
  const auto g = read_golden();
  if (!g) GTEST_SKIP() << "no curio-golden-window-32GiB";
  const PoStProofInfo& p = post_proof_info(RegisteredPoStProof::kStackedDrgWindow32GiBV1_2);
  auto refused = [&](std::vector<uint8_t> b, const std::string& says) {
    try {
      read_fallback_post_sector_proof(b, p);
      ADD_FAILURE() << "accepted; expected: " << says;
    } catch (const PoStVanillaProofFormatError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  for (size_t n = 0; n < g->bytes.size(); n += 97) {
    refused(std::vector<uint8_t>(g->bytes.begin(), g->bytes.begin() + n), "truncated");
  }
  refused(std::vector<uint8_t>(g->bytes.begin(), g->bytes.end() - 1), "truncated");
  auto b = g->bytes;
  b.push_back(0);
  refused(b, "1 bytes after the proof");
  b = g->bytes;
  for (size_t i = 8; i < 40; i++) b[i] = 0xff;
  refused(b, "comm_r: not a canonical field element");
  b = g->bytes;
  b[56] = 2;  // the first inclusion proof's variant: Top
  refused(b, "inclusion_proofs[0].data: Top proof");
  b = g->bytes;
  b[56] = 7;
  refused(b, "unknown ProofData variant 7");
  b = g->bytes;
  b[48] = 9;  // 9 inclusion proofs
  refused(b, "inclusion_proofs: 9 elements, the challenge count needs 10");
  b = g->bytes;
  b[60] = 8;  // base path of 8 levels
  refused(b, "base_proof.path: 8 elements");
  b = g->bytes;
  b[68 + 8 + 7 * 32] = 8;  // the first level's index
  refused(b, "index: 8 >= arity 8");
  b = g->bytes;
  b[40] = 2;  // two sector proofs, one present
  refused(b, "sectors[1].inclusion_proofs length: truncated");
  b = g->bytes;
  b[47] = 1;  // 2^56 sector proofs: refused before allocating
  refused(b, "sector proofs cannot fit");
  b = g->bytes;
  b[40] = 0;
  refused(b, "no sector proof");
  b = g->bytes;
  b[b.size() - 40] ^= 1;  // comm_c changes: still canonical, not a format error
  EXPECT_NO_THROW(read_fallback_post_sector_proof(b, p));
  b = g->bytes;
  b[b.size() - 1] ^= 1;  // comm_r_last no longer the openings' root
  refused(b, "root differs from comm_r_last");
  // Another sector size's tree: the variant says so.
  try {
    read_fallback_post_sector_proof(g->bytes, post_proof_info(RegisteredPoStProof::kStackedDrgWindow64GiBV1_2));
    ADD_FAILURE() << "a 32 GiB proof read as 64 GiB";
  } catch (const PoStVanillaProofFormatError& e) {
    EXPECT_NE(std::string(e.what()).find("Sub proof, tree R"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cuzk::filecoin
