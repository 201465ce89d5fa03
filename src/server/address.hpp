// Where the daemon listens and the client connects: a unix socket by default, TCP only when an
// address says so. Shared by cuzk-daemon and cuzk so that both resolve the default alike.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cuzk::server {

struct ListenAddress {
  bool is_unix = true;
  std::string path;  // unix socket path
  std::string host;  // TCP host (name, IPv4, or IPv6 without brackets)
  uint16_t port = 0;

  // The target string gRPC takes ("unix:/path", "host:port", "[v6]:port").
  std::string grpc_target() const;
  std::string to_string() const { return grpc_target(); }
};

// Accepts "unix:/path", "unix:///path" (gRPC's URI form, the same socket), "unix:relative/path",
// "host:port" and "[v6addr]:port". Socket paths are made canonical (repeated slashes collapsed)
// and refused when the kernel or gRPC would read them as another path (NUL, %, ?, #, a trailing
// slash, longer than sun_path). The daemon listens on, reports and the client connects to
// grpc_target(), so parse(x).grpc_target() parses back to the same address.
// Throws std::invalid_argument saying what is wrong and what is accepted.
ListenAddress parse_address(std::string_view text);

// The default socket: /run/cuzk/cuzk.sock for root; otherwise $XDG_RUNTIME_DIR/cuzk/cuzk.sock,
// or /tmp/cuzk-<uid>/cuzk.sock when XDG_RUNTIME_DIR is unset.
std::string default_socket_path();
std::string default_address();  // "unix:" + default_socket_path()

}  // namespace cuzk::server
