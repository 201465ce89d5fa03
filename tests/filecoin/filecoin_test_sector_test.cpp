// Test sectors (src/filecoin/generators/test_sector.hpp): native trees against their sparse twins; real SDR
// seals of 2 KiB (V1, V1_1, synthetic, non-interactive) and 8 MiB whose Commit1 outputs satisfy
// the PoRep circuit; the labels and tree C of the real 8 MiB Commit1 output recomputed from its
// replica_id; sparse 512 MiB (circuit satisfied), 32 GiB and 64 GiB (natively consistent, one
// challenge's circuit satisfied) sectors; and lotus-seed's 2 KiB presealed replicas reproduced
// byte for byte from their prover, sector and ticket.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "filecoin/common/blake2b.hpp"
#include "filecoin/common/merkle_tree.hpp"
#include "filecoin/generators/sdr_seal.hpp"
#include "filecoin/generators/sparse_sector.hpp"
#include "filecoin/generators/test_sector.hpp"
#include "filecoin/porep/challenges.hpp"
#include "filecoin/porep/circuit.hpp"
#include "filecoin/porep/commit1.hpp"
#include "filecoin/porep/commit1_check.hpp"
#include "filecoin/porep/graph.hpp"
#include "filecoin/porep/labels.hpp"
#include "gadgets/hashers.hpp"
#include "r1cs/shape.hpp"
#include "test_support.hpp"
#include "util/elapsed.hpp"

