#include "server/platform_dirs.hpp"

#include <cstdlib>
#include <unistd.h>

#include "server/journal.hpp"

namespace cuzk::server {
namespace {

// $XDG_<kind>_HOME/cuzk, else $HOME/<fallback>/cuzk; a user without a home gets /tmp/cuzk-UID/.
std::string user_dir(const char* xdg_variable, const char* home_fallback, const char* last_resort) {
  if (const char* xdg = std::getenv(xdg_variable); xdg && *xdg == '/') return std::string(xdg) + "/cuzk";
  if (const char* home = std::getenv("HOME"); home && *home == '/') {
    return std::string(home) + "/" + home_fallback + "/cuzk";
  }
  return "/tmp/cuzk-" + std::to_string(geteuid()) + "/" + last_resort;
}

}  // namespace

std::string default_cache_dir() {
  return geteuid() == 0 ? "/var/cache/cuzk" : user_dir("XDG_CACHE_HOME", ".cache", "cache");
}

std::string default_state_dir() {
  return geteuid() == 0 ? "/var/lib/cuzk" : user_dir("XDG_STATE_HOME", ".local/state", "state");
}

void resolve_default_dirs(DaemonConfig& config) {
  const bool cache_given = config.engine.param_cache_dir != "auto";
  if (config.spool_dir == "auto" && !cache_given) {
    config.spool_dir = default_state_dir() + "/spool";
  } else {
    const std::string spool = resolve_spool_dir(config.spool_dir, config.engine.param_cache_dir);
    config.spool_dir = spool.empty() ? "none" : spool;
  }
  if (!cache_given) config.engine.param_cache_dir = default_cache_dir() + "/params";
}

}  // namespace cuzk::server
