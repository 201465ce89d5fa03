#include "server/settings.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <toml++/toml.h>

#include "server/address.hpp"
#include "server/config_file.hpp"
#include "server/size.hpp"
#include "server/utf8.hpp"

namespace cuzk::server {

std::string Setting::name() const {
  return in_file() ? std::string(section) + "." + std::string(key) : std::string(flag);
}

std::string Setting::label() const {
  if (!in_file()) return std::string(flag);
  return flag.empty() ? name() : name() + " (" + std::string(flag) + ")";
}

namespace {

// ---- Binding a setting to its field of DaemonConfig --------------------------------------

template <class T>
struct Access {
  std::function<const T&(const DaemonConfig&)> get;
  std::function<T&(DaemonConfig&)> ref;
};

template <class T>
Access<T> field(T DaemonConfig::*m) {
  return {[m](const DaemonConfig& c) -> const T& { return c.*m; }, [m](DaemonConfig& c) -> T& { return c.*m; }};
}
template <class T>
Access<T> field(T engine::EngineConfig::*m) {
  return {[m](const DaemonConfig& c) -> const T& { return c.engine.*m; },
          [m](DaemonConfig& c) -> T& { return c.engine.*m; }};
}
template <class T>
Access<T> field(T SrsConfig::*m) {
  return {[m](const DaemonConfig& c) -> const T& { return c.srs.*m; }, [m](DaemonConfig& c) -> T& { return c.srs.*m; }};
}

Setting base(std::string_view section, std::string_view key, std::string_view flag, SettingKind kind,
             std::string_view help) {
  Setting s;
  s.section = section;
  s.key = key;
  s.flag = flag;
  s.kind = kind;
  s.help = help;
  return s;
}

// Sizes and counts: any unsigned integer field.
template <class T>
Setting number(std::string_view section, std::string_view key, std::string_view flag, SettingKind kind, Access<T> a,
               uint64_t min, uint64_t max, std::string_view help) {
  Setting s = base(section, key, flag, kind, help);
  s.min = min;
  s.max = max;
  s.get = [a](const DaemonConfig& c) { return SettingValue(uint64_t(a.get(c))); };
  s.set = [a](DaemonConfig& c, const SettingValue& v) { a.ref(c) = T(std::get<uint64_t>(v)); };
  return s;
}

template <class T>
Setting count(std::string_view section, std::string_view key, std::string_view flag, Access<T> a, uint64_t min,
              uint64_t max, std::string_view help) {
  return number(section, key, flag, SettingKind::kCount, a, min, max, help);
}

Setting size(std::string_view section, std::string_view key, std::string_view flag, Access<uint64_t> a,
             std::string_view help, uint64_t min = 0, uint64_t max = kMaxSize) {
  return number(section, key, flag, SettingKind::kSize, a, min, std::min(max, kMaxSize), help);
}

// The longest wait a seconds setting takes (~31 years): beyond it chrono conversions overflow.
constexpr uint64_t kMaxSeconds = 1'000'000'000;

Setting seconds(std::string_view section, std::string_view key, std::string_view flag, Access<double> a,
                std::string_view help) {
  Setting s = base(section, key, flag, SettingKind::kSeconds, help);
  s.max = kMaxSeconds;
  s.get = [a](const DaemonConfig& c) { return SettingValue(a.get(c)); };
  s.set = [a](DaemonConfig& c, const SettingValue& v) { a.ref(c) = std::get<double>(v); };
  return s;
}

Setting toggle(std::string_view section, std::string_view key, std::string_view flag, Access<bool> a,
               std::string_view help) {
  Setting s = base(section, key, flag, SettingKind::kSwitch, help);
  s.get = [a](const DaemonConfig& c) { return SettingValue(a.get(c)); };
  s.set = [a](DaemonConfig& c, const SettingValue& v) { a.ref(c) = std::get<bool>(v); };
  return s;
}

Setting text(std::string_view section, std::string_view key, std::string_view flag, Access<std::string> a,
             std::string_view help, std::function<void(const std::string&)> validate = {}) {
  Setting s = base(section, key, flag, SettingKind::kString, help);
  s.validate = std::move(validate);
  s.get = [a](const DaemonConfig& c) { return SettingValue(a.get(c)); };
  s.set = [a](DaemonConfig& c, const SettingValue& v) { a.ref(c) = std::get<std::string>(v); };
  return s;
}

// A string field that takes one of a few words.
Setting word(std::string_view section, std::string_view key, std::string_view flag, Access<std::string> a,
             std::vector<std::string_view> choices, std::string_view help) {
  Setting s = text(section, key, flag, a, help);
  s.kind = SettingKind::kChoice;
  s.choices = std::move(choices);
  return s;
}

// An enum field, through its name and parse functions.
template <class E>
Setting choice(std::string_view section, std::string_view key, std::string_view flag, Access<E> a,
               std::string_view (*name)(E), E (*parse)(std::string_view), std::vector<E> values,
               std::string_view help) {
  Setting s = base(section, key, flag, SettingKind::kChoice, help);
  for (E e : values) s.choices.push_back(name(e));
  s.get = [a, name](const DaemonConfig& c) { return SettingValue(std::string(name(a.get(c)))); };
  s.set = [a, parse](DaemonConfig& c, const SettingValue& v) { a.ref(c) = parse(std::get<std::string>(v)); };
  return s;
}

// ---- Checks shared by several settings ------------------------------------------------------

void check_listen(const std::string& v) {
  if (!v.empty()) parse_address(v);
}

void check_status_listen(const std::string& v) {
  if (v.empty()) return;
  if (parse_address(v).is_unix) throw std::invalid_argument("takes host:port, not a unix socket");
}

// ---- The table --------------------------------------------------------------------------

std::vector<Setting> make_settings() {
  using engine::BackendKind;
  using engine::EngineConfig;
  using engine::Policy;
  std::vector<Setting> t;

  // [daemon]
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
                   "HTTP host:port serving GET /status (JSON), /metrics (Prometheus) and /healthz; empty: off",
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

  // [engine]
  t.push_back(size("engine", "budget", "--budget", field(&EngineConfig::budget_bytes),
                   "Host-memory budget for partition buffers and resident parameters; 0 or \"auto\": MemTotal minus "
                   "safety_margin"));
  t.back().auto_is_zero = true;
  t.push_back(size("engine", "safety_margin", "--safety-margin", field(&EngineConfig::safety_margin_bytes),
                   "Memory kept free when the budget is automatic"));
  t.push_back(count("engine", "synthesis_workers", "--synthesis-workers", field(&EngineConfig::synthesis_workers), 0,
                    4096,
                    "Partitions synthesized at once at most (the budget may allow fewer); 0: a quarter of the "
                    "cores, 2 to 16"));
  t.push_back(choice("engine", "backend", "--backend", field(&EngineConfig::backend), &engine::backend_name,
                     &engine::parse_backend, {BackendKind::kAuto, BackendKind::kCpu, BackendKind::kCuda},
                     "Prover backend: auto (CUDA when built and a device is present), cpu or cuda"));
  Setting devices = base("engine", "devices", "--devices", SettingKind::kDevices,
                         "CUDA devices to use, e.g. [0, 1] (flag: 0,1); empty: all visible");
  devices.max = 1023;
  devices.get = [](const DaemonConfig& c) { return SettingValue(c.engine.devices); };
  devices.set = [](DaemonConfig& c, const SettingValue& v) { c.engine.devices = std::get<std::vector<int>>(v); };
  t.push_back(devices);
  t.push_back(count("engine", "gpu_workers_per_device", "--gpu-workers-per-device",
                    field(&EngineConfig::gpu_workers_per_device), 1, 64, "GPU workers per device"));
  t.push_back(count("engine", "gpu_h_copies", "--gpu-h-copies", field(&EngineConfig::gpu_h_copies), 0, 64,
                    "Precomputed copies of H's bases on each device: 0 as many as device memory allows, 1 none, k "
                    "at most k"));
  t.push_back(size("engine", "device_memory_limit", "--device-memory-limit", field(&EngineConfig::device_memory_limit),
                   "Device memory each GPU's plan uses (proof buffers, then bases, which are streamed from host "
                   "memory when they do not fit, then copies); 0: the whole card"));
  t.push_back(count("engine", "finalizer_threads", "--finalizer-threads", field(&EngineConfig::finalizer_threads), 1,
                    1024, "Finalizer threads (B-in-G2 tail, proof assembly, verification)"));
  t.push_back(count("engine", "gpu_queue_capacity", "--gpu-queue-capacity", field(&EngineConfig::gpu_queue_capacity), 1,
                    UINT32_MAX, "Synthesized partitions that may wait for a GPU worker"));
  t.push_back(count("engine", "max_queued_partitions", "--max-queued-partitions",
                    field(&EngineConfig::max_queued_partitions), 1, UINT32_MAX,
                    "Partitions queued across all jobs before the engine says busy; at least max_partitions_per_job"));
  t.push_back(count("engine", "max_partitions_per_job", "--max-partitions-per-job",
                    field(&EngineConfig::max_partitions_per_job), 1, UINT32_MAX, "Partitions one job may have"));
  t.push_back(choice("engine", "policy", "--policy", field(&EngineConfig::policy), &engine::policy_name,
                     &engine::parse_policy,
                     {Policy::kBudget, Policy::kSemaphoreReleaseAfterSynth, Policy::kSemaphoreHoldUntilDelivered,
                      Policy::kChannelCapacityWorkers},
                     "Admission policy; only budget bounds host memory: the others reproduce earlier designs' "
                     "out-of-memory behaviour for comparison and are refused unless allow_comparison_policies is "
                     "on"));
  t.push_back(count("engine", "urgent_priority", "--urgent-priority", field(&EngineConfig::urgent_priority), 1,
                    1'000'000,
                    "Jobs of this priority or higher are urgent (priority level x 1000 + offset: CRITICAL, "
                    "WinningPoSt's default, is 4000): a synthesis worker of their own, admitted at once, the head "
                    "of the GPU queue"));
  t.push_back(choice("engine", "urgent_admission", "--urgent-admission", field(&EngineConfig::urgent_admission),
                     &engine::urgent_admission_name, &engine::parse_urgent_admission,
                     {engine::UrgentAdmission::kBeside, engine::UrgentAdmission::kReserve},
                     "How urgent jobs take host memory: beside (charged beyond the budget when it is full; other "
                     "work loses nothing) or reserve (other work leaves urgent_reserve of the budget free)"));
  t.push_back(size("engine", "urgent_reserve", "--urgent-reserve", field(&EngineConfig::urgent_reserve_bytes),
                   "With urgent_admission = reserve: the budget other work leaves free for urgent jobs (a 32 GiB "
                   "WinningPoSt partition holds about 0.12 GiB, its parameters 0.18 GiB)"));
  t.push_back(toggle("engine", "allow_comparison_policies", "--allow-comparison-policies",
                     field(&DaemonConfig::allow_comparison_policies),
                     "Accept a comparison policy (any but budget) in this daemon; for measurements only: it does not "
                     "bound host memory (cuzk-bench pipeline --policy compares them)"));
  t.push_back(text("engine", "param_cache_dir", "--param-cache-dir", field(&EngineConfig::param_cache_dir),
                   "Directory of parameters of our own setup: synthetic circuits', and Filecoin circuits' TEST "
                   "parameters (srs.allow_test_parameters). auto: /var/cache/cuzk/params for root, else "
                   "$XDG_CACHE_HOME/cuzk/params (~/.cache/cuzk/params)"));
  t.push_back(toggle("engine", "allow_synthetic_setup", "--synthetic-setup",
                     field(&EngineConfig::allow_synthetic_setup),
                     "Set up missing parameters of synthetic circuits (demo and benchmark jobs)"));
  t.push_back(toggle("engine", "verify_before_return", "--verify", field(&EngineConfig::verify_before_return),
                     "Verify every proof before returning it"));
  t.push_back(text("engine", "timeline_path", "--timeline", field(&EngineConfig::timeline_path),
                   "Write a Chrome-trace timeline (Perfetto) of the pipeline to this file; empty: none"));
  t.push_back(toggle("engine", "log_events", "--log-events", field(&EngineConfig::log_events),
                     "Log one line per buffer-tracker event (info level)"));
  t.push_back(count("engine", "cpu_threads", "--cpu-threads", field(&EngineConfig::cpu_threads), 0, 4096,
                    "Threads of the CPU prover and of each synthesis' inner parallelism; 0: all cores"));

  // [srs]
  t.push_back(text("srs", "param_cache", "--srs-param-cache", field(&SrsConfig::param_cache),
                   "Directory of Filecoin's published parameter files (v28-*.params and .vk, as `curio "
                   "fetch-params` downloads them), searched first; then $FIL_PROOFS_PARAMETER_CACHE, then "
                   "/var/tmp/filecoin-proof-parameters"));
  t.push_back(toggle("srs", "verify_digest", "--srs-verify-digest", field(&SrsConfig::verify_digest),
                     "Check each published parameter file against its digest in parameters.json when first loaded "
                     "(about a second per GB)"));
  t.push_back(toggle("srs", "allow_test_parameters", "--allow-test-parameters",
                     field(&SrsConfig::allow_test_parameters),
                     "When a Filecoin circuit's published file is absent, prove with TEST parameters of our own setup "
                     "(cached in param_cache_dir; their proofs never verify on chain; logged loudly)"));
  return t;
}

// ---- Text forms ---------------------------------------------------------------------------

uint64_t parse_count_text(std::string_view text) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    throw std::invalid_argument("'" + std::string(text) + "' is not a non-negative integer");
  }
  return v;
}

