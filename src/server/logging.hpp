// The daemon's log: spdlog's default logger (the engine logs through it too), to stderr and
// optionally to a file, flushed at every line of level info and above. Two formats: text (one
// line: time, level, message) and json (one JSON object per line, for log collectors).
#pragma once

#include <string>

namespace cuzk::server {

// level: trace, debug, info, warn, error, critical or off; format: text or json. Throws
// std::invalid_argument for an unknown level or format, or a file that cannot be opened.
void setup_logging(const std::string& level, const std::string& file, const std::string& format = "text");

}  // namespace cuzk::server
