// Filecoin's registered seal proofs and published parameter files: the registered-proof table
// against ../shared/filecoin/PUBLIC_INPUTS.md section 2, the parameter file names against
// ../shared/testdata/filecoin/params (parameters.json, vk_filename_map.txt), the parameter
// cache directory rule, the parameters.json reader and the BLAKE2b digest check.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "circuits/synthetic.hpp"
#include "filecoin/parameter_files.hpp"
#include "filecoin/parameter_search.hpp"
#include "filecoin/porep/registered_proofs.hpp"
#include "groth16/setup.hpp"
#include "test_support.hpp"

namespace cuzk::filecoin {
namespace {

namespace fs = std::filesystem;
using test::ScopedEnv;

constexpr uint64_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;

fs::path params_testdata() { return fs::path(test::testdata_dir()) / "filecoin" / "params"; }

// name's path in dir, written with bytes.
fs::path write_in(const test::TempDir& dir, const std::string& name, const std::string& bytes) {
  const fs::path p = fs::path(dir.path) / name;
  test::write_file(p.string(), bytes);
  return p;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// ---------------------------------------------------------------------------------------------
// The registered-proof table (PUBLIC_INPUTS.md sections 1 and 2).

struct ExpectedSize {
  const char* name;
  uint64_t sector_size, nodes;
  size_t layers, partitions, min_challenges, ni_partitions, ni_min_challenges, challenges_per_partition;
  size_t base_levels, sub_arity, top_arity, tree_d_levels;
};
constexpr ExpectedSize kExpected[5] = {
    {"2KiB", 2 * kKiB, 64, 2, 1, 2, 13, 26, 2, 2, 0, 0, 6},
    {"8MiB", 8 * kMiB, 262144, 2, 1, 2, 13, 26, 2, 6, 0, 0, 18},
    {"512MiB", 512 * kMiB, 16777216, 2, 1, 2, 13, 26, 2, 8, 0, 0, 24},
    {"32GiB", 32 * kGiB, uint64_t(1) << 30, 11, 10, 176, 126, 2253, 18, 9, 8, 0, 30},
    {"64GiB", 64 * kGiB, uint64_t(1) << 31, 11, 10, 176, 126, 2253, 18, 9, 8, 2, 31},
};
constexpr const char* kVersionSuffix[4] = {"V1", "V1_1", "V1_1_Feat_SyntheticPoRep", "V1_2_Feat_NonInteractivePoRep"};

TEST(RegisteredProofTable, NumbersMatchPublicInputs) {
  ASSERT_EQ(seal_proofs().size(), kRegisteredSealProofs);
  ASSERT_EQ(kRegisteredSealProofs, 20u);
  for (size_t id = 0; id < 20; id++) {
    const size_t version = id / 5;
    const ExpectedSize& e = kExpected[id % 5];
    const SealProofInfo& p = seal_proofs()[id];
    SCOPED_TRACE(std::string(p.name));
    EXPECT_EQ(p.id(), id);
    EXPECT_EQ(p.name, std::string("StackedDrg") + e.name + kVersionSuffix[version]);
    EXPECT_EQ(p.sector_size_name(), e.name);
    EXPECT_EQ(p.sector_size, e.sector_size);
    EXPECT_EQ(p.nodes, e.nodes);
    EXPECT_EQ(p.layers, e.layers);
    const bool ni = version == 3;
    EXPECT_EQ(p.partitions, ni ? e.ni_partitions : e.partitions);
    EXPECT_EQ(p.minimum_challenges, ni ? e.ni_min_challenges : e.min_challenges);
    EXPECT_EQ(p.challenges_per_partition, e.challenges_per_partition);
    EXPECT_LE(p.challenges_per_partition, 18u);
    EXPECT_GE(p.total_challenges(), p.minimum_challenges);
    EXPECT_EQ(p.api_version, version == 0   ? ApiVersion::kV1_0_0
                             : version == 1 ? ApiVersion::kV1_1_0
                                            : ApiVersion::kV1_2_0);
    EXPECT_EQ(p.feature, version == 2   ? SealFeature::kSynthetic
                         : version == 3 ? SealFeature::kNonInteractive
                                        : SealFeature::kInteractive);
    // Tree R / C: Poseidon, base arity 8, then sub and top levels as the size needs.
    EXPECT_EQ(p.tree_r.hasher, gadgets::TreeHasher::kPoseidon);
    EXPECT_EQ(p.tree_r.base_arity, 8u);
    EXPECT_EQ(p.tree_r.base_levels, e.base_levels);
    EXPECT_EQ(p.tree_r.sub_arity, e.sub_arity);
    EXPECT_EQ(p.tree_r.top_arity, e.top_arity);
    EXPECT_EQ(p.tree_r.leaves(), p.nodes);
    // Tree D: binary SHA-256 over every node.
    EXPECT_EQ(p.tree_d.hasher, gadgets::TreeHasher::kSha256);
    EXPECT_EQ(p.tree_d.base_arity, 2u);
    EXPECT_EQ(p.tree_d.base_levels, e.tree_d_levels);
    EXPECT_EQ(p.tree_d.sub_arity, 0u);
    EXPECT_EQ(p.tree_d.top_arity, 0u);
    EXPECT_EQ(p.tree_d.leaves(), p.nodes);
  }
  // The NI partition counts and challenges spelled out.
  EXPECT_EQ(seal_proof_info(RegisteredSealProof::kStackedDrg2KiBV1_2_Feat_NonInteractivePoRep).partitions, 13u);
  EXPECT_EQ(seal_proof_info(RegisteredSealProof::kStackedDrg32GiBV1_2_Feat_NonInteractivePoRep).partitions, 126u);
  EXPECT_EQ(seal_proof_info(RegisteredSealProof::kStackedDrg32GiBV1_2_Feat_NonInteractivePoRep).total_challenges(),
            126u * 18u);
  EXPECT_EQ(seal_proof_info(RegisteredSealProof::kStackedDrg64GiBV1_1).total_challenges(), 180u);
  EXPECT_EQ(api_version_name(ApiVersion::kV1_0_0), "1.0.0");
  EXPECT_EQ(api_version_name(ApiVersion::kV1_1_0), "1.1.0");
  EXPECT_EQ(api_version_name(ApiVersion::kV1_2_0), "1.2.0");
}

TEST(RegisteredProofTable, PorepIdBytes) {
  for (const SealProofInfo& p : seal_proofs()) {
    Bytes32 expected{};
    expected[0] = uint8_t(p.id());  // id < 256: u64 little-endian, nonce 0, zeros
    EXPECT_EQ(p.porep_id(), expected) << p.name;
  }
  const Bytes32 id8 = seal_proof_info("StackedDrg32GiBV1_1").porep_id();
  EXPECT_EQ(id8[0], 8);
  for (size_t i = 1; i < 32; i++) EXPECT_EQ(id8[i], 0) << i;
}

TEST(RegisteredProofTable, NamesRoundTrip) {
  for (const SealProofInfo& p : seal_proofs()) {
    EXPECT_EQ(&seal_proof_info(p.name), &p);
    EXPECT_EQ(&seal_proof_info(p.proof), &p);
    EXPECT_EQ(&seal_proof_info_by_id(p.id()), &p);
  }
  EXPECT_EQ(seal_proof_info("StackedDrg8MiBV1_1").proof, RegisteredSealProof::kStackedDrg8MiBV1_1);
  EXPECT_EQ(seal_proof_info("StackedDrg64GiBV1_2_Feat_NonInteractivePoRep").id(), 19u);
  EXPECT_EQ(seal_proof_info("StackedDrg512MiBV1_1_Feat_SyntheticPoRep").id(), 12u);
  const std::string err = error_of([] { seal_proof_info("StackedDrg16MiBV1"); });
  EXPECT_NE(err.find("StackedDrg16MiBV1"), std::string::npos) << err;
  EXPECT_NE(err.find("StackedDrg2KiBV1_1"), std::string::npos) << err;
  EXPECT_THROW(seal_proof_info_by_id(20), std::invalid_argument);
  EXPECT_THROW(seal_proof_info(RegisteredSealProof(20)), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// Parameter file names.

TEST(ParameterNames, IdentifierStrings) {
  EXPECT_EQ(porep_parameter_id(2 * kKiB).identifier,
            "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8 base_graph: "
            "drgraph::BucketGraph{size: 64; degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges { "
            "layers: 2, max_count: 2 }, tree: merkletree-poseidon_hasher-8-0-0 }");
  EXPECT_EQ(porep_parameter_id(32 * kGiB).identifier,
            "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8 base_graph: "
            "drgraph::BucketGraph{size: 1073741824; degree: 6; hasher: poseidon_hasher} }, challenges: "
            "LayerChallenges { layers: 11, max_count: 18 }, tree: merkletree-poseidon_hasher-8-8-0 }");
  EXPECT_EQ(porep_parameter_id(64 * kGiB).prefix,
            "stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher");
  EXPECT_EQ(winning_post_parameter_id(2 * kKiB).identifier,
            "FallbackPoSt::PublicParams{sector_size: 2048, challenge_count: 1, sector_count: 66}");
  EXPECT_EQ(window_post_parameter_id(32 * kGiB).identifier,
            "FallbackPoSt::PublicParams{sector_size: 34359738368, challenge_count: 10, sector_count: 2349}");
  EXPECT_EQ(window_post_parameter_id(64 * kGiB).identifier,
            "FallbackPoSt::PublicParams{sector_size: 68719476736, challenge_count: 10, sector_count: 2300}");
  EXPECT_EQ(window_post_parameter_id(8 * kMiB).prefix, "proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0");
  EXPECT_EQ(empty_sector_update_parameter_id(64 * kGiB).identifier,
            "empty_sector_update::PublicParams{ sector_nodes: 2147483648 }");
  EXPECT_EQ(empty_sector_update_parameter_id(64 * kGiB, true).prefix,
            "empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-2");
  EXPECT_EQ(tree_r_display(512 * kMiB), "merkletree-poseidon_hasher-8-0-0");
  EXPECT_EQ(window_post_sector_count(2 * kKiB), 2u);
}

TEST(ParameterNames, KnownFileNames) {
  const ParameterId porep2k = porep_parameter_id(2 * kKiB);
  EXPECT_EQ(porep2k.circuit, ParameterCircuit::kPoRep);
  EXPECT_EQ(porep2k.sector_size, 2 * kKiB);
  EXPECT_EQ(porep2k.vk_name(),
            "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
            "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.vk");
  EXPECT_EQ(porep2k.params_name(),
            "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
            "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params");
  EXPECT_EQ(porep2k.meta_name(),
            "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
            "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.meta");
  EXPECT_EQ(porep_parameter_id(32 * kGiB).stem,
            "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
            "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820");
  EXPECT_EQ(porep_parameter_id(64 * kGiB).stem,
            "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-"
            "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2");
  EXPECT_EQ(winning_post_parameter_id(2 * kKiB).stem,
            "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
            "3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e");
  EXPECT_EQ(window_post_parameter_id(2 * kKiB).stem,
            "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
            "0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0");
  EXPECT_EQ(window_post_parameter_id(32 * kGiB).stem,
            "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
            "0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc");
  EXPECT_EQ(empty_sector_update_parameter_id(2 * kKiB).stem,
            "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
            "fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194");
  EXPECT_EQ(empty_sector_update_parameter_id(32 * kGiB, true).stem,
            "v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-0-"
            "3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18");
  // sha256("") = e3b0c442...: the stem is the prefix and the hash of the identifier bytes.
  EXPECT_EQ(parameter_file_stem("x", ""), "v28-x-e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(ParameterNames, SealVersionsOfOneSizeShareParameters) {
  for (const SealProofInfo& p : seal_proofs()) {
    const ParameterId id = porep_parameter_id(p);
    EXPECT_EQ(id.stem, porep_parameter_id(p.sector_size).stem) << p.name;
    EXPECT_EQ(id.stem, parameter_id(ParameterCircuit::kPoRep, p.sector_size).stem) << p.name;
    EXPECT_EQ(id.sector_size, p.sector_size);
  }
}

TEST(ParameterNames, UnpublishedSizesAreRefused) {
  for (uint64_t size : {uint64_t(4 * kKiB), uint64_t(16 * kMiB), uint64_t(kGiB), uint64_t(0)}) {
    EXPECT_THROW(winning_post_parameter_id(size), std::invalid_argument) << size;
    EXPECT_THROW(window_post_parameter_id(size), std::invalid_argument) << size;
    EXPECT_THROW(empty_sector_update_parameter_id(size), std::invalid_argument) << size;
    EXPECT_THROW(porep_parameter_id(size), std::invalid_argument) << size;
  }
  const std::string err = error_of([] { tree_r_display(16 * kMiB); });
  EXPECT_NE(err.find("16777216"), std::string::npos) << err;
  EXPECT_NE(err.find("34359738368"), std::string::npos) << err;
  gadgets::PorTreeShape sha{gadgets::TreeHasher::kSha256, 2, 6, 0, 0};
  EXPECT_THROW(tree_r_display(sha), std::invalid_argument);
}

// Reads vk_filename_map.txt: "<size> <circuit label> <file>.vk <True|False: in parameters.json>".
struct MapLine {
  std::string size, label, vk_name;
  bool published;
};
std::vector<MapLine> read_vk_map(const fs::path& path) {
  std::vector<MapLine> lines;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::istringstream ss(line);
    std::vector<std::string> tok;
    for (std::string t; ss >> t;) tok.push_back(t);
    if (tok.size() < 4) {
      ADD_FAILURE() << "malformed line in " << path << ": " << line;
      continue;
    }
    MapLine m;
    m.size = tok[0];
    m.vk_name = tok[tok.size() - 2];
    m.published = tok.back() == "True";
    for (size_t i = 1; i + 2 < tok.size(); i++) m.label += (i > 1 ? " " : "") + tok[i];
    lines.push_back(m);
  }
  return lines;
}

std::optional<ParameterCircuit> circuit_of_label(const std::string& label) {
  if (label.rfind("PoRep", 0) == 0) return ParameterCircuit::kPoRep;
  if (label == "WinningPoSt") return ParameterCircuit::kWinningPoSt;
  if (label == "WindowPoSt") return ParameterCircuit::kWindowPoSt;
  if (label == "empty-sector-update") return ParameterCircuit::kEmptySectorUpdate;
  if (label == "empty-sector-update-poseidon") return ParameterCircuit::kEmptySectorUpdatePoseidon;
  return std::nullopt;
}

uint64_t size_of_name(const std::string& name) {
  for (const SealProofInfo& p : seal_proofs()) {
    if (p.sector_size_name() == name) return p.sector_size;
  }
  ADD_FAILURE() << "unknown sector size name " << name;
  return 0;
}

TEST(ParameterNames, AgreeWithVkFilenameMapAndParametersJson) {
  const fs::path map_path = params_testdata() / "vk_filename_map.txt";
  const fs::path json_path = params_testdata() / "parameters.json";
  if (!fs::exists(map_path) || !fs::exists(json_path)) GTEST_SKIP() << "no " << params_testdata();
  const ParameterManifest manifest = read_parameter_manifest(json_path);
  const std::vector<MapLine> lines = read_vk_map(map_path);
  ASSERT_EQ(lines.size(), published_sector_sizes().size() * kParameterCircuits);
  std::set<std::pair<int, uint64_t>> seen;
  for (const MapLine& l : lines) {
    SCOPED_TRACE(l.size + " " + l.label);
    const std::optional<ParameterCircuit> c = circuit_of_label(l.label);
    ASSERT_TRUE(c.has_value()) << "unknown circuit label";
    const uint64_t size = size_of_name(l.size);
    seen.emplace(int(*c), size);
    const ParameterId id = parameter_id(*c, size);
    EXPECT_EQ(id.circuit, *c);
    EXPECT_EQ(id.vk_name(), l.vk_name);
    // The map's last column says whether the file is published: both .vk and .params are.
    for (const std::string& name : {id.vk_name(), id.params_name()}) {
      auto it = manifest.find(name);
      EXPECT_EQ(it != manifest.end(), l.published) << name;
      if (it != manifest.end()) {
        EXPECT_EQ(it->second.sector_size, size) << name;
      }
    }
    EXPECT_EQ(manifest.count(id.meta_name()), 0u);
  }
  EXPECT_EQ(seen.size(), lines.size());
}

TEST(ParameterNames, EveryPublishedFileIsNamedByExactlyOneCircuit) {
  const fs::path json_path = params_testdata() / "parameters.json";
  if (!fs::exists(json_path)) GTEST_SKIP() << "no " << json_path;
  const ParameterManifest manifest = read_parameter_manifest(json_path);
  ASSERT_EQ(manifest.size(), 44u);
  // Every seal proof's files are published, with its sector size.
  for (const SealProofInfo& p : seal_proofs()) {
    const ParameterId id = porep_parameter_id(p);
    for (const std::string& name : {id.params_name(), id.vk_name()}) {
      auto it = manifest.find(name);
      ASSERT_NE(it, manifest.end()) << p.name << ": " << name;
      EXPECT_EQ(it->second.sector_size, p.sector_size) << name;
    }
  }
  // Our names cover the manifest exactly: 5 sizes x (PoRep, Winning, Window, SnapDeals) and the
  // Poseidon SnapDeals of 32 and 64 GiB.
  std::set<std::string> ours;
  for (uint64_t size : published_sector_sizes()) {
    for (size_t c = 0; c < kParameterCircuits; c++) {
      const ParameterCircuit circuit = ParameterCircuit(c);
      if (circuit == ParameterCircuit::kEmptySectorUpdatePoseidon && size < 32 * kGiB) continue;
      const ParameterId id = parameter_id(circuit, size);
      EXPECT_TRUE(ours.insert(id.params_name()).second) << id.params_name();
      EXPECT_TRUE(ours.insert(id.vk_name()).second) << id.vk_name();
    }
  }
  std::set<std::string> theirs;
  for (const auto& [name, e] : manifest) theirs.insert(name);
  EXPECT_EQ(ours, theirs);
}

// ---------------------------------------------------------------------------------------------
// parameters.json

TEST(ParameterManifest, BuiltInEqualsPublishedFile) {
  const ParameterManifest& builtin = published_parameter_manifest();
  EXPECT_EQ(builtin.size(), 44u);
  const ParameterId id = porep_parameter_id(32 * kGiB);
  auto it = builtin.find(id.params_name());
  ASSERT_NE(it, builtin.end());
  EXPECT_EQ(it->second.sector_size, 32 * kGiB);
  const fs::path json_path = params_testdata() / "parameters.json";
  if (!fs::exists(json_path)) GTEST_SKIP() << "no " << json_path;
  EXPECT_EQ(read_parameter_manifest(json_path), builtin);
}

TEST(ParameterManifest, ParsesEntries) {
  const ParameterManifest m = parse_parameter_manifest(
      R"({"a.vk": {"cid": "Qm1", "digest": "0123456789abcdef0123456789ABCDEF", "sector_size": 2048, "extra": 1},
          "b.params": {"sector_size": 68719476736, "digest": "ffffffffffffffffffffffffffffffff", "cid": "Qm2"}})");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m.at("a.vk"), (ParameterFileEntry{"Qm1", "0123456789abcdef0123456789ABCDEF", 2048}));
  EXPECT_EQ(m.at("b.params"), (ParameterFileEntry{"Qm2", "ffffffffffffffffffffffffffffffff", 64 * kGiB}));
}

TEST(ParameterManifest, ErrorsNameTheSourceAndEntry) {
  auto err = [](std::string_view text) { return error_of([&] { parse_parameter_manifest(text, "my.json"); }); };
  const std::string digest = R"("digest": "0123456789abcdef0123456789abcdef")";
  EXPECT_NE(err("{").find("my.json"), std::string::npos);
  EXPECT_NE(err("[]").find("my.json"), std::string::npos);
  std::string e = err(R"({"x.vk": {"cid": "Q", "sector_size": 1}})");
  EXPECT_NE(e.find("x.vk"), std::string::npos) << e;
  EXPECT_NE(e.find("digest"), std::string::npos) << e;
  e = err(R"({"x.vk": {"cid": 5, )" + digest + R"(, "sector_size": 1}})");
  EXPECT_NE(e.find("cid"), std::string::npos) << e;
  e = err(R"({"x.vk": {"cid": "Q", )" + digest + R"(, "sector_size": -1}})");
  EXPECT_NE(e.find("sector_size"), std::string::npos) << e;
  e = err(R"({"x.vk": {"cid": "Q", "digest": "abc", "sector_size": 1}})");
  EXPECT_NE(e.find("abc"), std::string::npos) << e;
  EXPECT_NE(err(R"({"x.vk": 3})").find("x.vk"), std::string::npos);
  const std::string missing = error_of([] { read_parameter_manifest("/nonexistent/parameters.json"); });
  EXPECT_NE(missing.find("/nonexistent/parameters.json"), std::string::npos) << missing;
}

// ---------------------------------------------------------------------------------------------
// Digest: BLAKE2b-512, first 32 hex characters. Expected values from
// `b2sum FILE | head -c 32` (GNU coreutils) and `openssl dgst -blake2b512 FILE`.

// 20 MiB + 7 bytes, byte i = ((i * 31) ^ (i >> 9)) & 0xff: crosses two 8 MiB chunk boundaries.
std::string patterned_bytes() {
  std::string b(20 * kMiB + 7, '\0');
  for (size_t i = 0; i < b.size(); i++) b[i] = char(((i * 31) ^ (i >> 9)) & 0xff);
  return b;
}

TEST(ParameterDigest, KnownValues) {
  test::TempDir dir;
  EXPECT_EQ(parameter_digest(write_in(dir, "empty", "")), "786a02f742015903c6c6fd852552d272");
  EXPECT_EQ(parameter_digest(write_in(dir, "abc", "abc")), "ba80a53f981c4d0d6a2797b69f12f6e9");
  const std::string big = patterned_bytes();
  const fs::path p = write_in(dir, "big", big);
  std::vector<std::pair<uint64_t, uint64_t>> calls;
  EXPECT_EQ(parameter_digest(p, [&](uint64_t done, uint64_t total) { calls.emplace_back(done, total); }),
            "d98b7b611ee658f05e8dbae182d985c2");
  ASSERT_FALSE(calls.empty());
  for (size_t i = 0; i < calls.size(); i++) {
    EXPECT_EQ(calls[i].second, big.size());
    if (i > 0) {
      EXPECT_GT(calls[i].first, calls[i - 1].first);
    }
  }
  EXPECT_EQ(calls.back().first, big.size());
  EXPECT_EQ(calls.size(), 3u);  // 8 MiB, 16 MiB, the end
  EXPECT_NO_THROW(verify_parameter_digest(p, "d98b7b611ee658f05e8dbae182d985c2"));
  EXPECT_NO_THROW(verify_parameter_digest(p, "D98B7B611EE658F05E8DBAE182D985C2"));
}

TEST(ParameterDigest, WrongDigestThrowsNamingFileAndDigests) {
  test::TempDir dir;
  const fs::path p = write_in(dir, "v28-some.vk", "abc");
  try {
    verify_parameter_digest(p, "00000000000000000000000000000000");
    FAIL() << "no error for a wrong digest";
  } catch (const ParameterDigestMismatch& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(p.string()), std::string::npos) << what;
    EXPECT_NE(what.find("00000000000000000000000000000000"), std::string::npos) << what;
    EXPECT_NE(what.find("ba80a53f981c4d0d6a2797b69f12f6e9"), std::string::npos) << what;
    EXPECT_EQ(e.path(), p);
    EXPECT_EQ(e.expected(), "00000000000000000000000000000000");
    EXPECT_EQ(e.found(), "ba80a53f981c4d0d6a2797b69f12f6e9");
  }
  // One changed byte changes the digest.
  const fs::path q = write_in(dir, "abd", "abd");
  EXPECT_THROW(verify_parameter_digest(q, "ba80a53f981c4d0d6a2797b69f12f6e9"), ParameterDigestMismatch);
  // A malformed expected digest, a missing file.
  EXPECT_THROW(verify_parameter_digest(p, "ba80a53f"), std::invalid_argument);
  EXPECT_THROW(verify_parameter_digest(p, "zz80a53f981c4d0d6a2797b69f12f6e9"), std::invalid_argument);
  const std::string missing = error_of([&] { parameter_digest(fs::path(dir.path) / "absent.params"); });
  EXPECT_NE(missing.find("absent.params"), std::string::npos) << missing;
  EXPECT_THROW(parameter_digest(fs::path(dir.path)), std::runtime_error);  // a directory
}

TEST(ParameterDigest, ProgressCallbackCanAbort) {
  test::TempDir dir;
  const fs::path p = write_in(dir, "big", patterned_bytes());
  int calls = 0;
  EXPECT_THROW(parameter_digest(p,
                                [&](uint64_t, uint64_t) {
                                  if (++calls == 1) throw std::runtime_error("cancelled");
                                }),
               std::runtime_error);
  EXPECT_EQ(calls, 1);
}

TEST(ParameterDigest, VerifiesAgainstAManifest) {
  test::TempDir dir;
  const fs::path p = write_in(dir, "v28-test.vk", "abc");
  ParameterManifest m;
  m["v28-test.vk"] = ParameterFileEntry{"Qm", "ba80a53f981c4d0d6a2797b69f12f6e9", 2048};
  EXPECT_EQ(verify_parameter_file(p, m).sector_size, 2048u);
  m["v28-test.vk"].digest = "ba80a53f981c4d0d6a2797b69f12f6e8";
  EXPECT_THROW(verify_parameter_file(p, m), ParameterDigestMismatch);
  // Not listed (the built-in manifest has only the real v28 files).
  const std::string err = error_of([&] { verify_parameter_file(p); });
  EXPECT_NE(err.find("v28-test.vk"), std::string::npos) << err;
  EXPECT_NE(err.find("not listed"), std::string::npos) << err;
}

// ---------------------------------------------------------------------------------------------
// Parameter cache directory.

TEST(ParameterCache, DirectoryFromEnvironment) {
  test::TempDir dir;
  ScopedEnv env("FIL_PROOFS_PARAMETER_CACHE", fs::path(dir.path).c_str());
  const ParameterSearch search;  // no configured cache: the environment's, then the default
  EXPECT_EQ(search.published_dirs(),
            (std::vector<fs::path>{fs::path(dir.path), fs::path("/var/tmp/filecoin-proof-parameters")}));
  const ParameterId id = porep_parameter_id(2 * kKiB);
  EXPECT_FALSE(find_parameter_file(id.vk_name(), fs::path(dir.path)).has_value());
  write_in(dir, id.vk_name(), "vk");
  const std::optional<fs::path> found = search.find_published(id.vk_name());
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(*found, fs::path(dir.path) / id.vk_name());
  fs::create_directory(fs::path(dir.path) / id.params_name());
  EXPECT_THROW(search.find_published(id.params_name()), std::runtime_error);
  EXPECT_THROW(search.find_published("../" + id.vk_name()), std::invalid_argument);
  EXPECT_THROW(search.find_published(""), std::invalid_argument);
  EXPECT_THROW(search.find_published("/etc/passwd"), std::invalid_argument);
  // An explicit directory.
  EXPECT_EQ(find_parameter_file(id.vk_name(), fs::path(dir.path)), fs::path(dir.path) / id.vk_name());
  EXPECT_FALSE(find_parameter_file(id.vk_name(), fs::path(dir.path) / "nowhere").has_value());
  // Unset or empty: the default alone.
  env.set(nullptr);
  EXPECT_EQ(search.published_dirs(), std::vector<fs::path>{fs::path("/var/tmp/filecoin-proof-parameters")});
  env.set("");
  EXPECT_EQ(search.published_dirs(), std::vector<fs::path>{fs::path("/var/tmp/filecoin-proof-parameters")});
}

// Runs when a user has real parameter files in the cache: checks every .vk found and the small
// 2 KiB and 8 MiB .params files against the published digests.
TEST(ParameterCache, PublishedFilesInTheCacheHaveTheirDigests) {
  size_t checked = 0;
  for (const auto& [name, entry] : published_parameter_manifest()) {
    const bool small = name.ends_with(".vk") || entry.sector_size <= 8 * kMiB;
    if (!small) continue;
    const std::optional<fs::path> p = ParameterSearch{}.find_published(name);
    if (!p) continue;
    EXPECT_NO_THROW(verify_parameter_file(*p)) << *p;
    checked++;
  }
  if (checked == 0) GTEST_SKIP() << "no published parameter files in " << ParameterSearch{}.describe();
}

}  // namespace
}  // namespace cuzk::filecoin