double parse_seconds_text(std::string_view text) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    throw std::invalid_argument("'" + std::string(text) + "' is not a non-negative number of seconds");
  }
  return v;
}

std::vector<int> parse_devices_text(std::string_view text) {
  std::vector<int> out;
  if (text.empty()) return out;  // all visible
  size_t pos = 0;
  while (true) {
    size_t comma = text.find(',', pos);
    std::string_view one = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    uint64_t d = 0;
    try {
      d = parse_count_text(one);
    } catch (const std::invalid_argument&) {
      throw std::invalid_argument("'" + std::string(text) + "' is not a list of device numbers, e.g. 0,1");
    }
    out.push_back(int(std::min<uint64_t>(d, INT32_MAX)));
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
}

std::string exact_size_text(uint64_t v) {
  static const char* units[] = {"TiB", "GiB", "MiB", "KiB"};
  for (int i = 0; i < 4; i++) {
    int shift = 40 - 10 * i;
    if (v != 0 && v % (uint64_t(1) << shift) == 0) return std::to_string(v >> shift) + units[i];
  }
  return std::to_string(v);
}

std::string join(const std::vector<std::string_view>& words, std::string_view sep) {
  std::string s;
  for (std::string_view w : words) s += (s.empty() ? "" : std::string(sep)) + std::string(w);
  return s;
}

}  // namespace

