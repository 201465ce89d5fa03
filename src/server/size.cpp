#include "server/size.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace cuzk::server {

uint64_t parse_size(std::string_view text) {
  auto fail = [&](const std::string& why) -> uint64_t {
    throw std::invalid_argument("bad size '" + std::string(text) + "': " + why +
                                " (examples: 1073741824, 512MiB, 4GiB, 1.5G)");
  };
  std::string_view s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  std::string number(s.substr(0, i));
  if (number.empty() || number.find('.') != number.rfind('.') ||
      number.find_first_of("0123456789") == std::string::npos) {
    return fail("no number");
  }
  std::string_view unit = s.substr(i);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  // K, M, G, T alone or with "iB" are powers of 1024; with "B" powers of 1000 (as Curio reads them).
  uint64_t multiplier = 1;
  if (!unit.empty()) {
    int power = 0;
    switch (std::toupper(static_cast<unsigned char>(unit.front()))) {
      case 'B':
        power = 0;
        break;
      case 'K':
        power = 1;
        break;
      case 'M':
        power = 2;
        break;
      case 'G':
        power = 3;
        break;
      case 'T':
        power = 4;
        break;
      default:
        return fail("unknown unit");
    }
    std::string_view rest = unit.substr(1);
    bool binary = rest.empty() || rest == "iB" || rest == "ib";
    bool decimal = rest == "B" || rest == "b";
    if (power == 0 ? !rest.empty() : !(binary || decimal)) return fail("unknown unit");
    for (int p = 0; p < power; p++) multiplier *= decimal ? 1000 : 1024;
  }
  // Sizes travel as signed 64-bit integers (TOML, status JSON, metrics): 2^63 would print negative.
  const std::string too_large = "too large: at most " + std::to_string(kMaxSize) + " bytes (8EiB - 1)";
  if (number.find('.') == std::string::npos) {
    uint64_t v = 0;
    for (char c : number) {
      uint64_t digit = uint64_t(c - '0');
      if (v > (kMaxSize - digit) / 10) return fail(too_large);
      v = v * 10 + digit;
    }
    if (v > kMaxSize / multiplier) return fail(too_large);
    return v * multiplier;
  }
  if (multiplier == 1) return fail("a fraction of a byte");
  double v = std::strtod(number.c_str(), nullptr) * double(multiplier);
  // 2^63 is exactly representable; anything from it on does not fit (and the cast would be UB).
  if (!(v < 9223372036854775808.0)) return fail(too_large);
  v = std::round(v);
  if (!(v < 9223372036854775808.0)) return fail(too_large);
  return uint64_t(v);
}

std::string format_size(uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char buf[32];
  if (u == 0 || v == std::floor(v)) {
    std::snprintf(buf, sizeof buf, "%.0f %s", v, units[u]);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f %s", v, units[u]);
  }
  return buf;
}

}  // namespace cuzk::server
