// The daemon's TOML configuration file (see README.md, "Daemon"): the tables [daemon], [engine]
// and [srs] with the keys of settings.hpp's table, and Curio's cuzk.toml ([memory], [gpus],
// [synthesis], [logging], [scheduler], [pipeline], ...), whose keys either set one of ours or
// are ignored with a note saying why. Unknown keys are errors, so that a misspelt setting does
// not silently keep its default.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "server/daemon_config.hpp"

namespace cuzk::server {

// A setting the daemon cannot use; what() says where and why.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Something the operator should know about a file that loaded: a Curio key that is ignored or
// means something slightly different here. The daemon logs them once logging is set up.
struct ConfigNote {
  enum class Level { kDebug, kInfo, kWarn };
  Level level;
  std::string text;  // "cuzk.toml:12: srs.preload is ignored (...): ..."
};

// Reads the file and overwrites the settings it names in cfg. Notes, when given, receive what
// the operator should be told.
void load_config_file(const std::string& path, DaemonConfig& cfg, std::vector<ConfigNote>* notes = nullptr);
// Parses TOML text (source_name appears in messages); what load_config_file does after reading.
void load_config_text(const std::string& text, const std::string& source_name, DaemonConfig& cfg,
                      std::vector<ConfigNote>* notes = nullptr);
// Settings out of their bounds (settings.hpp) or that make no sense together (a job larger than
// the queue): throws ConfigError naming the setting, its flag and why.
void validate_config(const DaemonConfig& cfg);
// The effective configuration as a TOML document that load_config_text reads back equal, each
// setting with its help as a comment; ConfigError for a value no TOML file can hold (a path that
// is not UTF-8).
std::string config_to_toml(const DaemonConfig& cfg);

}  // namespace cuzk::server
