#include "server/config_file.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <toml++/toml.h>

#include "server/address.hpp"
#include "server/size.hpp"

namespace cuzk::server {

std::string_view shutdown_mode_name(ShutdownMode m) { return m == ShutdownMode::kFinish ? "finish" : "cancel"; }

ShutdownMode parse_shutdown_mode(std::string_view name) {
  if (name == "finish") return ShutdownMode::kFinish;
  if (name == "cancel") return ShutdownMode::kCancel;
  throw std::invalid_argument("unknown shutdown mode '" + std::string(name) + "' (valid: finish, cancel)");
}

unsigned parse_socket_mode(std::string_view text) {
  unsigned mode = 0;
  bool ok = !text.empty() && text.size() <= 4;
  for (char c : text) {
    ok = ok && c >= '0' && c <= '7';
    mode = mode * 8 + unsigned(c - '0');
  }
  if (!ok || mode > 0777) {
    throw std::invalid_argument("bad socket mode '" + std::string(text) + "' (an octal mode such as \"0660\")");
  }
  return mode;
}

std::string format_socket_mode(unsigned mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", mode);
  return buf;
}

namespace {

// One key's reader: converts the node or throws std::invalid_argument saying what it expected.
using Setter = std::function<void(const toml::node&, DaemonConfig&)>;

uint64_t as_size(const toml::node& n) {
  if (auto v = n.value_exact<int64_t>()) {
    if (*v < 0) throw std::invalid_argument("a size cannot be negative");
    return uint64_t(*v);
  }
  if (auto s = n.value_exact<std::string>()) return parse_size(*s);
  throw std::invalid_argument("expected a size: bytes as an integer, or a string such as \"64GiB\"");
}

uint64_t as_uint(const toml::node& n, uint64_t max = UINT32_MAX) {
  auto v = n.value_exact<int64_t>();
  if (!v) throw std::invalid_argument("expected a non-negative integer");
  if (*v < 0 || uint64_t(*v) > max) throw std::invalid_argument("expected an integer in 0.." + std::to_string(max));
  return uint64_t(*v);
}

double as_seconds(const toml::node& n) {
  std::optional<double> v;
  if (auto i = n.value_exact<int64_t>()) v = double(*i);
  if (auto d = n.value_exact<double>()) v = *d;
  if (!v || !(*v >= 0) || std::isinf(*v)) throw std::invalid_argument("expected a non-negative number of seconds");
  return *v;
}

bool as_bool(const toml::node& n) {
  auto v = n.value_exact<bool>();
  if (!v) throw std::invalid_argument("expected true or false");
  return *v;
}

std::string as_string(const toml::node& n) {
  auto v = n.value_exact<std::string>();
  if (!v) throw std::invalid_argument("expected a string");
  return *v;
}

std::vector<int> as_int_list(const toml::node& n) {
  const toml::array* a = n.as_array();
  if (!a) throw std::invalid_argument("expected an array of device numbers, e.g. [0, 1]");
  std::vector<int> out;
  for (const toml::node& e : *a) out.push_back(int(as_uint(e, 1023)));
  return out;
}

const std::map<std::string, Setter>& daemon_keys() {
  static const std::map<std::string, Setter> keys = {
      {"listen", [](const toml::node& n, DaemonConfig& c) { c.listen = as_string(n); }},
      {"status_listen", [](const toml::node& n, DaemonConfig& c) { c.status_listen = as_string(n); }},
      {"socket_mode", [](const toml::node& n, DaemonConfig& c) { c.socket_mode = parse_socket_mode(as_string(n)); }},
      {"max_request_bytes", [](const toml::node& n, DaemonConfig& c) { c.max_request_bytes = as_size(n); }},
      {"max_queued_jobs", [](const toml::node& n, DaemonConfig& c) { c.max_queued_jobs = as_uint(n); }},
      {"shutdown", [](const toml::node& n, DaemonConfig& c) { c.shutdown_mode = parse_shutdown_mode(as_string(n)); }},
      {"shutdown_timeout_seconds",
       [](const toml::node& n, DaemonConfig& c) { c.shutdown_timeout_seconds = as_seconds(n); }},
      {"result_ttl_seconds", [](const toml::node& n, DaemonConfig& c) { c.result_ttl_seconds = as_seconds(n); }},
      {"max_rpc_threads",
       [](const toml::node& n, DaemonConfig& c) { c.max_rpc_threads = unsigned(as_uint(n, 65536)); }},
      {"max_retained_results", [](const toml::node& n, DaemonConfig& c) { c.max_retained_results = as_uint(n); }},
      {"log_level", [](const toml::node& n, DaemonConfig& c) { c.log_level = as_string(n); }},
      {"log_file", [](const toml::node& n, DaemonConfig& c) { c.log_file = as_string(n); }},
  };
  return keys;
}

const std::map<std::string, Setter>& engine_keys() {
  using engine::EngineConfig;
  static const std::map<std::string, Setter> keys = {
      {"budget", [](const toml::node& n, DaemonConfig& c) { c.engine.budget_bytes = as_size(n); }},
      {"safety_margin", [](const toml::node& n, DaemonConfig& c) { c.engine.safety_margin_bytes = as_size(n); }},
      {"synthesis_workers",
       [](const toml::node& n, DaemonConfig& c) { c.engine.synthesis_workers = unsigned(as_uint(n, 4096)); }},
      {"backend", [](const toml::node& n, DaemonConfig& c) { c.engine.backend = engine::parse_backend(as_string(n)); }},
      {"devices", [](const toml::node& n, DaemonConfig& c) { c.engine.devices = as_int_list(n); }},
      {"gpu_workers_per_device",
       [](const toml::node& n, DaemonConfig& c) { c.engine.gpu_workers_per_device = unsigned(as_uint(n, 64)); }},
      {"gpu_h_copies", [](const toml::node& n, DaemonConfig& c) { c.engine.gpu_h_copies = unsigned(as_uint(n, 64)); }},
      {"finalizer_threads",
       [](const toml::node& n, DaemonConfig& c) { c.engine.finalizer_threads = unsigned(as_uint(n, 1024)); }},
      {"gpu_queue_capacity", [](const toml::node& n, DaemonConfig& c) { c.engine.gpu_queue_capacity = as_uint(n); }},
      {"max_queued_partitions",
       [](const toml::node& n, DaemonConfig& c) { c.engine.max_queued_partitions = as_uint(n); }},
      {"max_partitions_per_job",
       [](const toml::node& n, DaemonConfig& c) { c.engine.max_partitions_per_job = as_uint(n); }},
      {"policy", [](const toml::node& n, DaemonConfig& c) { c.engine.policy = engine::parse_policy(as_string(n)); }},
      {"param_cache_dir", [](const toml::node& n, DaemonConfig& c) { c.engine.param_cache_dir = as_string(n); }},
      {"allow_synthetic_setup",
       [](const toml::node& n, DaemonConfig& c) { c.engine.allow_synthetic_setup = as_bool(n); }},
      {"verify_before_return",
       [](const toml::node& n, DaemonConfig& c) { c.engine.verify_before_return = as_bool(n); }},
      {"timeline_path", [](const toml::node& n, DaemonConfig& c) { c.engine.timeline_path = as_string(n); }},
      {"log_events", [](const toml::node& n, DaemonConfig& c) { c.engine.log_events = as_bool(n); }},
      {"cpu_threads", [](const toml::node& n, DaemonConfig& c) { c.engine.cpu_threads = unsigned(as_uint(n, 4096)); }},
  };
  return keys;
}

std::string key_list(const std::map<std::string, Setter>& keys) {
  std::string s;
  for (const auto& [k, _] : keys) s += (s.empty() ? "" : ", ") + k;
  return s;
}

std::string where(const std::string& source, const toml::node& n) {
  return source + ":" + std::to_string(n.source().begin.line);
}

void apply_table(const toml::table& t, const std::string& section, const std::map<std::string, Setter>& keys,
                 const std::string& source, DaemonConfig& cfg) {
  for (const auto& [key, node] : t) {
    std::string k(key.str());
    auto it = keys.find(k);
    if (it == keys.end()) {
      throw ConfigError(where(source, node) + ": unknown setting " + section + "." + k + " (valid in [" + section +
                        "]: " + key_list(keys) + ")");
    }
    try {
      it->second(node, cfg);
    } catch (const std::exception& e) {
      throw ConfigError(where(source, node) + ": " + section + "." + k + ": " + e.what());
    }
  }
}

}  // namespace

void load_config_text(const std::string& text, const std::string& source_name, DaemonConfig& cfg) {
  toml::table doc;
  try {
    doc = toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    throw ConfigError(source_name + ":" + std::to_string(e.source().begin.line) + ": " + std::string(e.description()));
  }
  for (const auto& [key, node] : doc) {
    std::string k(key.str());
    const toml::table* t = node.as_table();
    if ((k != "daemon" && k != "engine") || !t) {
      throw ConfigError(where(source_name, node) + ": unexpected top-level '" + k +
                        "' (settings go in the [daemon] and [engine] tables)");
    }
    apply_table(*t, k, k == "daemon" ? daemon_keys() : engine_keys(), source_name, cfg);
  }
}

void load_config_file(const std::string& path, DaemonConfig& cfg) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError("cannot read configuration file " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  load_config_text(text.str(), path, cfg);
}

void validate_config(const DaemonConfig& c) {
  auto bad = [](const std::string& why) { throw ConfigError(why); };
  if (c.max_queued_jobs == 0) bad("daemon.max_queued_jobs must be at least 1");
  if (c.max_retained_results == 0) bad("daemon.max_retained_results must be at least 1");
  if (c.engine.max_partitions_per_job == 0) bad("engine.max_partitions_per_job must be at least 1");
  if (c.engine.max_queued_partitions < c.engine.max_partitions_per_job) {
    bad("engine.max_queued_partitions (" + std::to_string(c.engine.max_queued_partitions) +
        ") is less than engine.max_partitions_per_job (" + std::to_string(c.engine.max_partitions_per_job) +
        "): the largest job could never be queued");
  }
  if (c.max_request_bytes < kMinRequestBytes || c.max_request_bytes > kMaxRequestBytes) {
    bad("daemon.max_request_bytes must be between 4 KiB and 2 GiB - 1 (gRPC's limit); got " +
        std::to_string(c.max_request_bytes));
  }
  if ((c.socket_mode & 0600) != 0600) {
    bad("daemon.socket_mode " + format_socket_mode(c.socket_mode) +
        " does not give the daemon's user read and write access (e.g. 0600 or 0660)");
  }
  if (!c.status_listen.empty()) {
    try {
      if (parse_address(c.status_listen).is_unix) throw std::invalid_argument("takes host:port, not a unix socket");
    } catch (const std::invalid_argument& e) {
      bad(std::string("daemon.status_listen (--status-listen): ") + e.what());
    }
  }
}

std::string config_to_toml(const DaemonConfig& c) {
  const engine::EngineConfig& e = c.engine;
  toml::array devices;
  for (int d : e.devices) devices.push_back(int64_t(d));
  toml::table daemon{
      {"listen", c.listen},
      {"status_listen", c.status_listen},
      {"socket_mode", format_socket_mode(c.socket_mode)},
      {"max_request_bytes", int64_t(c.max_request_bytes)},
      {"max_queued_jobs", int64_t(c.max_queued_jobs)},
      {"shutdown", std::string(shutdown_mode_name(c.shutdown_mode))},
      {"shutdown_timeout_seconds", c.shutdown_timeout_seconds},
      {"result_ttl_seconds", c.result_ttl_seconds},
      {"max_rpc_threads", int64_t(c.max_rpc_threads)},
      {"max_retained_results", int64_t(c.max_retained_results)},
      {"log_level", c.log_level},
      {"log_file", c.log_file},
  };
  toml::table eng{
      {"budget", int64_t(e.budget_bytes)},
      {"safety_margin", int64_t(e.safety_margin_bytes)},
      {"synthesis_workers", int64_t(e.synthesis_workers)},
      {"backend", std::string(engine::backend_name(e.backend))},
      {"devices", devices},
      {"gpu_workers_per_device", int64_t(e.gpu_workers_per_device)},
      {"gpu_h_copies", int64_t(e.gpu_h_copies)},
      {"finalizer_threads", int64_t(e.finalizer_threads)},
      {"gpu_queue_capacity", int64_t(e.gpu_queue_capacity)},
      {"max_queued_partitions", int64_t(e.max_queued_partitions)},
      {"max_partitions_per_job", int64_t(e.max_partitions_per_job)},
      {"policy", std::string(engine::policy_name(e.policy))},
      {"param_cache_dir", e.param_cache_dir},
      {"allow_synthetic_setup", e.allow_synthetic_setup},
      {"verify_before_return", e.verify_before_return},
      {"timeline_path", e.timeline_path},
      {"log_events", e.log_events},
      {"cpu_threads", int64_t(e.cpu_threads)},
  };
  std::ostringstream out;
  out << toml::table{{"daemon", daemon}} << "\n\n" << toml::table{{"engine", eng}} << "\n";
  return out.str();
}

}  // namespace cuzk::server
