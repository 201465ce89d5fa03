// Everything cuzk-daemon can be told: the engine's settings plus the daemon's own. Filled from
// the TOML file (config_file.hpp), then from the command line, which wins; every setting is
// declared once, in the settings table (settings.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/config.hpp"

namespace cuzk::server {

// What SIGTERM/SIGINT does to the proofs in flight.
enum class ShutdownMode {
  kFinish,  // finish every accepted proof (up to shutdown_timeout_seconds), then exit
  kCancel,  // cancel them and exit at once
};
std::string_view shutdown_mode_name(ShutdownMode m);
// Throws std::invalid_argument naming the valid modes.
ShutdownMode parse_shutdown_mode(std::string_view name);
// "0660" -> 0660; throws std::invalid_argument for anything but an octal mode up to 0777.
unsigned parse_socket_mode(std::string_view text);
std::string format_socket_mode(unsigned mode);

// Filecoin's parameter files (the [srs] table, as Curio names it): where the published
// v28-*.params / .vk are, whether to check their digests, and whether a Filecoin circuit without
// a published file may be proved with TEST parameters of our own setup (cached in
// engine.param_cache_dir; such proofs never verify on chain).
struct SrsConfig {
  std::string param_cache;  // empty: $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters
  bool verify_digest = true;
  bool allow_test_parameters = false;
};

// The engine's settings as the daemon starts them: engine.param_cache_dir "auto"
// (server/platform_dirs.hpp) instead of the library's relative "params-cache".
inline engine::EngineConfig daemon_engine_defaults() {
  engine::EngineConfig e;
  e.param_cache_dir = "auto";
  return e;
}

struct DaemonConfig {
  engine::EngineConfig engine = daemon_engine_defaults();
  // The engine's comparison policies (every one but budget) do not bound host memory: they show
  // how earlier designs ran out of it, for cuzk-bench pipeline. The daemon refuses them unless
  // this is set.
  bool allow_comparison_policies = false;
  SrsConfig srs;
  std::string listen;         // empty: default_address() (a unix socket)
  std::string status_listen;  // HTTP /status and /metrics, host:port; empty: off
  // TLS of a TCP listener (gRPC's own): the server's certificate chain and private key (PEM
  // files, both or neither), and optionally the CA whose certificates clients must present
  // (mutual TLS). Read at start; a unix socket never uses TLS.
  std::string tls_cert, tls_key, tls_client_ca;
  // A TCP listener without TLS is refused at start unless its host is loopback (127.0.0.0/8,
  // ::1, localhost) or this is set (then a warning is logged).
  bool allow_insecure_tcp = false;
  // Permissions of the unix socket: connecting needs write access, so 0660 lets the daemon's
  // group in and 0600 only its user.
  unsigned socket_mode = 0660;
  // Largest gRPC message accepted; Filecoin C1 outputs are ~51 MB.
  uint64_t max_request_bytes = uint64_t(256) << 20;  // a 32 GiB Commit1 in Curio's envelope is 52-68 MB
  // Jobs accepted and not yet ended; beyond it SubmitProof/Prove answer RESOURCE_EXHAUSTED.
  size_t max_queued_jobs = 1024;
  ShutdownMode shutdown_mode = ShutdownMode::kFinish;
  // In finish mode, what is still running after this long is cancelled (0: wait forever).
  double shutdown_timeout_seconds = 600;
  // Results that nobody awaited are dropped this long after the job ended.
  double result_ttl_seconds = 3600;
  // Ended results kept for collection; beyond it the oldest are dropped.
  size_t max_retained_results = 10000;
  // The spool of accepted jobs (server/journal.hpp): "auto" is the state directory's spool/
  // (server/platform_dirs.hpp), or spool/ beside an engine.param_cache_dir that is set; "" or
  // "none": no journal (jobs are lost on a restart).
  std::string spool_dir = "auto";
  // Concurrent RPCs served (each waiting AwaitProof/Prove holds one thread). Waiting calls get at
  // most max_rpc_threads - min(16, half) of them; more answer RESOURCE_EXHAUSTED.
  unsigned max_rpc_threads = 256;
  std::string log_level = "info";   // trace, debug, info, warn, error, critical, off
  std::string log_format = "text";  // text, or json: one JSON object per line
  std::string log_file;             // empty: stderr only
  // Command line only: once both listeners serve, this file is written (atomically) with the
  // bound addresses ("grpc <address>" and "http <port>" lines), so port 0 can be used.
  std::string ready_file;
};

}  // namespace cuzk::server