const std::vector<Setting>& settings() {
  static const std::vector<Setting> table = make_settings();
  return table;
}

const Setting* find_setting(std::string_view section, std::string_view key) {
  for (const Setting& s : settings()) {
    if (s.in_file() && s.section == section && s.key == key) return &s;
  }
  return nullptr;
}

const std::vector<std::string_view>& setting_sections() {
  static const std::vector<std::string_view> sections = {"daemon", "engine", "srs"};
  return sections;
}

SettingValue parse_setting_text(const Setting& s, std::string_view text) {
  SettingValue v;
  switch (s.kind) {
    case SettingKind::kSize:
      v = s.auto_is_zero && text == "auto" ? uint64_t(0) : parse_size(text);
      break;
    case SettingKind::kCount:
      v = parse_count_text(text);
      break;
    case SettingKind::kSeconds:
      v = parse_seconds_text(text);
      break;
    case SettingKind::kSwitch:
      if (text == "true") {
        v = true;
      } else if (text == "false") {
        v = false;
      } else {
        throw std::invalid_argument("expected true or false, not '" + std::string(text) + "'");
      }
      break;
    case SettingKind::kString:
    case SettingKind::kChoice:
      v = std::string(text);
      break;
    case SettingKind::kDevices:
      v = parse_devices_text(text);
      break;
    case SettingKind::kSocketMode:
      v = uint64_t(parse_socket_mode(text));
      break;
  }
  check_setting_value(s, v);
  return v;
}

