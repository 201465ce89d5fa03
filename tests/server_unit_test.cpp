// The daemon's pieces without a daemon: sizes, addresses, the TOML file, request validation,
// the wire messages (Curio's API: field numbers, results and status as Curio reads them), the
// status-code mapping and the Prometheus text.
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

TEST(ServerUnitTest, ParseSize) {
  EXPECT_EQ(parse_size("1234"), 1234u);
  EXPECT_EQ(parse_size("64MiB"), uint64_t(64) << 20);
  EXPECT_EQ(parse_size("4 GiB"), uint64_t(4) << 30);
  EXPECT_EQ(parse_size("512M"), uint64_t(512) << 20);
  EXPECT_EQ(parse_size("2k"), 2048u);
  EXPECT_EQ(parse_size("1.5G"), uint64_t(3) << 29);
  EXPECT_THROW(parse_size(""), std::invalid_argument);
  EXPECT_THROW(parse_size("12 parsecs"), std::invalid_argument);
  EXPECT_THROW(parse_size("1.5"), std::invalid_argument);
  EXPECT_THROW(parse_size("99999999999999999999"), std::invalid_argument);
  EXPECT_THROW(parse_size("-1"), std::invalid_argument);
  EXPECT_THROW(parse_size(".G"), std::invalid_argument);
  EXPECT_THROW(parse_size("."), std::invalid_argument);
  EXPECT_EQ(parse_size(".5K"), 512u);
  EXPECT_THROW(parse_size("16777216.0T"), std::invalid_argument);  // 2^64
  EXPECT_THROW(parse_size("1e9T"), std::invalid_argument);
  EXPECT_THROW(parse_size("99999999999999999999.5T"), std::invalid_argument);
  EXPECT_EQ(format_size(uint64_t(64) << 20), "64 MiB");
  EXPECT_EQ(format_size(100), "100 B");
}

