#include "server/address.hpp"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <unistd.h>

namespace cuzk::server {

std::string ListenAddress::grpc_target() const {
  if (is_unix) return "unix:" + path;
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

namespace {

// The text as it can be printed: a NUL (possible in a TOML string) would cut the message.
std::string printable(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

[[noreturn]] void bad(std::string_view text, std::string_view why) {
  throw std::invalid_argument("bad address '" + printable(text) + "': " + std::string(why) +
                              " (expected unix:/path/to/socket or host:port)");
}

}  // namespace

ListenAddress parse_address(std::string_view text) {
  ListenAddress a;
  if (text.starts_with("unix:")) {
    std::string_view p = text.substr(5);
    // gRPC's URI form unix:///abs (Curio's "unix:///run/curio/cuzk.sock") is the path /abs; after
    // "unix://" gRPC takes only an absolute path, so a relative one would reach another socket.
    if (p.starts_with("//")) {
      p.remove_prefix(2);
      if (!p.starts_with("/")) bad(text, "unix:// takes an absolute path, e.g. unix:///run/cuzk/cuzk.sock");
    }
    if (p.empty()) bad(text, "empty socket path");
    // The kernel stops at a NUL: the socket would be made at the cut-off path.
    if (p.find('\0') != std::string_view::npos) bad(text, "a socket path cannot contain a NUL byte");
    // gRPC's client reads the target as a URI: it would decode %xx and cut at ? or #, and reach
    // another path than the daemon listens on.
    if (p.find_first_of("%?#") != std::string_view::npos) bad(text, "a socket path cannot contain %, ? or #");
    if (p.ends_with("/")) bad(text, "a socket path cannot end with /");
    // One canonical spelling ("unix:////a//b" is the socket /a/b), so that the address the daemon
    // reports in its ready file and logs is one that gRPC clients read as the same path.
    std::string path;
    for (char c : p) {
      if (c == '/' && !path.empty() && path.back() == '/') continue;
      path += c;
    }
    // sockaddr_un holds 108 bytes including the terminator.
    if (path.size() > 107) bad(text, "socket path longer than 107 bytes");
    a.is_unix = true;
    a.path = std::move(path);
    return a;
  }
  if (text.empty()) bad(text, "empty");
  if (text.find('\0') != std::string_view::npos) bad(text, "an address cannot contain a NUL byte");
  // gRPC's other target schemes: name them rather than fail on what follows their colon.
  if (text.starts_with("unix-abstract:")) {
    bad(text, "abstract unix sockets are not supported: give a socket file, e.g. unix:/run/cuzk/cuzk.sock");
  }
  for (std::string_view scheme : {"dns:", "ipv4:", "ipv6:", "vsock:"}) {
    if (text.starts_with(scheme)) {
      std::string why(scheme);  // built in steps: GCC 12 warns falsely (-Wrestrict) on "'" + string
      why +=
          " is a gRPC client's target scheme, not an address to listen on: give host:port, e.g. 127.0.0.1:9820, "
          "or a unix: socket";
      bad(text, why);
    }
  }
  if (text.front() == '/') bad(text, "a socket path needs the unix: prefix");
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) bad(text, "no port");
  std::string_view host = text.substr(0, colon), port = text.substr(colon + 1);
  if (host.starts_with("[")) {
    if (!host.ends_with("]")) bad(text, "unbalanced [ ] around an IPv6 address");
    host = host.substr(1, host.size() - 2);
    // Brackets only around IPv6: "[unix]:8" would print as "unix:8", a socket path (found by fuzzing).
    if (host.find(':') == std::string_view::npos) bad(text, "[ ] are only for IPv6 addresses, e.g. [::1]:9820");
  } else if (host.find(':') != std::string_view::npos) {
    bad(text, "IPv6 addresses need brackets, e.g. [::1]:9820");
  }
  if (host.empty()) bad(text, "empty host (use 0.0.0.0 or [::] to listen everywhere)");
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc() || end != port.data() + port.size() || value > 65535) bad(text, "port is not 0..65535");
  a.is_unix = false;
  a.host = std::string(host);
  a.port = uint16_t(value);
  return a;
}

std::string default_socket_path() {
  if (geteuid() == 0) return "/run/cuzk/cuzk.sock";
  if (const char* xdg = std::getenv("XDG_RUNTIME_DIR"); xdg && *xdg) return std::string(xdg) + "/cuzk/cuzk.sock";
  return "/tmp/cuzk-" + std::to_string(geteuid()) + "/cuzk.sock";
}

std::string default_address() { return "unix:" + default_socket_path(); }

}  // namespace cuzk::server
