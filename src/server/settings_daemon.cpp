// The settings table's [daemon] section (and the flag-only --ready-file): how the daemon listens,
// queues, journals, logs and shuts down.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "server/address.hpp"
#include "server/setting_builders.hpp"

namespace cuzk::server {

namespace {

// daemon.max_request_bytes' bounds: gRPC takes the limit as an int.
constexpr uint64_t kMinRequestBytes = 4096, kMaxRequestBytes = (uint64_t(1) << 31) - 1;

void check_listen(const std::string& v) {
  if (!v.empty()) parse_address(v);
}

void check_status_listen(const std::string& v) {
  if (v.empty()) return;
  if (parse_address(v).is_unix) throw std::invalid_argument("takes host:port, not a unix socket");
}

}  // namespace

void setting_builders::add_daemon_settings(std::vector<Setting>& t) {
  Setting listen = text("daemon", "listen", "--listen", field(&DaemonConfig::listen),
                        "gRPC address: unix:/path/to/socket (also unix:///path) or host:port (TCP: TLS with "
                        "daemon.tls_cert and daemon.tls_key; without TLS, a host other than loopback starts with a "
                        "warning, shown in /status and /metrics; port 0 picks a free one). Empty: "
                        "/run/cuzk/cuzk.sock for root, else $XDG_RUNTIME_DIR/cuzk/cuzk.sock, else "
                        "/tmp/cuzk-UID/cuzk.sock",
                        check_listen);
  t.push_back(listen);
  t.push_back(text("daemon", "tls_cert", "--tls-cert", field(&DaemonConfig::tls_cert),
                   "PEM certificate (chain) of a TCP listener: with tls_key it serves gRPC over TLS; empty: no TLS. "
                   "Never used on a unix socket"));
  t.push_back(text("daemon", "tls_key", "--tls-key", field(&DaemonConfig::tls_key),
                   "PEM private key of tls_cert (keep it readable by the daemon's user only)"));
  t.push_back(text("daemon", "tls_client_ca", "--tls-client-ca", field(&DaemonConfig::tls_client_ca),
                   "PEM CA certificate(s): when set, TLS clients must present a certificate signed by one of them "
                   "(mutual TLS); empty: any client that trusts the server's certificate"));
  t.push_back(toggle("daemon", "allow_insecure_tcp", "--allow-insecure-tcp", field(&DaemonConfig::allow_insecure_tcp),
                     "Records that a plain TCP listener on a host other than loopback (127.0.0.0/8, ::1, "
                     "localhost) is intended: anyone who can reach it can submit and cancel proofs, so trusted "
                     "networks only. Such a listener starts either way (Curio's client cannot speak TLS), with a "
                     "warning"));
  t.push_back(text("daemon", "status_listen", "--status-listen", field(&DaemonConfig::status_listen),
                   "HTTP host:port serving the read-only status page (GET /), GET /status (JSON), /metrics "
                   "(Prometheus) and /healthz; empty: off",
                   check_status_listen));
  Setting mode = base("daemon", "socket_mode", "--socket-mode", SettingKind::kSocketMode,
                      "Permissions of the unix socket, octal; connecting needs write access, so 0660 lets the "
                      "daemon's group in and 0600 only its user (it must include 0600)");
  mode.get = [](const DaemonConfig& c) { return SettingValue(uint64_t(c.socket_mode)); };
  mode.set = [](DaemonConfig& c, const SettingValue& v) { c.socket_mode = unsigned(std::get<uint64_t>(v)); };
  t.push_back(mode);
  t.push_back(
      size("daemon", "max_request_bytes", "--max-request-bytes", field(&DaemonConfig::max_request_bytes),
           "Largest request accepted (a 32 GiB Commit1 output is 39-51 MB, 52-68 MB in Curio's base64 envelope; "
           "Curio's client allows 256 MiB); larger ones get "
           "RESOURCE_EXHAUSTED from gRPC",
           kMinRequestBytes, kMaxRequestBytes));
  t.push_back(count("daemon", "max_queued_jobs", "--max-queued-jobs", field(&DaemonConfig::max_queued_jobs), 1,
                    UINT32_MAX, "Proofs queued or running at once; more get RESOURCE_EXHAUSTED"));
  t.push_back(choice("daemon", "shutdown", "--shutdown", field(&DaemonConfig::shutdown_mode), &shutdown_mode_name,
                     &parse_shutdown_mode, {ShutdownMode::kFinish, ShutdownMode::kCancel},
                     "On SIGTERM/SIGINT: finish the proofs in flight, or cancel them; a second signal cancels"));
  t.push_back(seconds("daemon", "shutdown_timeout_seconds", "--shutdown-timeout",
                      field(&DaemonConfig::shutdown_timeout_seconds),
                      "In finish mode, cancel what is still running after this long; 0: wait as long as it takes"));
  t.push_back(seconds("daemon", "result_ttl_seconds", "--result-ttl", field(&DaemonConfig::result_ttl_seconds),
                      "An ended proof nobody collects is dropped this long after it ended"));
  t.push_back(count("daemon", "max_retained_results", "--max-retained-results",
                    field(&DaemonConfig::max_retained_results), 1, UINT32_MAX,
                    "Ended, uncollected results kept; beyond it the oldest are dropped"));
  t.push_back(text("daemon", "spool_dir", "--spool-dir", field(&DaemonConfig::spool_dir),
                   "Directory journaling accepted jobs (request, state, result) so that they survive a crash or "
                   "restart: unfinished ones are resumed at start, ended ones kept until collected or expired. "
                   "auto: /var/lib/cuzk/spool for root, else $XDG_STATE_HOME/cuzk/spool (~/.local/state/cuzk/spool), "
                   "or spool/ beside engine.param_cache_dir when that is set; none (or empty): no journal. A "
                   "directory that cannot be written stops the daemon at start"));
  t.push_back(count("daemon", "max_rpc_threads", "--max-rpc-threads", field(&DaemonConfig::max_rpc_threads), 4, 65536,
                    "Concurrent gRPC calls served; waiting Prove/AwaitProof calls get at most this minus min(16, "
                    "half), so CancelProof and GetStatus always find a thread"));
  t.push_back(word("daemon", "log_level", "--log-level", field(&DaemonConfig::log_level),
                   {"trace", "debug", "info", "warn", "error", "critical", "off"}, "Least severe log lines written"));
  t.push_back(word("daemon", "log_format", "--log-format", field(&DaemonConfig::log_format), {"text", "json"},
                   "text, or json: one JSON object per line (timestamp, level, message)"));
  t.push_back(text("daemon", "log_file", "--log-file", field(&DaemonConfig::log_file),
                   "Also write the log to this file; empty: stderr only"));
  t.push_back(text("", "ready_file", "--ready-file", field(&DaemonConfig::ready_file),
                   "Once serving, write the bound addresses to this file ('grpc ADDRESS' and 'http PORT' lines; "
                   "useful with port 0)"));
}

}  // namespace cuzk::server