TEST(ServerUnitTest, ParseAddress) {
  ListenAddress u = parse_address("unix:/run/cuzk/cuzk.sock");
  EXPECT_TRUE(u.is_unix);
  EXPECT_EQ(u.path, "/run/cuzk/cuzk.sock");
  EXPECT_EQ(parse_address("unix:///tmp/x.sock").path, "/tmp/x.sock");
  ListenAddress t = parse_address("127.0.0.1:9820");
  EXPECT_FALSE(t.is_unix);
  EXPECT_EQ(t.host, "127.0.0.1");
  EXPECT_EQ(t.port, 9820);
  ListenAddress v6 = parse_address("[::1]:50051");
  EXPECT_EQ(v6.host, "::1");
  EXPECT_EQ(v6.grpc_target(), "[::1]:50051");
  EXPECT_THROW(parse_address("/tmp/x.sock"), std::invalid_argument);
  EXPECT_THROW(parse_address("localhost"), std::invalid_argument);
  EXPECT_THROW(parse_address("localhost:99999"), std::invalid_argument);
  EXPECT_THROW(parse_address("::1:80"), std::invalid_argument);
  EXPECT_THROW(parse_address("unix:"), std::invalid_argument);
  EXPECT_THROW(parse_address("unix:/" + std::string(200, 'a')), std::invalid_argument);
  EXPECT_TRUE(default_address().starts_with("unix:/"));
  // gRPC's other schemes are named, not taken for a host or a port.
  auto error_of = [](const std::string& text) {
    try {
      parse_address(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("unix-abstract:foo").find("abstract unix sockets are not supported"), std::string::npos)
      << error_of("unix-abstract:foo");
  for (const char* target : {"dns:///localhost:9820", "dns:localhost:9820", "ipv4:127.0.0.1:9820", "ipv6:[::1]:9820"}) {
    EXPECT_NE(error_of(target).find("a gRPC client's target scheme"), std::string::npos) << error_of(target);
    EXPECT_EQ(error_of(target).find("brackets"), std::string::npos) << error_of(target);
  }
}

TEST(ServerUnitTest, ConfigFileSetsEverySetting) {
  DaemonConfig c;
  load_config_text(R"(
[daemon]
listen = "unix:/tmp/cuzk-test.sock"
status_listen = "127.0.0.1:9820"
socket_mode = "0600"
max_request_bytes = "128MiB"
max_queued_jobs = 7
shutdown = "cancel"
shutdown_timeout_seconds = 30
result_ttl_seconds = 60.5
max_rpc_threads = 16
max_retained_results = 77
log_level = "debug"
log_file = "/tmp/cuzk.log"

[engine]
budget = "8GiB"
safety_margin = 1073741824
synthesis_workers = 3
backend = "cpu"
devices = [0, 2]
gpu_workers_per_device = 2
gpu_h_copies = 3
finalizer_threads = 4
gpu_queue_capacity = 10
max_queued_partitions = 100
max_partitions_per_job = 20
param_cache_dir = "/var/cache/cuzk"
allow_synthetic_setup = false
verify_before_return = false
timeline_path = "/tmp/t.json"
log_events = false
cpu_threads = 6
)",
                   "test.toml", c);
  EXPECT_EQ(c.listen, "unix:/tmp/cuzk-test.sock");
  EXPECT_EQ(c.status_listen, "127.0.0.1:9820");
  EXPECT_EQ(c.socket_mode, 0600u);
  EXPECT_EQ(c.max_request_bytes, uint64_t(128) << 20);
  EXPECT_EQ(c.max_queued_jobs, 7u);
  EXPECT_EQ(c.shutdown_mode, ShutdownMode::kCancel);
  EXPECT_EQ(c.shutdown_timeout_seconds, 30);
  EXPECT_EQ(c.result_ttl_seconds, 60.5);
  EXPECT_EQ(c.max_rpc_threads, 16u);
  EXPECT_EQ(c.max_retained_results, 77u);
  EXPECT_EQ(c.log_level, "debug");
  EXPECT_EQ(c.log_file, "/tmp/cuzk.log");
  EXPECT_EQ(c.engine.budget_bytes, uint64_t(8) << 30);
  EXPECT_EQ(c.engine.safety_margin_bytes, uint64_t(1) << 30);
  EXPECT_EQ(c.engine.synthesis_workers, 3u);
  EXPECT_EQ(c.engine.backend, cuzk::engine::BackendKind::kCpu);
  EXPECT_EQ(c.engine.devices, (std::vector<int>{0, 2}));
  EXPECT_EQ(c.engine.gpu_workers_per_device, 2u);
  EXPECT_EQ(c.engine.gpu_h_copies, 3u);
  EXPECT_EQ(c.engine.finalizer_threads, 4u);
  EXPECT_EQ(c.engine.gpu_queue_capacity, 10u);
  EXPECT_EQ(c.engine.max_queued_partitions, 100u);
  EXPECT_EQ(c.engine.max_partitions_per_job, 20u);
  EXPECT_EQ(c.engine.param_cache_dir, "/var/cache/cuzk");
  EXPECT_FALSE(c.engine.allow_synthetic_setup);
  EXPECT_FALSE(c.engine.verify_before_return);
  EXPECT_EQ(c.engine.timeline_path, "/tmp/t.json");
  EXPECT_FALSE(c.engine.log_events);
  EXPECT_EQ(c.engine.cpu_threads, 6u);

  // What --print-config writes reads back to the same settings.
  DaemonConfig back;
  load_config_text(config_to_toml(c), "printed", back);
  EXPECT_EQ(config_to_toml(back), config_to_toml(c));
}

TEST(ServerUnitTest, ConfigFileErrorsSayWhereAndWhat) {
  DaemonConfig c;
  auto message = [&](const std::string& text) {
    try {
      load_config_text(text, "bad.toml", c);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("[engine]\nbudjet = 5\n").find("bad.toml:2: unknown setting engine.budjet"), std::string::npos);
  EXPECT_NE(message("[engine]\nbudget = true\n").find("expected a size"), std::string::npos);
  EXPECT_NE(message("[engine]\nbudget = \"lots\"\n").find("bad size"), std::string::npos);
  EXPECT_NE(message("[daemon]\nshutdown = \"later\"\n").find("finish, cancel"), std::string::npos);
  EXPECT_NE(message("[engine]\nsynthesis_workers = -1\n").find("synthesis_workers"), std::string::npos);
  EXPECT_NE(message("[engine]\npolicy = \"whatever\"\n").find("engine.policy"), std::string::npos);
  EXPECT_NE(message("budget = 5\n").find("[daemon] and [engine]"), std::string::npos);
  EXPECT_NE(message("[engine\n").find("bad.toml:1"), std::string::npos);
  EXPECT_NE(message("[daemon]\nsocket_mode = \"0999\"\n").find("octal"), std::string::npos);
  EXPECT_THROW(load_config_file("/nonexistent/cuzk.toml", c), ConfigError);
  EXPECT_NE(message("[daemon]\nresult_ttl_seconds = nan\n").find("non-negative"), std::string::npos);
  EXPECT_NE(message("[daemon]\nresult_ttl_seconds = -1.5\n").find("non-negative"), std::string::npos);
  EXPECT_NE(message("[daemon]\nshutdown_timeout_seconds = inf\n").find("non-negative"), std::string::npos);
}

TEST(ServerUnitTest, ValidateConfigRejectsNonsense) {
  auto message = [](auto change) {
    DaemonConfig c;
    change(c);
    try {
      validate_config(c);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([](DaemonConfig&) {}), "no error");
  EXPECT_NE(message([](DaemonConfig& c) { c.max_queued_jobs = 0; }).find("max_queued_jobs"), std::string::npos);
  EXPECT_NE(message([](DaemonConfig& c) { c.max_retained_results = 0; }).find("max_retained_results"),
            std::string::npos);
  EXPECT_NE(message([](DaemonConfig& c) { c.engine.max_partitions_per_job = 0; }).find("max_partitions_per_job"),
            std::string::npos);
  EXPECT_NE(message([](DaemonConfig& c) {
              c.engine.max_partitions_per_job = 64;
              c.engine.max_queued_partitions = 63;
            }).find("max_queued_partitions"),
            std::string::npos);
  EXPECT_NE(message([](DaemonConfig& c) { c.max_request_bytes = 0; }).find("max_request_bytes"), std::string::npos);
  EXPECT_NE(message([](DaemonConfig& c) { c.max_request_bytes = 4095; }).find("max_request_bytes"), std::string::npos);
  EXPECT_EQ(message([](DaemonConfig& c) { c.max_request_bytes = 4096; }), "no error");
  EXPECT_EQ(message([](DaemonConfig& c) { c.max_request_bytes = (uint64_t(1) << 31) - 1; }), "no error");
  EXPECT_NE(message([](DaemonConfig& c) { c.max_request_bytes = uint64_t(1) << 31; }).find("max_request_bytes"),
            std::string::npos);
  EXPECT_NE(message([](DaemonConfig& c) { c.socket_mode = 0060; }).find("socket_mode"), std::string::npos);
  EXPECT_NE(message([](DaemonConfig& c) { c.socket_mode = 0400; }).find("socket_mode"), std::string::npos);
  EXPECT_EQ(message([](DaemonConfig& c) { c.socket_mode = 0600; }), "no error");
  EXPECT_NE(message([](DaemonConfig& c) { c.status_listen = "unix:/tmp/x"; }).find("status_listen"), std::string::npos);
  EXPECT_NE(message([](DaemonConfig& c) { c.status_listen = "127.0.0.1"; }).find("status_listen"), std::string::npos);
  EXPECT_EQ(message([](DaemonConfig& c) { c.status_listen = "127.0.0.1:0"; }), "no error");
}

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

TEST(ServerUnitTest, ResultsAsCurioReadsThem) {
  using S = v1::AwaitProofResponse;
  cuzk::engine::JobResult r;
  r.request_id = "porep-1000-7";
  r.state = cuzk::engine::JobState::kSucceeded;
  r.proof.assign(192, 0xab);
  r.verified = true;
  r.timings.queue_wait = 0.0104;
  r.timings.param_load = 1.5;
  r.timings.synthesis = 2.0006;
  r.timings.gpu = 1.25;
  r.timings.total = 5.0;
  S out;
  to_proto(r, &out);
  EXPECT_EQ(out.job_id(), "porep-1000-7");
  EXPECT_EQ(out.status(), S::COMPLETED);
  EXPECT_EQ(out.proof().size(), 192u);
  EXPECT_TRUE(out.error_message().empty());
  EXPECT_EQ(out.queue_wait_ms(), 10u);
  EXPECT_EQ(out.srs_load_ms(), 1500u);
  EXPECT_EQ(out.synthesis_ms(), 2001u);
  EXPECT_EQ(out.gpu_compute_ms(), 1250u);
  EXPECT_EQ(out.total_ms(), 5000u);
  EXPECT_EQ(out.state(), v1::JOB_STATE_SUCCEEDED);
  EXPECT_TRUE(out.verified());
  EXPECT_DOUBLE_EQ(out.timings().gpu(), 1.25);

  // A failure: the error in error_message, never in proof.
  r.state = cuzk::engine::JobState::kFailed;
  r.error = "partition 3: synthesis failed";
  S failed;
  to_proto(r, &failed);
  EXPECT_EQ(failed.status(), S::FAILED);
  EXPECT_TRUE(failed.proof().empty());
  EXPECT_EQ(failed.error_message(), r.error);

  r.state = cuzk::engine::JobState::kCancelled;
  r.error = "cancelled by a client";
  S cancelled;
  to_proto(r, &cancelled);
  EXPECT_EQ(cancelled.status(), S::CANCELLED);
  EXPECT_TRUE(cancelled.proof().empty());

  // Still running when the await's timeout passed.
  r.state = cuzk::engine::JobState::kRunning;
  r.error.clear();
  S timeout;
  to_proto(r, &timeout);
  EXPECT_EQ(timeout.status(), S::TIMEOUT);
  EXPECT_EQ(timeout.state(), v1::JOB_STATE_RUNNING);
  EXPECT_TRUE(timeout.proof().empty());
}

TEST(ServerUnitTest, StatusAsCurioReadsIt) {
  cuzk::engine::EngineSnapshot s;
  s.jobs_completed = 7;
  s.jobs_failed = 2;
  s.jobs_cancelled = 1;
  s.uptime_seconds = 99.7;
  s.jobs_active = 3;
  s.buffers.pinned_pool_bytes = 1000;
  s.buffers.abc_pinned_bytes = 24;
  s.buffers.budget_total = 1 << 30;
  s.buffers.budget_used = 1 << 20;
  s.kinds.push_back({"porep", 2, 1});
  s.kinds.push_back({"synthetic", 0, 1});
  cuzk::engine::DeviceStatus busy{0, "NVIDIA H200", 150ull << 30, 100ull << 30, "porep-1000-7", "porep", {}, {}};
  cuzk::engine::DeviceStatus idle{1, "NVIDIA H200", 150ull << 30, 140ull << 30, "", "", {}, {}};
  s.devices = {busy, idle};
  std::string porep32 = param_id_for_circuit("porep-32g");
  s.params.push_back({porep32, 40ll << 30, 30ll << 30, true, 3});
  s.params.push_back({"synthetic-1024-4-seed7", 5000, 0, false});
  v1::GetStatusResponse out;
  to_proto(s, &out);

  ASSERT_EQ(out.gpus_size(), 2);
  EXPECT_EQ(out.gpus(0).name(), "NVIDIA H200");
  EXPECT_EQ(out.gpus(0).vram_free_bytes(), 100ull << 30);
  EXPECT_EQ(out.gpus(0).current_job_id(), "porep-1000-7");
  EXPECT_EQ(out.gpus(0).current_proof_kind(), "porep-c2");
  EXPECT_EQ(out.gpus(1).ordinal(), 1u);
  EXPECT_TRUE(out.gpus(1).current_job_id().empty());

  // Curio's back-pressure: the sum of pending + in_progress over queues.
  uint32_t pending = 0;
  for (const v1::QueueStatus& q : out.queues()) pending += q.pending() + q.in_progress();
  EXPECT_EQ(pending, 4u);
  ASSERT_EQ(out.queues_size(), 2);
  EXPECT_EQ(out.queues(0).proof_kind(), "porep-c2");
  EXPECT_EQ(out.queues(0).pending(), 2u);
  EXPECT_EQ(out.queues(0).in_progress(), 1u);

  ASSERT_EQ(out.loaded_srs_size(), 2);
  EXPECT_EQ(out.loaded_srs(0).circuit_id(), "porep-32g");
  EXPECT_EQ(out.loaded_srs(0).tier(), v1::SRSStatus::HOT);
  EXPECT_EQ(out.loaded_srs(0).size_bytes(), 40ull << 30);
  EXPECT_EQ(out.loaded_srs(0).ref_count(), 3u);  // the jobs that prove with it
  EXPECT_EQ(out.loaded_srs(0).param_id(), porep32);
  EXPECT_EQ(out.loaded_srs(1).circuit_id(), "synthetic-1024-4-seed7");  // no circuit id: ours
  EXPECT_EQ(out.loaded_srs(1).tier(), v1::SRSStatus::WARM);
  EXPECT_EQ(out.loaded_srs(1).ref_count(), 0u);
  ASSERT_EQ(out.params_size(), 2);
  EXPECT_EQ(out.params(0).circuit_id(), "porep-32g");

  EXPECT_EQ(out.total_proofs_completed(), 7u);
  EXPECT_EQ(out.total_proofs_failed(), 2u);
  EXPECT_EQ(out.total_proofs_cancelled(), 1u);
  EXPECT_EQ(out.uptime_seconds(), 99u);
  EXPECT_EQ(out.pinned_memory_bytes(), 1024u);
  EXPECT_EQ(out.jobs_active(), 3u);
  EXPECT_EQ(out.budget_total_bytes(), 1 << 30);
}

// Curio's proto (curio extern/cuzk/cuzk-proto/proto/cuzk/v1/proving.proto): every field keeps its
// name, number, type and cardinality here, every enum value its number, every method its
// messages. Fields of cuzk's own must never take these numbers.
TEST(ServerUnitTest, WireCompatibleWithCurio) {
  using FD = google::protobuf::FieldDescriptor;
  struct Field {
    const char* message;
    const char* name;
    int number;
    FD::Type type;
    bool repeated;
  };
  const Field curio[] = {
      {"SubmitProofRequest", "request_id", 1, FD::TYPE_STRING, false},
      {"SubmitProofRequest", "proof_kind", 2, FD::TYPE_ENUM, false},
      {"SubmitProofRequest", "sector_size", 3, FD::TYPE_UINT64, false},
      {"SubmitProofRequest", "registered_proof", 4, FD::TYPE_UINT64, false},
      {"SubmitProofRequest", "priority", 5, FD::TYPE_ENUM, false},
      {"SubmitProofRequest", "vanilla_proof", 10, FD::TYPE_BYTES, false},
      {"SubmitProofRequest", "vanilla_proofs", 11, FD::TYPE_BYTES, true},
      {"SubmitProofRequest", "sector_number", 20, FD::TYPE_UINT64, false},
      {"SubmitProofRequest", "miner_id", 21, FD::TYPE_UINT64, false},
      {"SubmitProofRequest", "randomness", 22, FD::TYPE_BYTES, false},
      {"SubmitProofRequest", "partition_index", 23, FD::TYPE_UINT32, false},
      {"SubmitProofRequest", "comm_r_old", 30, FD::TYPE_BYTES, false},
      {"SubmitProofRequest", "comm_r_new", 31, FD::TYPE_BYTES, false},
      {"SubmitProofRequest", "comm_d_new", 32, FD::TYPE_BYTES, false},
      {"SubmitProofResponse", "job_id", 1, FD::TYPE_STRING, false},
      {"SubmitProofResponse", "queue_position", 2, FD::TYPE_UINT32, false},
      {"SubmitProofResponse", "assigned_gpu", 3, FD::TYPE_STRING, false},
      {"AwaitProofRequest", "job_id", 1, FD::TYPE_STRING, false},
      {"AwaitProofRequest", "timeout_ms", 2, FD::TYPE_UINT64, false},
      {"AwaitProofResponse", "job_id", 1, FD::TYPE_STRING, false},
      {"AwaitProofResponse", "status", 2, FD::TYPE_ENUM, false},
      {"AwaitProofResponse", "proof", 3, FD::TYPE_BYTES, false},
      {"AwaitProofResponse", "error_message", 4, FD::TYPE_STRING, false},
      {"AwaitProofResponse", "queue_wait_ms", 10, FD::TYPE_UINT64, false},
      {"AwaitProofResponse", "srs_load_ms", 11, FD::TYPE_UINT64, false},
      {"AwaitProofResponse", "synthesis_ms", 12, FD::TYPE_UINT64, false},
      {"AwaitProofResponse", "gpu_compute_ms", 13, FD::TYPE_UINT64, false},
      {"AwaitProofResponse", "total_ms", 14, FD::TYPE_UINT64, false},
      {"ProveRequest", "submit", 1, FD::TYPE_MESSAGE, false},
      {"ProveResponse", "result", 1, FD::TYPE_MESSAGE, false},
      {"CancelProofRequest", "job_id", 1, FD::TYPE_STRING, false},
      {"CancelProofResponse", "was_running", 1, FD::TYPE_BOOL, false},
      {"GetStatusResponse", "gpus", 1, FD::TYPE_MESSAGE, true},
      {"GetStatusResponse", "loaded_srs", 2, FD::TYPE_MESSAGE, true},
      {"GetStatusResponse", "queues", 3, FD::TYPE_MESSAGE, true},
      {"GetStatusResponse", "total_proofs_completed", 4, FD::TYPE_UINT64, false},
      {"GetStatusResponse", "total_proofs_failed", 5, FD::TYPE_UINT64, false},
      {"GetStatusResponse", "uptime_seconds", 6, FD::TYPE_UINT64, false},
      {"GetStatusResponse", "pinned_memory_bytes", 7, FD::TYPE_UINT64, false},
      {"GetStatusResponse", "pinned_memory_limit_bytes", 8, FD::TYPE_UINT64, false},
      {"GPUStatus", "ordinal", 1, FD::TYPE_UINT32, false},
      {"GPUStatus", "name", 2, FD::TYPE_STRING, false},
      {"GPUStatus", "vram_total_bytes", 3, FD::TYPE_UINT64, false},
      {"GPUStatus", "vram_free_bytes", 4, FD::TYPE_UINT64, false},
      {"GPUStatus", "current_job_id", 5, FD::TYPE_STRING, false},
      {"GPUStatus", "current_proof_kind", 6, FD::TYPE_STRING, false},
      {"SRSStatus", "circuit_id", 1, FD::TYPE_STRING, false},
      {"SRSStatus", "tier", 2, FD::TYPE_ENUM, false},
      {"SRSStatus", "size_bytes", 3, FD::TYPE_UINT64, false},
      {"SRSStatus", "ref_count", 4, FD::TYPE_UINT32, false},
      {"QueueStatus", "proof_kind", 1, FD::TYPE_STRING, false},
      {"QueueStatus", "pending", 2, FD::TYPE_UINT32, false},
      {"QueueStatus", "in_progress", 3, FD::TYPE_UINT32, false},
      {"PreloadSrsRequest", "circuit_id", 1, FD::TYPE_STRING, false},
      {"PreloadSrsResponse", "already_loaded", 1, FD::TYPE_BOOL, false},
      {"PreloadSrsResponse", "load_time_ms", 2, FD::TYPE_UINT64, false},
      {"EvictSrsRequest", "circuit_id", 1, FD::TYPE_STRING, false},
      {"EvictSrsResponse", "was_loaded", 1, FD::TYPE_BOOL, false},
      {"EvictSrsResponse", "freed_bytes", 2, FD::TYPE_UINT64, false},
      {"GetMetricsResponse", "prometheus_text", 1, FD::TYPE_STRING, false},
  };
  const google::protobuf::FileDescriptor* file = v1::SubmitProofRequest::descriptor()->file();
  EXPECT_EQ(file->package(), "cuzk.v1");
  for (const Field& c : curio) {
    std::string full = std::string("cuzk.v1.") + c.message;
    const google::protobuf::Descriptor* m = file->pool()->FindMessageTypeByName(full);
    ASSERT_NE(m, nullptr) << full;
    const FD* f = m->FindFieldByNumber(c.number);
    ASSERT_NE(f, nullptr) << full << " #" << c.number;
    EXPECT_EQ(f->name(), c.name) << full << " #" << c.number;
    EXPECT_EQ(f->type(), c.type) << full << "." << c.name;
    EXPECT_EQ(f->is_repeated(), c.repeated) << full << "." << c.name;
  }
  auto enum_values = [&](const google::protobuf::EnumDescriptor* e, std::vector<std::pair<std::string, int>> expected) {
    ASSERT_NE(e, nullptr);
    for (const auto& [name, number] : expected) {
      const google::protobuf::EnumValueDescriptor* v = e->FindValueByNumber(number);
      ASSERT_NE(v, nullptr) << e->full_name() << " " << number;
      EXPECT_EQ(v->name(), name) << e->full_name();
    }
  };
  enum_values(v1::ProofKind_descriptor(), {{"PROOF_KIND_UNSPECIFIED", 0},
                                           {"POREP_SEAL_COMMIT", 1},
                                           {"SNAP_DEALS_UPDATE", 2},
                                           {"WINDOW_POST_PARTITION", 3},
                                           {"WINNING_POST", 4}});
  enum_values(v1::Priority_descriptor(),
              {{"PRIORITY_UNSPECIFIED", 0}, {"LOW", 1}, {"NORMAL", 2}, {"HIGH", 3}, {"CRITICAL", 4}});
  enum_values(v1::AwaitProofResponse::Status_descriptor(),
              {{"UNKNOWN", 0}, {"COMPLETED", 1}, {"FAILED", 2}, {"CANCELLED", 3}, {"TIMEOUT", 4}});
  enum_values(v1::SRSStatus::Tier_descriptor(), {{"HOT", 0}, {"WARM", 1}, {"COLD", 2}});
  const google::protobuf::ServiceDescriptor* service = file->FindServiceByName("ProvingEngine");
  ASSERT_NE(service, nullptr);
  const std::vector<std::array<std::string, 3>> methods = {{"SubmitProof", "SubmitProofRequest", "SubmitProofResponse"},
                                                           {"AwaitProof", "AwaitProofRequest", "AwaitProofResponse"},
                                                           {"Prove", "ProveRequest", "ProveResponse"},
                                                           {"CancelProof", "CancelProofRequest", "CancelProofResponse"},
                                                           {"GetStatus", "GetStatusRequest", "GetStatusResponse"},
                                                           {"GetMetrics", "GetMetricsRequest", "GetMetricsResponse"},
                                                           {"PreloadSRS", "PreloadSrsRequest", "PreloadSrsResponse"},
                                                           {"EvictSRS", "EvictSrsRequest", "EvictSrsResponse"}};
  for (const auto& [name, in, out] : methods) {
    const google::protobuf::MethodDescriptor* m = service->FindMethodByName(name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_EQ(m->input_type()->name(), in);
    EXPECT_EQ(m->output_type()->name(), out);
  }
}

TEST(ServerUnitTest, EveryEngineErrorHasAStatusCode) {
  using C = cuzk::engine::EngineError::Code;
  EXPECT_EQ(to_grpc_code(C::kInvalidArgument), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(to_grpc_code(C::kResourceExhausted), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(to_grpc_code(C::kNotFound), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(to_grpc_code(C::kAlreadyExists), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_EQ(to_grpc_code(C::kFailedPrecondition), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(to_grpc_code(C::kUnavailable), grpc::StatusCode::UNAVAILABLE);
  grpc::Status s = to_grpc_status(cuzk::engine::EngineError(C::kResourceExhausted, "queue full"));
  EXPECT_EQ(s.error_message(), "queue full");
}

TEST(ServerUnitTest, PrometheusText) {
  cuzk::engine::EngineSnapshot s;
  s.backend = "cpu";
  s.policy = "budget";
  s.jobs_completed = 5;
  s.buffers.budget_total = 1000;
  s.buffers.budget_used = 250;
  s.buffers.stages[0].partitions = 2;
  s.buffers.stages[0].bytes[0] = 4096;
  cuzk::engine::Histogram h;
  h.observe(0.0001);  // the first bucket
  h.observe(1e9);     // +Inf only
  s.phase_seconds.push_back({"total", h});
  s.params.push_back({"synthetic-\"quoted\"\\\n", 10, 0, true});  // escaped by the serializer
  s.kinds.push_back({"porep", 2, 1});
  s.devices.push_back({0,
                       "NVIDIA H200",
                       1000,
                       600,
                       "job-1",
                       "porep",
                       "separate scratch 0.0 GB",
                       {{"scratch", 17}, {"available", 900}}});
  s.buffers.input_jobs = 1;
  s.buffers.input_bytes = 12345;
  DaemonMetrics d;
  d.rpc.push_back({"Prove", "OK", 3});
  std::string m = render_prometheus(s, d);

  EXPECT_NE(m.find("# TYPE cuzk_proofs_completed_total counter\ncuzk_proofs_completed_total 5\n"), std::string::npos);
  EXPECT_NE(m.find("cuzk_budget_free_bytes 750\n"), std::string::npos);
  std::string first = cuzk::engine::stage_name(cuzk::engine::Stage(0));
  std::string cls = cuzk::engine::buffer_class_name(cuzk::engine::BufferClass(0));
  EXPECT_NE(m.find("cuzk_stage_partitions{stage=\"" + first + "\"} 2\n"), std::string::npos);
  EXPECT_TRUE(has_sample(m, "cuzk_stage_buffer_bytes{stage=\"" + first + "\",class=\"" + cls + "\"} 4096\n"));
  // Buckets are cumulative: 1 in the first bucket, 2 at +Inf.
  EXPECT_NE(m.find("cuzk_phase_duration_seconds_bucket{phase=\"total\",le=\"+Inf\"} 2\n"), std::string::npos);
  EXPECT_NE(m.find("cuzk_phase_duration_seconds_count{phase=\"total\"} 2\n"), std::string::npos);
  double b0 = cuzk::engine::Histogram::bounds()[0];
  EXPECT_NE(m.find(fmt::format("cuzk_phase_duration_seconds_bucket{{phase=\"total\",le=\"{}\"}} 1\n", b0)),
            std::string::npos);
  EXPECT_NE(m.find("param_id=\"synthetic-\\\"quoted\\\"\\\\\\n\""), std::string::npos);
  EXPECT_TRUE(has_sample(m, "cuzk_rpc_requests_total{method=\"Prove\",code=\"OK\"} 3\n"));
  EXPECT_NE(m.find("cuzk_kind_jobs{kind=\"porep\",state=\"pending\"} 2\n"), std::string::npos);
  EXPECT_NE(m.find("cuzk_kind_jobs{kind=\"porep\",state=\"in_progress\"} 1\n"), std::string::npos);
  EXPECT_TRUE(has_sample(m, "cuzk_device_memory_bytes{ordinal=\"0\",name=\"NVIDIA H200\",memory=\"free\"} 600\n"));
  EXPECT_TRUE(has_sample(m, "cuzk_device_busy{ordinal=\"0\",name=\"NVIDIA H200\"} 1\n"));
  EXPECT_TRUE(has_sample(m, "cuzk_device_memory_plan_bytes{ordinal=\"0\",name=\"NVIDIA H200\",use=\"scratch\"} 17\n"));
  EXPECT_TRUE(
      has_sample(m, "cuzk_device_memory_plan_bytes{ordinal=\"0\",name=\"NVIDIA H200\",use=\"available\"} 900\n"));
  EXPECT_NE(m.find("cuzk_input_bytes 12345\n"), std::string::npos);
}

}  // namespace

// The daemon's directories never depend on the working directory (Curio's unit sets none): root's
// follow the FHS, a user's the XDG base directories; a param_cache_dir that is given keeps the spool
// beside it (a sibling), and an explicit spool wins.
TEST(ServerUnitTest, DefaultDirectoriesAreAbsoluteAndFollowThePlatform) {
  const bool root = geteuid() == 0;
  setenv("XDG_CACHE_HOME", "/x/cache", 1);
  setenv("XDG_STATE_HOME", "/x/state", 1);
  cuzk::server::DaemonConfig c;
  EXPECT_EQ(c.engine.param_cache_dir, "auto");
  cuzk::server::resolve_default_dirs(c);
  EXPECT_EQ(c.engine.param_cache_dir, root ? "/var/cache/cuzk/params" : "/x/cache/cuzk/params");
  EXPECT_EQ(c.spool_dir, root ? "/var/lib/cuzk/spool" : "/x/state/cuzk/spool");
  if (!root) {
    unsetenv("XDG_STATE_HOME");
    setenv("HOME", "/home/op", 1);
    cuzk::server::DaemonConfig h;
    cuzk::server::resolve_default_dirs(h);
    EXPECT_EQ(h.spool_dir, "/home/op/.local/state/cuzk/spool");
  }
  cuzk::server::DaemonConfig given;
  given.engine.param_cache_dir = "/srv/params";
  cuzk::server::resolve_default_dirs(given);
  EXPECT_EQ(given.engine.param_cache_dir, "/srv/params");
  EXPECT_EQ(given.spool_dir, "/srv/spool");  // beside it
  cuzk::server::DaemonConfig none;
  none.spool_dir = "";
  cuzk::server::resolve_default_dirs(none);
  EXPECT_EQ(none.spool_dir, "none");
  unsetenv("XDG_CACHE_HOME");
  unsetenv("XDG_STATE_HOME");
}
