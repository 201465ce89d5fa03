#include "kinds/base64.hpp"

#include <array>
#include <stdexcept>

namespace cuzk::kinds {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<int8_t, 256> decode_table() {
  std::array<int8_t, 256> t{};
  for (auto& v : t) v = -1;
  for (int i = 0; i < 64; i++) t[uint8_t(kAlphabet[i])] = int8_t(i);
  return t;
}

}  // namespace

std::string base64_decode(std::string_view text) {
  static constexpr auto kTable = decode_table();
  if (text.size() % 4 != 0) {
    throw std::invalid_argument("base64 of " + std::to_string(text.size()) + " characters (not a multiple of 4)");
  }
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    uint32_t acc = 0;
    int pad = 0;
    for (size_t j = 0; j < 4; j++) {
      const char ch = text[i + j];
      if (ch == '=' && last && j >= 2) {
        pad++;
        acc <<= 6;
        continue;
      }
      const int8_t v = kTable[uint8_t(ch)];
      if (v < 0 || pad > 0) throw std::invalid_argument("not base64 at offset " + std::to_string(i + j));
      acc = acc << 6 | uint32_t(v);
    }
    out.push_back(char(acc >> 16));
    if (pad < 2) out.push_back(char(acc >> 8 & 0xff));
    if (pad < 1) out.push_back(char(acc & 0xff));
  }
  return out;
}

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t n = std::min<size_t>(3, bytes.size() - i);
    uint32_t acc = uint32_t(uint8_t(bytes[i])) << 16;
    if (n > 1) acc |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    if (n > 2) acc |= uint32_t(uint8_t(bytes[i + 2]));
    out.push_back(kAlphabet[acc >> 18 & 63]);
    out.push_back(kAlphabet[acc >> 12 & 63]);
    out.push_back(n > 1 ? kAlphabet[acc >> 6 & 63] : '=');
    out.push_back(n > 2 ? kAlphabet[acc & 63] : '=');
  }
  return out;
}

}  // namespace cuzk::kinds