namespace cuzk::filecoin {
namespace {

using gadgets::fr_from_bytes_le;
using gadgets::fr_to_bytes_le;
using gadgets::PorTreeShape;
using gadgets::TreeHasher;
using Proof = RegisteredSealProof;

Bytes32 pattern(uint8_t start) {
  Bytes32 b;
  for (size_t i = 0; i < 32; i++) b[i] = uint8_t(start + 7 * i);
  return b;
}

TestSectorOptions options_for(uint64_t rng_seed, SectorData data = SectorData::kRandom) {
  TestSectorOptions o;
  o.miner_actor_id = 1234;
  o.sector_id = 77;
  o.ticket = pattern(3);
  o.seed = pattern(101);
  o.data = data;
  o.rng_seed = rng_seed;
  return o;
}

// ---- native consistency ------------------------------------------------------------------------

// What the circuit enforces, checked natively with this repository's own pieces (independent of
// seal_commit_check): challenges, Merkle openings (path index and root), columns at the graph's
// parents, labels recomputed from the parents' columns, labeling and encoding proofs, and
// comm_r = Poseidon2(comm_c, comm_r_last). Returns the number of openings checked.
size_t expect_consistent(const SealCommitPhase1Output& c1, const StackedBucketGraph& graph) {
  const SealProofInfo& info = seal_proof_info(c1.registered_proof);
  const Bytes32 replica_id = fr_to_bytes_le(c1.replica_id);
  const Fr comm_d = fr_from_bytes_le(c1.comm_d), comm_r = fr_from_bytes_le(c1.comm_r);
  EXPECT_EQ(c1.vanilla_proofs.size(), info.partitions);
  if (c1.vanilla_proofs.empty() || c1.vanilla_proofs[0].empty()) return 0;
  const Fr comm_c = c1.vanilla_proofs[0][0].replica_column_proofs.c_x.inclusion_proof.root;
  const Fr comm_r_last = c1.vanilla_proofs[0][0].comm_r_last_proof.root;
  const Fr pair[2] = {comm_c, comm_r_last};
  EXPECT_EQ(tree_node_hash(TreeHasher::kPoseidon, pair), comm_r) << "comm_r != Poseidon2(comm_c, comm_r_last)";
  size_t openings = 0;
  for (size_t k = 0; k < c1.vanilla_proofs.size(); k++) {
    const auto challenges = seal_challenges(info, replica_id, c1.comm_r, c1.seed, k);
    const auto& part = c1.vanilla_proofs[k];
    EXPECT_EQ(part.size(), info.challenges_per_partition);
    for (size_t i = 0; i < part.size() && i < challenges.size(); i++) {
      SCOPED_TRACE("partition " + std::to_string(k) + " challenge " + std::to_string(i));
      const VanillaSealProof& p = part[i];
      const uint64_t c = challenges[i];
      std::array<uint32_t, kParentCount> parents;
      graph.parents(c, parents);
      EXPECT_TRUE(merkle_proof_valid(info.tree_d, p.comm_d_proofs, c));
      EXPECT_EQ(p.comm_d_proofs.root, comm_d);
      const auto& rcp = p.replica_column_proofs;
      auto check_column = [&](const ColumnProof& cp, uint64_t node) {
        EXPECT_EQ(cp.column.index, node);
        EXPECT_EQ(cp.column.rows.size(), info.layers);
        EXPECT_TRUE(merkle_proof_valid(info.tree_r, cp.inclusion_proof, node)) << "column " << node;
        EXPECT_EQ(cp.inclusion_proof.root, comm_c);
        EXPECT_EQ(cp.inclusion_proof.leaf, hash_single_column(cp.column.rows));
        openings++;
      };
      check_column(rcp.c_x, c);
      EXPECT_EQ(rcp.drg_parents.size(), kBaseDegree);
      EXPECT_EQ(rcp.exp_parents.size(), kExpDegree);
      if (rcp.drg_parents.size() != kBaseDegree || rcp.exp_parents.size() != kExpDegree) continue;
      for (size_t j = 0; j < kBaseDegree; j++) check_column(rcp.drg_parents[j], parents[j]);
      for (size_t j = 0; j < kExpDegree; j++) check_column(rcp.exp_parents[j], parents[kBaseDegree + j]);
      EXPECT_EQ(p.labeling_proofs.size(), info.layers);
      for (size_t layer = 1; layer <= info.layers && layer <= p.labeling_proofs.size(); layer++) {
        std::vector<Fr> pl;
        for (size_t j = 0; j < kBaseDegree; j++) pl.push_back(rcp.drg_parents[j].column.rows[layer - 1]);
        if (layer > 1) {
          for (size_t j = 0; j < kExpDegree; j++) pl.push_back(rcp.exp_parents[j].column.rows[layer - 2]);
        }
        const Fr label = sdr_label_fr(replica_id, uint32_t(layer), c, pl);
        EXPECT_EQ(label, rcp.c_x.column.rows[layer - 1]) << "layer " << layer;
        const LabelingProof& lp = p.labeling_proofs[layer - 1];
        EXPECT_EQ(lp.layer_index, layer);
        EXPECT_EQ(lp.node, c);
        EXPECT_EQ(lp.parents.size(), 37u);
        for (size_t j = 0; j < 37 && lp.parents.size() == 37; j++) EXPECT_EQ(lp.parents[j], pl[j % pl.size()]);
      }
      const LabelingProof& ep = p.encoding_proof;
      EXPECT_EQ(ep.layer_index, info.layers);
      EXPECT_EQ(ep.node, c);
      EXPECT_TRUE(ep.parents == p.labeling_proofs.back().parents);
      EXPECT_TRUE(merkle_proof_valid(info.tree_r, p.comm_r_last_proof, c));
      EXPECT_EQ(p.comm_r_last_proof.root, comm_r_last);
      EXPECT_EQ(p.comm_r_last_proof.leaf, rcp.c_x.column.rows.back() + p.comm_d_proofs.leaf) << "encoding";
      openings += 2;
    }
  }
  return openings;
}

// The PoRep circuit of partition k, synthesized into the test checker.
void expect_partition_satisfied(const SealCommitPhase1Output& c1, size_t k) {
  r1cs::TestChecker cs;
  StackedCircuit::from_commit_phase1(c1, k).synthesize(cs);
  EXPECT_TRUE(cs.is_satisfied()) << "partition " << k << ": " << cs.first_unsatisfied().value_or("");
}

// One challenge's circuit: the partition circuit of a copy of the proof with one challenge.
void expect_challenge_satisfied(const SealCommitPhase1Output& c1, size_t k, size_t i) {
  SealProofInfo one = seal_proof_info(c1.registered_proof);
  one.challenges_per_partition = 1;
  const VanillaSealProof& p = c1.vanilla_proofs[k][i];
  const StackedCircuit circuit(one, c1.replica_id, fr_from_bytes_le(c1.comm_d), fr_from_bytes_le(c1.comm_r),
                               p.comm_r_last_proof.root, p.replica_column_proofs.c_x.inclusion_proof.root,
                               {challenge_witness(p)});
  r1cs::TestChecker cs;
  circuit.synthesize(cs);
  EXPECT_TRUE(cs.is_satisfied()) << cs.first_unsatisfied().value_or("");
  EXPECT_GT(cs.num_constraints(), 1000000u);
}

// The JSON with every number replaced by 0: equal for outputs of the same structure.
std::string skeleton(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (size_t i = 0; i < json.size(); i++) {
    if (json[i] >= '0' && json[i] <= '9') {
      while (i + 1 < json.size() && json[i + 1] >= '0' && json[i + 1] <= '9') i++;
      out += '0';
    } else {
      out += json[i];
    }
  }
  return out;
}

// ---- Merkle trees ------------------------------------------------------------------------------

TEST(FilecoinTestSector, MerkleTreesOpenEveryLeafAndSparseTreesAgree) {
  auto rng = test::make_rng();
  const TreeHasher P = TreeHasher::kPoseidon;
  for (const PorTreeShape& shape : {PorTreeShape{TreeHasher::kSha256, 2, 6, 0, 0}, PorTreeShape{P, 8, 2, 0, 0},
                                    PorTreeShape{P, 8, 1, 8, 0}, PorTreeShape{P, 8, 1, 8, 2}}) {
    SCOPED_TRACE(shape.name());
    const Fr fill = Fr::random(rng);
    std::vector<Fr> leaves(shape.leaves(), fill);
    std::vector<std::pair<uint64_t, Fr>> set;
    for (int j = 0; j < 5; j++) {
      const uint64_t i = rng() % leaves.size();
      leaves[i] = Fr::random(rng);
      set.emplace_back(i, leaves[i]);
    }
    const MerkleTree dense(shape, leaves);
    SparseMerkleTree sparse(shape, fill);
    sparse.set_leaves(set);
    EXPECT_EQ(dense.root(), sparse.root());
    EXPECT_LT(sparse.stored_nodes(), 5 * (shape.level_arities().size() + 1) + 1);
    for (uint64_t i = 0; i < leaves.size(); i++) {
      const MerkleProof p = dense.proof(i);
      ASSERT_TRUE(merkle_proof_valid(shape, p, i)) << "leaf " << i;
      const MerkleProof q = sparse.proof(i);
      EXPECT_TRUE(q.leaf == p.leaf && q.root == p.root && q.levels().size() == p.levels().size());
      for (size_t l = 0; l < p.levels().size(); l++) {
        EXPECT_TRUE(q.levels()[l].hashes == p.levels()[l].hashes && q.levels()[l].index == p.levels()[l].index);
      }
      EXPECT_FALSE(merkle_proof_valid(shape, p, (i + 1) % leaves.size()));
    }
    EXPECT_EQ(dense.proof(0).kind, shape.top_arity   ? MerkleProof::Kind::kTop
                                   : shape.sub_arity ? MerkleProof::Kind::kSub
                                                     : MerkleProof::Kind::kSingle);
  }
}

// go-commp-utils zerocomm.go PieceComms: the piece commitment of a zero sector of each size is
// the root of tree D over zeros (CommD of a committed-capacity sector).
TEST(FilecoinTestSector, ZeroSectorCommDIsTheZeroPieceCommitment) {
  const std::pair<Proof, const char*> cases[] = {
      {Proof::kStackedDrg2KiBV1_1, "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833"},
      {Proof::kStackedDrg8MiBV1_1, "65f29e5d98d246c38b388cfc06db1f6b021303c5a289000bdce832a9c3ec421c"},
      {Proof::kStackedDrg512MiBV1_1, "39560e7b13a93b07a243fd2720ffa7cb3e1d2e505ab3629e79f46313512cda06"},
      {Proof::kStackedDrg32GiBV1_1, "077e5fde35c50a9303a55009e3498a4ebedff39c42b710b730d8ec7ac7afa63e"},
      {Proof::kStackedDrg64GiBV1_1, "e64005a6bfe3777953b8ad6ef93f0fca1049b2041654f2a411f7702799cece02"},
  };
  for (const auto& [id, hex] : cases) {
    const SealProofInfo& info = seal_proof_info(id);
    EXPECT_EQ(fr_to_bytes_le(SparseMerkleTree(info.tree_d, Fr::zero()).root()), test::bytes32_from_hex(hex))
        << info.name;
    if (info.sector_size <= (uint64_t(8) << 20)) {
      EXPECT_EQ(fr_to_bytes_le(MerkleTree(info.tree_d, std::vector<Fr>(info.nodes, Fr::zero())).root()),
                test::bytes32_from_hex(hex))
          << info.name;
    }
  }
}

// ---- real seals --------------------------------------------------------------------------------

TEST(FilecoinTestSector, Real2KiBSectorsSatisfyTheCircuitForEveryFeature) {
  for (Proof id : {Proof::kStackedDrg2KiBV1, Proof::kStackedDrg2KiBV1_1, Proof::kStackedDrg2KiBV1_1_Feat_SyntheticPoRep,
                   Proof::kStackedDrg2KiBV1_2_Feat_NonInteractivePoRep}) {
    const SealProofInfo& info = seal_proof_info(id);
    SCOPED_TRACE(std::string(info.name));
    const TestSector ts = generate_test_sector(info, options_for(uint64_t(id)));
    ASSERT_FALSE(ts.sparse);
    ASSERT_TRUE(ts.sealed);
    EXPECT_EQ(ts.c1.comm_r, ts.comm_r);
    EXPECT_EQ(ts.c1.comm_d, ts.comm_d);
    EXPECT_EQ(ts.prover_id, prover_id_from_actor_id(1234));
    // The replica is data + key, and unsealing gives the data back.
    EXPECT_EQ(unseal_replica(info, ts.sealed->replica(), ts.replica_id), ts.sealed->data());
    // Written and read back: the structure filecoin-proofs-api writes.
    const std::string json = write_seal_commit_phase1(ts.c1);
    const SealCommitPhase1Output back = read_seal_commit_phase1(json);
    EXPECT_EQ(write_seal_commit_phase1(back), json);
    expect_consistent(back, ts.sealed->graph());
    EXPECT_NO_THROW(check_seal_commit_phase1(back, SealCommitIdentity{ts.prover_id, ts.sector_id}));
    // Every partition's circuit; non-interactive 2 KiB has 13 partitions: the first, a middle one
    // and the last.
    std::vector<size_t> parts;
    if (info.partitions <= 2) {
      for (size_t k = 0; k < info.partitions; k++) parts.push_back(k);
    } else {
      parts = {0, info.partitions / 2, info.partitions - 1};
    }
    for (size_t k : parts) expect_partition_satisfied(back, k);
  }
}

TEST(FilecoinTestSector, SealDependsOnEveryInput) {
  const SealProofInfo& info = seal_proof_info(Proof::kStackedDrg2KiBV1_1);
  const TestSector a = generate_test_sector(info, options_for(1));
  auto o = options_for(1);
  o.ticket[0] ^= 1;
  const TestSector b = generate_test_sector(info, o);
  EXPECT_EQ(a.comm_d, b.comm_d);
  EXPECT_NE(a.replica_id, b.replica_id);
  EXPECT_NE(a.comm_c, b.comm_c);
  o = options_for(2);  // other data: other comm_d, hence other labels
  const TestSector c = generate_test_sector(info, o);
  EXPECT_NE(a.comm_d, c.comm_d);
  EXPECT_NE(a.comm_r_last, c.comm_r_last);
  // Zeros: the zero-piece comm_d (checked for every size in ZeroSectorCommDIsTheZeroPieceCommitment).
  const TestSector z = generate_test_sector(info, options_for(0, SectorData::kZeros));
  EXPECT_TRUE(std::all_of(z.sealed->data().begin(), z.sealed->data().end(), [](uint8_t x) { return x == 0; }));
  EXPECT_EQ(SparseMerkleTree(info.tree_d, Fr::zero()).root(), fr_from_bytes_le(z.comm_d));
  // Bad data is refused with the node named.
  o = options_for(0, SectorData::kBytes);
  o.data_bytes.assign(info.sector_size, 0);
  o.data_bytes[32 * 5 + 31] = 0x40;
  try {
    generate_test_sector(info, o);
    ADD_FAILURE() << "top bits accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("node 5"), std::string::npos) << e.what();
  }
}

TEST(FilecoinTestSector, Real8MiBSectorSatisfiesTheCircuitAndHasTheRealOutputsStructure) {
  const SealProofInfo& info = seal_proof_info(Proof::kStackedDrg8MiBV1_1);
  const TestSector ts = generate_test_sector(info, options_for(8));
  ASSERT_TRUE(ts.sealed);
  const auto& t = ts.sealed->timings();
  std::printf("8 MiB real seal: %.2f s (tree D %.2f, labels %.2f, tree C %.2f, tree R %.2f), Commit1 %.3f s\n",
              ts.seal_s, t.tree_d_s, t.labels_s, t.tree_c_s, t.tree_r_s, ts.commit_s);
  expect_consistent(ts.c1, ts.sealed->graph());
  expect_partition_satisfied(ts.c1, 0);
  const std::string real_path = test::testdata_dir() + "/filecoin/porep/c1-8MiB-StackedDrg8MiBV1_1.json";
  if (!std::filesystem::exists(real_path)) GTEST_SKIP() << "no " << real_path;
  const auto bytes = test::read_file(real_path);
  const std::string real(bytes.begin(), bytes.end());
  EXPECT_EQ(skeleton(write_seal_commit_phase1(ts.c1)), skeleton(real));
}

// The real 8 MiB Commit1 output: labels do not depend on the data, so our labels for its
// replica_id are its columns, our tree C over them has its comm_c and openings, and its tree R
// leaves are our last labels plus its data leaves.
TEST(FilecoinTestSector, RealCommit1LabelsAndTreeCRecompute) {
  const std::string path = test::testdata_dir() + "/filecoin/porep/c1-8MiB-StackedDrg8MiBV1_1.json";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path;
  const SealCommitPhase1Output c1 = read_seal_commit_phase1_file(path);
  const SealProofInfo& info = seal_proof_info(c1.registered_proof);
  const StackedBucketGraph graph(info);
  auto t0 = std::chrono::steady_clock::now();
  const SdrLabels labels(graph, fr_to_bytes_le(c1.replica_id), info.layers);
  const double labels_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  const MerkleTree tree_c = build_tree_c(info, labels);
  std::printf("8 MiB labels %.2f s, tree C %.2f s\n", labels_s, seconds_since(t0));
  for (const VanillaSealProof& p : c1.vanilla_proofs[0]) {
    const auto& rcp = p.replica_column_proofs;
    EXPECT_EQ(tree_c.root(), rcp.c_x.inclusion_proof.root) << "comm_c";
    std::vector<const ColumnProof*> cols = {&rcp.c_x};
    for (const auto& c : rcp.drg_parents) cols.push_back(&c);
    for (const auto& c : rcp.exp_parents) cols.push_back(&c);
    for (const ColumnProof* cp : cols) {
      EXPECT_TRUE(labels.column(cp->column.index) == cp->column.rows) << "column " << cp->column.index;
      const MerkleProof ours = tree_c.proof(cp->column.index);
      EXPECT_EQ(ours.leaf, cp->inclusion_proof.leaf);
      ASSERT_EQ(ours.base.size(), cp->inclusion_proof.base.size());
      for (size_t l = 0; l < ours.base.size(); l++) {
        EXPECT_TRUE(ours.base[l].hashes == cp->inclusion_proof.base[l].hashes);
        EXPECT_EQ(ours.base[l].index, cp->inclusion_proof.base[l].index);
      }
    }
    const uint64_t c = rcp.c_x.column.index;
    EXPECT_EQ(p.comm_r_last_proof.leaf, labels.fr(info.layers, c) + p.comm_d_proofs.leaf);
  }
}

// ---- sparse sectors ----------------------------------------------------------------------------

// In a 64-node sector two challenges often touch: one is a parent (DRG or expander) of the other,
// so its computed label must be the one the other's labeling reads. Seeds are tried until that
// happens; the sparse sector must still satisfy the circuit.
TEST(FilecoinTestSector, SparseSectorWithChallengesThatAreParentsOfEachOther) {
  const SealProofInfo& info = seal_proof_info(Proof::kStackedDrg2KiBV1_1);
  size_t found = 0;
  for (uint8_t s = 0; s < 64 && found < 3; s++) {
    auto o = options_for(s, SectorData::kZeros);
    o.mode = SectorMode::kSparse;
    o.seed[0] = s;
    const SparseSector sector(info, {prover_id_from_actor_id(o.miner_actor_id), o.sector_id, o.ticket, o.seed, s});
    const auto& c = sector.challenges()[0];
    std::array<uint32_t, kParentCount> p0, p1;
    sector.graph().parents(c[0], p0);
    sector.graph().parents(c[1], p1);
    const bool touch =
        std::find(p0.begin(), p0.end(), c[1]) != p0.end() || std::find(p1.begin(), p1.end(), c[0]) != p1.end();
    if (!touch) continue;
    found++;
    SCOPED_TRACE("challenges " + std::to_string(c[0]) + ", " + std::to_string(c[1]));
    const SealCommitPhase1Output c1 = sector.commit_phase1();
    expect_consistent(c1, sector.graph());
    expect_partition_satisfied(c1, 0);
  }
  EXPECT_EQ(found, 3u);
}

TEST(FilecoinTestSector, Sparse512MiBSectorSatisfiesTheCircuit) {
  const SealProofInfo& info = seal_proof_info(Proof::kStackedDrg512MiBV1_1);
  auto o = options_for(5, SectorData::kZeros);
  EXPECT_EQ(test_sector_mode(info, o), SectorMode::kSparse);
  const TestSector ts = generate_test_sector(info, o);
  ASSERT_TRUE(ts.sparse);
  const StackedBucketGraph graph(info);
  EXPECT_EQ(expect_consistent(ts.c1, graph), 2u * (15 + 2));
  EXPECT_NO_THROW(check_seal_commit_phase1(ts.c1, SealCommitIdentity{ts.prover_id, ts.sector_id}));
  expect_partition_satisfied(ts.c1, 0);
}

TEST(FilecoinTestSector, Sparse32GiBSectorIsConsistent) {
  const SealProofInfo& info = seal_proof_info(Proof::kStackedDrg32GiBV1_1);
  const auto t0 = std::chrono::steady_clock::now();
  const TestSector ts = generate_test_sector(info, options_for(32, SectorData::kZeros));
  const double gen_s = seconds_since(t0);
  std::printf("32 GiB sparse Commit1: %.2f s (sector %.2f s, vanilla proofs %.2f s)\n", gen_s, ts.seal_s, ts.commit_s);
  ASSERT_TRUE(ts.sparse);
  ASSERT_EQ(ts.c1.vanilla_proofs.size(), 10u);
  ASSERT_EQ(ts.c1.vanilla_proofs[0].size(), 18u);
  EXPECT_EQ(ts.c1.vanilla_proofs[0][0].comm_r_last_proof.kind, MerkleProof::Kind::kSub);
  EXPECT_EQ(ts.c1.vanilla_proofs[0][0].replica_column_proofs.c_x.column.rows.size(), 11u);
  const StackedBucketGraph graph(info);
  EXPECT_EQ(expect_consistent(ts.c1, graph), 180u * (15 + 2));
  const auto t1 = std::chrono::steady_clock::now();
  EXPECT_NO_THROW(check_seal_commit_phase1(ts.c1, SealCommitIdentity{ts.prover_id, ts.sector_id}));
  std::printf("32 GiB native check %.2f s\n", seconds_since(t1));
  // JSON round trip at full size.
  const std::string json = write_seal_commit_phase1(ts.c1);
  EXPECT_EQ(write_seal_commit_phase1(read_seal_commit_phase1(json)), json);
  std::printf("32 GiB Commit1 JSON: %.1f MB\n", json.size() / 1e6);
  // Deterministic in its options.
  EXPECT_EQ(generate_test_sector(info, options_for(32, SectorData::kZeros)).comm_r, ts.comm_r);
}

TEST(FilecoinTestSector, Sparse32GiBChallengeSatisfiesTheCircuit) {
  const SealProofInfo& info = seal_proof_info(Proof::kStackedDrg32GiBV1_1);
  const TestSector ts = generate_test_sector(info, options_for(33, SectorData::kZeros));
  const auto t0 = std::chrono::steady_clock::now();
  expect_challenge_satisfied(ts.c1, 3, 7);
  std::printf("32 GiB one challenge's circuit checked in %.1f s\n", seconds_since(t0));
}

TEST(FilecoinTestSector, Sparse64GiBSectorIsConsistent) {
  const SealProofInfo& info = seal_proof_info(Proof::kStackedDrg64GiBV1);
  const TestSector ts = generate_test_sector(info, options_for(64, SectorData::kZeros));
  ASSERT_TRUE(ts.sparse);
  EXPECT_EQ(ts.c1.vanilla_proofs[0][0].comm_r_last_proof.kind, MerkleProof::Kind::kTop);
  const StackedBucketGraph graph(info);
  EXPECT_EQ(expect_consistent(ts.c1, graph), 180u * (15 + 2));
  EXPECT_NO_THROW(check_seal_commit_phase1(ts.c1, SealCommitIdentity{ts.prover_id, ts.sector_id}));
}

TEST(FilecoinTestSector, SparseSectorsRefuseFiatShamirChallenges) {
  for (Proof id :
       {Proof::kStackedDrg32GiBV1_1_Feat_SyntheticPoRep, Proof::kStackedDrg64GiBV1_2_Feat_NonInteractivePoRep,
        Proof::kStackedDrg512MiBV1_1_Feat_SyntheticPoRep}) {
    const SealProofInfo& info = seal_proof_info(id);
    auto o = options_for(1, SectorData::kZeros);
    o.mode = SectorMode::kSparse;
    try {
      generate_test_sector(info, o);
      ADD_FAILURE() << info.name << ": generated";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("comm_r"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("sealed for real"), std::string::npos) << e.what();
    }
  }
  // Auto: 32 GiB synthetic cannot be built at all; 512 MiB synthetic is sealed for real.
  EXPECT_THROW(test_sector_mode(seal_proof_info(Proof::kStackedDrg32GiBV1_1_Feat_SyntheticPoRep), {}),
               std::invalid_argument);
  EXPECT_EQ(test_sector_mode(seal_proof_info(Proof::kStackedDrg512MiBV1_2_Feat_NonInteractivePoRep), {}),
            SectorMode::kReal);
  EXPECT_EQ(test_sector_mode(seal_proof_info(Proof::kStackedDrg8MiBV1), {}), SectorMode::kReal);
  auto o = options_for(1);
  EXPECT_THROW(test_sector_mode(seal_proof_info(Proof::kStackedDrg32GiBV1), o), std::invalid_argument);  // data
  o.mode = SectorMode::kReal;
  EXPECT_THROW(test_sector_mode(seal_proof_info(Proof::kStackedDrg32GiBV1), o), std::invalid_argument);
}

// ---- lotus-seed's presealed sectors ------------------------------------------------------------

// lotus cmd/lotus-seed/seed/seed.go presealSector: random piece data (AddPiece from
// crypto/rand), ticket = BLAKE2b-256 of the ticket preimage ("lotus is fire", the
// --ticket-preimage default in cmd/lotus-seed/main.go). The labels follow from prover, sector,
// ticket and comm_d alone; subtracting the key from the sealed replica gives the data, whose
// tree D must be comm_d. Sealing that data again must give the replica byte for byte, and the
// p_aux (comm_c, comm_r_last) and comm_r lotus recorded.
TEST(FilecoinTestSector, LotusPresealedReplicasReproduce) {
  const std::string dir = test::testdata_dir() + "/filecoin/post/preseal-2KiB";
  if (!std::filesystem::exists(dir + "/sectors.json")) GTEST_SKIP() << "no " << dir;
  const auto meta_bytes = test::read_file(dir + "/sectors.json");
  const auto meta = nlohmann::json::parse(std::string(meta_bytes.begin(), meta_bytes.end()));
  const std::string preimage = "lotus is fire";
  Bytes32 ticket;
  Blake2b(32)
      .update(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(preimage.data()), preimage.size()))
      .finalize(ticket);
  size_t sectors = 0;
  for (const auto& miner : meta["miners"]) {
    const std::string name = miner["miner"];
    const Bytes32 prover_id = test::bytes32_from_hex(miner["prover_id_hex"]);
    EXPECT_EQ(prover_id, prover_id_from_actor_id(miner["actor_id"].get<uint64_t>()));
    for (const auto& s : miner["sectors"]) {
      const uint64_t number = s["sector_number"];
      const SealProofInfo& info = seal_proof_info_by_id(s["seal_proof"].get<uint64_t>());
      SCOPED_TRACE(name + " sector " + std::to_string(number));
      const std::string id = "s-" + name + "-" + std::to_string(number);
      const auto sealed = test::read_file(dir + "/" + name + "/sealed/" + id);
      const auto p_aux = test::read_file(dir + "/" + name + "/cache/" + id + "/p_aux");
      const auto r_last = test::read_file(dir + "/" + name + "/cache/" + id + "/sc-02-data-tree-r-last.dat");
      ASSERT_EQ(sealed.size(), info.sector_size);
      ASSERT_EQ(p_aux.size(), 64u);
      const Bytes32 comm_d = test::bytes32_from_hex(s["comm_d_hex"]), comm_r = test::bytes32_from_hex(s["comm_r_hex"]);
      const Bytes32 rid = replica_id(prover_id, number, ticket, comm_d, info.porep_id());
      std::vector<uint8_t> data = unseal_replica(info, sealed, rid);
      const SealedSector again(info, data, prover_id, number, ticket);
      EXPECT_EQ(again.comm_d(), comm_d) << "the recovered data's tree D (a wrong ticket gives garbage data)";
      EXPECT_EQ(again.replica_id(), rid);
      EXPECT_TRUE(again.replica() == sealed) << "replica";
      EXPECT_TRUE(std::equal(p_aux.begin(), p_aux.begin() + 32, again.comm_c().begin())) << "comm_c";
      EXPECT_TRUE(std::equal(p_aux.begin() + 32, p_aux.end(), again.comm_r_last().begin())) << "comm_r_last";
      EXPECT_TRUE(std::equal(r_last.begin(), r_last.end(), again.comm_r_last().begin())) << "tree-r-last root";
      EXPECT_EQ(again.comm_r(), comm_r) << "comm_r";
      // And a Commit1 of the presealed sector satisfies the circuit.
      const SealCommitPhase1Output c1 = again.commit_phase1(pattern(uint8_t(number)));
      expect_partition_satisfied(c1, 0);
      sectors++;
    }
  }
  EXPECT_EQ(sectors, 4u);
}

}  // namespace
}  // namespace cuzk::filecoin
