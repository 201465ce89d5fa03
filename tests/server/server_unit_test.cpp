// The daemon's pieces without a daemon: sizes, addresses, the TOML file, request validation,
// the wire messages (Curio's API: field numbers, results and status as Curio reads them), the
// status-code mapping and the Prometheus text.
// This file: sizes, addresses, the TOML file and the daemon's directories. The other files:
// server_unit_requests_test.cpp (request validation and proof kinds) and server_unit_wire_test.cpp
// (Curio's wire messages, status codes, Prometheus text).
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
