// Filecoin's proof kinds for the engine (src/kinds/): Curio's envelope, the PoRep input of the
// real 8 MiB Commit1 (its shape, parameter id and public inputs), the refusals, and where the
// parameter source looks for Filecoin's published files (in order: the configured directory,
// $FIL_PROOFS_PARAMETER_CACHE, /var/tmp/filecoin-proof-parameters), with the digest checked and
// no setup of our own unless configured.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <gtest/gtest.h>

#include "circuits/synthetic.hpp"
#include "filecoin/parameter_files.hpp"
#include "filecoin/porep/graph.hpp"
#include "filecoin/porep/public_inputs.hpp"
#include "filecoin/porep/registered_proofs.hpp"
#include "groth16/param_file.hpp"
#include "groth16/parameters.hpp"
#include "groth16/setup.hpp"
#include "kinds/base64.hpp"
#include "kinds/filecoin_kinds.hpp"
#include "test_support.hpp"

namespace cuzk::kinds {
namespace {

std::string read_text(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

TEST(KindsTest, Base64AsGoWritesIt) {
  for (std::string s : {"", "f", "fo", "foo", "foob", "fooba", "foobar"}) EXPECT_EQ(base64_decode(base64_encode(s)), s);
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");  // RFC 4648 section 10
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_THROW(base64_decode("Zm9"), std::invalid_argument);
  EXPECT_THROW(base64_decode("Zm9v!mFy"), std::invalid_argument);
  EXPECT_THROW(base64_decode("Z=9v"), std::invalid_argument);
}

// Curio's circuit ids name the files its Rust daemon loads for them (curio
// extern/cuzk/cuzk-core/src/srs_manager.rs circuit_id_to_param_filename); the small sizes are ours.
TEST(KindsTest, CircuitIds) {
  const std::pair<const char*, const char*> curio[] = {
      {"porep-32g",
       "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
       "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820"},
      {"porep-64g",
       "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-"
       "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2"},
      {"wpost-32g",
       "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
       "0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc"},
      {"winning-32g",
       "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
       "559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e"},
      {"snap-32g",
       "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-"
       "3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18"},
      {"snap-64g",
       "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-"
       "102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7"},
  };
  for (const auto& [circuit, stem] : curio) {
    EXPECT_EQ(param_id_for_circuit_id(circuit), stem) << circuit;
    EXPECT_EQ(param_id_for_circuit_id(stem), stem);
  }
  EXPECT_EQ(
      param_id_for_circuit_id("porep-2k"),
      filecoin::porep_parameter_id(filecoin::seal_proof_info(filecoin::RegisteredSealProof::kStackedDrg2KiBV1)).stem);
  EXPECT_EQ(param_id_for_circuit_id("wpost-2k"), filecoin::window_post_parameter_id(2048).stem);
  EXPECT_EQ(param_id_for_circuit_id("winning-8m"), filecoin::winning_post_parameter_id(8 << 20).stem);
  EXPECT_EQ(param_id_for_circuit_id("snap-512m"), filecoin::empty_sector_update_parameter_id(512 << 20).stem);
  // Every kind at every published size, once.
  EXPECT_EQ(circuit_ids().size(), 4u * 5u);
  for (const auto& [circuit, stem] : circuit_ids()) EXPECT_EQ(param_id_for_circuit_id(circuit), stem);
  EXPECT_FALSE(param_id_for_circuit_id("snap-1t").has_value());
  EXPECT_FALSE(param_id_for_circuit_id("nonsense").has_value());
}

TEST(KindsTest, RealCommit1AsAPoRepInput) {
  const auto path = std::filesystem::path(test::testdata_dir()) / "filecoin/porep/c1-8MiB-StackedDrg8MiBV1_1.json";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no real C1 file";
  const std::string json = read_text(path);
  const auto& info = filecoin::seal_proof_info(filecoin::RegisteredSealProof::kStackedDrg8MiBV1_1);
  const std::string envelope =
      "{\"SectorNum\":1498,\"Phase1Out\":\"" + base64_encode(json) + "\",\"SectorSize\":8388608}";
  // Curio's PSProve re-marshals the output with Go's encoding/json (Commit1OutRaw: the same values,
  // its seven keys in Go's field order) and may send SectorSize 0 (taken from the proof then).
  const auto rust = nlohmann::ordered_json::parse(json);
  nlohmann::ordered_json go;
  for (const char* key : {"comm_d", "comm_r", "registered_proof", "replica_id", "seed", "ticket", "vanilla_proofs"}) {
    go[key] = rust.at(key);
  }
  const std::string go_json = go.dump();
  ASSERT_NE(go_json.substr(0, 40), json.substr(0, 40));
  const std::string go_envelope =
      "{\"SectorNum\":1498,\"Phase1Out\":\"" + base64_encode(go_json) + "\",\"SectorSize\":0}";
  for (const std::string& body : {json, envelope, go_json, go_envelope}) {
    const auto input = make_porep_input({body, info.id(), 1006, 1498, body == go_envelope ? 0 : info.sector_size});
    EXPECT_EQ(input->kind(), "porep");
    EXPECT_EQ(input->partitions(), 1u);
    EXPECT_EQ(input->param_id(), filecoin::porep_parameter_id(info).stem);
    const auto shape = input->shape();
    EXPECT_EQ(shape.constraints, 3844969u);  // cuzk-bench porep --info: with the 40 input constraints
    EXPECT_EQ(shape.inputs, 40u);
    EXPECT_GT(input->input_bytes(), 50000u);  // ~1,100 field elements a challenge at 8 MiB
    const auto in = input->public_inputs(0);
    ASSERT_TRUE(in.has_value());
    ASSERT_EQ(in->size(), 39u);
    EXPECT_EQ((*in)[3], ff::Fr::from_u64(151786));  // the first challenge
  }
  auto refused = [&](PoRepRequest r, const std::string& expect) {
    try {
      make_porep_input(r);
      ADD_FAILURE() << "accepted";
    } catch (const InvalidProofRequest& e) {
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
    }
  };
  refused({json, info.id(), 1007, 1498, 0}, "replica_id does not recompute");
  refused({json, info.id(), 1006, 1497, 0}, "replica_id does not recompute");
  refused({json, info.id(), 1006, 1498, 2048}, "sector_size 2048");
  refused({json, 3, 1006, 1498, 0}, "differs from the Commit1 output's StackedDrg8MiBV1_1");
  refused({json, 77, 1006, 1498, 0}, "registered_proof");
  refused({json, info.id(), 0, 1498, 0}, "miner_id is 0");
  refused({envelope, info.id(), 1006, 1499, 0}, "SectorNum 1498 differs");
  refused({"{\"Phase1Out\":\"abc\"}", info.id(), 1006, 1498, 0}, "Phase1Out");
  refused({json.substr(0, json.size() / 2), info.id(), 1006, 1498, 0}, "the Commit1 output");
  EXPECT_THROW(make_porep_input({json, 16, 1006, 1498, 0}), UnsupportedProof);  // 8 MiB non-interactive
}

TEST(KindsTest, ParameterSourceLooksInOrderChecksDigestsAndSetsUpOnlyWhenAsked) {
  const auto root = std::filesystem::temp_directory_path() / ("cuzk-kinds-test-" + std::to_string(getpid()));
  const auto configured = root / "configured", env = root / "env";
  std::filesystem::create_directories(configured);
  std::filesystem::create_directories(env);
  const auto& info = filecoin::seal_proof_info(filecoin::RegisteredSealProof::kStackedDrg2KiBV1_1);
  const auto names = filecoin::porep_parameter_id(info);
  test::ScopedEnv scoped(std::string(filecoin::kParameterCacheEnv).c_str(), env.string().c_str());
  FilecoinParameterOptions o;
  o.param_cache = configured.string();
  o.test_dir = (root / "test").string();
  o.log = [](const std::string&) {};
  const auto source = filecoin_parameter_source(o);
  EXPECT_TRUE(source.serves(names.stem));
  EXPECT_FALSE(source.serves("porep-2k"));  // circuit ids are mapped to stems first (one set, one id)
  EXPECT_FALSE(source.serves("synthetic-1024-4-seed1"));
  auto error_of = [&](const engine::ParameterSource& s) -> std::string {
    try {
      s.load(names.stem, false);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "loaded";
  };
  // None anywhere (unless this machine has the published file): no setup of our own.
  if (!filecoin::find_parameter_file(names.params_name(), filecoin::kDefaultParameterCacheDir)) {
    EXPECT_THROW(source.load(names.stem, false), engine::ParametersNotFound);  // the engine's NOT_FOUND
    const std::string e = error_of(source);
    EXPECT_NE(e.find("no parameter file " + names.params_name()), std::string::npos) << e;
    EXPECT_NE(e.find(configured.string()), std::string::npos) << e;
    EXPECT_NE(e.find(env.string()), std::string::npos) << e;
    EXPECT_FALSE(std::filesystem::exists(root / "test")) << "a setup ran";
  }
  // A bad file in $FIL_PROOFS_PARAMETER_CACHE: refused by its digest, named.
  std::ofstream(env / names.params_name()) << "truncated";
  std::string e = error_of(source);
  EXPECT_NE(e.find((env / names.params_name()).string()), std::string::npos) << e;
  EXPECT_NE(e.find("expected"), std::string::npos) << e;
  EXPECT_EQ(source.expected_bytes(names.stem), int64_t(9));
  // One in the configured directory comes first.
  std::ofstream(configured / names.params_name()) << "also truncated";
  e = error_of(source);
  EXPECT_NE(e.find((configured / names.params_name()).string()), std::string::npos) << e;
  // Without the digest check the file's own structure refuses it, with its name.
  FilecoinParameterOptions unchecked = o;
  unchecked.verify_digest = false;
  e = error_of(filecoin_parameter_source(unchecked));
  EXPECT_NE(e.find(names.params_name()), std::string::npos) << e;
  // The PoSt parameter ids too: a bad published WindowPoSt file is refused by its digest, named.
  for (const auto& post : {filecoin::window_post_parameter_id(2048), filecoin::winning_post_parameter_id(2048),
                           filecoin::window_post_parameter_id(uint64_t(32) << 30)}) {
    EXPECT_TRUE(source.serves(post.stem)) << post.stem;
  }
  const auto wpost = filecoin::window_post_parameter_id(2048);
  std::ofstream(env / wpost.params_name()) << "truncated";
  try {
    source.load(wpost.stem, false);
    ADD_FAILURE() << "a truncated WindowPoSt file loaded";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find((env / wpost.params_name()).string()), std::string::npos) << e.what();
  }
  // And SnapDeals': served by stem and circuit id, a bad published file refused by its digest.
  const auto snap = filecoin::empty_sector_update_parameter_id(2048);
  EXPECT_TRUE(source.serves(snap.stem));
  EXPECT_TRUE(source.serves(*param_id_for_circuit_id("snap-32g")));
  std::ofstream(env / snap.params_name()) << "truncated";
  try {
    source.load(snap.stem, false);
    ADD_FAILURE() << "a truncated SnapDeals file loaded";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find((env / snap.params_name()).string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("expected"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(root / "test")) << "a setup ran";
  std::filesystem::remove_all(root);
}

// A published file is used only after parameters.json's digest matched or, with that check off,
// after every point passed: a well-formed file with one point moved off the curve is refused either
// way, naming it. Our own TEST setup without its digest trailer is not used either. (The files hold
// a small synthetic set under the WinningPoSt names: only how they are read is tested here.)
TEST(KindsTest, PublishedFilesAreCheckedAndOwnFilesNeedTheirTrailer) {
  const auto root = std::filesystem::temp_directory_path() / ("cuzk-kinds-check-" + std::to_string(getpid()));
  const auto published = root / "published", test_dir = root / "test";
  std::filesystem::create_directories(published);
  std::filesystem::create_directories(test_dir);
  test::ScopedEnv scoped(std::string(filecoin::kParameterCacheEnv).c_str(), (root / "none").string().c_str());
  FilecoinParameterOptions o;
  o.param_cache = published.string();
  o.test_dir = test_dir.string();
  o.allow_test_parameters = true;
  o.log = [](const std::string&) {};
  const auto id = filecoin::winning_post_parameter_id(2048);
  const auto own_path = test_dir / ("cuzk-TEST-ONLY-" + id.params_name());
  groth16::write_parameters(
      groth16::generate_parameters(circuits::SyntheticCircuit(64, 2, {}, 1), groth16::ToxicWaste::random()),
      own_path.string());
  const auto own = filecoin_parameter_source(o).load(id.stem, false);
  ASSERT_TRUE(own.params);
  EXPECT_NE(own.origin.find(own_path.string()), std::string::npos) << own.origin;
  // The same bytes as a published file (without our trailer), x of a[3] one bit off.
  const auto file = published / id.params_name();
  std::filesystem::copy_file(own_path, file);
  std::filesystem::resize_file(file, std::filesystem::file_size(file) - groth16::kParamDigestTrailerBytes);
  {
    const size_t at = groth16::ParameterFile::open(file.string()).a().offset + 3 * 96 + 47;
    std::fstream f(file, std::ios::binary | std::ios::in | std::ios::out);
    f.seekg(std::streamoff(at));
    char c = 0;
    f.get(c);
    f.seekp(std::streamoff(at));
    f.put(char(c ^ 1));
  }
  auto error_of = [&](const FilecoinParameterOptions& opts) -> std::string {
    try {
      filecoin_parameter_source(opts).load(id.stem, false);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "loaded";
  };
  const std::string by_digest = error_of(o);
  EXPECT_NE(by_digest.find(file.string()), std::string::npos) << by_digest;
  EXPECT_NE(by_digest.find("expected"), std::string::npos) << by_digest;
  FilecoinParameterOptions no_digest = o;
  no_digest.verify_digest = false;
  const std::string by_points = error_of(no_digest);
  EXPECT_NE(by_points.find(file.string()), std::string::npos) << by_points;
  EXPECT_NE(by_points.find("not on the curve"), std::string::npos) << by_points;
  // Our own file without its trailer (the published one moved away): refused, named.
  std::filesystem::remove(file);
  std::filesystem::resize_file(own_path, std::filesystem::file_size(own_path) - groth16::kParamDigestTrailerBytes);
  const std::string trailerless = error_of(o);
  EXPECT_NE(trailerless.find(own_path.string()), std::string::npos) << trailerless;
  EXPECT_NE(trailerless.find("no digest trailer"), std::string::npos) << trailerless;
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace cuzk::kinds
