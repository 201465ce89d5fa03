#include "server/settings.hpp"

#include "server/setting_builders.hpp"

namespace cuzk::server {

std::string Setting::name() const {
  return in_file() ? std::string(section) + "." + std::string(key) : std::string(flag);
}

std::string Setting::label() const {
  if (!in_file()) return std::string(flag);
  return flag.empty() ? name() : name() + " (" + std::string(flag) + ")";
}

const std::vector<Setting>& settings() {
  static const std::vector<Setting> table = [] {
    std::vector<Setting> t;
    setting_builders::add_daemon_settings(t);
    setting_builders::add_engine_settings(t);
    setting_builders::add_srs_settings(t);
    return t;
  }();
  return table;
}

const Setting* find_setting(std::string_view section, std::string_view key) {
  for (const Setting& s : settings()) {
    if (s.in_file() && s.section == section && s.key == key) return &s;
  }
  return nullptr;
}

const std::vector<std::string_view>& setting_sections() {
  static const std::vector<std::string_view> sections = {"daemon", "engine", "srs"};
  return sections;
}

}  // namespace cuzk::server
