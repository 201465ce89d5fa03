// The cuzk client's Filecoin commands beyond PoRep, against a real cuzk-daemon: `cuzk prove
// window-post`, `winning-post` and `snap` read the vanilla proof files an operator has (bincode
// FallbackPoStSectorProof per sector; a bincode PartitionProof per partition, or Curio's
// snap-vproof.json), send them as Curio does, and write proof bytes that verify with the
// verifying key of the daemon's parameters and the verifier's public inputs; bad options exit 1
// and unreadable or malformed files 13, each message naming the option or the file and what is
// wrong. The PoSt proofs use the real 2 KiB presealed sectors of ../shared/testdata (skipped
// without them) and TEST parameters (the build's cached ones when there, else the daemon's own
// setup: seconds at 2 KiB); the SnapDeals proofs use the cached TEST parameters of the 2 KiB update
// circuit (the params_post_snap fixture makes them; skipped without them).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "daemon_harness.hpp"
#include "filecoin/generators/test_sector.hpp"
#include "filecoin/generators/test_sector_update.hpp"
#include "filecoin/parameter_files.hpp"
#include "filecoin/post/public_inputs.hpp"
#include "filecoin/snap/public_inputs.hpp"
#include "filecoin/snap/registered_proofs.hpp"
#include "groth16/param_file.hpp"
#include "groth16/parameters.hpp"
#include "groth16/verifier.hpp"
#include "kinds/base64.hpp"
#include "post_vanilla.hpp"
#include "snap_update_2kib.hpp"
#include "test_support.hpp"

