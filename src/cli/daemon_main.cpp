// cuzk-daemon: the proving daemon. Settings come from the defaults, then the TOML file given
// with --config, then the command line (which wins). See README.md, "Daemon".
#include <CLI/CLI.hpp>
#include <charconv>
#include <csignal>
#include <functional>
#include <iostream>
#include <memory>
#include <spdlog/spdlog.h>

#include "server/address.hpp"
#include "server/config_file.hpp"
#include "server/daemon.hpp"
#include "server/logging.hpp"
#include "server/signals.hpp"
#include "server/size.hpp"

namespace {

using cuzk::server::DaemonConfig;

// Exit codes of cuzk-daemon.
constexpr int kExitOk = 0, kExitConfig = 1, kExitStartup = 2, kExitFailure = 3;

unsigned parse_count(const std::string& s) {
  unsigned v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) throw std::invalid_argument("'" + s + "' is not a count");
  return v;
}

double parse_seconds(const std::string& s) {
  size_t used = 0;
  double v = -1;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
  }
  if (used != s.size() || !(v >= 0)) throw std::invalid_argument("'" + s + "' is not a number of seconds");
  return v;
}

std::vector<int> parse_devices(const std::string& s) {
  std::vector<int> out;
  size_t pos = 0;
  while (pos <= s.size() && !s.empty()) {
    size_t comma = s.find(',', pos);
    out.push_back(int(parse_count(s.substr(pos, comma - pos))));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

// Options are read as text and applied after the configuration file, in order.
class Overrides {
 public:
  explicit Overrides(CLI::App& app) : app_(app) {}
  CLI::Option* add(const std::string& name, const std::string& help, const std::string& group,
                   std::function<void(const std::string&, DaemonConfig&)> set) {
    auto value = std::make_shared<std::string>();
    // A flag given twice takes its last value, so wrappers can append overrides.
    CLI::Option* opt =
        app_.add_option(name, *value, help)->group(group)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    appliers_.push_back([opt, value, set, name](DaemonConfig& c) {
      if (opt->count() == 0) return;
      try {
        set(*value, c);
      } catch (const std::exception& e) {
        throw std::invalid_argument(opt->get_name() + ": " + e.what());
      }
    });
    return opt;
  }
  // A --name / --no-name pair for a boolean setting.
  void toggle(const std::string& name, const std::string& help, const std::string& group,
              std::function<void(bool, DaemonConfig&)> set) {
    auto value = std::make_shared<bool>(false);
    CLI::Option* opt = app_.add_flag("--" + name + ",!--no-" + name, *value, help)->group(group);
    appliers_.push_back([opt, value, set](DaemonConfig& c) {
      if (opt->count() > 0) set(*value, c);
    });
  }
  void apply(DaemonConfig& c) const {
    for (const auto& f : appliers_) f(c);
  }

 private:
  CLI::App& app_;
  std::vector<std::function<void(DaemonConfig&)>> appliers_;
};

}  // namespace

int main(int argc, char** argv) {
  // First, before any thread exists, so that every thread inherits the mask.
  cuzk::server::block_shutdown_signals();

  DaemonConfig defaults;
  CLI::App app{"cuzk-daemon: the cuzk Groth16 proving daemon (gRPC service cuzk.v1.ProvingEngine)."};
  app.footer(
      "Settings are applied in order: built-in defaults, the --config TOML file ([daemon] and [engine]\n"
      "tables, keys as in --print-config), then these flags. Sizes take K/M/G/T suffixes (powers of 1024).\n"
      "SIGTERM or SIGINT: stop accepting proofs, finish or cancel those in flight (--shutdown), remove the\n"
      "socket and exit; a second signal cancels at once.\n"
      "Exit codes: 0 clean shutdown, 1 bad flags or configuration, 2 cannot start (engine or listen\n"
      "address), 3 unexpected failure while running.");
  app.set_version_flag("--version", "cuzk-daemon " CUZK_VERSION);
  std::string config_path;
  app.add_option("--config", config_path, "TOML configuration file")->group("Daemon");
  bool print_config = false;
  app.add_flag("--print-config", print_config, "Print the effective configuration as TOML and exit")->group("Daemon");

  Overrides o(app);
  const std::string D = "Daemon", E = "Engine";
  o.add("--listen",
        "gRPC address: unix:/path/to/socket or host:port (TCP, unauthenticated: trusted networks only). "
        "Default " +
            cuzk::server::default_address() +
            " (root: /run/cuzk/cuzk.sock; others: "
            "$XDG_RUNTIME_DIR/cuzk/cuzk.sock, else /tmp/cuzk-UID/cuzk.sock)",
        D, [](const std::string& v, DaemonConfig& c) {
          cuzk::server::parse_address(v);  // reject a bad address before anything starts
          c.listen = v;
        });
  o.add("--status-listen", "HTTP host:port serving GET /status (JSON), /metrics (Prometheus), /healthz; off by default",
        D, [](const std::string& v, DaemonConfig& c) { c.status_listen = v; });
  o.add("--ready-file",
        "Once serving, write the bound addresses here ('grpc ADDRESS' and 'http PORT' lines; useful with port 0)", D,
        [](const std::string& v, DaemonConfig& c) { c.ready_file = v; });
  o.add("--socket-mode", "Permissions of the unix socket, octal (default 0660: the daemon's user and group)", D,
        [](const std::string& v, DaemonConfig& c) { c.socket_mode = cuzk::server::parse_socket_mode(v); });
  o.add("--max-request-bytes", "Largest request accepted (default 64MiB; Filecoin C1 inputs are ~51 MB)", D,
        [](const std::string& v, DaemonConfig& c) { c.max_request_bytes = cuzk::server::parse_size(v); });
  o.add("--max-queued-jobs",
        "Proofs queued or running at once; more get RESOURCE_EXHAUSTED (default " +
            std::to_string(defaults.max_queued_jobs) + ")",
        D, [](const std::string& v, DaemonConfig& c) { c.max_queued_jobs = parse_count(v); });
  o.add("--shutdown", "On SIGTERM/SIGINT: finish (complete the proofs in flight) or cancel (default finish)", D,
        [](const std::string& v, DaemonConfig& c) { c.shutdown_mode = cuzk::server::parse_shutdown_mode(v); });
  o.add("--shutdown-timeout", "Seconds to finish proofs at shutdown before cancelling them; 0 = no limit (default 600)",
        D, [](const std::string& v, DaemonConfig& c) { c.shutdown_timeout_seconds = parse_seconds(v); });
  o.add("--result-ttl", "Seconds an ended proof waits to be collected before it is dropped (default 3600)", D,
        [](const std::string& v, DaemonConfig& c) { c.result_ttl_seconds = parse_seconds(v); });
  o.add("--max-rpc-threads", "Concurrent gRPC calls served (each waiting Prove/AwaitProof holds one; default 256)", D,
        [](const std::string& v, DaemonConfig& c) { c.max_rpc_threads = parse_count(v); });
  o.add("--max-retained-results",
        "Ended results kept for collection; beyond it the oldest are dropped (default " +
            std::to_string(defaults.max_retained_results) + ")",
        D, [](const std::string& v, DaemonConfig& c) { c.max_retained_results = parse_count(v); });
  o.add("--log-level", "trace, debug, info, warn, error, critical or off (default info)", D,
        [](const std::string& v, DaemonConfig& c) { c.log_level = v; });
  o.add("--log-file", "Also write the log to this file", D,
        [](const std::string& v, DaemonConfig& c) { c.log_file = v; });

  o.add("--budget", "Host-memory budget for partition buffers; 0 = MemTotal minus the safety margin (default 0)", E,
        [](const std::string& v, DaemonConfig& c) { c.engine.budget_bytes = cuzk::server::parse_size(v); });
  o.add("--safety-margin", "Memory kept free when the budget is automatic (default 5GiB)", E,
        [](const std::string& v, DaemonConfig& c) { c.engine.safety_margin_bytes = cuzk::server::parse_size(v); });
  o.add("--synthesis-workers", "CPU synthesis workers; 0 = from the cores and the budget (default 0)", E,
        [](const std::string& v, DaemonConfig& c) { c.engine.synthesis_workers = parse_count(v); });
  o.add("--backend", "Prover backend: auto (CUDA when built and present), cpu or cuda (default auto)", E,
        [](const std::string& v, DaemonConfig& c) { c.engine.backend = cuzk::engine::parse_backend(v); });
  o.add("--devices", "CUDA devices to use, e.g. 0,1 (default: all visible)", E,
        [](const std::string& v, DaemonConfig& c) { c.engine.devices = parse_devices(v); });
  o.add("--gpu-workers-per-device", "GPU workers per device (default 1)", E,
        [](const std::string& v, DaemonConfig& c) { c.engine.gpu_workers_per_device = parse_count(v); });
  o.add("--gpu-h-copies",
        "Precomputed copies of H's bases on each device: 0 = as many as device memory allows, 1 = none, k = at most k "
        "(default 0)",
        E, [](const std::string& v, DaemonConfig& c) { c.engine.gpu_h_copies = parse_count(v); });
  o.add("--finalizer-threads", "Finalizer threads (B-in-G2 tail, proof assembly, verification; default 1)", E,
        [](const std::string& v, DaemonConfig& c) { c.engine.finalizer_threads = parse_count(v); });
  o.add("--gpu-queue-capacity", "Synthesized partitions that may wait for a GPU worker (default 64)", E,
        [](const std::string& v, DaemonConfig& c) { c.engine.gpu_queue_capacity = parse_count(v); });
  o.add("--max-queued-partitions", "Partitions queued across all jobs before the engine says busy (default 4096)", E,
        [](const std::string& v, DaemonConfig& c) { c.engine.max_queued_partitions = parse_count(v); });
  o.add("--max-partitions-per-job", "Partitions one job may have (default 64)", E,
        [](const std::string& v, DaemonConfig& c) { c.engine.max_partitions_per_job = parse_count(v); });
  o.add("--policy", "Admission policy (default budget; the others are kept for comparison)", E,
        [](const std::string& v, DaemonConfig& c) { c.engine.policy = cuzk::engine::parse_policy(v); });
  o.add("--param-cache-dir", "Directory of parameter files (default params-cache)", E,
        [](const std::string& v, DaemonConfig& c) { c.engine.param_cache_dir = v; });
  o.toggle("synthetic-setup", "Generate missing parameters for synthetic circuits (default on)", E,
           [](bool v, DaemonConfig& c) { c.engine.allow_synthetic_setup = v; });
  o.toggle("verify", "Verify every proof before returning it (default on)", E,
           [](bool v, DaemonConfig& c) { c.engine.verify_before_return = v; });
  o.add("--timeline", "Write a Chrome-trace timeline (Perfetto) of the pipeline to this file", E,
        [](const std::string& v, DaemonConfig& c) { c.engine.timeline_path = v; });
  o.toggle("log-events", "Log one line per buffer-tracker event (default on)", E,
           [](bool v, DaemonConfig& c) { c.engine.log_events = v; });
  o.add("--cpu-threads", "Threads of the CPU prover and synthesis; 0 = all cores (default 0)", E,
        [](const std::string& v, DaemonConfig& c) { c.engine.cpu_threads = parse_count(v); });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitConfig;
  }

  DaemonConfig config;
  try {
    if (!config_path.empty()) cuzk::server::load_config_file(config_path, config);
    o.apply(config);
    if (config.listen.empty()) config.listen = cuzk::server::default_address();
    cuzk::server::parse_address(config.listen);
    cuzk::server::validate_config(config);
  } catch (const std::exception& e) {
    std::cerr << "cuzk-daemon: " << e.what() << "\n";
    return kExitConfig;
  }
  if (print_config) {
    std::cout << cuzk::server::config_to_toml(config);
    return kExitOk;
  }
  try {
    cuzk::server::setup_logging(config.log_level, config.log_file);
  } catch (const std::exception& e) {
    std::cerr << "cuzk-daemon: " << e.what() << "\n";
    return kExitConfig;
  }

  int rc = kExitOk;
  try {
    cuzk::server::Daemon daemon(config);
    cuzk::server::ShutdownSignals signals([&daemon](int sig, int count) {
      spdlog::info("received {}{}", sig == SIGTERM ? "SIGTERM" : "SIGINT", count > 1 ? " again: cancelling" : "");
      daemon.request_stop(count > 1);
    });
    daemon.run();
  } catch (const cuzk::server::StartupError& e) {
    spdlog::error("cannot start: {}", e.what());
    rc = kExitStartup;
  } catch (const std::exception& e) {
    spdlog::critical("stopped by an unexpected error: {}", e.what());
    rc = kExitFailure;
  }
  spdlog::shutdown();  // flushes every sink
  return rc;
}
