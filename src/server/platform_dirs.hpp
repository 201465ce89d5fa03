// Where the daemon keeps its files when the configuration does not say (engine.param_cache_dir and
// daemon.spool_dir "auto"), by the platform's conventions and never relative to the working
// directory (Curio's unit sets none): for root /var/cache/cuzk and /var/lib/cuzk; for a user the XDG
// base directories ($XDG_CACHE_HOME, else ~/.cache; $XDG_STATE_HOME, else ~/.local/state) with cuzk/.
#pragma once

#include <string>

#include "server/daemon_config.hpp"

namespace cuzk::server {

// The cache directory (parameters of our own setups are made again if lost) and the state
// directory (the spool of accepted jobs is not).
std::string default_cache_dir();
std::string default_state_dir();

// Replaces "auto" in engine.param_cache_dir (default_cache_dir()/params) and daemon.spool_dir
// (default_state_dir()/spool, or spool/ beside a param_cache_dir that is set) with absolute paths,
// and "" with "none" for the spool; what --print-config shows and the daemon uses.
void resolve_default_dirs(DaemonConfig& config);

}  // namespace cuzk::server
