#include "server/daemon_config.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

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

}  // namespace cuzk::server