void check_setting_value(const Setting& s, const SettingValue& v) {
  switch (s.kind) {
    case SettingKind::kSize: {
      uint64_t x = std::get<uint64_t>(v);
      if (x < s.min || x > s.max) {
        throw std::invalid_argument("must be from " + std::to_string(s.min) + " to " + std::to_string(s.max) +
                                    " bytes; got " + std::to_string(x));
      }
      break;
    }
    case SettingKind::kCount: {
      uint64_t x = std::get<uint64_t>(v);
      if (x < s.min || x > s.max) {
        throw std::invalid_argument("expected an integer in " + std::to_string(s.min) + ".." + std::to_string(s.max) +
                                    (x < s.min && s.min == 1 ? " (must be at least 1)" : "") + "; got " +
                                    std::to_string(x));
      }
      break;
    }
    case SettingKind::kSeconds: {
      double x = std::get<double>(v);
      if (!(x >= 0) || !(x <= double(s.max))) {
        std::ostringstream got;
        got << x;
        throw std::invalid_argument("expected a non-negative number of seconds, at most " + std::to_string(s.max) +
                                    "; got " + got.str());
      }
      break;
    }
    case SettingKind::kSwitch:
      break;
    case SettingKind::kString:
      if (s.validate) s.validate(std::get<std::string>(v));
      break;
    case SettingKind::kChoice: {
      const std::string& x = std::get<std::string>(v);
      bool known = false;
      for (std::string_view c : s.choices) known = known || c == x;
      if (!known) {
        throw std::invalid_argument("unknown " + std::string(s.key) + " '" + x + "' (valid: " + join(s.choices, ", ") +
                                    ")");
      }
      break;
    }
    case SettingKind::kDevices:
      for (int d : std::get<std::vector<int>>(v)) {
        if (d < 0 || uint64_t(d) > s.max) {
          throw std::invalid_argument("device numbers are 0.." + std::to_string(s.max) + "; got " + std::to_string(d));
        }
      }
      break;
    case SettingKind::kSocketMode: {
      uint64_t m = std::get<uint64_t>(v);
      if (m > 0777) throw std::invalid_argument("an octal mode is at most 0777");
      if ((m & 0600) != 0600) {
        throw std::invalid_argument(format_socket_mode(unsigned(m)) +
                                    " does not give the daemon's user read and write access (e.g. 0600 or 0660)");
      }
      break;
    }
  }
}

