// The Commit1 output (SealCommitPhase1Output) in filecoin-proofs-api's serde JSON: the real 8 MiB
// output read (checked against its .meta.json) and written back byte for byte; generated outputs
// of every tree kind (Single, Sub, Top) and a 32 GiB-shaped one round-tripped; and corrupt
// inputs (truncations, byte flips, wrong counts, non-canonical values, unknown names) rejected
// with a C1FormatError naming the JSON path.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "filecoin/porep/commit1.hpp"
#include "gadgets/hashers.hpp"
#include "test_support.hpp"

namespace cuzk::filecoin {
namespace {

using gadgets::fr_to_bytes_le;
using Kind = MerkleProof::Kind;

std::string real_c1_path() { return test::testdata_dir() + "/filecoin/porep/c1-8MiB-StackedDrg8MiBV1_1.json"; }
std::string real_meta_path() { return test::testdata_dir() + "/filecoin/porep/c1-8MiB-StackedDrg8MiBV1_1.meta.json"; }

std::string slurp(const std::string& path) {
  const auto bytes = test::read_file(path);
  return std::string(bytes.begin(), bytes.end());
}

// ---- a generated output: random values in the exact shape of `info` -----------------------

Fr random_fr(std::mt19937_64& rng) { return Fr::random(rng); }

// A path of `shape` whose level indices encode `leaf` (base first, mixed radix).
MerkleProof make_merkle(const gadgets::PorTreeShape& shape, uint64_t leaf, std::mt19937_64& rng) {
  MerkleProof p;
  p.kind = shape.top_arity ? Kind::kTop : shape.sub_arity ? Kind::kSub : Kind::kSingle;
  p.root = random_fr(rng);
  p.leaf = random_fr(rng);
  auto level = [&](size_t arity) {
    PathElement pe;
    for (size_t j = 0; j + 1 < arity; j++) pe.hashes.push_back(random_fr(rng));
    pe.index = uint32_t(leaf % arity);
    leaf /= arity;
    return pe;
  };
  for (size_t l = 0; l < shape.base_levels; l++) p.base.push_back(level(shape.base_arity));
  if (shape.sub_arity) p.sub.push_back(level(shape.sub_arity));
  if (shape.top_arity) p.top.push_back(level(shape.top_arity));
  return p;
}

ColumnProof make_column(const SealProofInfo& info, uint64_t index, std::mt19937_64& rng) {
  ColumnProof cp;
  cp.column.index = uint32_t(index);
  for (size_t l = 0; l < info.layers; l++) cp.column.rows.push_back(random_fr(rng));
  cp.inclusion_proof = make_merkle(info.tree_r, index, rng);
  return cp;
}

// 6 (layer 1) or 14 distinct parents repeated to 37, as proof.rs prove_layers_generate does.
LabelingProof make_labeling(uint32_t layer, uint64_t node, std::mt19937_64& rng) {
  LabelingProof lp;
  lp.layer_index = layer;
  lp.node = node;
  const size_t period = layer == 1 ? 6 : 14;
  for (size_t j = 0; j < period; j++) lp.parents.push_back(random_fr(rng));
  for (size_t j = period; j < 37; j++) lp.parents.push_back(lp.parents[j % period]);
  return lp;
}

VanillaSealProof make_proof(const SealProofInfo& info, std::mt19937_64& rng) {
  const uint64_t challenge = 1 + rng() % (info.nodes - 1);
  VanillaSealProof p;
  p.comm_d_proofs = make_merkle(info.tree_d, challenge, rng);
  p.comm_r_last_proof = make_merkle(info.tree_r, challenge, rng);
  p.replica_column_proofs.c_x = make_column(info, challenge, rng);
  for (int j = 0; j < 6; j++) p.replica_column_proofs.drg_parents.push_back(make_column(info, rng() % challenge, rng));
  for (int j = 0; j < 8; j++) p.replica_column_proofs.exp_parents.push_back(make_column(info, rng() % info.nodes, rng));
  for (size_t l = 1; l <= info.layers; l++) p.labeling_proofs.push_back(make_labeling(uint32_t(l), challenge, rng));
  p.encoding_proof = p.labeling_proofs.back();
  return p;
}

SealCommitPhase1Output make_c1(const SealProofInfo& info, std::mt19937_64& rng) {
  SealCommitPhase1Output c1;
  c1.registered_proof = info.proof;
  c1.vanilla_proofs.resize(info.partitions);
  for (auto& part : c1.vanilla_proofs) {
    for (size_t i = 0; i < info.challenges_per_partition; i++) part.push_back(make_proof(info, rng));
  }
  c1.comm_r = fr_to_bytes_le(random_fr(rng));
  c1.comm_d = fr_to_bytes_le(random_fr(rng));
  c1.replica_id = random_fr(rng);
  for (auto& b : c1.seed) b = uint8_t(rng());
  for (auto& b : c1.ticket) b = uint8_t(rng());
  return c1;
}

// Reads `json`, expecting a C1FormatError whose message contains `needle`; fails the test on
// success or on any other exception.
void expect_format_error(const std::string& json, const std::string& needle, const std::string& what = "") {
  try {
    read_seal_commit_phase1(json);
    ADD_FAILURE() << what << ": read, expected a C1FormatError containing \"" << needle << "\"";
  } catch (const C1FormatError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << what << ": message \"" << e.what() << "\" lacks \"" << needle << "\"";
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": another exception: " << e.what();
  }
}

// Replaces the first occurrence of `from` after `start`; fails when there is none.
std::string replace_first(std::string s, const std::string& from, const std::string& to, size_t start = 0) {
  const size_t at = s.find(from, start);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

// The 32 bytes after the first `key` ("\"leaf\":"), replaced by `array`.
std::string replace_array_after(std::string s, const std::string& key, const std::string& array) {
  const size_t at = s.find(key);
  EXPECT_NE(at, std::string::npos) << key;
  if (at == std::string::npos) return s;
  const size_t open = at + key.size(), close = s.find(']', open);
  s.replace(open, close + 1 - open, array);
  return s;
}

std::string array_of(const std::vector<int>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); i++) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  return s + "]";
}

// ---- the real 8 MiB output -------------------------------------------------------------------

TEST(FilecoinC1, RealOutputReadsAndWritesBackByteForByte) {
  if (!std::filesystem::exists(real_c1_path())) GTEST_SKIP() << "no " << real_c1_path();
  const std::string json = slurp(real_c1_path());
  const SealCommitPhase1Output c1 = read_seal_commit_phase1(json);
  EXPECT_EQ(c1.registered_proof, RegisteredSealProof::kStackedDrg8MiBV1_1);
  ASSERT_EQ(c1.vanilla_proofs.size(), 1u);
  ASSERT_EQ(c1.vanilla_proofs[0].size(), 2u);
  const std::string written = write_seal_commit_phase1(c1);
  EXPECT_EQ(written.size(), json.size());
  EXPECT_TRUE(written == json) << "first difference at byte "
                               << (std::mismatch(written.begin(), written.end(), json.begin(), json.end()).first -
                                   written.begin());
  // The file overload reads the same.
  EXPECT_EQ(write_seal_commit_phase1(read_seal_commit_phase1_file(real_c1_path())), json);
}

TEST(FilecoinC1, RealOutputMatchesItsMeta) {
  if (!std::filesystem::exists(real_c1_path()) || !std::filesystem::exists(real_meta_path())) {
    GTEST_SKIP() << "no " << real_c1_path();
  }
  const SealCommitPhase1Output c1 = read_seal_commit_phase1_file(real_c1_path());
  const auto meta = nlohmann::json::parse(slurp(real_meta_path()));
  EXPECT_EQ(meta["registered_proof"].get<std::string>(), seal_proof_info(c1.registered_proof).name);
  EXPECT_EQ(c1.comm_r, test::bytes32_from_hex(meta["comm_r_hex"]));
  EXPECT_EQ(c1.comm_d, test::bytes32_from_hex(meta["comm_d_hex"]));
  EXPECT_EQ(fr_to_bytes_le(c1.replica_id), test::bytes32_from_hex(meta["replica_id_hex"]));
  EXPECT_EQ(c1.seed, test::bytes32_from_hex(meta["seed_hex"]));
  EXPECT_EQ(c1.ticket, test::bytes32_from_hex(meta["ticket_hex"]));
  const auto& expect = meta["challenges_and_parents_from_vanilla_proofs"];
  ASSERT_EQ(expect.size(), 2u);
  for (size_t i = 0; i < 2; i++) {
    const VanillaSealProof& p = c1.vanilla_proofs[0][i];
    const uint64_t challenge = expect[i]["challenge"];
    const ReplicaColumnProof& rcp = p.replica_column_proofs;
    EXPECT_EQ(rcp.c_x.column.index, challenge);
    EXPECT_EQ(p.labeling_proofs[0].node, challenge);
    EXPECT_EQ(p.encoding_proof.node, challenge);
    EXPECT_EQ(p.encoding_proof.layer_index, 2u);
    ASSERT_EQ(rcp.drg_parents.size(), 6u);
    ASSERT_EQ(rcp.exp_parents.size(), 8u);
    for (size_t j = 0; j < 6; j++) EXPECT_EQ(rcp.drg_parents[j].column.index, expect[i]["drg_parents"][j]) << j;
    for (size_t j = 0; j < 8; j++) EXPECT_EQ(rcp.exp_parents[j].column.index, expect[i]["exp_parents"][j]) << j;
    // The data tree's root is comm_d; the layer-1 label parents are the DRG parents' layer-1 rows.
    EXPECT_EQ(fr_to_bytes_le(p.comm_d_proofs.root), c1.comm_d);
    EXPECT_EQ(p.comm_d_proofs.kind, Kind::kSingle);
    EXPECT_EQ(p.comm_d_proofs.base.size(), 18u);
    EXPECT_EQ(p.comm_r_last_proof.base.size(), 6u);
    for (size_t j = 0; j < 6; j++) EXPECT_TRUE(p.labeling_proofs[0].parents[j] == rcp.drg_parents[j].column.rows[0]);
  }
}

// ---- generated outputs ------------------------------------------------------------------------

TEST(FilecoinC1, GeneratedOutputsRoundTripForEveryTreeKind) {
  auto rng = test::make_rng();
  for (RegisteredSealProof id :
       {RegisteredSealProof::kStackedDrg2KiBV1, RegisteredSealProof::kStackedDrg8MiBV1_1_Feat_SyntheticPoRep,
        RegisteredSealProof::kStackedDrg512MiBV1_2_Feat_NonInteractivePoRep,
        RegisteredSealProof::kStackedDrg64GiBV1_1}) {
    const SealProofInfo& info = seal_proof_info(id);
    SCOPED_TRACE(std::string(info.name));
    const SealCommitPhase1Output c1 = make_c1(info, rng);
    EXPECT_NO_THROW(validate_seal_commit_phase1(c1));
    const std::string json = write_seal_commit_phase1(c1);
    const SealCommitPhase1Output back = read_seal_commit_phase1(json);
    EXPECT_EQ(back.registered_proof, id);
    ASSERT_EQ(back.vanilla_proofs.size(), info.partitions);
    EXPECT_EQ(back.vanilla_proofs[0].size(), info.challenges_per_partition);
    EXPECT_EQ(back.vanilla_proofs[0][0].comm_r_last_proof.kind, c1.vanilla_proofs[0][0].comm_r_last_proof.kind);
    EXPECT_TRUE(back.replica_id == c1.replica_id);
    EXPECT_EQ(back.seed, c1.seed);
    EXPECT_TRUE(write_seal_commit_phase1(back) == json);
  }
}

// A 32 GiB-shaped output (10 x 18 proofs, 11 layers, Sub proofs) reads back as written. (Its
// read speed is measured by cuzk-bench porep --c1, which reports the read time.)
TEST(FilecoinC1, Generated32GiBOutputRoundTrips) {
  auto rng = test::make_rng();
  const SealProofInfo& info = seal_proof_info(RegisteredSealProof::kStackedDrg32GiBV1_1);
  const SealCommitPhase1Output c1 = make_c1(info, rng);
  ASSERT_EQ(c1.vanilla_proofs.size(), 10u);
  ASSERT_EQ(c1.vanilla_proofs[0].size(), 18u);
  ASSERT_EQ(c1.vanilla_proofs[0][0].comm_r_last_proof.kind, Kind::kSub);
  const std::string json = write_seal_commit_phase1(c1);
  EXPECT_TRUE(write_seal_commit_phase1(read_seal_commit_phase1(json)) == json);
}

// One reader for many inputs, long then short, good then bad: each read as on its own.
TEST(FilecoinC1, ReaderReusesItsBuffers) {
  auto rng = test::make_rng();
  const std::string big =
      write_seal_commit_phase1(make_c1(seal_proof_info(RegisteredSealProof::kStackedDrg8MiBV1_1), rng));
  const std::string small =
      write_seal_commit_phase1(make_c1(seal_proof_info(RegisteredSealProof::kStackedDrg2KiBV1), rng));
  SealCommitPhase1Reader reader;
  for (int round = 0; round < 2; round++) {
    EXPECT_EQ(write_seal_commit_phase1(reader.read(big)), big);
    EXPECT_THROW(reader.read(small.substr(0, small.size() / 2)), C1FormatError);
    EXPECT_EQ(write_seal_commit_phase1(reader.read(small)), small);
    // A prefix of the big one that ends where the small one does: the old bytes after it are not read.
    EXPECT_THROW(reader.read(big.substr(0, small.size())), C1FormatError);
    EXPECT_THROW(reader.read(""), C1FormatError);
  }
  const auto dir = std::filesystem::temp_directory_path() / ("cuzk_c1_test_" + std::to_string(test::run_seed()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "c1.json", std::ios::binary) << small;
  std::ofstream(dir / "bad.json", std::ios::binary) << small.substr(0, 1000);
  EXPECT_EQ(write_seal_commit_phase1(reader.read_file(dir / "c1.json")), small);
  EXPECT_EQ(write_seal_commit_phase1(read_seal_commit_phase1_file(dir / "c1.json")), small);
  try {
    read_seal_commit_phase1_file(dir / "bad.json");
    ADD_FAILURE() << "a truncated file was read";
  } catch (const C1FormatError& e) {
    // The file name leads the message.
    EXPECT_EQ(std::string(e.what()).rfind((dir / "bad.json").string(), 0), 0u) << e.what();
  }
  EXPECT_THROW(read_seal_commit_phase1_file(dir / "absent.json"), std::runtime_error);
  // Over the 4 GiB simdjson reads (a sparse file: no disk used): refused before a buffer is taken.
  std::ofstream(dir / "huge.json", std::ios::binary) << "{";
  std::filesystem::resize_file(dir / "huge.json", uintmax_t(5) << 30);
  try {
    reader.read_file(dir / "huge.json");
    ADD_FAILURE() << "a 5 GiB file was read";
  } catch (const C1FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("at most 4294967295 are read"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

// ---- corrupt inputs ------------------------------------------------------------------------

// Every value read back wrong by a small change to an otherwise good output: the message names
// the path, both from the JSON and from validate_seal_commit_phase1 on the struct.
TEST(FilecoinC1, WrongCountsAndIndicesNameThePath) {
  auto rng = test::make_rng();
  const SealProofInfo& info = seal_proof_info(RegisteredSealProof::kStackedDrg8MiBV1_1);
  const SealCommitPhase1Output good = make_c1(info, rng);
  const std::string p01 = "vanilla_proofs.StackedDrg8MiBV1[0][1]";
  const std::string rc = p01 + ".replica_column_proofs";
  struct Case {
    const char* name;
    std::function<void(SealCommitPhase1Output&)> mutate;
    std::string needle;
  };
  const std::vector<Case> cases = {
      {"no partition", [](auto& c) { c.vanilla_proofs.clear(); },
       "vanilla_proofs.StackedDrg8MiBV1: 0 partitions, StackedDrg8MiBV1_1 has 1"},
      {"extra challenge", [](auto& c) { c.vanilla_proofs[0].push_back(c.vanilla_proofs[0][0]); },
       "vanilla_proofs.StackedDrg8MiBV1[0]: 3 proofs, StackedDrg8MiBV1_1 has 2 challenges per partition"},
      {"6 siblings",
       [](auto& c) {
         c.vanilla_proofs[0][1].replica_column_proofs.drg_parents[3].inclusion_proof.base[2].hashes.pop_back();
       },
       rc + ".drg_parents[3].inclusion_proof.data.Single.path.path[2].hashes: 6 elements, a tree of arity 8 needs 7"},
      {"2 siblings in tree D",
       [](auto& c) { c.vanilla_proofs[0][1].comm_d_proofs.base[5].hashes.push_back(Fr::one()); },
       p01 + ".comm_d_proofs.data.Single.path.path[5].hashes: 2 elements, a tree of arity 2 needs 1"},
      {"index 8", [](auto& c) { c.vanilla_proofs[0][1].comm_r_last_proof.base[4].index = 8; },
       p01 + ".comm_r_last_proof.data.Single.path.path[4].index: 8, but a node of arity 8 has children 0..7"},
      {"a level short", [](auto& c) { c.vanilla_proofs[0][1].comm_r_last_proof.base.pop_back(); },
       p01 + ".comm_r_last_proof.data.Single.path.path: 5 levels, expected 6"},
      {"Sub in an 8 MiB tree",
       [](auto& c) {
         auto& m = c.vanilla_proofs[0][1].comm_r_last_proof;
         m.kind = Kind::kSub;
         m.sub.push_back(m.base.back());
         m.base.pop_back();
       },
       p01 + ".comm_r_last_proof.data: a Sub proof; the tree (6 levels of arity 8) has Single proofs"},
      {"wrong leaf", [](auto& c) { c.vanilla_proofs[0][1].comm_d_proofs.base[0].index ^= 1; },
       p01 + ".comm_d_proofs: the path opens leaf"},
      {"parent path", [](auto& c) { c.vanilla_proofs[0][1].replica_column_proofs.exp_parents[7].column.index ^= 8; },
       rc + ".exp_parents[7].inclusion_proof: the path opens leaf"},
      {"column index",
       [](auto& c) { c.vanilla_proofs[0][1].replica_column_proofs.exp_parents[0].column.index = 1u << 18; },
       rc + ".exp_parents[0].column.index: 262144, the sector has 262144 nodes"},
      {"one row", [](auto& c) { c.vanilla_proofs[0][1].replica_column_proofs.c_x.column.rows.pop_back(); },
       rc + ".c_x.column.rows: 1 elements, a column has one label per layer (2)"},
      {"5 DRG parents", [](auto& c) { c.vanilla_proofs[0][1].replica_column_proofs.drg_parents.pop_back(); },
       rc + ".drg_parents: 5 elements, expected 6"},
      {"9 expander parents",
       [](auto& c) {
         auto& e = c.vanilla_proofs[0][1].replica_column_proofs.exp_parents;
         e.push_back(e[0]);
       },
       rc + ".exp_parents: 9 elements, expected 8"},
      {"one labeling proof", [](auto& c) { c.vanilla_proofs[0][1].labeling_proofs.pop_back(); },
       p01 + ".labeling_proofs: 1 elements, expected one per layer (2)"},
      {"layer index", [](auto& c) { c.vanilla_proofs[0][1].labeling_proofs[1].layer_index = 3; },
       p01 + ".labeling_proofs[1].layer_index: 3, expected 2"},
      {"labeling node", [](auto& c) { c.vanilla_proofs[0][1].labeling_proofs[0].node += 1; },
       p01 + ".labeling_proofs[0].node:"},
      {"36 parents", [](auto& c) { c.vanilla_proofs[0][1].labeling_proofs[0].parents.pop_back(); },
       p01 + ".labeling_proofs[0].parents: 36 elements, expected 37"},
      {"parents not repeated", [](auto& c) { c.vanilla_proofs[0][1].labeling_proofs[1].parents[20] = Fr::one(); },
       p01 + ".labeling_proofs[1].parents[20]: differs from parents[6]"},
      {"encoding layer", [](auto& c) { c.vanilla_proofs[0][1].encoding_proof.layer_index = 1; },
       p01 + ".encoding_proof.layer_index: 1, expected 2"},
      {"encoding parents",
       [](auto& c) {
         auto& e = c.vanilla_proofs[0][1].encoding_proof.parents;
         for (size_t j = 0; j < e.size(); j += 14) e[j] = Fr::one();
       },
       p01 + ".encoding_proof.parents[0]: differs from the last labeling proof's"},
      {"node 0",
       [](auto& c) {
         auto& p = c.vanilla_proofs[0][1];
         p.replica_column_proofs.c_x.column.index = 0;
         for (auto& l : p.replica_column_proofs.c_x.inclusion_proof.base) l.index = 0;
       },
       rc + ".c_x.column.index: 0; challenges are never node 0"},
      {"comm_r", [](auto& c) { c.comm_r.fill(0xff); }, "comm_r: not a canonical field element"},
  };
  for (const Case& k : cases) {
    SealCommitPhase1Output c1 = good;
    k.mutate(c1);
    try {
      validate_seal_commit_phase1(c1);
      ADD_FAILURE() << k.name << ": validated";
    } catch (const C1FormatError& e) {
      EXPECT_NE(std::string(e.what()).find(k.needle), std::string::npos) << k.name << ": " << e.what();
    }
    expect_format_error(write_seal_commit_phase1(c1), k.needle, k.name);
  }
}

TEST(FilecoinC1, BadJsonValuesAndNamesNameThePath) {
  auto rng = test::make_rng();
  const SealProofInfo& info = seal_proof_info(RegisteredSealProof::kStackedDrg8MiBV1_1);
  const std::string good = write_seal_commit_phase1(make_c1(info, rng));
  const std::string leaf = "vanilla_proofs.StackedDrg8MiBV1[0][0].comm_d_proofs.data.Single.leaf";
  // r, the modulus, little-endian: the smallest non-canonical value.
  const std::vector<int> modulus = {1, 0,   0,   0, 255, 255, 255, 255, 254, 91,  254, 255, 2,  164, 189, 83,
                                    5, 216, 161, 9, 8,   216, 57,  51,  72,  125, 157, 41,  83, 167, 237, 115};
  std::vector<int> below = modulus;
  below[0] = 0;
  expect_format_error(replace_array_after(good, "\"leaf\":", array_of(modulus)),
                      leaf + ": not a canonical field element");
  EXPECT_NO_THROW(read_seal_commit_phase1(replace_array_after(good, "\"leaf\":", array_of(below))));
  expect_format_error(replace_array_after(good, "\"replica_id\":", array_of(std::vector<int>(32, 255))),
                      "replica_id: not a canonical field element");
  expect_format_error(replace_array_after(good, "\"comm_d\":", array_of(std::vector<int>(32, 255))),
                      "comm_d: not a canonical field element");
  // seed and ticket are bytes, not field elements.
  EXPECT_NO_THROW(read_seal_commit_phase1(replace_array_after(good, "\"seed\":", array_of(std::vector<int>(32, 255)))));
  std::vector<int> bytes(32, 7);
  bytes[5] = 256;
  expect_format_error(replace_array_after(good, "\"leaf\":", array_of(bytes)),
                      leaf + "[5]: expected a byte 0..255, found the number 256");
  bytes[5] = -1;
  expect_format_error(replace_array_after(good, "\"leaf\":", array_of(bytes)),
                      leaf + "[5]: expected a byte 0..255, found the number -1");
  expect_format_error(replace_array_after(good, "\"leaf\":",
                                          "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,"
                                          "22,23,24,25,26,27,28,29,30,31,3.5]"),
                      leaf + "[31]: expected a byte 0..255, found the number 3.5");
  expect_format_error(replace_array_after(good, "\"leaf\":", array_of(std::vector<int>(31, 1))),
                      leaf + ": 31 elements, expected 32 bytes");
  expect_format_error(replace_array_after(good, "\"leaf\":", array_of(std::vector<int>(33, 1))),
                      leaf + ": more than 32 elements");
  expect_format_error(replace_array_after(good, "\"leaf\":", "\"abc\""), leaf + ": expected an array, found a string");
  expect_format_error(replace_first(good, "\"index\":", "\"index\":\"1\",\"x\":"),
                      "path.path[0].index: expected an integer 0..4294967295, found a string");
  expect_format_error(replace_first(good, "\"index\":", "\"index\":4294967296,\"x\":"),
                      "path.path[0].index: expected an integer 0..4294967295");
  // Names.
  expect_format_error(replace_first(good, "\"StackedDrg8MiBV1_1\"", "\"StackedDrg8MiBV9\""),
                      "registered_proof: unknown registered seal proof \"StackedDrg8MiBV9\"");
  expect_format_error(replace_first(good, "\"StackedDrg8MiBV1_1\"", "\"StackedDrg32GiBV1_1\""),
                      "vanilla_proofs: variant StackedDrg8MiBV1 holds proofs of another sector size; "
                      "StackedDrg32GiBV1_1 needs StackedDrg32GiBV1");
  expect_format_error(replace_first(good, "{\"StackedDrg8MiBV1\"", "{\"StackedDrg4KiBV1\""),
                      "vanilla_proofs: unknown variant \"StackedDrg4KiBV1\"");
  expect_format_error(replace_first(good, "\"Single\"", "\"Double\""),
                      "vanilla_proofs.StackedDrg8MiBV1[0][0].comm_d_proofs.data: unknown variant \"Double\"");
  expect_format_error(replace_first(good, "{\"Single\":", "{\"Sub\":"),
                      "comm_d_proofs.data.Sub: unknown field \"path\"");
  expect_format_error(replace_first(good, "{\"registered_proof\"", "{\"foo\":1,\"registered_proof\""),
                      "(top level): unknown field \"foo\"");
  expect_format_error(replace_first(good, "\"comm_r\":", "\"comm_d\":"), "(top level): duplicate field \"comm_d\"");
  expect_format_error(replace_first(good, ",\"_h\":null", ""),
                      "vanilla_proofs.StackedDrg8MiBV1[0][0].replica_column_proofs.c_x.column: missing field \"_h\"");
  expect_format_error(replace_first(good, "\"_h\":null", "\"_h\":0"),
                      "c_x.column._h: expected null, found the number 0");
  {
    // The first proof's comm_d proof with its Single variant twice.
    const std::string head = "{\"data\":{\"Single\":";
    const size_t start = good.find(head) + head.size();
    size_t end = start, depth = 0;
    do {
      depth += good[end] == '{';
      depth -= good[end] == '}';
      end++;
    } while (depth);
    const std::string twice = good.substr(0, end) + ",\"Single\":" + good.substr(start);
    expect_format_error(twice, "comm_d_proofs.data: more than one variant (a second one, \"Single\")");
  }
  expect_format_error(replace_first(good, "{\"data\":{\"Single\":", "{\"data\":{}, \"x\":{\"Single\":"),
                      "comm_d_proofs.data: expected one variant, found an empty object");
  // Not JSON, or not this JSON.
  expect_format_error("", "malformed JSON");
  expect_format_error("   ", "malformed JSON");
  expect_format_error("[]", "expected an object");
  expect_format_error("{}", "(top level): missing field \"registered_proof\"");
  expect_format_error("null", "");
  expect_format_error(good + "x", "");
  expect_format_error(good + "{}", "");
  expect_format_error(replace_first(good, ",\"comm_d\":", ",,\"comm_d\":"), "malformed JSON");
  // serde reads whitespace, any field order and escaped keys.
  std::string spaced;
  for (char ch : good) {
    spaced += ch;
    if (ch == ',' || ch == ':') spaced += " \n\t";
  }
  EXPECT_EQ(write_seal_commit_phase1(read_seal_commit_phase1(spaced + "\n")), good);
  const size_t seed_at = good.find(",\"seed\":");
  const std::string reordered =
      "{" + good.substr(seed_at + 1, good.size() - seed_at - 2) + "," + good.substr(1, seed_at - 1) + "}";
  EXPECT_EQ(write_seal_commit_phase1(read_seal_commit_phase1(reordered)), good);
  EXPECT_EQ(write_seal_commit_phase1(read_seal_commit_phase1(replace_first(good, "\"ticket\"", "\"\\u0074icket\""))),
            good);
}

// Every prefix of a small output is rejected with a C1FormatError, never a crash or another error.
TEST(FilecoinC1, TruncationsAreFormatErrors) {
  auto rng = test::make_rng();
  const std::string good =
      write_seal_commit_phase1(make_c1(seal_proof_info(RegisteredSealProof::kStackedDrg2KiBV1_1), rng));
  size_t checked = 0;
  for (size_t n = 0; n < good.size(); n += (n < 2000 || n + 2000 > good.size()) ? 1 : 7) {
    try {
      read_seal_commit_phase1(std::string_view(good).substr(0, n));
      ADD_FAILURE() << "a prefix of " << n << " of " << good.size() << " bytes was read";
    } catch (const C1FormatError&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << "prefix " << n << ": another exception: " << e.what();
    }
    checked++;
  }
  std::printf("[ c1 truncation ] %zu prefixes of a %zu-byte output rejected\n", checked, good.size());
}

// Random edits anywhere (bytes replaced, ranges cut out or repeated, tokens inserted): a
// C1FormatError or, where the text stays valid (a digit for a digit), an output that writes and
// reads back the same. One reader for all, so that its reuse after errors is exercised too.
TEST(FilecoinC1, RandomEditsAreFormatErrorsOrValid) {
  auto rng = test::make_rng();
  const std::string good =
      write_seal_commit_phase1(make_c1(seal_proof_info(RegisteredSealProof::kStackedDrg8MiBV1_1), rng));
  static const char kInteresting[] = "{}[]\",:0123456789-+.eE \\nul\x01\xff";
  static const char* const kTokens[] = {"[",     "]",           "{",        "}",     ",",        ":",   "\"",
                                        "null",  "[]",          "{}",       "0",     "-1",       "256", "1e3",
                                        "\"x\"", "\"\\u0000\"", ",\"a\":1", "[1,2]", "\xc3\x28", "  "};
  SealCommitPhase1Reader reader;
  size_t rejected = 0, accepted = 0;
  for (int trial = 0; trial < 3000; trial++) {
    std::string bad = good;
    const int edits = 1 + int(rng() % 3);
    for (int f = 0; f < edits; f++) {
      const size_t at = rng() % bad.size();
      switch (rng() % 4) {
        case 0:
          bad[at] = rng() % 2 ? char(rng()) : kInteresting[rng() % (sizeof kInteresting - 1)];
          break;
        case 1:
          bad.erase(at, 1 + rng() % 200);
          break;
        case 2:
          bad.insert(at, bad.substr(rng() % bad.size(), 1 + rng() % 200));
          break;
        default:
          bad.insert(at, kTokens[rng() % std::size(kTokens)]);
          break;
      }
      if (bad.empty()) bad.push_back('{');
    }
    try {
      const SealCommitPhase1Output c1 = reader.read(bad);
      const std::string again = write_seal_commit_phase1(c1);
      EXPECT_EQ(write_seal_commit_phase1(read_seal_commit_phase1(again)), again);
      accepted++;
    } catch (const C1FormatError&) {
      rejected++;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "trial " << trial << ": another exception: " << e.what();
    }
  }
  std::printf("[ c1 random edits ] %zu rejected, %zu still valid\n", rejected, accepted);
  EXPECT_GT(rejected, accepted);
}

}  // namespace
}  // namespace cuzk::filecoin
