// Well-formed UTF-8 (RFC 3629): no stray or missing continuation bytes, no overlong forms, no
// surrogates, nothing beyond U+10FFFF. TOML files and their strings must be UTF-8.
#pragma once

#include <cstddef>
#include <string_view>

namespace cuzk::server {

// The offset of the first byte that is not part of well-formed UTF-8, or npos.
inline size_t utf8_error_at(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      i++;
      continue;
    }
    const size_t len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    bool ok = len != 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; k++) ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (ok && len >= 3) {
      const auto d = static_cast<unsigned char>(s[i + 1]);
      ok = len == 3 ? !(c == 0xE0 && d < 0xA0) && !(c == 0xED && d >= 0xA0)   // overlong; surrogate
                    : !(c == 0xF0 && d < 0x90) && !(c == 0xF4 && d >= 0x90);  // overlong; beyond U+10FFFF
    }
    if (!ok) return i;
    i += len;
  }
  return std::string_view::npos;
}

}  // namespace cuzk::server
