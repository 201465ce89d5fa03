// Fuzz target: the client's commitment parser (cli/commitment_cid.hpp), which takes CommR and
// CommD as 64 hex digits or as the CIDs go-fil-commcid writes. Each input is parsed as a sealed
// and as an unsealed commitment. Oracle: refused only with std::invalid_argument; an accepted
// commitment is 32 bytes and a canonical field element, and its hex form and its CID (written
// here as go-fil-commcid writes it: multibase 'b', CIDv1, codec, multihash, 32 bytes) parse back to
// the same bytes.
#include "cli/commitment_cid.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "ff/fr.hpp"
#include "fuzz_check.hpp"

namespace {

void varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(char(uint8_t(v) | 0x80));
    v >>= 7;
  }
  out.push_back(char(v));
}

std::string cid_of(const std::string& raw, bool sealed) {
  std::string bytes;
  varint(bytes, 1);
  varint(bytes, sealed ? 0xf102 : 0xf101);
  varint(bytes, sealed ? 0xb401 : 0x1012);
  varint(bytes, 32);
  bytes += raw;
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
  std::string text = "b";
  uint32_t buffer = 0;
  int bits = 0;
  for (unsigned char c : bytes) {
    buffer = (buffer << 8) | c;
    bits += 8;
    while (bits >= 5) {
      text.push_back(kAlphabet[(buffer >> (bits - 5)) & 31]);
      bits -= 5;
    }
  }
  if (bits > 0) text.push_back(kAlphabet[(buffer << (5 - bits)) & 31]);
  return text;
}

std::string hex_of(const std::string& raw) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  for (unsigned char c : raw) {
    text.push_back(kDigits[c >> 4]);
    text.push_back(kDigits[c & 15]);
  }
  return text;
}

void check(const std::string& text, bool sealed) {
  std::string raw;
  try {
    raw = cuzk::cli::parse_commitment(text, "--comm", sealed);
  } catch (const std::invalid_argument&) {
    return;
  }
  CUZK_FUZZ_CHECK(raw.size() == 32);
  cuzk::ff::Fr x;
  CUZK_FUZZ_CHECK(cuzk::ff::Fr::from_bytes_le(reinterpret_cast<const uint8_t*>(raw.data()), x));
  try {
    CUZK_FUZZ_CHECK(cuzk::cli::parse_commitment(hex_of(raw), "--comm", sealed) == raw);
    CUZK_FUZZ_CHECK(cuzk::cli::parse_commitment(cid_of(raw, sealed), "--comm", sealed) == raw);
  } catch (const std::invalid_argument&) {
    CUZK_FUZZ_CHECK(!"the hex or CID form of an accepted commitment is refused");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  check(text, true);
  check(text, false);
  return 0;
}