void apply_setting(const Setting& s, const SettingValue& v, DaemonConfig& cfg) {
  check_setting_value(s, v);
  s.set(cfg, v);
}

std::string setting_text(const Setting& s, const SettingValue& v) {
  switch (s.kind) {
    case SettingKind::kSize: {
      uint64_t x = std::get<uint64_t>(v);
      return x == 0 && s.auto_is_zero ? "auto" : exact_size_text(x);
    }
    case SettingKind::kCount:
      return std::to_string(std::get<uint64_t>(v));
    case SettingKind::kSeconds: {
      std::ostringstream o;
      o << std::get<double>(v);
      return o.str();
    }
    case SettingKind::kSwitch:
      return std::get<bool>(v) ? "true" : "false";
    case SettingKind::kString:
    case SettingKind::kChoice:
      return std::get<std::string>(v);
    case SettingKind::kDevices: {
      std::string out;
      for (int d : std::get<std::vector<int>>(v)) {
        if (!out.empty()) out += ',';
        out += std::to_string(d);
      }
      return out;
    }
    case SettingKind::kSocketMode:
      return format_socket_mode(unsigned(std::get<uint64_t>(v)));
  }
  return "";
}

namespace {

// A TOML basic string that reads back as exactly these bytes (toml++'s writer picks a literal
// '''...''' string for text with a newline, and TOML drops a newline right after its opening
// quotes); bytes that are not UTF-8 cannot be in a TOML document at all.
std::string toml_basic_string(std::string_view text) {
  if (const size_t bad = utf8_error_at(text); bad != std::string_view::npos) {
    throw std::invalid_argument("byte " + std::to_string(bad) +
                                " of the value is not UTF-8, which a TOML file cannot hold");
  }
  std::string out = "\"";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04X", unsigned(c));
          out += escaped;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

}  // namespace

std::string setting_toml(const Setting& s, const SettingValue& v) {
  std::ostringstream o;
  switch (s.kind) {
    case SettingKind::kSize:
    case SettingKind::kCount:
      // Integers (bytes for sizes) read back exactly; TOML integers are signed 64-bit.
      if (std::get<uint64_t>(v) > uint64_t(INT64_MAX)) {
        o << toml_basic_string(std::to_string(std::get<uint64_t>(v)));
      } else {
        o << toml::value<int64_t>(int64_t(std::get<uint64_t>(v)));
      }
      break;
    case SettingKind::kSeconds:
      o << toml::value<double>(std::get<double>(v));
      break;
    case SettingKind::kSwitch:
      o << (std::get<bool>(v) ? "true" : "false");
      break;
    case SettingKind::kString:
    case SettingKind::kChoice:
      o << toml_basic_string(std::get<std::string>(v));
      break;
    case SettingKind::kDevices: {
      toml::array a;
      for (int d : std::get<std::vector<int>>(v)) a.push_back(int64_t(d));
      o << a;
      break;
    }
    case SettingKind::kSocketMode:
      o << toml_basic_string(format_socket_mode(unsigned(std::get<uint64_t>(v))));
      break;
  }
  return o.str();
}

std::string setting_type_text(const Setting& s) {
  auto range = [&](const std::string& unit) {
    if (s.min == 0 && s.max == UINT64_MAX) return unit;
    return unit + " " + std::to_string(s.min) + ".." + std::to_string(s.max);
  };
  switch (s.kind) {
    case SettingKind::kSize:
      if (s.min == 0 && s.max == kMaxSize) return s.auto_is_zero ? "size or \"auto\"" : "size";
      return "size, " + exact_size_text(s.min) + " to " + std::to_string(s.max) + " bytes";
    case SettingKind::kCount:
      return range("integer");
    case SettingKind::kSeconds:
      return "seconds";
    case SettingKind::kSwitch:
      return "true/false";
    case SettingKind::kString:
      return "string";
    case SettingKind::kChoice:
      return join(s.choices, " | ");
    case SettingKind::kDevices:
      return "device list";
    case SettingKind::kSocketMode:
      return "octal mode";
  }
  return "";
}

// ---- Curio's cuzk.toml --------------------------------------------------------------------

namespace {

bool is_uint(const SettingValue& v, uint64_t x) {
  return std::holds_alternative<uint64_t>(v) && std::get<uint64_t>(v) == x;
}

std::vector<ForeignKey> make_foreign_keys() {
  auto same = [](std::string_view section, std::string_view key, std::string_view target, std::string_view note = {}) {
    ForeignKey f;
    f.section = section, f.key = key, f.target = target, f.note = note;
    return f;
  };
  auto ignored = [](std::string_view section, std::string_view key, std::string_view note,
                    std::function<bool(const SettingValue&)> harmless = {}) {
    ForeignKey f;
    f.section = section, f.key = key, f.note = note, f.harmless = std::move(harmless);
    return f;
  };
  return {
      // [daemon] listen and status_listen, and [srs] param_cache, are ours too, under the same names.
      ignored("srs", "preload",
              "is ignored (deprecated in Curio too): parameters load when the first proof needs them; load one ahead "
              "with `cuzk preload ID` (PreloadSRS)"),
      same("memory", "total_budget", "engine.budget"),
      same("memory", "safety_margin", "engine.safety_margin"),
      ignored("memory", "eviction_min_idle",
              "is ignored: idle parameter sets are evicted when the budget needs their room (or by `cuzk evict`), "
              "whatever their idle time",
              [](const SettingValue& v) { return v == SettingValue(std::string("5m")); }),
      ignored("memory", "pinned_budget",
              "is ignored (deprecated in Curio too): engine.budget (memory.total_budget) is the one budget"),
      ignored("memory", "working_memory_budget",
              "is ignored (deprecated in Curio too): engine.budget (memory.total_budget) is the one budget"),
      same("gpus", "devices", "engine.devices"),
      ignored("gpus", "gpu_threads",
              "is ignored: cuzk has no separate CPU pool for GPU-side work; engine.cpu_threads sets the CPU threads "
              "and engine.finalizer_threads the threads finishing proofs",
              [](const SettingValue& v) { return is_uint(v, 0); }),
      same("gpus", "gpu_workers_per_device", "engine.gpu_workers_per_device"),
      ignored("scheduler", "max_batch_size",
              "is ignored: cuzk does not batch proofs into one GPU call; it pipelines the partitions of all queued "
              "jobs",
              [](const SettingValue& v) { return is_uint(v, 1); }),
      ignored("scheduler", "max_batch_wait_ms", "is ignored: cuzk does not batch proofs, so it never waits for a batch",
              [](const SettingValue&) { return true; }),
      ignored("scheduler", "sort_by_type",
              "is ignored: jobs run by priority, then arrival; parameter sets stay resident while the budget has room",
              [](const SettingValue& v) { return v == SettingValue(true); }),
      same("synthesis", "threads", "engine.cpu_threads",
           "engine.cpu_threads also sets the CPU prover's threads, not synthesis' only"),
      ignored("synthesis", "partition_workers",
              "is ignored (deprecated in Curio too): the memory budget bounds the partitions synthesized at once; "
              "engine.synthesis_workers caps them"),
      ignored("pipeline", "enabled", "is ignored: synthesis and proving always overlap in cuzk",
              [](const SettingValue& v) { return v == SettingValue(true); }),
      ignored("pipeline", "synthesis_lookahead",
              "is ignored: the memory budget and engine.gpu_queue_capacity bound the partitions waiting for a GPU",
              [](const SettingValue& v) { return is_uint(v, 1); }),
      ignored("pipeline", "synthesis_concurrency",
              "is ignored: the memory budget and engine.synthesis_workers bound the syntheses running at once",
              [](const SettingValue& v) { return is_uint(v, 1); }),
      same("pipeline", "max_parallel_synthesis", "engine.synthesis_workers",
           "0 means automatic here (a quarter of the cores, 2 to 16), not Curio's 18"),
      ignored("pipeline", "slot_size", "is ignored: the memory budget bounds the partitions in flight",
              [](const SettingValue& v) { return is_uint(v, 0); }),
      ignored("pipeline", "max_gpu_queue_depth",
              "is ignored: engine.gpu_queue_capacity bounds the synthesized partitions waiting for a GPU (the budget "
              "is the real bound)",
              [](const SettingValue& v) { return is_uint(v, 0); }),
      same("logging", "level", "daemon.log_level"),
      same("logging", "format", "daemon.log_format"),
  };
}

}  // namespace

const std::vector<ForeignKey>& foreign_keys() {
  static const std::vector<ForeignKey> keys = make_foreign_keys();
  return keys;
}

const ForeignKey* find_foreign_key(std::string_view section, std::string_view key) {
  for (const ForeignKey& f : foreign_keys()) {
    if (f.section == section && f.key == key) return &f;
  }
  return nullptr;
}

std::string settings_markdown() {
  const DaemonConfig defaults;
  auto cell = [](std::string s) {
    std::string out;
    for (char c : s) {
      if (c == '|') {
        out += "\\|";
      } else {
        out += c;
      }
    }
    return out;
  };
  std::ostringstream o;
  o << "| setting | flag | values | default | meaning |\n|---|---|---|---|---|\n";
  for (const Setting& s : settings()) {
    std::string flag(s.flag);
    if (s.kind == SettingKind::kSwitch) flag.append(", --no-").append(s.flag.substr(2));
    std::string def = setting_text(s, s.get(defaults));
    o << "| ";
    if (s.in_file()) {
      o << "`" << s.name() << "`";
    } else {
      o << "(flag only)";
    }
    o << " | `" << flag << "` | " << cell(setting_type_text(s)) << " | ";
    if (def.empty()) {
      o << "\"\"";
    } else {
      o << "`" << cell(def) << "`";
    }
    o << " | " << cell(std::string(s.help)) << " |\n";
  }
  o << "\nCurio's `cuzk.toml` keys (its `daemon.listen`, `daemon.status_listen` and `srs.param_cache` are "
       "ours too):\n\n"
    << "| Curio key | here |\n|---|---|\n";
  for (const ForeignKey& f : foreign_keys()) {
    o << "| `" << f.section << "." << f.key << "` | ";
    if (!f.target.empty()) {
      o << "`" << f.target << "`" << (f.note.empty() ? "" : "; " + cell(std::string(f.note)));
    } else {
      std::string note(f.note);
      o << cell(note.starts_with("is ") ? note.substr(3) : note);
    }
    o << " |\n";
  }
  return o.str();
}

}  // namespace cuzk::server
