// Fuzz target: parse_address (the daemon's --listen and the client's --address). Oracle: an
// accepted address's grpc_target() parses back to the same address, and is a fixed point.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "server/address.hpp"

using namespace cuzk::server;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ListenAddress a;
  try {
    a = parse_address(text);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  const std::string target = a.grpc_target();
  ListenAddress b;
  try {
    b = parse_address(target);
  } catch (const std::invalid_argument&) {
    CUZK_FUZZ_CHECK(!"the canonical form of an accepted address is refused");
  }
  CUZK_FUZZ_CHECK(b.is_unix == a.is_unix);
  CUZK_FUZZ_CHECK(b.path == a.path);
  CUZK_FUZZ_CHECK(b.host == a.host);
  CUZK_FUZZ_CHECK(b.port == a.port);
  CUZK_FUZZ_CHECK(b.grpc_target() == target);
  // A socket path never carries a NUL: the kernel would cut it short.
  CUZK_FUZZ_CHECK(a.path.find('\0') == std::string::npos);
  return 0;
}
