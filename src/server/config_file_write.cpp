// The configuration written back as TOML (cuzk-daemon --print-config): every setting with its
// help as a comment.
#include <sstream>
#include <string>
#include <string_view>

#include "server/config_file.hpp"
#include "server/settings.hpp"

namespace cuzk::server {

namespace {

// Help text as comment lines of at most ~100 characters.
void write_comment(std::ostringstream& out, std::string_view text) {
  std::string line;
  std::istringstream words{std::string(text)};
  for (std::string w; words >> w;) {
    if (!line.empty() && line.size() + 1 + w.size() > 98) {
      out << "# " << line << "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + w;
  }
  if (!line.empty()) out << "# " << line << "\n";
}

}  // namespace

std::string config_to_toml(const DaemonConfig& c) {
  std::ostringstream out;
  out << "# cuzk-daemon configuration (cuzk-daemon --print-config). Sizes are bytes, or text with\n"
         "# K/M/G/T (powers of 1024) or KB/MB/GB/TB (powers of 1000). Curio's cuzk.toml tables are read\n"
         "# too: README.md, \"Daemon\", lists their keys.\n";
  for (std::string_view section : setting_sections()) {
    out << "\n[" << section << "]\n";
    for (const Setting& s : settings()) {
      if (s.section != section) continue;
      write_comment(out, std::string(s.help) + " (" + setting_type_text(s) + "; flag " + std::string(s.flag) + ")");
      try {
        out << s.key << " = " << setting_toml(s, s.get(c)) << "\n";
      } catch (const std::invalid_argument& e) {
        throw ConfigError(s.label() + " cannot be written as TOML: " + e.what());
      }
    }
  }
  return out.str();
}

}  // namespace cuzk::server
