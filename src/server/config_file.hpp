// The daemon's TOML configuration file (see README.md, "Daemon configuration"):
//   [daemon] listen, status_listen, max_request_bytes, max_queued_jobs, shutdown, ...
//   [engine] budget, safety_margin, synthesis_workers, backend, devices, policy, ...
// Unknown keys are errors, so that a misspelt setting does not silently keep its default.
#pragma once

#include <stdexcept>
#include <string>

#include "server/daemon_config.hpp"

namespace cuzk::server {

// A setting the daemon cannot use; what() says where and why.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads the file and overwrites the settings it names in cfg.
void load_config_file(const std::string& path, DaemonConfig& cfg);
// Parses TOML text (source_name appears in messages); what load_config_file does after reading.
void load_config_text(const std::string& text, const std::string& source_name, DaemonConfig& cfg);
// Settings that parse but make no sense together or at all (a zero limit, max_request_bytes
// outside [kMinRequestBytes, kMaxRequestBytes], a socket mode without owner rw, a bad
// status_listen, ...): throws ConfigError saying which and why.
inline constexpr uint64_t kMinRequestBytes = 4096, kMaxRequestBytes = (uint64_t(1) << 31) - 1;
void validate_config(const DaemonConfig& cfg);
// The effective configuration as a TOML document that load_config_text reads back.
std::string config_to_toml(const DaemonConfig& cfg);

}  // namespace cuzk::server
