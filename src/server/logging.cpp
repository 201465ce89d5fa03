#include "server/logging.hpp"

#include <chrono>
#include <ctime>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <stdexcept>

namespace cuzk::server {

namespace {

void append(spdlog::memory_buf_t& dest, std::string_view s) { dest.append(s.data(), s.data() + s.size()); }

// s as the inside of a JSON string: quotes, backslashes and control characters escaped. Bytes
// from 0x80 up pass through (log messages are UTF-8).
void append_json_string(spdlog::memory_buf_t& dest, std::string_view s) {
  static const char hex[] = "0123456789abcdef";
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        append(dest, "\\\"");
        break;
      case '\\':
        append(dest, "\\\\");
        break;
      case '\n':
        append(dest, "\\n");
        break;
      case '\r':
        append(dest, "\\r");
        break;
      case '\t':
        append(dest, "\\t");
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char esc[] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
          dest.append(esc, esc + 6);
        } else {
          dest.push_back(ch);
        }
    }
  }
}

// {"timestamp":"2026-12-04T10:11:12.345678Z","level":"info","message":"...","thread":1234}
class JsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    using namespace std::chrono;
    auto since_epoch = msg.time.time_since_epoch();
    std::time_t secs = duration_cast<seconds>(since_epoch).count();
    auto micros = duration_cast<microseconds>(since_epoch).count() % 1000000;
    std::tm utc{};
    gmtime_r(&secs, &utc);
    char stamp[48];
    size_t n = std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &utc);
    std::snprintf(stamp + n, sizeof stamp - n, ".%06dZ", int(micros));
    append(dest, "{\"timestamp\":\"");
    append(dest, stamp);
    append(dest, "\",\"level\":\"");
    auto level = spdlog::level::to_string_view(msg.level);
    append(dest, std::string_view(level.data(), level.size()));
    append(dest, "\",\"message\":\"");
    append_json_string(dest, std::string_view(msg.payload.data(), msg.payload.size()));
    append(dest, "\",\"thread\":");
    append(dest, std::to_string(msg.thread_id));
    append(dest, "}\n");
  }
  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<JsonFormatter>(); }
};

}  // namespace

void setup_logging(const std::string& level, const std::string& file, const std::string& format) {
  static const char* names[] = {"trace", "debug", "info", "warn", "error", "critical", "off"};
  bool known = false;
  for (const char* n : names) known = known || level == n;
  if (!known) {
    throw std::invalid_argument("unknown log level '" + level +
                                "' (valid: trace, debug, info, warn, error, critical, off)");
  }
  if (format != "text" && format != "json") {
    throw std::invalid_argument("unknown log format '" + format + "' (valid: text, json)");
  }
  const bool json = format == "json";
  std::vector<spdlog::sink_ptr> sinks;
  // Colours only in text; a JSON line must stay plain.
  if (json) {
    sinks.push_back(std::make_shared<spdlog::sinks::stderr_sink_mt>());
  } else {
    sinks.push_back(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  }
  if (!file.empty()) {
    try {
      sinks.push_back(std::make_shared<spdlog::sinks::basic_file_sink_mt>(file));
    } catch (const spdlog::spdlog_ex& e) {
      throw std::invalid_argument("cannot open log file " + file + ": " + e.what());
    }
  }
  auto logger = std::make_shared<spdlog::logger>("cuzk", sinks.begin(), sinks.end());
  logger->set_level(spdlog::level::from_str(level));
  if (json) {
    logger->set_formatter(std::make_unique<JsonFormatter>());
  } else {
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%-5l%$ %v");
  }
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
}

}  // namespace cuzk::server
