// The daemon's pieces without a daemon: waiting calls' threads, request validation, and each proof
// kind's requests (PoRep, PoSt, SnapDeals, circuit ids, priorities).
#include <array>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <optional>
#include <unistd.h>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "daemon_metrics_text.hpp"
#include "kinds/filecoin_kinds.hpp"
#include "server/address.hpp"
#include "server/config_file.hpp"
#include "server/convert.hpp"
#include "server/metrics.hpp"
#include "server/platform_dirs.hpp"
#include "server/service.hpp"
#include "server/size.hpp"
#include "server/status_codes.hpp"
#include "test_support.hpp"

namespace {

using namespace cuzk::server;
using cuzk::test::has_sample;
namespace v1 = cuzk::v1;

TEST(ServerUnitTest, WaitingCallsLeaveThreadsForTheOthers) {
  EXPECT_EQ(ProvingService::max_waiters(256), 240u);
  EXPECT_EQ(ProvingService::max_waiters(32), 16u);
  EXPECT_EQ(ProvingService::max_waiters(20), 10u);
  EXPECT_EQ(ProvingService::max_waiters(0), 2u);  // at least 4 threads
}

TEST(ServerUnitTest, RequestValidation) {
  v1::SubmitProofRequest r;
  r.set_request_id("job-1");
  r.set_proof_kind(v1::SYNTHETIC);
  r.set_priority(v1::HIGH);
  r.set_priority_offset(3);
  r.mutable_synthetic()->set_constraints(4096);
  r.mutable_synthetic()->set_public_inputs(2);
  r.mutable_synthetic()->set_seed(9);
  r.mutable_synthetic()->set_partitions(3);
  cuzk::engine::JobRequest j = to_job_request(r, 64);
  EXPECT_EQ(j.request_id, "job-1");
  EXPECT_EQ(j.priority, 3003);  // level x 1000 + offset
  EXPECT_EQ(j.input, nullptr);  // the synthetic shorthand
  ASSERT_EQ(j.partitions.size(), 3u);
  EXPECT_EQ(j.partitions[2].constraints, 4096u);
  EXPECT_EQ(j.partitions[2].public_inputs, 2u);
  EXPECT_EQ(j.partitions[2].seed, 9u);
  r.set_proof_kind(v1::PROOF_KIND_UNSPECIFIED);  // taken from the synthetic field
  EXPECT_EQ(to_job_request(r, 64).partitions.size(), 3u);
  r.set_proof_kind(v1::SYNTHETIC);

  r.mutable_synthetic()->set_partitions(0);  // means one
  EXPECT_EQ(to_job_request(r, 64).partitions.size(), 1u);
  r.mutable_synthetic()->set_partitions(65);
  EXPECT_THROW(to_job_request(r, 64), InvalidRequest);
  r.mutable_synthetic()->set_partitions(1);
  r.set_priority_offset(1000);
  EXPECT_THROW(to_job_request(r, 64), InvalidRequest);
  r.set_priority_offset(-999);
  EXPECT_NO_THROW(to_job_request(r, 64));
  r.set_request_id(std::string(200, 'a'));
  EXPECT_NO_THROW(to_job_request(r, 64));
  r.set_request_id("A-z_0.9");
  EXPECT_NO_THROW(to_job_request(r, 64));
  for (const std::string& bad : {std::string(201, 'a'), std::string("tab\there"), std::string(".hidden"),
                                 std::string("a/b"), std::string("a:b"), std::string("caf\xc3\xa9")}) {
    r.set_request_id(bad);
    EXPECT_THROW(to_job_request(r, 64), InvalidRequest) << bad;
  }
  r.set_request_id("");
  r.set_param_id("..");
  EXPECT_THROW(to_job_request(r, 64), InvalidRequest);
  r.set_param_id("a/b");
  EXPECT_THROW(to_job_request(r, 64), InvalidRequest);
  r.set_param_id(std::string(kMaxParamIdBytes, 'p'));  // long enough for Filecoin's stems
  EXPECT_NO_THROW(to_job_request(r, 64));
  r.set_param_id(std::string(kMaxParamIdBytes + 1, 'p'));
  EXPECT_THROW(to_job_request(r, 64), InvalidRequest);
  r.set_param_id("");
  r.add_vanilla_proofs("x");  // a synthetic proof takes no vanilla proofs
  EXPECT_THROW(to_job_request(r, 64), InvalidRequest);

  // No kind and no synthetic inputs.
  v1::SubmitProofRequest none;
  EXPECT_THROW(to_job_request(none, 64), InvalidRequest);
}

TEST(ServerUnitTest, UnknownKindsAreUnimplemented) {
  v1::SubmitProofRequest newer;
  newer.set_request_id("wdpost-1000-0-[1 2 3]");  // before anything else is looked at
  newer.set_proof_kind(v1::ProofKind(42));        // a kind of a newer client
  try {
    to_job_request(newer, 64);
    ADD_FAILURE() << "proof_kind 42 was accepted";
  } catch (const Unimplemented& e) {
    EXPECT_NE(std::string(e.what()).find("SNAP_DEALS_UPDATE"), std::string::npos) << e.what();  // the known ones
  }
}

TEST(ServerUnitTest, SnapDealsRequestsReachTheirKind) {
  // SNAP_DEALS_UPDATE goes to the SnapDeals kind (src/kinds/snap_input.cpp), which reads the
  // commitments and vanilla proofs at submit; what it refuses is INVALID_ARGUMENT naming the field.
  v1::SubmitProofRequest r;
  r.set_request_id("snap-1000-7");
  r.set_proof_kind(v1::SNAP_DEALS_UPDATE);
  r.set_registered_proof(0);  // StackedDrg2KiBV1
  r.set_sector_size(2048);
  r.set_miner_id(1000);
  r.set_sector_number(7);
  r.set_comm_r_old(std::string(32, '\x01'));
  r.set_comm_r_new(std::string(32, '\x02'));
  r.set_comm_d_new(std::string(32, '\x03'));
  r.add_vanilla_proofs("bincode");
  auto refused = [](const v1::SubmitProofRequest& req, const std::string& says) {
    try {
      to_job_request(req, 64);
      ADD_FAILURE() << "accepted; expected: " << says;
    } catch (const InvalidRequest& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused(r, "vanilla_proofs[0]");
  v1::SubmitProofRequest bad = r;
  bad.set_comm_r_old(std::string(40, '\x01'));  // a CID's bytes, not the commitment
  refused(bad, "comm_r_old is 40 bytes");
  bad = r;
  bad.set_comm_d_new(std::string(32, '\xff'));
  refused(bad, "comm_d_new is not a field element");
  bad = r;
  bad.set_registered_proof(7);
  refused(bad, "registered_proof");
  bad = r;
  bad.set_sector_size(8 << 20);
  refused(bad, "sector_size");
  bad = r;
  bad.add_vanilla_proofs("a second one");
  refused(bad, "has 1 partition");
  bad = r;
  bad.set_vanilla_proof("{}");
  refused(bad, "vanilla_proof is for PoRep");
  bad = r;
  bad.mutable_synthetic()->set_constraints(1024);
  refused(bad, "synthetic");
  EXPECT_EQ(wire_kind_name("snap-deals"), "snap-update");  // Curio's Rust daemon's name
  EXPECT_EQ(engine_priority(r), 2000);                     // NORMAL, as Curio sends it
}

TEST(ServerUnitTest, PoStRequestsReachTheirKind) {
  // WINDOW_POST_PARTITION and WINNING_POST go to the PoSt kinds (src/kinds/post_input.cpp), which
  // read the vanilla proofs at submit; Curio's WindowPoSt request id (Go's %d of the randomness
  // bytes) is taken with '_' for the characters job ids do not hold.
  for (v1::ProofKind kind : {v1::WINDOW_POST_PARTITION, v1::WINNING_POST}) {
    v1::SubmitProofRequest r;
    r.set_request_id("wdpost-1000-0-[1 2 3]");
    r.set_proof_kind(kind);
    r.set_registered_proof(kind == v1::WINNING_POST ? 0 : 10);  // StackedDrgWinning2KiBV1, Window2KiBV1_2
    r.set_miner_id(1000);
    r.set_randomness(std::string(32, '\x01'));
    r.add_vanilla_proofs("bincode");
    try {
      to_job_request(r, 64);
      ADD_FAILURE() << v1::ProofKind_Name(kind) << " was accepted";
    } catch (const InvalidRequest& e) {
      EXPECT_NE(std::string(e.what()).find("vanilla_proofs[0]"), std::string::npos) << e.what();
    }
    r.set_registered_proof(kind == v1::WINNING_POST ? 10 : 0);  // the other type
    EXPECT_THROW(to_job_request(r, 64), InvalidRequest) << v1::ProofKind_Name(kind);
  }
}

TEST(ServerUnitTest, PoRepRequestsAreChecked) {
  v1::SubmitProofRequest r;
  r.set_request_id("porep-1006-1498");
  r.set_proof_kind(v1::POREP_SEAL_COMMIT);
  r.set_registered_proof(6);  // StackedDrg8MiBV1_1
  r.set_sector_size(8 << 20);
  r.set_miner_id(1006);
  r.set_sector_number(1498);
  EXPECT_THROW(to_job_request(r, 64), InvalidRequest);  // no Commit1 output
  r.set_vanilla_proof("{\"SectorNum\":1498,\"Phase1Out\":\"bm90IGpzb24=\",\"SectorSize\":8388608}");
  EXPECT_THROW(to_job_request(r, 64), InvalidRequest);  // Phase1Out is "not json"
  r.set_vanilla_proof("garbage");
  EXPECT_THROW(to_job_request(r, 64), InvalidRequest);
  r.mutable_synthetic()->set_constraints(1024);
  EXPECT_THROW(to_job_request(r, 64), InvalidRequest);  // synthetic inputs with a PoRep kind
}

TEST(ServerUnitTest, PoRepRequestFromARealCommit1) {
  const std::string path = cuzk::test::testdata_dir() + "/filecoin/porep/c1-8MiB-StackedDrg8MiBV1_1.json";
  std::ifstream f(path, std::ios::binary);
  if (!f) GTEST_SKIP() << "no test data: " << path;
  std::string c1((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  v1::SubmitProofRequest r;
  r.set_request_id("porep-1006-1498");
  r.set_proof_kind(v1::POREP_SEAL_COMMIT);
  r.set_registered_proof(6);  // StackedDrg8MiBV1_1
  r.set_sector_size(8 << 20);
  r.set_miner_id(1006);
  r.set_sector_number(1498);
  r.set_vanilla_proof(c1);  // the JSON itself
  cuzk::engine::JobRequest j = to_job_request(r, 64);
  ASSERT_NE(j.input, nullptr);
  EXPECT_EQ(j.input->kind(), "porep");
  EXPECT_EQ(j.input->partitions(), 1u);
  EXPECT_EQ(j.priority, 2000);  // NORMAL, the PoRep default
  EXPECT_EQ(circuit_id_for_param(j.input->param_id()), "porep-8m");
  r.set_miner_id(1007);  // another miner: replica_id differs from the Commit1 output's
  EXPECT_THROW(to_job_request(r, 64), InvalidRequest);
}

TEST(ServerUnitTest, CircuitIds) {
  std::string id = param_id_for_circuit("porep-32g");
  EXPECT_TRUE(id.starts_with("v28-stacked-proof-of-replication-")) << id;
  EXPECT_EQ(circuit_id_for_param(id), "porep-32g");
  EXPECT_EQ(circuit_id_for_param("synthetic-1024-4-seed7"), std::nullopt);
  // Every kind's, both ways (Curio's ids name the files of curio srs_manager.rs; kinds_test).
  for (const char* circuit : {"wpost-32g", "winning-32g", "snap-32g", "snap-64g", "porep-2k", "wpost-2k", "winning-2k",
                              "snap-2k", "snap-8m", "snap-512m"}) {
    const std::string param = param_id_for_circuit(circuit);
    EXPECT_EQ(param, cuzk::kinds::param_id_for_circuit_id(circuit)) << circuit;
    EXPECT_EQ(circuit_id_for_param(param), circuit) << param;
  }
  EXPECT_TRUE(
      param_id_for_circuit("snap-32g").starts_with("v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-"));
  EXPECT_TRUE(param_id_for_circuit("wpost-32g").starts_with("v28-proof-of-spacetime-fallback-"));
  EXPECT_NE(param_id_for_circuit("wpost-32g"), param_id_for_circuit("winning-32g"));
  EXPECT_THROW(param_id_for_circuit(""), InvalidRequest);
  for (const char* unknown : {"porep-1t", "snap-16g", "wpost-", "winning-32"}) {
    try {
      param_id_for_circuit(unknown);
      ADD_FAILURE() << unknown << " was mapped";
    } catch (const cuzk::engine::EngineError& e) {  // NOT_FOUND, naming the known ids of the kind
      EXPECT_EQ(e.code(), cuzk::engine::EngineError::Code::kNotFound) << unknown;
      EXPECT_NE(std::string(e.what()).find("32g"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(param_id_for_circuit("a/b"), InvalidRequest);
  EXPECT_EQ(param_id_for_circuit("synthetic-1024-4-seed7"), "synthetic-1024-4-seed7");  // ours, passed through
  EXPECT_EQ(wire_kind_name("porep"), "porep-c2");
  EXPECT_EQ(wire_kind_name("synthetic"), "synthetic");
}

TEST(ServerUnitTest, PrioritiesByKindAsCurioExpects) {
  v1::SubmitProofRequest r;
  r.set_proof_kind(v1::WINNING_POST);
  EXPECT_EQ(engine_priority(r), 4000);  // CRITICAL
  r.set_proof_kind(v1::WINDOW_POST_PARTITION);
  EXPECT_EQ(engine_priority(r), 3000);  // HIGH
  r.set_proof_kind(v1::POREP_SEAL_COMMIT);
  EXPECT_EQ(engine_priority(r), 2000);  // NORMAL
  r.set_priority(v1::LOW);
  r.set_priority_offset(-5);
  EXPECT_EQ(engine_priority(r), 995);
  r.set_priority(v1::Priority(9));  // a level of a newer client: normal
  EXPECT_EQ(engine_priority(r), 1995);
}

}  // namespace
