// What a configuration file must be before toml++ parses it: Debian's toml++ 3.3.0 has undefined
// behaviour on some malformed inputs and recurses without bound (toml_guard.cpp says which), so
// those are refused first, by name and line.
#pragma once

#include <cstddef>
#include <string>

namespace cuzk::server {

// A configuration file's most bytes (1 MiB: far above any real one).
inline constexpr size_t kMaxConfigBytes = size_t(1) << 20;

// Throws ConfigError naming `source`, the line and what is wrong; returns when toml++ may parse it.
void check_toml_input(const std::string& text, const std::string& source);

}  // namespace cuzk::server
