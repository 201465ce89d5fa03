// A setting's values: read from text, checked against the setting's bounds, written as text and as
// TOML, and described for help.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <toml++/toml.h>

#include "server/settings.hpp"
#include "server/size.hpp"
#include "server/utf8.hpp"

namespace cuzk::server {

namespace {

uint64_t parse_count_text(std::string_view text) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    throw std::invalid_argument("'" + std::string(text) + "' is not a non-negative integer");
  }
  return v;
}

double parse_seconds_text(std::string_view text) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    throw std::invalid_argument("'" + std::string(text) + "' is not a non-negative number of seconds");
  }
  return v;
}

std::vector<int> parse_devices_text(std::string_view text) {
  std::vector<int> out;
  if (text.empty()) return out;  // all visible
  size_t pos = 0;
  while (true) {
    size_t comma = text.find(',', pos);
    std::string_view one = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    uint64_t d = 0;
    try {
      d = parse_count_text(one);
    } catch (const std::invalid_argument&) {
      throw std::invalid_argument("'" + std::string(text) + "' is not a list of device numbers, e.g. 0,1");
    }
    out.push_back(int(std::min<uint64_t>(d, INT32_MAX)));
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
}

std::string exact_size_text(uint64_t v) {
  static const char* units[] = {"TiB", "GiB", "MiB", "KiB"};
  for (int i = 0; i < 4; i++) {
    int shift = 40 - 10 * i;
    if (v != 0 && v % (uint64_t(1) << shift) == 0) return std::to_string(v >> shift) + units[i];
  }
  return std::to_string(v);
}

std::string join(const std::vector<std::string_view>& words, std::string_view sep) {
  std::string s;
  for (std::string_view w : words) s += (s.empty() ? "" : std::string(sep)) + std::string(w);
  return s;
}

// A TOML basic string that reads back as exactly these bytes (toml++'s writer picks a literal
// '''...''' string for text with a newline, and TOML drops a newline right after its opening
// quotes); bytes that are not UTF-8 cannot be in a TOML document at all.
std::string toml_basic_string(std::string_view text) {
  if (const size_t bad = utf8_error_at(text); bad != std::string_view::npos) {
    throw std::invalid_argument("byte " + std::to_string(bad) +
                                " of the value is not UTF-8, which a TOML file cannot hold");
  }
  std::string out = "\"";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04X", unsigned(c));
          out += escaped;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

}  // namespace

SettingValue parse_setting_text(const Setting& s, std::string_view text) {
  SettingValue v;
  switch (s.kind) {
    case SettingKind::kSize:
      v = s.auto_is_zero && text == "auto" ? uint64_t(0) : parse_size(text);
      break;
    case SettingKind::kCount:
      v = parse_count_text(text);
      break;
    case SettingKind::kSeconds:
      v = parse_seconds_text(text);
      break;
    case SettingKind::kSwitch:
      if (text == "true") {
        v = true;
      } else if (text == "false") {
        v = false;
      } else {
        throw std::invalid_argument("expected true or false, not '" + std::string(text) + "'");
      }
      break;
    case SettingKind::kString:
    case SettingKind::kChoice:
      v = std::string(text);
      break;
    case SettingKind::kDevices:
      v = parse_devices_text(text);
      break;
    case SettingKind::kSocketMode:
      v = uint64_t(parse_socket_mode(text));
      break;
  }
  check_setting_value(s, v);
  return v;
}

void check_setting_value(const Setting& s, const SettingValue& v) {
  switch (s.kind) {
    case SettingKind::kSize: {
      uint64_t x = std::get<uint64_t>(v);
      if (x < s.min || x > s.max) {
        throw std::invalid_argument("must be from " + std::to_string(s.min) + " to " + std::to_string(s.max) +
                                    " bytes; got " + std::to_string(x));
      }
      break;
    }
    case SettingKind::kCount: {
      uint64_t x = std::get<uint64_t>(v);
      if (x < s.min || x > s.max) {
        throw std::invalid_argument("expected an integer in " + std::to_string(s.min) + ".." + std::to_string(s.max) +
                                    (x < s.min && s.min == 1 ? " (must be at least 1)" : "") + "; got " +
                                    std::to_string(x));
      }
      break;
    }
    case SettingKind::kSeconds: {
      double x = std::get<double>(v);
      if (!(x >= 0) || !(x <= double(s.max))) {
        std::ostringstream got;
        got << x;
        throw std::invalid_argument("expected a non-negative number of seconds, at most " + std::to_string(s.max) +
                                    "; got " + got.str());
      }
      break;
    }
    case SettingKind::kSwitch:
      break;
    case SettingKind::kString:
      if (s.validate) s.validate(std::get<std::string>(v));
      break;
    case SettingKind::kChoice: {
      const std::string& x = std::get<std::string>(v);
      bool known = false;
      for (std::string_view c : s.choices) known = known || c == x;
      if (!known) {
        throw std::invalid_argument("unknown " + std::string(s.key) + " '" + x + "' (valid: " + join(s.choices, ", ") +
                                    ")");
      }
      break;
    }
    case SettingKind::kDevices:
      for (int d : std::get<std::vector<int>>(v)) {
        if (d < 0 || uint64_t(d) > s.max) {
          throw std::invalid_argument("device numbers are 0.." + std::to_string(s.max) + "; got " + std::to_string(d));
        }
      }
      break;
    case SettingKind::kSocketMode: {
      uint64_t m = std::get<uint64_t>(v);
      if (m > 0777) throw std::invalid_argument("an octal mode is at most 0777");
      if ((m & 0600) != 0600) {
        throw std::invalid_argument(format_socket_mode(unsigned(m)) +
                                    " does not give the daemon's user read and write access (e.g. 0600 or 0660)");
      }
      break;
    }
  }
}

void apply_setting(const Setting& s, const SettingValue& v, DaemonConfig& cfg) {
  check_setting_value(s, v);
  s.set(cfg, v);
}

std::string setting_text(const Setting& s, const SettingValue& v) {
  switch (s.kind) {
    case SettingKind::kSize: {
      uint64_t x = std::get<uint64_t>(v);
      return x == 0 && s.auto_is_zero ? "auto" : exact_size_text(x);
    }
    case SettingKind::kCount:
      return std::to_string(std::get<uint64_t>(v));
    case SettingKind::kSeconds: {
      std::ostringstream o;
      o << std::get<double>(v);
      return o.str();
    }
    case SettingKind::kSwitch:
      return std::get<bool>(v) ? "true" : "false";
    case SettingKind::kString:
    case SettingKind::kChoice:
      return std::get<std::string>(v);
    case SettingKind::kDevices: {
      std::string out;
      for (int d : std::get<std::vector<int>>(v)) {
        if (!out.empty()) out += ',';
        out += std::to_string(d);
      }
      return out;
    }
    case SettingKind::kSocketMode:
      return format_socket_mode(unsigned(std::get<uint64_t>(v)));
  }
  return "";
}

std::string setting_toml(const Setting& s, const SettingValue& v) {
  std::ostringstream o;
  switch (s.kind) {
    case SettingKind::kSize:
    case SettingKind::kCount:
      // Integers (bytes for sizes) read back exactly; TOML integers are signed 64-bit.
      if (std::get<uint64_t>(v) > uint64_t(INT64_MAX)) {
        o << toml_basic_string(std::to_string(std::get<uint64_t>(v)));
      } else {
        o << toml::value<int64_t>(int64_t(std::get<uint64_t>(v)));
      }
      break;
    case SettingKind::kSeconds:
      o << toml::value<double>(std::get<double>(v));
      break;
    case SettingKind::kSwitch:
      o << (std::get<bool>(v) ? "true" : "false");
      break;
    case SettingKind::kString:
    case SettingKind::kChoice:
      o << toml_basic_string(std::get<std::string>(v));
      break;
    case SettingKind::kDevices: {
      toml::array a;
      for (int d : std::get<std::vector<int>>(v)) a.push_back(int64_t(d));
      o << a;
      break;
    }
    case SettingKind::kSocketMode:
      o << toml_basic_string(format_socket_mode(unsigned(std::get<uint64_t>(v))));
      break;
  }
  return o.str();
}

std::string setting_type_text(const Setting& s) {
  auto range = [&](const std::string& unit) {
    if (s.min == 0 && s.max == UINT64_MAX) return unit;
    return unit + " " + std::to_string(s.min) + ".." + std::to_string(s.max);
  };
  switch (s.kind) {
    case SettingKind::kSize:
      if (s.min == 0 && s.max == kMaxSize) return s.auto_is_zero ? "size or \"auto\"" : "size";
      return "size, " + exact_size_text(s.min) + " to " + std::to_string(s.max) + " bytes";
    case SettingKind::kCount:
      return range("integer");
    case SettingKind::kSeconds:
      return "seconds";
    case SettingKind::kSwitch:
      return "true/false";
    case SettingKind::kString:
      return "string";
    case SettingKind::kChoice:
      return join(s.choices, " | ");
    case SettingKind::kDevices:
      return "device list";
    case SettingKind::kSocketMode:
      return "octal mode";
  }
  return "";
}

}  // namespace cuzk::server
