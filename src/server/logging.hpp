// The daemon's log: spdlog's default logger (the engine logs through it too), to stderr and
// optionally to a file, flushed at every line of level info and above.
#pragma once

#include <string>

namespace cuzk::server {

// Throws std::invalid_argument for an unknown level or a file that cannot be opened.
void setup_logging(const std::string& level, const std::string& file);

}  // namespace cuzk::server
