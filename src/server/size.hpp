// Byte sizes as operators write them in flags and the TOML file ("64MiB", "4 GiB", "512M").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cuzk::server {

// The largest size: TOML integers, status JSON and metrics are signed 64-bit.
inline constexpr uint64_t kMaxSize = uint64_t(INT64_MAX);

// A plain number is bytes; K, M, G, T alone or followed by "iB" are powers of 1024, followed by
// "B" powers of 1000 ("8GB" is 8e9 bytes, as Curio reads it). Fractions are allowed with a
// suffix ("1.5GiB"). At most kMaxSize. Throws std::invalid_argument.
uint64_t parse_size(std::string_view text);
// "64 MiB", "1.50 GiB", "512 B".
std::string format_size(uint64_t bytes);

}  // namespace cuzk::server
