// The daemon's pieces without a daemon: sizes, addresses, the TOML file, request validation,
// the status-code mapping and the Prometheus text.
#include <fmt/format.h>

#include <gtest/gtest.h>

#include "server/address.hpp"
#include "server/config_file.hpp"
#include "server/convert.hpp"
#include "server/metrics.hpp"
#include "server/service.hpp"
#include "server/size.hpp"
#include "server/status_codes.hpp"

namespace {

using namespace cuzk::server;
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
  v1::ProofRequest r;
  r.set_request_id("job-1");
  r.set_priority(3);
  r.mutable_synthetic()->set_constraints(4096);
  r.mutable_synthetic()->set_public_inputs(2);
  r.mutable_synthetic()->set_seed(9);
  r.mutable_synthetic()->set_partitions(3);
  cuzk::engine::JobRequest j = to_job_request(r, 64);
  EXPECT_EQ(j.request_id, "job-1");
  EXPECT_EQ(j.priority, 3);
  EXPECT_EQ(j.input, nullptr);  // the synthetic shorthand
  ASSERT_EQ(j.partitions.size(), 3u);
  EXPECT_EQ(j.partitions[2].constraints, 4096u);
  EXPECT_EQ(j.partitions[2].public_inputs, 2u);
  EXPECT_EQ(j.partitions[2].seed, 9u);

  r.mutable_synthetic()->set_partitions(0);  // means one
  EXPECT_EQ(to_job_request(r, 64).partitions.size(), 1u);
  r.mutable_synthetic()->set_partitions(65);
  EXPECT_THROW(to_job_request(r, 64), InvalidRequest);
  r.mutable_synthetic()->set_partitions(1);
  r.set_request_id(std::string(200, 'a'));
  EXPECT_NO_THROW(to_job_request(r, 64));
  r.set_request_id("A-z_0.9");
  EXPECT_NO_THROW(to_job_request(r, 64));
  for (const std::string bad : {std::string(201, 'a'), std::string("tab\there"), std::string(".hidden"),
                                std::string("a/b"), std::string("a:b"), std::string("caf\xc3\xa9")}) {
    r.set_request_id(bad);
    EXPECT_THROW(to_job_request(r, 64), InvalidRequest) << bad;
  }
  r.set_request_id("");
  r.set_param_id("..");
  EXPECT_THROW(to_job_request(r, 64), InvalidRequest);
  r.set_param_id("a/b");
  EXPECT_THROW(to_job_request(r, 64), InvalidRequest);
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
  s.params.push_back({"synthetic-\"quoted\"", 10, 0, true});
  DaemonMetrics d;
  d.rpc.push_back({"Prove", "OK", 3});
  std::string m = render_prometheus(s, d);

  EXPECT_NE(m.find("# TYPE cuzk_proofs_completed_total counter\ncuzk_proofs_completed_total 5\n"), std::string::npos);
  EXPECT_NE(m.find("cuzk_budget_free_bytes 750\n"), std::string::npos);
  std::string first = cuzk::engine::stage_name(cuzk::engine::Stage(0));
  std::string cls = cuzk::engine::buffer_class_name(cuzk::engine::BufferClass(0));
  EXPECT_NE(m.find("cuzk_stage_partitions{stage=\"" + first + "\"} 2\n"), std::string::npos);
  EXPECT_NE(m.find("cuzk_stage_buffer_bytes{stage=\"" + first + "\",class=\"" + cls + "\"} 4096\n"), std::string::npos);
  // Buckets are cumulative: 1 in the first bucket, 2 at +Inf.
  EXPECT_NE(m.find("cuzk_phase_duration_seconds_bucket{phase=\"total\",le=\"+Inf\"} 2\n"), std::string::npos);
  EXPECT_NE(m.find("cuzk_phase_duration_seconds_count{phase=\"total\"} 2\n"), std::string::npos);
  double b0 = cuzk::engine::Histogram::bounds()[0];
  EXPECT_NE(m.find(fmt::format("cuzk_phase_duration_seconds_bucket{{phase=\"total\",le=\"{}\"}} 1\n", b0)),
            std::string::npos);
  EXPECT_NE(m.find("param_id=\"synthetic-\\\"quoted\\\"\""), std::string::npos);
  EXPECT_NE(m.find("cuzk_rpc_requests_total{method=\"Prove\",code=\"OK\"} 3\n"), std::string::npos);
  EXPECT_EQ(escape_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
}

}  // namespace
