#include "server/logging.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <stdexcept>

namespace cuzk::server {

void setup_logging(const std::string& level, const std::string& file) {
  static const char* names[] = {"trace", "debug", "info", "warn", "error", "critical", "off"};
  bool known = false;
  for (const char* n : names) known = known || level == n;
  if (!known) {
    throw std::invalid_argument("unknown log level '" + level +
                                "' (valid: trace, debug, info, warn, error, critical, off)");
  }
  std::vector<spdlog::sink_ptr> sinks{std::make_shared<spdlog::sinks::stderr_color_sink_mt>()};
  if (!file.empty()) {
    try {
      sinks.push_back(std::make_shared<spdlog::sinks::basic_file_sink_mt>(file));
    } catch (const spdlog::spdlog_ex& e) {
      throw std::invalid_argument("cannot open log file " + file + ": " + e.what());
    }
  }
  auto logger = std::make_shared<spdlog::logger>("cuzk", sinks.begin(), sinks.end());
  logger->set_level(spdlog::level::from_str(level));
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%-5l%$ %v");
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
}

}  // namespace cuzk::server
