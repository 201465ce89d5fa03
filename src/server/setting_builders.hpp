// How the settings table's rows are written (settings_daemon.cpp, settings_engine.cpp,
// settings_srs.cpp): a row per kind of value, bound to its field of DaemonConfig. Only the table's
// files include it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/daemon_config.hpp"
#include "server/settings.hpp"
#include "server/size.hpp"

namespace cuzk::server::setting_builders {

template <class T>
struct Access {
  std::function<const T&(const DaemonConfig&)> get;
  std::function<T&(DaemonConfig&)> ref;
};

template <class T>
Access<T> field(T DaemonConfig::*m) {
  return {[m](const DaemonConfig& c) -> const T& { return c.*m; }, [m](DaemonConfig& c) -> T& { return c.*m; }};
}
template <class T>
Access<T> field(T engine::EngineConfig::*m) {
  return {[m](const DaemonConfig& c) -> const T& { return c.engine.*m; },
          [m](DaemonConfig& c) -> T& { return c.engine.*m; }};
}
template <class T>
Access<T> field(T SrsConfig::*m) {
  return {[m](const DaemonConfig& c) -> const T& { return c.srs.*m; }, [m](DaemonConfig& c) -> T& { return c.srs.*m; }};
}

inline Setting base(std::string_view section, std::string_view key, std::string_view flag, SettingKind kind,
                    std::string_view help) {
  Setting s;
  s.section = section;
  s.key = key;
  s.flag = flag;
  s.kind = kind;
  s.help = help;
  return s;
}

// Sizes and counts: any unsigned integer field.
template <class T>
inline Setting number(std::string_view section, std::string_view key, std::string_view flag, SettingKind kind,
                      Access<T> a, uint64_t min, uint64_t max, std::string_view help) {
  Setting s = base(section, key, flag, kind, help);
  s.min = min;
  s.max = max;
  s.get = [a](const DaemonConfig& c) { return SettingValue(uint64_t(a.get(c))); };
  s.set = [a](DaemonConfig& c, const SettingValue& v) { a.ref(c) = T(std::get<uint64_t>(v)); };
  return s;
}

template <class T>
inline Setting count(std::string_view section, std::string_view key, std::string_view flag, Access<T> a, uint64_t min,
                     uint64_t max, std::string_view help) {
  return number(section, key, flag, SettingKind::kCount, a, min, max, help);
}

inline Setting size(std::string_view section, std::string_view key, std::string_view flag, Access<uint64_t> a,
                    std::string_view help, uint64_t min = 0, uint64_t max = kMaxSize) {
  return number(section, key, flag, SettingKind::kSize, a, min, std::min(max, kMaxSize), help);
}

// The longest wait a seconds setting takes (~31 years): beyond it chrono conversions overflow.
inline constexpr uint64_t kMaxSeconds = 1'000'000'000;

inline Setting seconds(std::string_view section, std::string_view key, std::string_view flag, Access<double> a,
                       std::string_view help) {
  Setting s = base(section, key, flag, SettingKind::kSeconds, help);
  s.max = kMaxSeconds;
  s.get = [a](const DaemonConfig& c) { return SettingValue(a.get(c)); };
  s.set = [a](DaemonConfig& c, const SettingValue& v) { a.ref(c) = std::get<double>(v); };
  return s;
}

inline Setting toggle(std::string_view section, std::string_view key, std::string_view flag, Access<bool> a,
                      std::string_view help) {
  Setting s = base(section, key, flag, SettingKind::kSwitch, help);
  s.get = [a](const DaemonConfig& c) { return SettingValue(a.get(c)); };
  s.set = [a](DaemonConfig& c, const SettingValue& v) { a.ref(c) = std::get<bool>(v); };
  return s;
}

inline Setting text(std::string_view section, std::string_view key, std::string_view flag, Access<std::string> a,
                    std::string_view help, std::function<void(const std::string&)> validate = {}) {
  Setting s = base(section, key, flag, SettingKind::kString, help);
  s.validate = std::move(validate);
  s.get = [a](const DaemonConfig& c) { return SettingValue(a.get(c)); };
  s.set = [a](DaemonConfig& c, const SettingValue& v) { a.ref(c) = std::get<std::string>(v); };
  return s;
}

// A string field that takes one of a few words.
inline Setting word(std::string_view section, std::string_view key, std::string_view flag, Access<std::string> a,
                    std::vector<std::string_view> choices, std::string_view help) {
  Setting s = text(section, key, flag, a, help);
  s.kind = SettingKind::kChoice;
  s.choices = std::move(choices);
  return s;
}

// An enum field, through its name and parse functions.
template <class E>
inline Setting choice(std::string_view section, std::string_view key, std::string_view flag, Access<E> a,
                      std::string_view (*name)(E), E (*parse)(std::string_view), std::vector<E> values,
                      std::string_view help) {
  Setting s = base(section, key, flag, SettingKind::kChoice, help);
  for (E e : values) s.choices.push_back(name(e));
  s.get = [a, name](const DaemonConfig& c) { return SettingValue(std::string(name(a.get(c)))); };
  s.set = [a, parse](DaemonConfig& c, const SettingValue& v) { a.ref(c) = parse(std::get<std::string>(v)); };
  return s;
}

// The table's sections, each appending its rows in --print-config's order.
void add_daemon_settings(std::vector<Setting>& t);
void add_engine_settings(std::vector<Setting>& t);
void add_srs_settings(std::vector<Setting>& t);

}  // namespace cuzk::server::setting_builders