namespace {

namespace fc = cuzk::filecoin;
namespace post = cuzk::test::post;
using cuzk::ff::Fr;
using cuzk::test::DaemonProcess;

constexpr int kOk = 0, kUsage = 1, kInvalid = 3, kInputError = 13;

// Runs `cuzk ARGS...` with its stdout and stderr together in *output; returns the exit code.
int run_cli(std::vector<std::string> args, std::string* output) {
  std::vector<std::string> argv = {"/bin/sh", "-c", "exec \"$@\" 2>&1", "sh", CUZK_CLIENT_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  return cuzk::test::run_program(argv, output, std::chrono::seconds(600));
}

std::string hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  for (unsigned char b : bytes) s += {kDigits[b >> 4], kDigits[b & 15]};
  return s;
}

// The CID go-fil-commcid gives a commitment: multibase 'b' (base32, lower case, no padding) of
// CIDv1, codec fil-commitment-sealed (0xf102) with hash poseidon-bls12_381-a2-fc1 (0xb401), or
// fil-commitment-unsealed (0xf101) with sha2-256-trunc254-padded (0x1012), then the 32 bytes.
std::string commitment_cid(std::string_view raw, bool sealed) {
  std::string bytes =
      sealed ? std::string("\x01\x82\xe2\x03\x81\xe8\x02\x20", 8) : std::string("\x01\x81\xe2\x03\x92\x20\x20", 7);
  bytes += raw;
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
  std::string out = "b";
  uint32_t acc = 0;
  int bits = 0;
  for (unsigned char c : bytes) {
    acc = (acc << 8 | c) & 0xfff;
    bits += 8;
    while (bits >= 5) out += kAlphabet[acc >> (bits -= 5) & 31];
  }
  if (bits > 0) out += kAlphabet[acc << (5 - bits) & 31];
  return out;
}

std::string params_cache() {
  if (const char* dir = std::getenv("CUZK_PARAMS_CACHE")) return dir;
  return CUZK_TEST_PARAMS_CACHE;
}

std::string test_params_name(const fc::ParameterId& id) { return "cuzk-TEST-ONLY-" + id.params_name(); }

// Copies a cached TEST parameter file into the daemon's parameter directory; false when the
// cache does not hold it.
bool link_cached_params(const DaemonProcess& d, const std::string& name) {
  return d.link_parameters(std::filesystem::path(params_cache()) / name);
}

// The verifying key of the parameters the daemon proved with.
cuzk::groth16::PreparedVerifyingKey daemon_key(const DaemonProcess& d, const std::string& name) {
  return cuzk::groth16::PreparedVerifyingKey(cuzk::groth16::ParameterFile::open(d.dir() + "/params/" + name)
                                                 .decode_verifying_key(cuzk::groth16::ReadMode::kChecked));
}

bool verifies(const cuzk::groth16::PreparedVerifyingKey& pvk, const std::string& proof, std::span<const Fr> inputs) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(proof.data());
  return cuzk::groth16::verify_proof(pvk, cuzk::groth16::decode_proof({bytes, proof.size()}), inputs);
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// WindowPoSt over the two presealed sectors (their files given in reverse order: the daemon proves
// them sorted) and WinningPoSt of one: the proofs written to --out verify with the verifier's public
// inputs and not with another randomness's; vanilla proofs that do not fit are refused.
TEST(DaemonCliKindsTest, PoStProofsFromVanillaFilesVerify) {
  const auto sectors = post::preseal_sectors();
  if (sectors.empty()) GTEST_SKIP() << "no preseal-2KiB test data";
  ASSERT_EQ(sectors.size(), 2u);
  DaemonProcess d({"--allow-test-parameters"});
  ASSERT_FALSE(testing::Test::HasFailure());
  const auto& window = fc::post_proof_info(fc::RegisteredPoStProof::kStackedDrgWindow2KiBV1_2);
  const auto& winning = fc::post_proof_info(fc::RegisteredPoStProof::kStackedDrgWinning2KiBV1);
  const std::string window_params = test_params_name(fc::window_post_parameter_id(2048));
  const std::string winning_params = test_params_name(fc::winning_post_parameter_id(2048));
  link_cached_params(d, window_params);  // else the daemon sets them up
  link_cached_params(d, winning_params);

  const post::Bytes32 r = post::randomness_of(cuzk::test::run_seed());
  const std::string randomness = hex(post::view(r));
  const std::string dir = d.dir(), s0 = dir + "/s0.vanilla", s1 = dir + "/s1.vanilla", win = dir + "/win.vanilla";
  cuzk::test::write_file(s0, post::vanilla_bincode(window.params, sectors[0], r, 0));
  cuzk::test::write_file(s1, post::vanilla_bincode(window.params, sectors[1], r, 1));
  // WinningPoSt's vanilla proof opens its 66 challenges in one sector proof.
  const fc::FallbackPoStParams win_vanilla{2048, 66, 1, winning.params.api_version, winning.params.tree_r};
  cuzk::test::write_file(win, post::vanilla_bincode(win_vanilla, sectors[1], r, 0));

  std::string out;
  ASSERT_EQ(run_cli({"--addr", d.addr(), "prove", "window-post", "--vanilla", s1, "--vanilla", s0, "--registered-proof",
                     "StackedDrgWindow2KiBV1_2", "--miner", "t01000", "--randomness", randomness, "--partition", "0",
                     "--out", dir + "/window.proof"},
                    &out),
            kOk)
      << out;
  EXPECT_TRUE(contains(out, "(WindowPoSt StackedDrgWindow2KiBV1_2, miner t01000, partition 0, 2 sectors)")) << out;
  EXPECT_TRUE(contains(out, "verified  true")) << out;
  const std::string window_proof = cuzk::test::read_text(dir + "/window.proof");
  ASSERT_EQ(window_proof.size(), 192u);
  const std::vector<fc::PoStPublicSector> pub = {{sectors[0].id, sectors[0].comm_r},
                                                 {sectors[1].id, sectors[1].comm_r}};
  const auto window_key = daemon_key(d, window_params);
  EXPECT_TRUE(verifies(window_key, window_proof, fc::fallback_post_public_inputs(window.params, r, pub, 0)));
  const post::Bytes32 other = post::randomness_of(cuzk::test::run_seed() + 1);
  EXPECT_FALSE(verifies(window_key, window_proof, fc::fallback_post_public_inputs(window.params, other, pub, 0)));

  // WinningPoSt by id, randomness with 0x, the result as JSON.
  ASSERT_EQ(run_cli({"--addr", d.addr(), "prove", "winning-post", "--vanilla", win, "--registered-proof", "0",
                     "--miner", "1000", "--randomness", "0x" + randomness, "--json", "--out", dir + "/winning.proof"},
                    &out),
            kOk)
      << out;
  const auto json = nlohmann::json::parse(out.substr(out.find('{')));
  EXPECT_EQ(json["state"], "succeeded");
  EXPECT_EQ(json["verified"], true);
  EXPECT_EQ(json["proof_bytes"], 192);
  const std::string winning_proof = cuzk::test::read_text(dir + "/winning.proof");
  ASSERT_EQ(winning_proof.size(), 192u);
  const std::vector<fc::PoStPublicSector> pub_win(66, pub[1]);
  const auto winning_key = daemon_key(d, winning_params);
  EXPECT_TRUE(verifies(winning_key, winning_proof, fc::fallback_post_public_inputs(winning.params, r, pub_win, 0)));
  EXPECT_FALSE(
      verifies(winning_key, winning_proof, fc::fallback_post_public_inputs(winning.params, other, pub_win, 0)));
  // The status page's WinningPoSt chart has that proof's latency (the daemon's job-end hook).
  const auto history = nlohmann::json::parse(d.http_get("/status/history"));
  ASSERT_EQ(history["winning_post"].size(), 1u) << history.dump();
  EXPECT_EQ(history["winning_post"][0]["state"], "succeeded");
  EXPECT_GT(history["winning_post"][0]["seconds"].get<double>(), 0.0);

  // The daemon refuses openings of another randomness at submit: 3, with its reason.
  EXPECT_EQ(run_cli({"--addr", d.addr(), "prove", "window-post", "--vanilla", s0, "--vanilla", s1, "--registered-proof",
                     "10", "--miner", "1000", "--randomness", hex(post::view(other)), "--partition", "0"},
                    &out),
            kInvalid)
      << out;
  EXPECT_TRUE(contains(out, "wrong randomness, sector or partition")) << out;
  // Refused before anything is sent: one sector twice (13), two files for a WinningPoSt and a
  // WinningPoSt registered proof for a WindowPoSt (1).
  EXPECT_EQ(run_cli({"--addr", d.addr(), "prove", "window-post", "--vanilla", s0, "--vanilla", s0, "--registered-proof",
                     "10", "--miner", "1000", "--randomness", randomness, "--partition", "0"},
                    &out),
            kInputError)
      << out;
  EXPECT_TRUE(contains(out, s0 + " and " + s0 + " both prove sector " + std::to_string(sectors[0].id))) << out;
  EXPECT_EQ(run_cli({"--addr", d.addr(), "prove", "winning-post", "--vanilla", win, "--vanilla", win,
                     "--registered-proof", "0", "--miner", "1000", "--randomness", randomness},
                    &out),
            kUsage)
      << out;
  EXPECT_TRUE(contains(out, "2 vanilla proofs given; StackedDrgWinning2KiBV1 takes one")) << out;
  EXPECT_EQ(run_cli({"--addr", d.addr(), "prove", "window-post", "--vanilla", s0, "--registered-proof",
                     "StackedDrgWinning2KiBV1", "--miner", "1000", "--randomness", randomness, "--partition", "0"},
                    &out),
            kUsage)
      << out;
  EXPECT_TRUE(contains(out, "StackedDrgWinning2KiBV1 is a WinningPoSt proof")) << out;
  // A WindowPoSt vanilla proof is no WinningPoSt one (10 openings, not 66): the file is named.
  EXPECT_EQ(run_cli({"--addr", d.addr(), "prove", "winning-post", "--vanilla", s0, "--registered-proof", "0", "--miner",
                     "1000", "--randomness", randomness},
                    &out),
            kInputError)
      << out;
  EXPECT_TRUE(contains(out, s0 + ": not a bincode FallbackPoStSectorProof of StackedDrgWinning2KiBV1")) << out;
}

// Refusals before anything is sent: bad options exit 1 naming the option, unreadable or
// malformed files 13 naming the file (no test data needed).
TEST(DaemonCliKindsTest, RefusalsNameTheOptionOrTheFile) {
  DaemonProcess d;
  ASSERT_FALSE(testing::Test::HasFailure());
  const std::string dir = d.dir(), garbage = dir + "/garbage.vanilla", absent = dir + "/absent.vanilla";
  cuzk::test::write_file(garbage, std::string(100, '\x07'));
  const std::string randomness(64, '1');
  // `prove window-post` with this file and randomness; `drop` leaves that option out.
  auto window = [&](const std::string& vanilla, const std::string& r, const std::string& proof = "10",
                    const std::string& drop = "") {
    std::vector<std::string> v = {"--addr", d.addr(), "prove", "window-post", "--partition", "0"};
    for (const auto& [option, value] : {std::pair<std::string, std::string>{"--vanilla", vanilla},
                                        {"--registered-proof", proof},
                                        {"--miner", "t01000"},
                                        {"--randomness", r}}) {
      if (option != drop) v.insert(v.end(), {option, value});
    }
    return v;
  };
  std::string out;
  EXPECT_EQ(run_cli(window(absent, randomness), &out), kInputError) << out;
  EXPECT_TRUE(contains(out, "cannot read the vanilla proof " + absent)) << out;
  EXPECT_EQ(run_cli(window(garbage, randomness), &out), kInputError) << out;
  EXPECT_TRUE(contains(out, garbage + ": not a bincode FallbackPoStSectorProof of StackedDrgWindow2KiBV1_2")) << out;
  EXPECT_EQ(run_cli(window(garbage, "zz" + randomness.substr(2)), &out), kUsage) << out;
  EXPECT_TRUE(contains(out, "--randomness zz")) << out;
  EXPECT_TRUE(contains(out, "64 hex digits")) << out;
  EXPECT_EQ(run_cli(window(garbage, randomness.substr(1)), &out), kUsage) << out;
  EXPECT_TRUE(contains(out, "64 hex digits (63 given)")) << out;
  EXPECT_EQ(run_cli(window(garbage, randomness, "10", "--randomness"), &out), kUsage) << out;
  EXPECT_TRUE(contains(out, "--randomness")) << out;
  EXPECT_EQ(run_cli(window(garbage, randomness, "StackedDrgWindow3KiBV1_2"), &out), kUsage) << out;
  EXPECT_TRUE(contains(out, "--registered-proof StackedDrgWindow3KiBV1_2: unknown registered PoSt proof")) << out;

  // SnapDeals: the commitments (hex or CID, a field element, the right codec), then the files.
  const std::string zero(64, '0'), zero_raw(32, '\0');
  auto snap = [&](std::vector<std::string> vanilla, const std::string& comm_r_old, const std::string& comm_d_new) {
    std::vector<std::string> v = {"--addr", d.addr(), "prove", "snap"};
    for (const std::string& f : vanilla) v.insert(v.end(), {"--vanilla", f});
    v.insert(v.end(), {"--registered-proof", "StackedDrg2KiBV1", "--miner", "1000", "--sector", "1", "--comm-r-old",
                       comm_r_old, "--comm-r-new", zero, "--comm-d-new", comm_d_new});
    return v;
  };
  EXPECT_EQ(run_cli(snap({garbage}, std::string(64, 'f'), zero), &out), kUsage) << out;
  EXPECT_TRUE(contains(out, "--comm-r-old " + std::string(64, 'f') + ": not a commitment")) << out;
  EXPECT_EQ(run_cli(snap({garbage}, zero, commitment_cid(zero_raw, true)), &out), kUsage) << out;
  EXPECT_TRUE(contains(out, "--comm-d-new " + commitment_cid(zero_raw, true))) << out;
  EXPECT_TRUE(contains(out, "a CommD is a CIDv1 of fil-commitment-unsealed")) << out;
  EXPECT_EQ(run_cli(snap({garbage}, "bafy-not-a-cid", zero), &out), kUsage) << out;
  EXPECT_TRUE(contains(out, "--comm-r-old bafy-not-a-cid: give the CommR as 64 hex digits")) << out;
  EXPECT_EQ(run_cli(snap({absent}, zero, zero), &out), kInputError) << out;
  EXPECT_TRUE(contains(out, "cannot read the vanilla proof " + absent)) << out;
  EXPECT_EQ(run_cli(snap({garbage}, zero, zero), &out), kInputError) << out;
  EXPECT_TRUE(contains(out, garbage + ": not a bincode PartitionProof of StackedDrg2KiBV1 (partition 0)")) << out;
  EXPECT_EQ(run_cli(snap({garbage, garbage}, zero, zero), &out), kUsage) << out;
  EXPECT_TRUE(contains(out, "2 vanilla proofs given; StackedDrg2KiBV1 has 1 partition")) << out;
  const std::string json = dir + "/snap-vproof.json";
  cuzk::test::write_file(json, "[\"" + cuzk::kinds::base64_encode("partition 0") + "\", \"not base64!\"]");
  EXPECT_EQ(run_cli(snap({json}, zero, zero), &out), kInputError) << out;
  EXPECT_TRUE(contains(out, json + ": element 1 is not base64")) << out;
  cuzk::test::write_file(json, "[\"" + cuzk::kinds::base64_encode("partition 0") + "\"]");
  EXPECT_EQ(run_cli(snap({json}, zero, zero), &out), kInputError) << out;
  EXPECT_TRUE(contains(out, json + " [0]: not a bincode PartitionProof of StackedDrg2KiBV1")) << out;
  // Nothing reached the daemon.
  EXPECT_EQ(run_cli({"--addr", d.addr(), "status", "--json"}, &out), kOk) << out;
  EXPECT_EQ(nlohmann::json::parse(out)["jobs"]["completed"], 0) << out;
}

// A SnapDeals update of a real sealed 2 KiB sector: from its bincode PartitionProof with hex
// commitments, and from Curio's snap-vproof.json with the commitments' CIDs; both proofs verify
// with the verifier's public inputs. A comm_r_new of another update is refused by the daemon (3).
TEST(DaemonCliKindsTest, SnapDealsFromVanillaFilesVerify) {
  const auto& info = fc::update_proof_info_by_id(0);
  const std::string params = test_params_name(info.params.parameter_id());
  if (!std::filesystem::exists(std::filesystem::path(params_cache()) / params)) {
    GTEST_SKIP() << "no cached TEST parameters " << params_cache() << "/" << params
                 << " (ctest -R test_params_snap makes them)";
  }
  const auto u = cuzk::test::real_2kib_update(info.params);
  const auto bincode = u.partition_bincode();
  ASSERT_EQ(bincode.size(), 1u);
  const std::string partition(bincode[0].begin(), bincode[0].end());
  // The 2 KiB circuit's parameters are 625 MiB: more budget than the harness's 1 GiB.
  DaemonProcess d({"--allow-test-parameters", "--budget", "4GiB"});
  ASSERT_FALSE(testing::Test::HasFailure());
  ASSERT_TRUE(link_cached_params(d, params));
  const std::string dir = d.dir(), part0 = dir + "/partition-0.vanilla", json = dir + "/snap-vproof.json";
  cuzk::test::write_file(part0, partition);
  cuzk::test::write_file(json, "[\"" + cuzk::kinds::base64_encode(partition) + "\"]");

  const auto expected = fc::empty_sector_update_public_inputs(u.params, u.public_inputs(0));
  const std::vector<Fr> inputs(expected.begin(), expected.end());
  const auto key = daemon_key(d, params);
  std::string out;
  ASSERT_EQ(run_cli({"--addr",
                     d.addr(),
                     "prove",
                     "snap",
                     "--vanilla",
                     part0,
                     "--registered-proof",
                     "StackedDrg2KiBV1",
                     "--miner",
                     "t01000",
                     "--sector",
                     "1",
                     "--comm-r-old",
                     hex(cuzk::test::fr_bytes(u.comm_r_old)),
                     "--comm-r-new",
                     hex(cuzk::test::fr_bytes(u.comm_r_new)),
                     "--comm-d-new",
                     hex(cuzk::test::fr_bytes(u.comm_d_new)),
                     "--out",
                     dir + "/snap.proof"},
                    &out),
            kOk)
      << out;
  EXPECT_TRUE(contains(out, "(SnapDeals StackedDrg2KiBV1, miner t01000, sector 1, 1 partition)")) << out;
  EXPECT_TRUE(contains(out, "verified  true")) << out;
  const std::string proof = cuzk::test::read_text(dir + "/snap.proof");
  ASSERT_EQ(proof.size(), 192u);
  EXPECT_TRUE(verifies(key, proof, inputs));
  auto changed = inputs;
  changed[1] += Fr::one();  // comm_r_old
  EXPECT_FALSE(verifies(key, proof, changed));

  // Curio's file and the commitments' CIDs (as Lotus and Curio print them).
  ASSERT_EQ(run_cli({"--addr",
                     d.addr(),
                     "prove",
                     "snap",
                     "--vanilla",
                     json,
                     "--registered-proof",
                     "0",
                     "--miner",
                     "1000",
                     "--sector",
                     "1",
                     "--comm-r-old",
                     commitment_cid(cuzk::test::fr_bytes(u.comm_r_old), true),
                     "--comm-r-new",
                     commitment_cid(cuzk::test::fr_bytes(u.comm_r_new), true),
                     "--comm-d-new",
                     commitment_cid(cuzk::test::fr_bytes(u.comm_d_new), false),
                     "--request-id",
                     "snap-1000-1",
                     "--out",
                     dir + "/snap-json.proof"},
                    &out),
            kOk)
      << out;
  const std::string proof2 = cuzk::test::read_text(dir + "/snap-json.proof");
  ASSERT_EQ(proof2.size(), 192u);
  EXPECT_TRUE(verifies(key, proof2, inputs));

  EXPECT_EQ(run_cli({"--addr", d.addr(), "prove", "snap", "--vanilla", part0, "--registered-proof", "0", "--miner",
                     "1000", "--sector", "1", "--comm-r-old", hex(cuzk::test::fr_bytes(u.comm_r_old)), "--comm-r-new",
                     hex(cuzk::test::fr_bytes(u.comm_r_new + Fr::one())), "--comm-d-new",
                     hex(cuzk::test::fr_bytes(u.comm_d_new))},
                    &out),
            kInvalid)
      << out;
  EXPECT_TRUE(contains(out, "comm_r_new")) << out;
}

}  // namespace
